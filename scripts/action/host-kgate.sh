#!/usr/bin/env bash
# kgate nightly publish (publish/action.yml): the host-only kgate (no CUDA:
# -DKG_HOST_ONLY=ON) from the action's own source into KP_BUILD. Its readers
# validate the night's files and the history, and refuse a bad one (exit 2).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
sudo=()
[[ $(id -u) == 0 ]] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends cmake make gcc pkg-config libjansson-dev nettle-dev \
  gnuplot-nox fonts-dejavu-core >/dev/null
cmake -S "$src" -B "${KP_BUILD:?}" -DCMAKE_BUILD_TYPE=Release -DKG_HOST_ONLY=ON -DKG_TESTS=OFF >/dev/null
cmake --build "$KP_BUILD" -j"$(nproc)" --target kgate >/dev/null
"$KP_BUILD/kgate" --version
