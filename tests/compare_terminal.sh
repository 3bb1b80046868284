#!/bin/bash
# compare's table as a person reads it: on a terminal the changed rows only,
# and a line that counts the SAME ones left out and names --all (as asv
# continuous prints); --all prints every row there; a pipe or a file gets
# every row (scripts, logs and the golden reports). The terminal is a pty
# from util-linux's script(1). NEW's own paired SLOWER cells are named in a
# line of their own, so "0 SLOWER" then REGRESSION (exit 4) says why.
# usage: compare_terminal.sh KGATE SOURCE_DIR
set -u
kgate=$1 data=$2/tests/data
command -v script >/dev/null || { echo "compare_terminal: skipped: no script(1) here"; exit 77; }
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "compare_terminal: $*"; exit 1; }
old=$data/h200-run1.json new=$data/h200-run2.json
script -qec "'$kgate' compare '$old' '$new'" /dev/null > "$t/tty" || fail "on a terminal: exit $?"
grep -q '^only changed: 240 SAME cells of 240 left out of the table (--all prints them; --json keeps every cell)' "$t/tty" ||
  { cat "$t/tty"; fail "on a terminal: no 'only changed' line"; }
if grep -q '^SAME ' "$t/tty"; then fail "on a terminal: SAME rows printed"; fi
script -qec "'$kgate' compare '$old' '$new' --all" /dev/null > "$t/all" || fail "--all: exit $?"
[ "$(grep -c '^SAME ' "$t/all")" = 240 ] || fail "--all on a terminal: not 240 SAME rows"
if grep -q '^only changed' "$t/all"; then fail "--all on a terminal: rows left out"; fi
"$kgate" compare "$old" "$new" > "$t/pipe" || fail "to a file: exit $?"
[ "$(grep -c '^SAME ' "$t/pipe")" = 240 ] || fail "to a file: not 240 SAME rows"
"$kgate" compare "$old" "$new" --only-changed > "$t/only"
grep -q '^only changed: 240 SAME cells of 240 left out of the table (--json keeps every cell)' "$t/only" ||
  fail "--only-changed to a file: no 'only changed' line"
rc=0; "$kgate" compare "$data/h200-paired.json" "$data/h200-paired.json" > "$t/paired" || rc=$?
[ "$rc" = 4 ] || fail "a paired file against itself: exit $rc, expected 4 (its own SLOWER cells)"
grep -q '^verdicts: 0 SLOWER' "$t/paired" &&
  grep -q '^paired: .* carries its own run against its base build (.*): 2 SLOWER, .*its SLOWER cells decide the verdict' "$t/paired" &&
  grep -q '^  SLOWER two_pass i32 n=33554432: +1.20% ' "$t/paired" ||
  { cat "$t/paired"; fail "a paired file against itself: no line names its SLOWER cells"; }
if grep -q 'warning:' "$t/paired"; then fail "a file against itself: a card warning (one measurement, one card)"; fi
echo "compare_terminal: the changed rows on a terminal, every row with --all or to a file; NEW's paired SLOWER named"
