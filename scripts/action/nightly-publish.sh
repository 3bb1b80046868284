#!/usr/bin/env bash
# kgate nightly publish (publish/action.yml, mode: render), in a read-only job
# with the host-only kgate and no token: the night (paired.json, control.json:
# already verified) into the history file read from the branch checked out at
# KP_PAGES (none yet: a new history), the page into KP_SITE (with the bisect
# job's bisect/bisect.json when it made one: the culprit in its finding's box), the detector's
# findings in the step summary (output findings: 0, or 4 while a regression is
# open). The new history (and, with site: branch, the page's files) go into
# KP_HANDOVER for the push job (publish/push/action.yml), with their manifest
# and the branch commit they were built on (outputs manifest and base).
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
ci="$(dirname "$0")/../ci"
kgate=${KP_KGATE:?} dir=${KP_DIR:?} pages=${KP_PAGES:?} site=${KP_SITE:?} handover=${KP_HANDOVER:?}
publish_inputs
[[ ${KP_HANDOVER_NAME:-} =~ ^[A-Za-z0-9_.-]+$ ]] || die "input artifact-name: '${KP_HANDOVER_NAME:-}' is not a plain name" 2
if [[ ${KP_HAVE_BRANCH:-} == success ]]; then
  base=$(git -C "$pages" rev-parse HEAD)
else
  echo "::notice::kgate nightly: no branch $KP_BRANCH yet; starting the history"
  rm -rf "$pages"
  mkdir -p "$pages"
  base=none
fi
ack=()
if [[ -n ${KP_ACK:-} && -f $KP_ACK ]]; then
  ack=(--ack "$KP_ACK")
elif [[ -n ${KP_ACK:-} ]]; then
  echo "kgate nightly: no $KP_ACK: no finding is acknowledged"
fi
# kgate's readers refuse a bad file with exit 2: the job stops before anything is handed over.
"$kgate" history add "$dir/paired.json" --control "$dir/control.json" --file "$pages/$KP_HISTORY"
# Links to commits and compare ranges (the page validates and escapes them).
export KGATE_REPO_URL="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}"
rm -rf "$site"
page=("$kgate" report "$dir/paired.json" --html "$site" --history "$pages/$KP_HISTORY" "${ack[@]}")
# The bisect job's file (action.yml, mode: bisect), verified with the night's files: the page names
# its culprit in the finding's box. A file kgate refuses leaves the page without it.
if [[ -f $dir/bisect/bisect.json && ! -L $dir/bisect/bisect.json ]]; then
  code=0
  "${page[@]}" --bisect "$dir/bisect/bisect.json" || code=$?
  if [[ $code == 2 ]]; then
    echo "::error::kgate nightly: kgate refuses the GPU job's bisect.json (the line above): the page without it"
    "${page[@]}"
  elif [[ $code != 0 ]]; then
    exit "$code"
  fi
else
  "${page[@]}"
fi
code=0
"$kgate" history check "$pages/$KP_HISTORY" "${ack[@]}" --summary "${GITHUB_STEP_SUMMARY:-/dev/null}" || code=$?
[[ $code == 0 || $code == 4 ]] || die "kgate history check exited $code" "$code"

# What the push takes: the history, and the page's plain files (site: branch)
# but for its copy of the history (the branch's own is beside it).
rm -rf "$handover"
mkdir -p "$handover"
cp "$pages/$KP_HISTORY" "$handover/"
if [[ $KP_SITE_MODE == branch ]]; then
  mkdir "$handover/site"
  for f in "$site"/*; do
    b=${f##*/}
    [[ -f $f && ! -L $f && $b != *.jsonl ]] || continue
    cp "$f" "$handover/site/"
  done
fi
out findings "$code"
out site "$site"
out base "$base"
out handover "$KP_HANDOVER_NAME"
out manifest "$("$ci/manifest.sh" "$handover")"
