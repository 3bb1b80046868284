#!/usr/bin/env bash
# kgate nightly publish (publish/action.yml): before anything reads them, the
# files the GPU job handed over. KP_VERIFY=true (mode: verify, a read-only job,
# GH_TOKEN with attestations: read): every file must carry a build-provenance
# attestation made by this workflow on the default branch in this run
# (scripts/ci/verify-attestations.sh, as kgate's own nightly does); outputs
# their manifest. Otherwise (mode: render, read-only, no token): they must be
# the very files verified, KP_MANIFEST. Either way the two files the night
# needs must be there, as plain files.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
dir=${KP_DIR:?}
ci="$(dirname "$0")/../ci"
for f in paired.json control.json; do
  [[ -f $dir/$f && ! -L $dir/$f ]] ||
    die "the GPU job handed over no $f (its nightly run did not finish: see that job)"
done
if [[ ${KP_VERIFY:-false} == true ]]; then
  wf=${KP_WORKFLOW_REF:?}
  wf=${wf%%@*}
  wf=${wf##*/}
  [[ $wf =~ ^[A-Za-z0-9_.-]+\.ya?ml$ ]] || die "cannot tell this workflow's file from '$KP_WORKFLOW_REF'"
  mapfile -d '' files < <(find "$dir" -type f -print0 | LC_ALL=C sort -z)
  "$ci/verify-attestations.sh" "$wf" "${files[@]}"
  out manifest "$("$ci/manifest.sh" "$dir")"
else
  [[ ${KP_MANIFEST:-} =~ ^[0-9a-f]{64}$ ]] ||
    die "input manifest: give the verify job's manifest output (render reads only verified files)" 2
  got=$("$ci/manifest.sh" "$dir")
  [[ $got == "$KP_MANIFEST" ]] || die "the files differ from the ones whose attestations were verified"
  echo "kgate nightly: the files are the ones verified ($got)"
fi
