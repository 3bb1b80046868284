#!/bin/bash
# Every report kgate writes from the committed sample results, byte for byte
# against tests/data/reports: the Markdown, JUnit, CSV, comment and terminal report of
# a comparison and of a paired run, and the page (its HTML, chart data and
# the files it writes beside them, its results JSON as a SHA-256; not the PNG
# and SVG, which are gnuplot's). A change to what a report says regenerates
# them on purpose, and review sees the difference:
#   reports_golden.sh KGATE SOURCE_DIR --update
# usage: reports_golden.sh KGATE SOURCE_DIR [--update]   (exit 77 without gnuplot)
set -u
kgate=$(realpath "$1") src=$(realpath "$2") mode=${3:-check}
data=$src/tests/data gold=$src/tests/data/reports
command -v gnuplot > /dev/null || { echo "reports_golden: skipped: no gnuplot (the page needs it)"; exit 77; }
tmp=$(mktemp -d /tmp/kg_reports_XXXXXX) out=$tmp/out
trap 'rm -rf "$tmp"' EXIT
mkdir "$out"
cp "$data/h200-run1.json" "$data/h200-run2.json" "$data/h200-paired.json" "$data/h200-sweep.json" "$tmp/"
cd "$out" || exit 1 # the inputs by relative names: the reports that name them read the same anywhere
{
  "$kgate" compare ../h200-run1.json ../h200-run2.json --markdown compare.md --junit compare.xml \
    --csv compare.csv --comment compare.comment.md > compare.txt 2>&1
  echo "compare: exit $?"
  "$kgate" compare ../h200-paired.json ../h200-paired.json --markdown paired.md --junit paired.xml \
    --csv paired.csv --comment paired.comment.md > paired.txt 2>&1
  echo "paired: exit $?"
  "$kgate" report ../h200-sweep.json --html page > /dev/null 2>&1
  echo "report: exit $?"
} > exits.txt
rm -f page/*.png page/*.svg
# the page's copy of the results file is 0.9 MB: kept as its digest
sha256sum page/results.json | cut -d' ' -f1 > page/results.json.sha256 && rm page/results.json
if [ "$mode" = --update ]; then
  rm -rf "$gold" && mkdir -p "$gold" && cp -r . "$gold/" && echo "reports_golden: wrote $gold" && exit 0
fi
if ! diff -r "$gold" . > "$tmp/diff.txt"; then
  head -40 "$tmp/diff.txt"
  echo "reports_golden: FAIL: the reports differ from tests/data/reports (reports_golden.sh KGATE SRC --update writes them anew)"
  exit 1
fi
echo "reports_golden: $(find . -type f | wc -l) files as committed"
