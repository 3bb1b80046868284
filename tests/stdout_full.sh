#!/bin/bash
# A failed write to standard output is an output that cannot be written
# (README, exit codes): exit 2 with one line on stderr, for any command,
# never exit 0. /dev/full fails every write with ENOSPC; a closed standard
# output fails with EBADF. A command that fails (exit 1, 3) keeps its code.
# usage: stdout_full.sh KGATE SOURCE_DIR
set -u
kgate=$1 data=$2/tests/data
[ -w /dev/full ] || { echo "stdout_full: skipped: no /dev/full here"; exit 77; }
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "stdout_full: $*"; exit 1; }
full() { # CODE ARGS...: kgate ARGS > /dev/full exits CODE with one 'cannot write' line on stderr
  local want=$1 got
  shift
  "$kgate" "$@" > /dev/full 2> "$t/err"
  got=$?
  [ "$got" = "$want" ] || { cat "$t/err"; fail "kgate $* > /dev/full: exit $got, expected $want"; }
  [ "$(grep -c 'cannot write' "$t/err")" = 1 ] || fail "kgate $* > /dev/full: not one line: $(cat "$t/err")"
}
full 2 list
grep -qx 'kgate: cannot write to standard output: No space left on device' "$t/err" || fail "list: $(cat "$t/err")"
[ "$(wc -l < "$t/err")" = 1 ] || fail "list: more than one line: $(cat "$t/err")"
full 2 --help
full 2 --version
full 2 help compare
full 2 list --json -
full 2 compare "$data/h200-run1.json" "$data/h200-run2.json"
full 2 compare "$data/h200-run1.json" "$data/h200-run2.json" --json -
full 2 lint "$data/sass/cub_reduce_sm90_O3.nvdisasm"
full 1 lint "$data/sass/mut_fence_after_sm80_O3.nvdisasm" # a finding stays a finding
"$kgate" list >&- 2> "$t/err"
[ $? = 2 ] && grep -q 'cannot write to standard output: Bad file descriptor' "$t/err" || fail "closed stdout: $(cat "$t/err")"
"$kgate" list > /dev/null 2> "$t/err" || fail "list > /dev/null: exit $?"
echo "stdout_full: a failed write to standard output exits 2 with one line"
