#!/usr/bin/env bash
# render_charts.sh KGATE SOURCE_DIR
#
# Draws every chart kgate makes from the committed data of real H200 runs
# (tests/data) with real gnuplot, and checks each image is a real PNG or SVG
# of a sensible size; builds the nightly page and validates it with xmllint,
# checking that every image and link it names exists; and checks the paths
# that need no gnuplot: history add (append-only, refusals leave the file
# alone) and a missing gnuplot (exit 3, the other outputs still written).
# Exits 77 (skipped) when gnuplot is not installed. KEEP=1 keeps the output.
set -euo pipefail

kgate=${1:?usage: render_charts.sh KGATE SOURCE_DIR}
src=${2:?usage: render_charts.sh KGATE SOURCE_DIR}
data=$src/tests/data

if ! command -v gnuplot >/dev/null 2>&1; then
  echo "render_charts: gnuplot not found, skipping (apt-get install gnuplot-nox)"
  exit 77
fi
command -v xmllint >/dev/null 2>&1 || { echo "render_charts: xmllint not found (apt-get install libxml2-utils)" >&2; exit 1; }

out=$(mktemp -d /tmp/kgate-render.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then echo "render_charts: output kept in $out"; else trap 'rm -rf "$out"' EXIT; fi
export KGATE_PLOTS=$src/plots

fail() { echo "render_charts: FAIL: $*" >&2; exit 1; }
checks=0
ok() { checks=$((checks + 1)); }

# The densest real sample there is: the sweep (2^12..2^28) when committed, else a gate run.
sweep=$data/h200-sweep.json
[ -f "$sweep" ] || { sweep=$data/h200-run1.json; echo "render_charts: no h200-sweep.json, bandwidth from $sweep"; }

# A PNG: the signature, a width and height from its header, and more than a blank canvas weighs.
check_png() {
  local f=$1 magic w h size
  [ -f "$f" ] || fail "$f missing"
  magic=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
  [ "$magic" = 89504e470d0a1a0a ] || fail "$f is not a PNG (starts $magic)"
  w=$((16#$(dd if="$f" bs=1 skip=16 count=4 2>/dev/null | od -An -tx1 | tr -d ' \n')))
  h=$((16#$(dd if="$f" bs=1 skip=20 count=4 2>/dev/null | od -An -tx1 | tr -d ' \n')))
  size=$(stat -c %s "$f")
  if [ "$w" -lt 800 ] || [ "$h" -lt 400 ]; then fail "$f is ${w}x${h}: too small to read"; fi
  [ "$size" -ge 15000 ] || fail "$f is $size bytes: trivially small"
  ok
}

# An SVG: well-formed XML whose root element is <svg>, with text and drawing in it.
check_svg() {
  local f=$1 root size
  [ -f "$f" ] || fail "$f missing"
  root=$(xmllint --xpath 'local-name(/*)' "$f" 2>/dev/null) || fail "$f is not well-formed XML"
  [ "$root" = svg ] || fail "$f: root element <$root>, not <svg>"
  size=$(stat -c %s "$f")
  [ "$size" -ge 15000 ] || fail "$f is $size bytes: trivially small"
  if ! grep -q '<text' "$f" || ! grep -q '<path' "$f"; then fail "$f has no text or no paths"; fi
  # Tooltips are the points' own titles; gnuplot's plot commands and script calls are gone; dark mode is in it.
  grep -q '<g class="tip"><title>[^<]' "$f" || fail "$f: no point has a tooltip"
  if grep -q '<title>[^<]*\(using [0-9]\|data index\|gnuplot_plot_\|Gnuplot\)\|gnuplot_svg' "$f"; then
    fail "$f: gnuplot internals in a title"
  fi
  grep -q 'prefers-color-scheme: dark' "$f" || fail "$f: no dark rendering"
  ok
}

# Every chart of a folder in both formats, and as many as expected.
check_charts() {
  local dir=$1 want=$2 n=0 png
  for png in "$dir"/*.png; do
    [ -e "$png" ] || break
    check_png "$png"
    check_svg "${png%.png}.svg"
    n=$((n + 1))
  done
  [ "$n" -eq "$want" ] || fail "$dir: $n charts, expected $want"
  [ -z "$(find "$dir" -maxdepth 1 -name '*.tmp.*')" ] || fail "$dir: temporary files left behind"
}

# kgate prints its output; keep it in a log shown on failure.
run() {
  local log=$out/last.log rc=0
  "$@" >"$log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { cat "$log" >&2; fail "exit $rc from: $*"; }
}

# ---- 1 and 2: bandwidth against size, the ladder --------------------------------
run "$kgate" plot "$sweep" -o "$out/plot"
check_charts "$out/plot" 12
grep -q '^33554432 ' "$out/plot/bandwidth-f32.dat" || fail "bandwidth-f32.dat lacks n = 2^25"

# ---- 4: comparison (a 0.5 % tolerance: the run-to-run spread of two real runs
# makes SLOWER cases to highlight) -------------------------------------------------
run "$kgate" plot "$data/h200-run2.json" --baseline "$data/h200-run1.json" --tolerance 0.5 -o "$out/compare"
check_charts "$out/compare" 18
grep -q ' SLOWER "SLOWER ' "$out"/compare/compare-*.dat || fail "no SLOWER case to highlight in the comparison"
"$kgate" compare "$data/h200-run1.json" "$data/h200-run2.json" --plots "$out/compare-cmd" >/dev/null || fail "compare --plots"
check_charts "$out/compare-cmd" 6

# ---- 5: the paired gate. h200-paired.json is h200-run2.json cut to seven variants
# of f32 and i32, at schema 2 with a "paired" object: a cell per timed case (head_us
# its median), a cell of each verdict (SLOWER, FASTER, SAME, UNDECIDED, NEW, MISSING,
# UNKNOWN). The paired cells are made up for drawing (no paired run was recorded for
# it), not a measurement ----------
paired=$data/h200-paired.json
run "$kgate" plot "$paired" -o "$out/paired"
check_charts "$out/paired" 6
grep -q '^1 3.1 2.5 3.7 3.1 2.5 3.7 0.5 .* 0xe07000 [0-9.]* SLOWER "SLOWER +3.10 % \[+2.50, +3.70\]" "[^"]*"$' \
  "$out/paired/paired-f32.dat" || fail "paired-f32: the SLOWER cell is not drawn red with its interval"
grep -q ' 0x000000 [0-9.]* SAME "SAME ' "$out/paired/paired-f32.dat" || fail "paired-f32: no SAME cell in black"
grep -q ' NEW "NEW: only in head" "[^"]*"$' "$out/paired/paired-f32.dat" || fail "paired-f32: the NEW cell is not listed"
grep -q ' MISSING "MISSING: only in base" "[^"]*"$' "$out/paired/paired-i32.dat" || fail "paired-i32: the MISSING cell is not listed"
grep -q "^subtitle = 'NVIDIA H200 · 2026-11-21 09:04 UTC · head commit 90386bbe7606-dirty · base kgate 42cbd2a78d3c'$" \
  "$out/paired/paired-f32.vars" || fail "paired-f32: the title does not name the GPU, date and base module"
grep -q 'SLOWER +3.10 % \[+2.50, +3.70\]' "$out/paired/paired-f32.svg" || fail "paired-f32.svg lacks the SLOWER label"
# Hovering a point shows its numbers (the point's <title>, no script), never gnuplot's commands.
grep -q '<g class="tip"><title>reduce0_divergent, n = 2²⁵: SLOWER&#10;change head / base +3.10 %, interval \[+2.50, +3.70\] %&#10;8 blocks, minimum effect ±0.50 %&#10;head commit 90386bbe7606-dirty</title>' \
  "$out/paired/paired-f32.svg" || fail "paired-f32.svg: the SLOWER cell's tooltip is not its numbers"
# report exits as the run did: the paired SLOWER cell is a regression (exit 4)
rc=0
"$kgate" report "$paired" --html "$out/paired-site" >"$out/last.log" 2>&1 || rc=$?
[ "$rc" -eq 4 ] || { cat "$out/last.log" >&2; fail "report of the paired run: exit $rc, not the run's 4"; }
check_charts "$out/paired-site" 6
grep -q '<a href="paired-i32.png"' "$out/paired-site/index.html" || fail "the page does not link the paired chart"
# Not paired: no paired chart (the plot of the sweep above drew 12 charts, none of them paired).
[ -z "$(find "$out/plot" -name 'paired-*')" ] || fail "a run that was not paired got a paired chart"

# ---- 3: trend from the committed history, the band from baselines/ --------------
run "$kgate" history plot "$data/h200-history.jsonl" --baseline-dir "$src/baselines" -o "$out/trend"
check_charts "$out/trend" 6
grep -q "^base_mid = '[0-9]" "$out/trend/trend-f32.vars" || fail "trend-f32: no baseline band"

# ---- history add: append-only, idempotent, refusals leave the file alone ---------
# The committed history is run1, run2 and the sweep, added in that order.
hist=$out/history.jsonl
head -n 2 "$data/h200-history.jsonl" >"$hist"
cp "$hist" "$out/history.before"
run "$kgate" history add "$data/h200-run2.json" --file "$hist" # already there: nothing written
cmp -s "$hist" "$out/history.before" || fail "adding a run twice changed the history"
printf '{"kind":"kgate-results","schema_version":1,' >"$out/bad.json"
set +e
"$kgate" history add "$out/bad.json" --file "$hist" 2>"$out/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "history add of a malformed file: exit $rc, expected 2"
cmp -s "$hist" "$out/history.before" || fail "a refused history add touched the file"
run "$kgate" history add "$data/h200-sweep.json" --file "$hist"
[ "$(wc -l <"$hist")" -eq 3 ] || fail "history add did not append one line"
head -n 2 "$hist" | cmp -s - "$out/history.before" || fail "history add rewrote earlier lines"
[ "$(sed -n 3p "$hist" | cut -c1-80)" = "$(sed -n 3p "$data/h200-history.jsonl" | cut -c1-80)" ] ||
  fail "the appended line differs from the committed one"
ok

# ---- the nightly page -------------------------------------------------------------
site=$out/site
run "$kgate" report "$data/h200-run2.json" --html "$site" --baseline "$data/h200-run1.json" \
  --history "$data/h200-history.jsonl"
check_charts "$site" 24
check_page() {
  local page=$1 dir ref
  dir=$(dirname "$page")
  xmllint --html --noout "$page" 2>"$out/lint" || { cat "$out/lint" >&2; fail "$page does not parse as HTML"; }
  [ ! -s "$out/lint" ] || { cat "$out/lint" >&2; fail "$page: xmllint reports problems"; }
  while read -r ref; do
    case $ref in
      \#*) grep -q "id=\"${ref#\#}\"" "$page" || fail "$page links to $ref, which has no section" ;;
      # commits and compare ranges, when the repository is known (GitHub Actions sets it)
      https://*) [[ $ref =~ ^https://[A-Za-z0-9][A-Za-z0-9._~/:-]*$ ]] || fail "$page: a link that is not plain: $ref" ;;
      *://*) fail "$page links outside the folder: $ref" ;;
      *) [ -s "$dir/$ref" ] || fail "$page references $ref, which does not exist" ;;
    esac
    ok
  done < <(grep -o -E '(src|href|data)="[^"]*"' "$page" | sed -E 's/^(src|href|data)="(.*)"$/\2/')
}
check_page "$site/index.html"
check_page "$site/archive.html"
for f in results.json results.csv results.junit.xml summary.md history.jsonl; do
  grep -q "href=\"$f\"" "$site/index.html" || fail "index.html does not link $f"
done
# Every chart is one click away (a table of links); the first screen shows the headline
# kind's charts as images (issue 22: without a paired history or a paired run, the
# comparison's six), not all 24 stacked.
[ "$(grep -o 'href="[a-z0-9-]*\.png"' "$site/index.html" | sort -u | wc -l)" -eq 24 ] ||
  fail "index.html does not link all 24 charts"
[ "$(grep -o '<object type="image/svg+xml" style="--w:[0-9]*px;aspect-ratio:[0-9]*/[0-9]*" data="[a-z0-9-]*\.svg"' "$site/index.html" | sort -u | wc -l)" -eq 6 ] ||
  fail "index.html does not show the six comparison charts as SVG"
grep -q ' data="compare-f32.svg"' "$site/index.html" || fail "index.html does not show compare-f32"
grep -q 'id="verdict"' "$site/index.html" || fail "index.html has no verdict line"
grep -q 'driver 13.0, CUDA runtime 13.0' "$site/index.html" || fail "index.html does not show the driver as 13.0"

# ---- issue 12: nothing read from a file runs, and the page shows it as text ---------
# gnuplot runs in the output folder: a command it ran would leave pwned* there.
evil=$out/evil
mkdir -p "$evil"
no_pwned() {
  local found
  found=$(find "$out" . -maxdepth 3 -name 'pwned*' 2>/dev/null | head -n 3)
  [ -z "$found" ] || fail "$1: gnuplot or a shell ran text from a file: $found"
  ok
}
refused() { # refused CMD...: exit 2, and one line naming the problem
  local rc=0
  "$@" >"$out/last.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || { cat "$out/last.log" >&2; fail "expected exit 2 from: $*"; }
}
# A date of `id>pwned` (the report's case): refused by every command that reads it, files untouched.
sed 's/"date":"[^"]*"/"date":"`id>pwned`"/' "$data/h200-run2.json" >"$evil/date.json"
head -n 1 "$data/h200-history.jsonl" >"$evil/h.jsonl"
cp "$evil/h.jsonl" "$evil/h.before"
refused "$kgate" history add "$evil/date.json" --file "$evil/h.jsonl"
grep -q "date is '\`id>pwned\`': not an ISO 8601 UTC time" "$out/last.log" || fail "history add: $(cat "$out/last.log")"
cmp -s "$evil/h.jsonl" "$evil/h.before" || fail "a refused history add changed the history"
# (Before the fix the add succeeded, and this drew the date into trend.gp's tick labels: `id` ran.)
"$kgate" history plot "$evil/h.jsonl" -o "$evil/trend-date" >/dev/null 2>&1 || true
"$kgate" report "$data/h200-run1.json" --html "$evil/site-hist" --history "$evil/h.jsonl" >/dev/null 2>&1 || true
refused "$kgate" plot "$evil/date.json" -o "$evil/plot-date"
refused "$kgate" report "$evil/date.json" --html "$evil/site-date"
no_pwned "a hostile date"
# A GPU name may hold anything printable: backquotes, quotes, system(), ';', '@', HTML.
# (\\" in the sed replacement is \" in the JSON: a quote inside the string.)
gpu='NVIDIA H200 `touch pwned_gpu` '"'"'; system(\\"touch pwned_sys\\"); '"'"' @x <img src=x onerror=alert(1)>'
for f in h200-run1.json h200-run2.json; do sed "s|\"NVIDIA H200\"|\"$gpu\"|" "$data/$f" >"$evil/$f"; done
grep -q 'pwned_gpu' "$evil/h200-run2.json" || fail "the GPU name was not planted"
run "$kgate" plot "$evil/h200-run2.json" --baseline "$evil/h200-run1.json" --tolerance 0.5 -o "$evil/plot"
check_charts "$evil/plot" 18
run "$kgate" history add "$evil/h200-run1.json" --file "$evil/gpu.jsonl"
run "$kgate" history add "$evil/h200-run2.json" --file "$evil/gpu.jsonl"
run "$kgate" history plot "$evil/gpu.jsonl" --baseline "$evil/h200-run1.json" -o "$evil/trend"
check_charts "$evil/trend" 6
run "$kgate" report "$evil/h200-run2.json" --html "$evil/site" --baseline "$evil/h200-run1.json" \
  --history "$evil/gpu.jsonl"
check_charts "$evil/site" 24
check_page "$evil/site/index.html"
grep -q 'touch pwned_gpu' "$evil/plot/bandwidth-f32.svg" || fail "the GPU name is not shown in the chart"
grep -q 'NVIDIA H200 `touch pwned_gpu` &#39;; system(&quot;touch pwned_sys&quot;); &#39; @x &lt;img src=x' \
  "$evil/site/index.html" || fail "the GPU name is not shown, escaped, on the page"
if grep -q '<img src=x' "$evil/site/index.html" "$evil/site/summary.md"; then fail "HTML from a file reached the page"; fi
no_pwned "a hostile GPU name"

# The base module's name and version are free text from the file: shown, never run.
sed -e 's|"base_name":"kgate"|"base_name":"b`touch pwned_bn`'"'"'; system(\\"touch pwned_bs\\") @x"|' \
  -e 's|"base_version":"42cbd2a78d3c"|"base_version":"'"'"'`touch pwned_bv`"|' "$data/h200-paired.json" >"$evil/paired.json"
grep -q 'pwned_bn' "$evil/paired.json" && grep -q 'pwned_bv' "$evil/paired.json" || fail "the base strings were not planted"
run "$kgate" plot "$evil/paired.json" -o "$evil/paired"
check_charts "$evil/paired" 6
grep -q "b\`touch pwned_bn\`'; system(\"touch pwned_bs\") @x '\`touch pwned_bv\`" "$evil/paired/paired-f32.svg" ||
  fail "the base module's name is not shown as text in the paired chart"
# A cell's variant must be a variant name: a hostile one is refused, nothing drawn.
sed 's|{"variant":"cub_sum","dtype":"i32","n":4194304,"verdict"|{"variant":"v`touch pwned_pv`'"'"'","dtype":"i32","n":4194304,"verdict"|' \
  "$data/h200-paired.json" >"$evil/paired-var.json"
grep -q 'pwned_pv' "$evil/paired-var.json" || fail "the cell's variant was not planted"
refused "$kgate" plot "$evil/paired-var.json" -o "$evil/paired-var"
[ ! -e "$evil/paired-var" ] || [ -z "$(ls -A "$evil/paired-var")" ] || fail "a refused paired file drew charts"
no_pwned "hostile base module strings and a hostile paired variant"

# ---- without gnuplot: exit 3, one clear line, everything else written -------------
nognu=$out/nognu
mkdir -p "$nognu/bin"
set +e
PATH=$nognu/bin "$kgate" plot "$sweep" -o "$nognu/plot" 2>"$out/err"
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "plot without gnuplot: exit $rc, expected 3"
grep -qx 'kgate: gnuplot not found: install gnuplot (apt-get install gnuplot-nox) to draw charts' "$out/err" ||
  fail "plot without gnuplot said: $(cat "$out/err")"
[ -s "$nognu/plot/bandwidth-f32.dat" ] || fail "plot without gnuplot: no data files"
[ -z "$(find "$nognu/plot" -name '*.png')" ] || fail "plot without gnuplot: images"
set +e
PATH=$nognu/bin "$kgate" report "$data/h200-run2.json" --html "$nognu/site" >/dev/null 2>"$out/err"
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "report without gnuplot: exit $rc, expected 3"
check_page "$nognu/site/index.html"
grep -q '\.png"' "$nognu/site/index.html" && fail "report without gnuplot links images"
ok

pngs=("$site"/*.png)
echo "render_charts: $checks checks passed (${#pngs[@]} charts on the page, sample $(basename "$sweep"))"
