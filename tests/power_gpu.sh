#!/bin/bash
# The sequential paired gate measured on a GPU, in one call (issue 47): its
# power at the minimum effect m, its false SLOWER at m/2, its A/A false
# verdicts, and the gate's time with every cell paired and with nothing
# changed. Everything (each command's stdout and stderr, the results files
# of the A/A runs, a summary) goes into OUTDIR/power-gpu/ and one tar,
# OUTDIR/power-gpu.tar.gz.
#
#   power_gpu.sh BUILD OUTDIR [BUDGET_S] [N]
#
# BUILD: a build folder (configured with -DCMAKE_CUDA_ARCHITECTURES=90 for an
# H100) holding kgate, libkgate_kernels.so and libkgate_selftest.so.
# BUDGET_S (default 480): the script's own wall time; a step that would not
# fit what is left is not started, and the summary says what was left out.
# N (default 12): selftest runs of the planted slowdowns (mut_slow_m25,
# mut_slow_half25 at 2^25, mut_slow_m22, mut_slow_half22 at 2^22, mut_none
# at both): about 15-25 s each.
# Then, each as time allows: 2 gates with every cell paired (--time-unchanged,
# the base a copy of the module: 240 A/A cells each, about 30-45 s), one plain
# run made into a baseline (its check record), and 2 gates with nothing
# changed carrying over from it (--carry-from, about 4-5 s).
#
# Exit 0 when every step ran (the numbers are the result: nothing is
# asserted about them), 77 without a GPU, 1 when a step could not run, 2 on
# bad arguments. `power_gpu.sh --summary DIR` only writes DIR/summary.json
# from the logs already in DIR (the CPU part; tests/CMakeLists.txt runs it
# on made-up logs, power_gpu_summary).
set -u

# ---- the summary: counts from the logs, no GPU -----------------------------
# selftest's table rows: "| mut_slow_m25 | ... | 2^25 SLOWER +0.52% [...] ... | caught |"
verdicts_of() { # FILE... MUTANT SIZE: one verdict per line
  local mutant=${*: -2:1} size=${*: -1}
  set -- "${@:1:$(($# - 2))}"
  [ $# -gt 0 ] || return 0
  cat "$@" 2>/dev/null | grep "^| $mutant |" | grep -o "2^$size [A-Z]*" | cut -d' ' -f2
}
count() { grep -c "^$1\$" || true; }
json_counts() { # the verdicts of a list, as JSON
  local v=$1
  printf '{"SLOWER":%d,"FASTER":%d,"SAME":%d,"UNDECIDED":%d,"other":%d}' "$(count SLOWER <<<"$v")" \
    "$(count FASTER <<<"$v")" "$(count SAME <<<"$v")" "$(count UNDECIDED <<<"$v")" \
    "$(grep -cvE '^(SLOWER|FASTER|SAME|UNDECIDED)?$' <<<"$v" || true)"
}
# paired cells of a results file: {"variant":"x","dtype":"f32","n":4194304,"verdict":"SAME",...
cell_verdicts() { grep -o '{"variant":"[^"]*","dtype":"[^"]*","n":[0-9]*,"verdict":"[A-Z]*"' "$@" 2>/dev/null |
  sed 's/.*"verdict":"//; s/"$//'; }
# the results' wall time and paired phase: "wall_s":12.3 ... "paired_s":4.5
num_of() { grep -o "\"$1\":[0-9.e+-]*" "$2" 2>/dev/null | head -1 | cut -d: -f2; }
times_of() { # KIND FILE...: a JSON list of {"file","wall_s","paired_s","rounds_s"}
  local first=1 f
  printf '['
  for f in "${@:2}"; do
    [ -s "$f" ] || continue
    [ $first = 1 ] || printf ','
    first=0
    printf '{"file":"%s","wall_s":%s,"paired_s":%s}' "$(basename "$f")" "$(num_of wall_s "$f")" \
      "$(num_of paired_s "$f")"
  done
  printf ']'
}

summary() {
  local d=$1 sts aa
  shopt -s nullglob
  sts=("$d"/selftest-*.txt)
  aa=("$d"/every-*.json)
  {
    printf '{"kind":"kgate-power-gpu","selftest_runs":%d,' "${#sts[@]}"
    printf '"device":"%s",' "$(head -1 "$d/device.txt" 2>/dev/null | tr -d '"\\')"
    printf '"m_2_25":%s,' "$(json_counts "$(verdicts_of "${sts[@]}" mut_slow_m25 25)")"
    printf '"half_m_2_25":%s,' "$(json_counts "$(verdicts_of "${sts[@]}" mut_slow_half25 25)")"
    printf '"m_2_22":%s,' "$(json_counts "$(verdicts_of "${sts[@]}" mut_slow_m22 22)")"
    printf '"half_m_2_22":%s,' "$(json_counts "$(verdicts_of "${sts[@]}" mut_slow_half22 22)")"
    printf '"aa_none_2_25":%s,' "$(json_counts "$(verdicts_of "${sts[@]}" mut_none 25)")"
    printf '"aa_none_2_22":%s,' "$(json_counts "$(verdicts_of "${sts[@]}" mut_none 22)")"
    printf '"aa_cells":%s,' "$(json_counts "$(cell_verdicts "${aa[@]}")")"
    printf '"every_cell_paired":%s,' "$(times_of every "${aa[@]}")"
    printf '"nothing_changed":%s,' "$(times_of nothing "$d"/nothing-*.json)"
    printf '"left_out":"%s"}\n' "$(tr '\n' ' ' < "$d/left_out.txt" 2>/dev/null | tr -d '"\\')"
  } > "$d/summary.json"
}

# --self-test: made-up logs of two selftest runs and one A/A results file
# must give the counts they hold (what ctest runs as power_gpu_summary).
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
  row() { echo "| $1 | planted | $2 | 2^$3 $4 +0.50% [+0.30, +0.70] (m 0.50%, delta0 0.25%; 3 rounds, LLR 6.1) | caught |"; }
  { row mut_slow_m25 slower 25 SLOWER; row mut_slow_half25 not_slower 25 SAME; row mut_slow_m22 slower 22 SLOWER
    echo "| mut_none | no bug | same | 2^22 SAME +0.01% [-0.2, +0.2] (m 1.00%); 2^25 SAME +0.00% [-0.1, +0.1] (m 0.50%) | caught |"
  } > "$t/selftest-1.txt"
  { row mut_slow_m25 slower 25 UNDECIDED; row mut_slow_half25 not_slower 25 SLOWER; row mut_slow_half22 not_slower 22 SAME
  } > "$t/selftest-2.txt"
  printf '%s\n' '{"kind":"kgate-results","run":{"wall_s":31.5},"phases":{"paired_s":20.25},"paired":{"cells":[' \
    '{"variant":"a","dtype":"f32","n":4194304,"verdict":"SAME","ratio":1.0},' \
    '{"variant":"b","dtype":"i32","n":33554432,"verdict":"UNDECIDED","ratio":1.0},' \
    '{"variant":"c","dtype":"i32","n":33554432,"verdict":"SLOWER","ratio":1.0}],' \
    '"variants":[{"variant":"a","n":4194304,"verdict":"SAME"}]}}' > "$t/every-1.json"
  echo "NVIDIA H100 80GB HBM3" > "$t/device.txt"
  echo "nothing-changed run 2 (needs about 15 s, 3 s left)" > "$t/left_out.txt"
  "$0" --summary "$t" > /dev/null || { echo "power_gpu: self-test: --summary failed"; exit 1; }
  s=$(cat "$t/summary.json")
  for want in '"selftest_runs":2' '"m_2_25":{"SLOWER":1,"FASTER":0,"SAME":0,"UNDECIDED":1,"other":0}' \
    '"half_m_2_25":{"SLOWER":1,"FASTER":0,"SAME":1,"UNDECIDED":0,"other":0}' '"m_2_22":{"SLOWER":1,' \
    '"half_m_2_22":{"SLOWER":0,"FASTER":0,"SAME":1,' '"aa_none_2_25":{"SLOWER":0,"FASTER":0,"SAME":1,' \
    '"aa_cells":{"SLOWER":1,"FASTER":0,"SAME":1,"UNDECIDED":1,"other":0}' \
    '"every_cell_paired":[{"file":"every-1.json","wall_s":31.5,"paired_s":20.25}]' '"nothing_changed":[]' \
    '"device":"NVIDIA H100 80GB HBM3"' '"left_out":"nothing-changed run 2 (needs about 15 s, 3 s left) "'; do
    grep -qF "$want" <<<"$s" || { echo "power_gpu: self-test: the summary lacks $want: $s"; exit 1; }
  done
  if command -v python3 > /dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$t/summary.json" ||
      { echo "power_gpu: self-test: the summary is not JSON"; exit 1; }
  fi
  # no GPU (an nvidia-smi that fails): skipped with 77 before anything runs
  mkdir -p "$t/bin" "$t/build"
  printf '#!/bin/sh\nexit 9\n' > "$t/bin/nvidia-smi"
  printf '#!/bin/sh\necho ran > "$(dirname "$0")/ran"\n' > "$t/build/kgate"
  chmod +x "$t/bin/nvidia-smi" "$t/build/kgate"
  : > "$t/build/libkgate_kernels.so"
  : > "$t/build/libkgate_selftest.so"
  PATH="$t/bin:$PATH" "$0" "$t/build" "$t/out" > "$t/skip.txt" 2>&1
  code=$?
  [ $code = 77 ] && grep -q "power_gpu: skipped: no GPU" "$t/skip.txt" && [ ! -e "$t/build/ran" ] ||
    { echo "power_gpu: self-test: without a GPU it exited $code: $(cat "$t/skip.txt")"; exit 1; }
  echo "power_gpu: self-test: the summary counts the made-up logs right; no GPU skips with 77"
  exit 0
fi

if [ "${1:-}" = --summary ]; then
  [ -d "${2:-}" ] || { echo "usage: power_gpu.sh --summary DIR"; exit 2; }
  summary "$2"
  cat "$2/summary.json"
  exit 0
fi

# ---- the GPU part -------------------------------------------------------------
[ $# -ge 2 ] || { echo "usage: power_gpu.sh BUILD OUTDIR [BUDGET_S] [N]"; exit 2; }
build=$(cd "$1" && pwd) || exit 2
outdir=$2 budget=${3:-480} runs=${4:-12}
kgate=$build/kgate
[ -x "$kgate" ] && [ -f "$build/libkgate_kernels.so" ] && [ -f "$build/libkgate_selftest.so" ] ||
  { echo "power_gpu: $build lacks kgate, libkgate_kernels.so or libkgate_selftest.so"; exit 2; }
if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "power_gpu: skipped: no GPU (nvidia-smi -L failed)"
  exit 77
fi
d=$outdir/power-gpu
mkdir -p "$d/base" "$d/baselines" "$d/cache"
export KGATE_CACHE_DIR=$d/cache
cp "$build/libkgate_kernels.so" "$d/base/" # the A/A base: a copy of the module
nvidia-smi -L > "$d/device.txt" 2>&1
nvidia-smi >> "$d/device.txt" 2>&1
git -C "$(dirname "$0")/.." rev-parse HEAD > "$d/commit.txt" 2>/dev/null
: > "$d/left_out.txt"
. "$(dirname "$0")/gpu_steps.sh"
failed=0

# 1. the planted slowdowns and the A/A control, N selftest runs
for i in $(seq 1 "$runs"); do
  fits 40 "selftest run $i of $runs" || break
  step "selftest-$i" "$kgate" selftest --only mut_slow_m25,mut_slow_half25,mut_slow_m22,mut_slow_half22,mut_none
  code=$?
  [ $code = 3 ] && [ "$i" = 1 ] && { echo "power_gpu: skipped: $(grep -m1 '^kgate: ' "$d/selftest-1.err")"; exit 77; }
  [ $code = 0 ] || [ $code = 4 ] || [ $code = 1 ] || failed=1 # 1: a row missed, which is a result here
done

# 2. every cell paired, A/A: 240 cells a run, and the gate's time
for i in 1 2; do
  fits 60 "every-cell-paired run $i" || break
  step "every-$i" "$kgate" run --base-kernels "$d/base/libkgate_kernels.so" --time-unchanged --json "$d/every-$i.json" ||
    { [ $? = 4 ] || failed=1; } # 4: a false SLOWER, which is a result here
done

# 3. nothing changed, carrying over from a baseline this kgate made
if fits 80 "the baseline and the nothing-changed gates"; then
  step baseline-run "$kgate" run --json "$d/baseline-run.json" || failed=1
  step baseline-update "$kgate" baseline update "$d/baseline-run.json" --baseline-dir "$d/baselines" || failed=1
  for i in 1 2; do
    fits 15 "nothing-changed run $i" || break
    step "nothing-$i" "$kgate" run --base-kernels "$d/base/libkgate_kernels.so" --carry-from "$d/baselines" \
      --baseline-dir "$d/baselines" --json "$d/nothing-$i.json" || { [ $? = 4 ] || failed=1; }
  done
  rm -f "$d/baseline-run.json" # 20 MB of cases; the baseline keeps what the runs read
fi

rm -rf "$d/cache" "$d/base"
echo "total $(($(date +%s) - t0)) s of a budget of $budget s" >> "$d/steps.txt"
summary "$d"
gzip -q "$d"/every-*.json "$d"/nothing-*.json 2>/dev/null
tar -czf "$outdir/power-gpu.tar.gz" -C "$outdir" power-gpu
cat "$d/summary.json"
echo "power_gpu: $(cat "$d/steps.txt" | tail -1); tar: $outdir/power-gpu.tar.gz"
exit $failed
