#!/usr/bin/env bash
# kgate action: run the team's build command in the current directory (the
# checkout, or the base's worktree) and copy the module it made to KA_OUT.
# The command is the workflow author's own text, run as a command on purpose;
# it is never pasted into this script.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
what=${1:?head or base}
export PATH="/usr/local/cuda/bin:$PATH"
export KGATE_PREFIX=${KA_PREFIX:?}
export KGATE_CUDA_ARCHITECTURES=${KA_ARCH:?}
export CMAKE_PREFIX_PATH="$KGATE_PREFIX${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
case "$KA_MODULE" in
  /* | ../* | */../* | *'/..') die "input module: '$KA_MODULE' must be a path inside the checkout" 2 ;;
esac
rm -f "$KA_MODULE"
echo "kgate action: building the $what module: $KA_BUILD"
bash -eo pipefail -c "$KA_BUILD" || die "the $what's build command failed" "${2:-3}"
[[ -f $KA_MODULE ]] || die "the $what's build made no $KA_MODULE (input module)" "${2:-3}"
mkdir -p "$(dirname "${KA_OUT:?}")"
cp "$KA_MODULE" "$KA_OUT"
echo "kgate action: $what module: $KA_OUT (from $KA_MODULE)"
