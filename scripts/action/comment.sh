#!/usr/bin/env bash
# kgate comment action (comment/action.yml): post the comment kgate wrote in
# the gate job (`kgate run --comment`, in the artifact downloaded to KA_DIR)
# and keep one comment per marker up to date. Runs on a hosted runner with no
# pull-request code and no kgate: the file came from the job that ran the
# pull request's code, so kgate_post_comment.py defuses it (no HTML, link,
# image or mention) before it adds the marker and the run's link.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z ${KA_CODE:-} ]]; then
  echo "::notice::kgate comment: the gate gave no exit code (it stopped before kgate ran); no comment"
  exit 0
fi
[[ $KA_CODE =~ ^[0-9]{1,3}$ ]] || die "input exit-code: '$KA_CODE' is not an exit code" 2
body="${RUNNER_TEMP:?}/kgate-comment/comment.md"
mkdir -p "$(dirname "$body")"
if ! python3 "$here/../kgate_post_comment.py" compose "${KA_DIR:?}/comment.md" --exit-code "$KA_CODE" \
       --marker "${KA_MARKER:-kgate}" --url "${KA_RUN_URL:-}" -o "$body"; then
  echo "::warning::kgate comment: no pull-request comment (kgate_post_comment.py said why, above)"
  exit 0
fi
python3 "$here/../kgate_post_comment.py" post "$body" --marker "${KA_MARKER:-kgate}"
