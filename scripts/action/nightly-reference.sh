#!/usr/bin/env bash
# kgate action, nightly mode: the team's pinned reference module into
# KA_WORK/ref/module.so (a release asset of this repository, or a file on the
# runner), verified against the team's pin file with `kgate reference verify`
# (exit 2 when its SHA-256 is not pinned), and a copy at another path,
# KA_WORK/ctl/module.so, for the control. Runs before tonight's code is built.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
kgate="${KA_PREFIX:?}/bin/kgate"
work=${KA_WORK:?}
[[ -f ${KA_PINS:?} ]] || die "input reference-pins: no $KA_PINS in $(pwd) (the team's pin file, docs/nightly.md)" 2
rm -rf "$work/ref" "$work/ctl"
mkdir -p "$work/ref" "$work/ctl"
if [[ -n ${KA_REF_RELEASE:-} ]]; then
  [[ -z ${KA_REF_MODULE:-} ]] || die "give reference-release or reference-module, not both" 2
  valid_ref "$KA_REF_RELEASE" || die "input reference-release: '$KA_REF_RELEASE' is not a plain tag name" 2
  asset=${KA_REF_ASSET:-${KA_MODULE##*/}}
  [[ $asset =~ ^[A-Za-z0-9_.+-]+$ ]] || die "input reference-asset: '$asset' is not a file name" 2
  gh release download "$KA_REF_RELEASE" --repo "${GITHUB_REPOSITORY:?}" --pattern "$asset" --dir "$work/ref/dl" ||
    die "cannot download $asset from the release $KA_REF_RELEASE"
  [[ -f $work/ref/dl/$asset ]] || die "the release $KA_REF_RELEASE has no asset $asset"
  mv "$work/ref/dl/$asset" "$work/ref/module.so"
elif [[ -n ${KA_REF_MODULE:-} ]]; then
  [[ -f $KA_REF_MODULE ]] || die "input reference-module: no file $KA_REF_MODULE" 2
  cp "$KA_REF_MODULE" "$work/ref/module.so"
else
  die "nightly mode needs reference-release or reference-module (the pinned reference's module)" 2
fi
"$kgate" reference verify "$KA_PINS" "$work/ref/module.so" ||
  die "the reference module is not pinned in $KA_PINS (kgate reference verify exit $?)" 2
# The control: the reference against a copy of itself at another path, which moves only when the machine does.
cp "$work/ref/module.so" "$work/ctl/module.so"
