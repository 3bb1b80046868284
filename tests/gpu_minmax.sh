#!/bin/bash
# A team's min/max kernel module (tests/modules/gpu_minmax.cu) through the
# real kgate on a GPU: listed with its ops, its cases pass on every pattern
# and dtype, a planted NaN-policy bug is caught, it is timed with a ratio to
# CUB, and a paired run pairs it by name with its base build.
# usage: gpu_minmax.sh KGATE MODULE.so BUG_MODULE.so   (exit 77 without a GPU)
set -u
. "$(dirname "$0")/skip_gpu.sh"
kgate=$1 mod=$2 bug=$3
out=$(mktemp -d /tmp/kg_gpu_minmax_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "gpu_minmax: FAIL: $*"; exit 1; }

"$kgate" list --kernels "$mod" > "$out/list" || fail "list exited $?"
grep -Eq '^team_max +team +max nan:ignore ' "$out/list" || fail "list lacks team_max's op: $(cat "$out/list")"
grep -Eq '^team_min +team +min nan:propagate ' "$out/list" || fail "list lacks team_min's op"

# 1. the whole matrix (every size of the edge list, every pattern, six dtypes)
"$kgate" check --kernels "$mod" --variant team_min,team_max,cub_sum -q --json "$out/check.json" > "$out/check.txt" 2>&1
code=$?
[ $code = 3 ] && skip_gpu gpu_minmax $code "$out/check.txt"
[ $code = 0 ] || { cat "$out/check.txt"; fail "check exited $code"; }
grep -q '"op":"max","nan":"ignore"' "$out/check.json" || fail "the results lack team_max's facts"
echo "gpu_minmax: check: $(grep '^summary' "$out/check.txt")"

# 2. the planted bug: team_max declares NaN ignore but propagates
"$kgate" check --kernels "$bug" --variant team_max --pattern nan --sizes 33,1000003 > "$out/bug.txt" 2>&1
code=$?
[ $code = 1 ] || { cat "$out/bug.txt"; fail "the NaN-policy bug exited $code, not 1"; }
grep -q 'returned NaN but the variant declares NaN ignore' "$out/bug.txt" || fail "no NaN-policy reason: $(cat "$out/bug.txt")"
echo "gpu_minmax: planted bug caught: $(grep -c 'declares NaN ignore' "$out/bug.txt") failed cases"

# 3. timed beside CUB
"$kgate" run --kernels "$mod" --variant team_max,cub_sum --dtype f32,i32 --sizes 1,2^22 --perf-sizes 2^22 \
  --baseline-dir "$out" -q --json "$out/run.json" > "$out/run.txt" 2>&1
code=$?
[ $code = 0 ] || { cat "$out/run.txt"; fail "run exited $code"; }
grep -E '^team_max \(max\) +f32 +4194304 ' "$out/run.txt" || fail "no timing row for team_max: $(cat "$out/run.txt")"

# 4. paired: the team's head against its base build (here the same module: A/A), kgate's own too;
# the same machine code is proven UNCHANGED, and --time-unchanged pairs it anyway
own=$(dirname "$kgate")/libkgate_kernels.so
paired() { # name, then more options
  local name=$1; shift
  "$kgate" run --kernels "$mod" --base-kernels "$mod" --base-kernels "$own" --variant team_max,cub_sum --dtype f32 \
    --sizes 2^22 --perf-sizes 2^22 --baseline-dir "$out" -q --json "$out/$name.json" "$@" > "$out/$name.txt" 2>&1
  code=$?
  [ $code = 0 ] || { cat "$out/$name.txt"; fail "paired run ($name) exited $code"; }
}
paired unchanged
grep -Eq '"variant":"team_max","dtype":"f32","n":4194304,"verdict":"UNCHANGED"' "$out/unchanged.json" ||
  fail "team_max against itself not UNCHANGED: $(grep -o '"cells".*' "$out/unchanged.json" | head -c 600)"
paired paired --time-unchanged
grep -Eq '"variant":"team_max","dtype":"f32","n":4194304,"verdict":"(SAME|UNDECIDED)"' "$out/paired.json" ||
  fail "team_max not paired as A/A: $(grep -o '"cells".*' "$out/paired.json" | head -c 600)"
echo "gpu_minmax: ok"
