#!/usr/bin/env bash
# Every file a trusted GPU job handed over must carry a build-provenance
# attestation made by WORKFLOW on the default branch of this repository, in
# this very run (any attempt); otherwise exit 1 before anything reads it.
#   scripts/ci/verify-attestations.sh WORKFLOW.yml FILE...
# Needs gh and jq, GH_TOKEN (attestations: read), and GitHub's default
# variables; DEFAULT_BRANCH from the event.
set -euo pipefail
workflow=${1:?usage: verify-attestations.sh WORKFLOW.yml FILE...}
shift
[[ $# -gt 0 ]] || { echo "::error::verify-attestations: no files to verify" >&2; exit 1; }
repo=${GITHUB_REPOSITORY:?}
run="${GITHUB_SERVER_URL:?}/$repo/actions/runs/${GITHUB_RUN_ID:?}/attempts/"
for f in "$@"; do
  if [[ ! -f $f || -L $f ]]; then
    echo "::error::verify-attestations: $f is not a plain file" >&2
    exit 1
  fi
  if ! said=$(gh attestation verify "$f" --repo "$repo" \
                --signer-workflow "$repo/.github/workflows/$workflow" \
                --source-ref "refs/heads/${DEFAULT_BRANCH:?}" --format json); then
    echo "::error::verify-attestations: $f has no valid attestation from $workflow on ${DEFAULT_BRANCH}" >&2
    exit 1
  fi
  # Signed by the workflow is not enough: a file from an older night would pass.
  if ! jq -e --arg run "$run" \
         'any(.[]; .verificationResult.signature.certificate.runInvocationURI | startswith($run))' \
         <<< "$said" >/dev/null; then
    echo "::error::verify-attestations: $f was attested by another run, not ${GITHUB_RUN_ID}" >&2
    exit 1
  fi
  echo "attested by this run: $f"
done
