#!/usr/bin/env bash
# One SHA-256 over every file under DIR (names and contents, in a fixed
# order): the job that verified the attestations hands it to the job that
# writes, which checks that it reads the very files that were verified.
#   scripts/ci/manifest.sh DIR
set -euo pipefail
cd "${1:?usage: manifest.sh DIR}"
find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-64
