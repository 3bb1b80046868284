#!/usr/bin/env bash
# See kgate work in under a minute, no GPU: the committed samples of an
# H200 (tests/data) through `kgate compare` (a verdict per timed cell and the
# run's verdict) and `kgate report --html` (the page, its charts by gnuplot).
# Builds the host-only kgate into build-host first when there is none there
# (no CUDA needed; about a minute on 2 cores), configured as README's next
# line configures it (its tests on), so that line and its ctest reuse the
# folder and run the suites. KGATE=path uses another kgate.
# Usage: scripts/try-kgate.sh [OUT_DIR]   (default: try-kgate)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-try-kgate}
kgate=${KGATE:-build-host/kgate}
if [[ ! -x $kgate ]]; then
  echo "try-kgate: building the host-only kgate into build-host (no CUDA needed)..."
  cmake -S . -B build-host -DKG_HOST_ONLY=ON -DKG_TESTS=ON >/dev/null
  cmake --build build-host -j"$(nproc)" --target kgate >/dev/null
fi
command -v gnuplot >/dev/null || echo "try-kgate: no gnuplot: the page will have no charts (apt-get install gnuplot-nox)"
mkdir -p "$out"
out=$(realpath "$out")

echo "== kgate compare: two runs of the same build on one H200, 2^22 and 2^25 elements"
rc=0
"$kgate" compare tests/data/h200-run1.json tests/data/h200-run2.json --markdown "$out/compare.md" | tail -n 12 || rc=$?
echo "(exit $rc: 0 pass, 4 a regression; the whole table: $out/compare.md)"
echo
echo "== kgate report --html: a full H200 sweep (2^12..2^28) as a page"
rc=0
"$kgate" report tests/data/h200-sweep.json --html "$out/page" >"$out/report.log" 2>&1 || rc=$?
tail -n 3 "$out/report.log"
[[ -f $out/page/index.html ]] || { echo "try-kgate: report --html wrote no page (exit $rc; $out/report.log)" >&2; exit 1; }
echo
echo "Open $out/page/index.html in a browser (the verdict, the ladder, the charts),"
echo "and read $out/compare.md. Next: the quick start in README.md builds kgate for your GPU."
