#!/usr/bin/env bash
# kgate action: build kgate from KA_SRC for KA_ARCH and install it to KA_PREFIX
# (restored from the cache next time). Tests are not built: the action uses
# kgate, it does not test it.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
export PATH="/usr/local/cuda/bin:$PATH"
bld="${RUNNER_TEMP:?}/kgate-action/kgate-build"
rm -rf "$bld" "${KA_PREFIX:?}"
cmake -S "${KA_SRC:?}" -B "$bld" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${KA_ARCH:?}" \
  -DKG_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$KA_PREFIX" ||
  die "kgate's configure failed (prerequisites: README, Quick start)"
cmake --build "$bld" -j"$(nproc)" || die "kgate's build failed"
cmake --install "$bld" || die "kgate's install to $KA_PREFIX failed"
[[ -x $KA_PREFIX/bin/kgate ]] || die "the install made no $KA_PREFIX/bin/kgate"
"$KA_PREFIX/bin/kgate" --version
