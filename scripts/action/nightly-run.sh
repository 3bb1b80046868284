#!/usr/bin/env bash
# kgate action, nightly mode: tonight's module paired against the pinned
# reference, then the control (the reference's copy against the reference:
# `--kernels CTL.so --base-kernels REF.so`; the copy's variant names are the
# reference's, as head and base always share names, and none of kgate's own,
# so no --own-kernels), both checked against the pin file (`--reference`).
# Writes KA_WORK/out/paired.json and control.json and their logs. Exit 4 (a
# cell decided SLOWER on this night) is recorded, not a failure: the
# detector in `kgate history check` judges the series.
set -uo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
outdir="${KA_WORK:?}/out"
kgate="${KA_PREFIX:?}/bin/kgate"
head_so="$KA_WORK/head/module.so"
ref_so="$KA_WORK/ref/module.so"
ctl_so="$KA_WORK/ctl/module.so"
mkdir -p "$outdir"
out results "$outdir/paired.json"
out paired true
[[ ${KA_ROUNDS:-16} =~ ^[0-9]+$ ]] || die "input rounds: '$KA_ROUNDS' is not a number" 2

common=(run --sizes 1 --rounds "${KA_ROUNDS:-16}" --reference "${KA_PINS:?}" --base-kernels "$ref_so")
[[ -z ${KA_PERF_SIZES:-} ]] || common+=(--perf-sizes "$KA_PERF_SIZES")
[[ -z ${KA_MIN_EFFECT:-} ]] || common+=(--min-effect "$KA_MIN_EFFECT")
[[ -z ${KA_DEVICES:-} ]] || common+=(--devices "$KA_DEVICES")
set -f
read -r -a extra <<< "${KA_ARGS:-}"
set +f
# The module's own variants (cub_sum is not in the reference: it would only be NEW).
variants() { # MODULE -> the --variant list, or "all"
  if [[ -n ${KA_VARIANTS:-} ]]; then
    echo "$KA_VARIANTS"
  else
    local v
    v=$(module_variants "$kgate" "$1") || return 1
    echo "${v%,cub_sum}"
  fi
}
vhead=$(variants "$head_so") || die "cannot list the variants of tonight's module"
vctl=$(variants "$ctl_so") || die "cannot list the variants of the reference"
night() { # NAME MODULE VARIANTS
  local code v=()
  [[ $3 == all ]] || v=(--variant "$3")
  local args=("${common[@]}" --kernels "$2" "${v[@]}" --json "$outdir/$1.json" "${extra[@]}")
  printf 'kgate action (%s):' "$1"; printf ' %q' "$kgate" "${args[@]}"; echo
  "$kgate" "${args[@]}" 2>&1 | tee "$outdir/$1.log"
  code=${PIPESTATUS[0]}
  echo "kgate action: $1: exit $code"
  return "$code"
}
code=0
night paired "$head_so" "$vhead" || code=$?
if [[ $code == 0 || $code == 4 ]]; then
  ctl=0
  night control "$ctl_so" "$vctl" || ctl=$?
  # The control's own SLOWER is noise the detector measures; anything else ends the night.
  [[ $ctl == 0 || $ctl == 4 ]] || code=$ctl
fi
case "$code" in
  0) verdict=passed ;;
  4) verdict=slower ;;
  1) verdict=correctness ;;
  2) verdict=input-error ;;
  3) verdict=environment ;;
  *) verdict=error ;;
esac
[[ $code == 4 ]] && echo "::notice::kgate nightly: a cell was SLOWER than the reference tonight; history check decides"
if [[ ( $code == 0 || $code == 4 ) && -f $outdir/paired.json && -f $outdir/control.json ]]; then
  out complete 1
fi
out code "$code"
out verdict "$verdict"
{
  echo "**kgate nightly**: tonight's module paired against the pinned reference (\`$KA_PINS\`), and the control: exit $code."
  echo
} >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
