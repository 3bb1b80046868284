#!/usr/bin/env bash
# kgate action, mode: bisect (docs/bisect.md), a job of its own after the
# night's, with no id-token. Tonight's files (KA_NIGHT_DIR, downloaded from
# the night's job) join a copy of the history as the branch has it
# (KA_HISTORY_DIR; the publish job makes the same history), and `kgate
# history check` says whether a regression finding is open; if one is,
# `kgate bisect --history` walks its range of this repository (the nights'
# commits by their provenance: each night's GITHUB_SHA; the first-parent
# commits only, each a reviewed merge or squash), building the module at
# each commit with the team's bisect-build-command in an environment without
# a token, `--within HEAD` (no commit outside this branch). bisect.json goes
# to KA_WORK/out (uploaded; a hosted job that builds nothing attests it, and
# the page shows its culprit), the Markdown to the step summary. Outputs:
# bisect (none, or the outcome), culprit, json, code; a bisect that could
# not run (2, 3) is an ::error:: and the output code, which the verdict step
# fails the job on.
set -uo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
kgate="${KA_PREFIX:?}/bin/kgate"
outdir="${KA_WORK:?}/out"
night=${KA_NIGHT_DIR:-$KA_WORK/night}
bis="$KA_WORK/bisect"

# No answer: why, as an ::error::, and the code the verdict step fails on.
stop() { # CODE OUTCOME MESSAGE
  echo "::error::kgate bisect: ${3//$'\n'/ }"
  out bisect "$2"
  out code "$1"
  exit 0
}

for f in paired.json control.json; do
  [[ -f $night/$f ]] || { echo "kgate bisect: tonight's $f is missing: nothing to bisect"; out bisect none; exit 0; }
done
rm -rf "$bis/history"
mkdir -p "$bis/history"
hist="$bis/history/${KA_HISTORY:?}"
if [[ ${KA_HAVE_BRANCH:-} == success && -f ${KA_HISTORY_DIR:?}/$KA_HISTORY ]]; then
  cp "$KA_HISTORY_DIR/$KA_HISTORY" "$hist"
else
  echo "kgate bisect: no $KA_HISTORY on the history branch yet: tonight is the first night"
fi
ack=()
[[ -z ${KA_ACK:-} || ! -f $KA_ACK ]] || ack=(--ack "$KA_ACK")
mkdir -p "$outdir"
"$kgate" history add "$night/paired.json" --control "$night/control.json" --file "$hist" > "$bis/history.log" 2>&1 ||
  stop 2 bad-input "kgate history add refuses tonight's night or the branch's history: $(tail -n1 "$bis/history.log")"
code=0
"$kgate" history check "$hist" "${ack[@]}" > "$bis/check.log" 2>&1 || code=$?
case $code in
  0) echo "kgate bisect: no regression finding is open tonight: nothing to bisect"; out bisect none; exit 0 ;;
  4) ;;
  2) stop 2 bad-input "kgate history check refuses the history: $(tail -n1 "$bis/check.log")" ;;
  *) stop 3 environment "kgate history check exited $code: $(tail -n1 "$bis/check.log")" ;;
esac

# The build's environment, as the night's own build has it (build-module.sh).
export PATH="/usr/local/cuda/bin:$PATH"
export KGATE_PREFIX=$KA_PREFIX
export KGATE_CUDA_ARCHITECTURES=${KA_ARCH:?}
export CMAKE_PREFIX_PATH="$KGATE_PREFIX${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
arch=${KA_ARCH%%;*}   # the card's: the first of the list
arch=${arch%%[!0-9]*} # 90a -> 90
set -f
read -r -a sources <<< "${KA_BISECT_SOURCES:-}"
set +f
args=(bisect --history "$hist" "${ack[@]}" --within HEAD --build "${KA_BISECT_BUILD:?}" --module "${KA_BISECT_MODULE:?}"
      --work "$bis/work" --json "$outdir/bisect.json" --markdown "${GITHUB_STEP_SUMMARY:-/dev/null}"
      --link "${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:?}/commit/")
[[ -z $arch ]] || args+=(--arch "$arch")
for s in "${sources[@]}"; do args+=(--source "$s"); done
printf 'kgate action (bisect):'; printf ' %q' "$kgate" "${args[@]}"; echo
rm -f "$outdir/bisect.json"
"$kgate" "${args[@]}" 2>&1 | tee "$outdir/bisect.log"
code=${PIPESTATUS[0]}
# The outcome and culprit as kgate wrote them (a key a line, its own writer's layout).
outcome='' culprit=''
if [[ -f $outdir/bisect.json ]]; then
  outcome=$(sed -n 's/^"outcome":"\([a-z-]*\)",$/\1/p' "$outdir/bisect.json")
  culprit=$(sed -n 's/^"culprit":"\([0-9a-f]\{40\}\)",$/\1/p' "$outdir/bisect.json")
  out json "$outdir/bisect.json"
fi
case $code in
  0 | 1 | 4)
    [[ -n $outcome ]] || stop 3 environment "kgate bisect exited $code and wrote no result"
    echo "::notice::kgate bisect: $outcome${culprit:+ ($culprit)} (exit $code; docs/bisect.md)"
    out bisect "$outcome"
    out culprit "$culprit"
    out code "$code" ;;
  2) stop 2 "${outcome:-bad-input}" "kgate bisect exited 2 (bad input): see its lines above" ;;
  *) stop 3 "${outcome:-environment}" "kgate bisect exited $code (3: the environment): see its lines above" ;;
esac
