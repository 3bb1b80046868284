#!/usr/bin/env bash
# kgate action: `kgate run --kernels HEAD.so [--base-kernels BASE.so]`, its
# reports in KA_WORK/out and a line on top of the job summary (kgate appends
# its own Markdown report to $GITHUB_STEP_SUMMARY). The pull-request comment is
# kgate's too (--comment, out/comment.md): comment/action.yml posts it from the
# artifact, in a job that runs no pull-request code and no kgate. Never fails
# itself: the verdict step turns the exit code into the job's result.
set -uo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
outdir="${KA_WORK:?}/out"
kgate="${KA_PREFIX:?}/bin/kgate"
head_so="$KA_WORK/head/module.so"
base_so="$KA_WORK/base/module.so"
results="$outdir/results.json"
out results "$results"

args=(run --kernels "$head_so" --json "$results" --junit "$outdir/junit.xml"
      --markdown "$outdir/summary.md" --csv "$outdir/results.csv" --comment "$outdir/comment.md")
paired=false
if [[ ${KA_PAIRED:-0} == 1 && -f $base_so ]]; then
  args+=(--base-kernels "$base_so")
  paired=true
fi
if [[ ${KA_PLOTS:-true} == true ]]; then
  if command -v gnuplot >/dev/null; then
    args+=(--plots "$outdir/plots")
  else
    echo "::warning::kgate action: gnuplot not found on the runner: no charts (apt-get install gnuplot-nox)"
  fi
fi
[[ -z ${KA_PERF_SIZES:-} ]] || args+=(--perf-sizes "$KA_PERF_SIZES")
[[ -z ${KA_MIN_EFFECT:-} ]] || args+=(--min-effect "$KA_MIN_EFFECT")
[[ -z ${KA_TOLERANCE:-} ]] || args+=(--tolerance "$KA_TOLERANCE")
[[ -z ${KA_DEVICES:-} ]] || args+=(--devices "$KA_DEVICES")
# Extra arguments: split on white space only; no glob, no quote removal, no evaluation.
set -f
read -r -a extra <<< "${KA_ARGS:-}"
set +f
# With --kernels kgate gates the module's variants alone: name them and
# cub_sum (the reference row for "vs CUB"), unless the input says which.
variants=${KA_VARIANTS:-}
if [[ -z $variants ]]; then
  for a in "${extra[@]}"; do [[ $a != --variant ]] || variants=all; done
fi
if [[ -z $variants ]]; then
  if mine=$(module_variants "$kgate" "$head_so"); then
    variants=$mine
  else
    echo "::warning::kgate action: cannot list the module's variants; gating them without the cub_sum reference row"
    variants=all
  fi
fi
[[ $variants == all ]] || args+=(--variant "$variants")
args+=("${extra[@]}")
out paired "$paired"

{
  if [[ $paired == true ]]; then
    echo "**kgate**: paired gate against the base \`${KA_BASE_SHA:0:12}\`: only a decided SLOWER fails (exit 4)."
  else
    echo "**kgate**: not paired (no usable base module: see the warnings); correctness and timings only."
  fi
  echo
} >> "${GITHUB_STEP_SUMMARY:-/dev/null}"

printf 'kgate action:'; printf ' %q' "$kgate" "${args[@]}"; echo
"$kgate" "${args[@]}" 2>&1 | tee "$outdir/kgate.log"
code=${PIPESTATUS[0]}
case "$code" in
  0) verdict=passed ;;
  1) verdict=correctness ;;
  2) verdict=input-error ;;
  3) verdict=environment ;;
  4) verdict=slower ;;
  *) verdict=error ;;
esac
out code "$code"
out verdict "$verdict"
echo "kgate action: exit $code ($verdict)"

exit 0
