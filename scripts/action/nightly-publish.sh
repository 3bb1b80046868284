#!/usr/bin/env bash
# kgate nightly publish (publish/action.yml), with the host-only kgate and no
# token: the night (paired.json, control.json: already verified) into the
# history file on the branch checked out at KP_PAGES (a new branch when it has
# none), the page into KP_SITE (and beside the history with site: branch),
# the detector's findings in the step summary (output findings: 0, or 4
# while a regression is open), and a local commit that the push step sends.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
kgate=${KP_KGATE:?} dir=${KP_DIR:?} pages=${KP_PAGES:?} site=${KP_SITE:?}
valid_ref "${KP_BRANCH:-}" || die "input branch: '${KP_BRANCH:-}' is not a plain branch name" 2
[[ ${KP_HISTORY:-} =~ ^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.jsonl$ ]] ||
  die "input history: '${KP_HISTORY:-}' is not a file name ending in .jsonl" 2
case ${KP_SITE_MODE:-pages} in
  pages | branch | none) ;;
  *) die "input site: '$KP_SITE_MODE' is not pages, branch or none" 2 ;;
esac
if [[ ${KP_HAVE_BRANCH:-} != success ]]; then
  echo "::notice::kgate nightly: no branch $KP_BRANCH yet; starting the history"
  rm -rf "$pages"
  git init -q -b "$KP_BRANCH" "$pages"
fi
ack=()
if [[ -n ${KP_ACK:-} && -f $KP_ACK ]]; then
  ack=(--ack "$KP_ACK")
elif [[ -n ${KP_ACK:-} ]]; then
  echo "kgate nightly: no $KP_ACK: no finding is acknowledged"
fi
# kgate's readers refuse a bad file with exit 2: the job stops before anything is pushed.
"$kgate" history add "$dir/paired.json" --control "$dir/control.json" --file "$pages/$KP_HISTORY"
# Links to commits and compare ranges (the page validates and escapes them).
export KGATE_REPO_URL="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}"
rm -rf "$site"
"$kgate" report "$dir/paired.json" --html "$site" --history "$pages/$KP_HISTORY" "${ack[@]}"
code=0
"$kgate" history check "$pages/$KP_HISTORY" "${ack[@]}" --summary "${GITHUB_STEP_SUMMARY:-/dev/null}" || code=$?
[[ $code == 0 || $code == 4 ]] || die "kgate history check exited $code" "$code"
out findings "$code"
out site "$site"
cd "$pages"
if [[ $KP_SITE_MODE == branch ]]; then
  cp -r "$site"/. .
  touch .nojekyll # the page's files as they are, no Jekyll build
fi
git config user.name "kgate nightly"
git config user.email "kgate-nightly@users.noreply.github.com"
git add -A
git commit -q -m "kgate nightly ${KP_RUN_ID:-}" || echo "::notice::kgate nightly: the history is unchanged"
