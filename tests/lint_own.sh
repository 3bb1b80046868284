#!/usr/bin/env bash
# kgate lint on kgate's own modules, with the toolkit's real disassembler:
# libkgate_kernels.so (what every check and run lints) is clean, its waiver
# shown; libkgate_selftest.so has a finding in each fence mutant's kernel at
# every architecture and in no real variant's. Skips (77) without cuobjdump.
# Usage: lint_own.sh KGATE KERNELS.so SELFTEST.so
set -u
kgate=$1 own=$2 selftest=$3
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "lint_own: $*"; exit 1; }
command -v cuobjdump > /dev/null || [ -x /usr/local/cuda/bin/cuobjdump ] || { echo "lint_own: no cuobjdump: skipped"; exit 77; }
"$kgate" lint "$own" > "$t/own" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$t/own"; fail "kgate lint $own: exit $rc, expected 0"; }
grep -q '^single_pass: waived: ' "$t/own" || fail "the single_pass waiver is not shown: $(cat "$t/own")"
"$kgate" lint "$selftest" > "$t/st" 2>&1
rc=$?
[ "$rc" = 1 ] || { tail -3 "$t/st"; fail "kgate lint $selftest: exit $rc, expected 1"; }
archs=$(grep -o '(sm_[0-9]*)' "$t/st" | sort -u | wc -l)
for m in none block one_branch after relaxed no_acquire; do
  n=$(grep -o "^_Z[0-9]*mut_fence_${m}_kernel[^ ]* (sm_[0-9]*)" "$t/st" | sort -u | wc -l)
  [ "$n" = "$archs" ] || fail "mut_fence_$m: findings at $n of $archs architectures"
done
others=$(grep '^_Z.* (sm_[0-9]*): ' "$t/st" | grep -vc 'mut_fence_')
[ "$others" = 0 ] || fail "$others findings outside the fence mutants: $(grep '^_Z.* (sm_' "$t/st" | grep -v mut_fence_ | head -3)"
echo "lint_own: $(basename "$own") clean (single_pass waived), each fence mutant found at $archs architectures in $(basename "$selftest")"
