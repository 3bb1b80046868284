#!/bin/bash
# What the timer's guard costs (issue 50's goal: the default gate's time
# grows by at most 10 %), measured on a GPU in one call: the default gate
# (`kgate run`, every case checked and timed, no --carry-from, no stored
# baseline) with the build before and the build after, alternately, ROUNDS
# times each (B A, A B, B A, ...: neither build always runs first), one
# shared cache folder (roofline, references) warmed first by an untimed
# run. Then, from the after build's results: the guard's evidence (cold
# verdicts, re-check kinds) and any refusal or wrong_after_timing, which on
# kgate's own variants would be a false one.
#
#   timing_cost_gpu.sh BEFORE_BUILD AFTER_BUILD OUTDIR [ROUNDS] [BUDGET_S]
#
# BEFORE_BUILD, AFTER_BUILD: build folders holding kgate and
# libkgate_kernels.so. ROUNDS (default 3). BUDGET_S (default 540): the
# script's own wall time; a run that would not fit what is left (by the last
# run's time) is not started, and the summary says how many were left out.
# PAIRED=1 adds to each round a paired gate per build (--base-kernels, its
# own module copied: the nightly's shape; --time-unchanged, so that every
# cell is paired and re-checked in the rounds, the most a pull request's
# gate can pair, rather than proven unchanged and left untimed). Everything goes to OUTDIR
# (each run's results, terminal output and log; summary.txt).
#
# Exit 0 when the runs ran (the numbers are the result: nothing is asserted
# about them), 77 without a GPU, 1 when a run failed to run, 2 on bad
# arguments. `timing_cost_gpu.sh --summary DIR` only writes DIR/summary.txt
# from the results already in DIR (tests/CMakeLists.txt runs it on made-up
# results: timing_cost_summary).
set -u

num_of() { grep -o "\"$1\":[0-9.e+-]*" "$2" 2>/dev/null | head -1 | cut -d: -f2; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
  else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# the median of a results field over DIR/KIND-*.json
median_of() { local f; for f in "$1"/"$2"-[0-9]*.json; do [ -s "$f" ] && num_of "$3" "$f"; done | median; }
count_in() { cat "$1"/after-[0-9]*.json 2>/dev/null | grep -o "$2" | wc -l; }

summary() {
  local dir=$1 kind field
  {
    echo "timing_cost_gpu: the default gate, before and after, medians over the runs"
    for kind in before after paired-before paired-after; do
      ls "$dir"/"$kind"-[0-9]*.json > /dev/null 2>&1 || continue
      printf '%-14s runs %d' "$kind" "$(ls "$dir"/"$kind"-[0-9]*.json | wc -l)"
      for field in wall_s check_s timing_s paired_s; do
        printf '  %s %s' "$field" "$(median_of "$dir" "$kind" "$field")"
      done
      echo
    done
    for kind in "" paired-; do
      local b a
      b=$(median_of "$dir" "${kind}before" wall_s) a=$(median_of "$dir" "${kind}after" wall_s)
      [ "$b" != nan ] && [ "$a" != nan ] &&
        awk -v b="$b" -v a="$a" -v k="${kind:-default }" 'BEGIN {printf "%sgate: after / before = %.4f (%+.1f %%)\n",
          k, a / b, (a / b - 1) * 100}'
    done
    echo "after build's guard, over its results:"
    printf '  cold: verified %d, not_verified %d, too_large %d, hot %d\n' "$(count_in "$dir" '"cold":"verified"')" \
      "$(count_in "$dir" '"cold":"not_verified"')" "$(count_in "$dir" '"cold":"too_large"')" \
      "$(count_in "$dir" '"cold":"hot"')"
    printf '  recheck: exact %d, bounded %d, weak %d, none %d\n' "$(count_in "$dir" '"recheck":"exact"')" \
      "$(count_in "$dir" '"recheck":"bounded"')" "$(count_in "$dir" '"recheck":"weak"')" \
      "$(count_in "$dir" '"recheck":"none"')"
    printf '  false failures on kgate'"'"'s own variants: refused %d, wrong_after_timing %d\n' \
      "$(count_in "$dir" '"fail":"refused"')" "$(count_in "$dir" '"fail":"wrong_after_timing"')"
    cat "$dir"/after-[0-9]*.json 2>/dev/null | grep -o '"cold_why":"[^"]\+"' | sort | uniq -c | head -5
    [ -s "$dir/left-out" ] && echo "left out (budget): $(cat "$dir/left-out")"
  } > "$dir/summary.txt"
}

self_test() {
  local d
  d=$(mktemp -d /tmp/kg_timing_cost_XXXXXX)
  trap 'rm -rf "$d"' RETURN
  for k in 1 2 3; do
    echo "{\"run\":{\"wall_s\":$((100 + k)),\"phases\":{\"check_s\":10,\"timing_s\":50}}}" > "$d/before-$k.json"
    echo "{\"run\":{\"wall_s\":$((104 + k)),\"phases\":{\"check_s\":10,\"timing_s\":54}}," \
      "\"cases\":[{\"guard\":{\"cold\":\"verified\",\"recheck\":\"exact\"}}]}" > "$d/after-$k.json"
  done
  summary "$d"
  grep -q '^default gate: after / before = 1.0392 (+3.9 %)$' "$d/summary.txt" &&
    grep -q 'cold: verified 3, not_verified 0' "$d/summary.txt" &&
    grep -q 'refused 0, wrong_after_timing 0' "$d/summary.txt" ||
    { cat "$d/summary.txt"; echo "timing_cost_gpu: FAIL: the summary"; return 1; }
  echo "timing_cost_gpu: summary ok"
}

case "${1:-}" in
--self-test) self_test; exit $? ;;
--summary) summary "${2:?usage: timing_cost_gpu.sh --summary DIR}"; cat "$2/summary.txt"; exit 0 ;;
esac
[ $# -ge 3 ] || { echo "usage: timing_cost_gpu.sh BEFORE_BUILD AFTER_BUILD OUTDIR [ROUNDS] [BUDGET_S]" >&2; exit 2; }
before=$1 after=$2 out=$3 rounds=${4:-3} budget=${5:-540}
for b in "$before" "$after"; do
  [ -x "$b/kgate" ] && [ -f "$b/libkgate_kernels.so" ] ||
    { echo "timing_cost_gpu: no kgate and module in $b" >&2; exit 2; }
done
mkdir -p "$out/baselines" "$out/base"
export KGATE_CACHE_DIR=$out/cache
start=$SECONDS last=0

# NAME BUILD [ARGS]: one gate, its results NAME.json, output NAME.txt, log NAME.err; its time in $last
gate() {
  local name=$1 build=$2 t0=$SECONDS
  shift 2
  if [ $((SECONDS - start + last)) -gt "$budget" ]; then echo -n "$name " >> "$out/left-out"; return 0; fi
  "$build/kgate" run --baseline-dir "$out/baselines" --json "$out/$name.json" "$@" \
    > "$out/$name.txt" 2> "$out/$name.err"
  local code=$?
  last=$((SECONDS - t0))
  [ $code = 3 ] && { echo "timing_cost_gpu: skipped: $(grep -m1 '^kgate: ' "$out/$name.err" | cut -c8-)"; exit 77; }
  [ $code = 0 ] || [ $code = 1 ] || [ $code = 4 ] ||
    { cat "$out/$name.err"; echo "timing_cost_gpu: $name exited $code"; exit 1; }
}

# A build without its shipped references (kgate-refs.txt beside kgate) makes every input's
# reference on the CPU in its first run (14 s of a 14 s gate on an H100): not what it costs.
for b in "$before" "$after"; do
  [ -s "$b/kgate-refs.txt" ] || { echo "timing_cost_gpu: no kgate-refs.txt beside $b/kgate (a build folder has it)" >&2; exit 2; }
done
# warm the cache (the roofline, the references) untimed, with each build
gate warm-before "$before" --variant cub_sum --dtype f32 --sizes 2^22 --perf-sizes 2^22
gate warm-after "$after" --variant cub_sum --dtype f32 --sizes 2^22 --perf-sizes 2^22
last=0
for ((k = 1; k <= rounds; k++)); do
  order=(before after)
  [ $((k % 2)) = 1 ] && order=(after before)
  for which in "${order[@]}"; do
    build=$before
    [ "$which" = after ] && build=$after
    gate "$which-$k" "$build"
    if [ "${PAIRED:-0}" = 1 ]; then
      cp "$build/libkgate_kernels.so" "$out/base/$which.so"
      gate "paired-$which-$k" "$build" --base-kernels "$out/base/$which.so" --time-unchanged
    fi
  done
done
summary "$out"
cat "$out/summary.txt"
