#!/usr/bin/env bash
# kgate nightly publish (publish/action.yml): before anything reads them, every
# file the GPU job handed over must carry a build-provenance attestation made
# by this workflow on the default branch in this run (scripts/ci/
# verify-attestations.sh, as kgate's own nightly does), and the two files the
# night needs must be there, as plain files.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
dir=${KP_DIR:?}
wf=${KP_WORKFLOW_REF:?}
wf=${wf%%@*}
wf=${wf##*/}
[[ $wf =~ ^[A-Za-z0-9_.-]+\.ya?ml$ ]] || die "cannot tell this workflow's file from '$KP_WORKFLOW_REF'"
for f in paired.json control.json; do
  [[ -f $dir/$f && ! -L $dir/$f ]] ||
    die "the GPU job handed over no $f (its nightly run did not finish: see that job)"
done
mapfile -d '' files < <(find "$dir" -type f -print0 | LC_ALL=C sort -z)
"$(dirname "$0")/../ci/verify-attestations.sh" "$wf" "${files[@]}"
