#!/usr/bin/env bash
# The host-only kgate (-DKG_HOST_ONLY=ON: no CUDA) in build/, for the hosted
# jobs that read what the GPU runners wrote: its readers validate every
# results, baseline and history file and refuse a bad one (exit 2).
set -euo pipefail
sudo apt-get update -qq
sudo apt-get install -y -qq --no-install-recommends cmake gcc pkg-config check libsubunit-dev \
  libjansson-dev nettle-dev gnuplot-nox fonts-dejavu-core jq >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DKG_HOST_ONLY=ON
cmake --build build -j"$(nproc)" --target kgate
