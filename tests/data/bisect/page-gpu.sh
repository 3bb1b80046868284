#!/usr/bin/env bash
# A team's nightly finding to the page's culprit, on a GPU machine
# (docs/bisect.md, "On the page"; its CPU twin is tests/bisect_cli.sh, whose
# paired runs are a stand-in's). The planted range (make-range.sh: the
# team's module, the culprit at commit SLOW) and the recorded team nights
# (tests/data/nightly/h100-team-live.jsonl: four A/A nights, then three of
# the same planted slowdown), each night naming the commit it built by its
# provenance as the action's nightly records it: the A/A nights the range's
# first commit, the slow nights its last. Then, as a team's nightly's
# bisect job (the action's `mode: bisect`) runs it:
#   kgate bisect --history H (a team's module: no --own) over that finding,
#     its cells and step the finding's, must name the planted commit (exit 0);
#   kgate report --history H --bisect bisect.json must link it in the
#     finding's box.
#
#   page-gpu.sh KGATE OUTDIR [SLOW]      (default 19; not 7 or 13, the range's other commits)
#
# Prints a PASS or FAIL line per check; exit 0 when all pass, 1 when one
# fails, 2 on bad usage, 77 without a GPU. Needs nvcc, cmake and git; about
# 3 to 5 minutes (make-range.sh's builds, then the paired runs).
set -uo pipefail
die() { echo "page-gpu: $*" >&2; exit 2; }
[[ $# -ge 2 && $# -le 3 ]] || die "usage: page-gpu.sh KGATE OUTDIR [SLOW]"
kgate=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") out=$2 slow=${3:-19}
[[ -x $kgate ]] || die "KGATE: $1 is not executable"
[[ $slow =~ ^[0-9]+$ && $slow != 7 && $slow != 13 ]] || die "SLOW: '$slow' is not 1..31 other than 7 and 13"
if ! nvidia-smi -L > /dev/null 2>&1; then echo "page-gpu: no GPU: skipped"; exit 77; fi
command -v nvcc > /dev/null || export PATH="/usr/local/cuda/bin:$PATH"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
fails=0
check() { # NAME CONDITION...
  local name=$1
  shift
  if "$@"; then echo "page-gpu: PASS: $name"; else echo "page-gpu: FAIL: $name"; fails=$((fails + 1)); fi
}

"$here/make-range.sh" "$out/range" "$slow" 7 13 || die "make-range.sh failed"
# shellcheck source=/dev/null # written by make-range.sh
. "$out/range/range.env"
awk -v good="$GOOD" -v bad="$BAD" '{
  sha = NR <= 4 ? good : bad
  sub(/"kgate_commit":"[0-9a-f]+",/, "&\"provenance\":{\"repository\":\"team/kernels\",\"sha\":\"" sha "\"},")
  print
}' "$root/tests/data/nightly/h100-team-live.jsonl" > "$out/history.jsonl"
code=0
"$kgate" history check "$out/history.jsonl" > "$out/check.txt" 2>&1 || code=$?
check "history check: the finding is open (exit 4), its range the nights' provenance" \
  grep -q "commits ${GOOD:0:12}.*\.\.${BAD:0:12}" "$out/check.txt"
[[ $code == 4 ]] || echo "page-gpu: history check exited $code: $(cat "$out/check.txt")"

rm -rf "$out/work"
code=0
"$kgate" bisect --repo "$out/range/repo" --history "$out/history.jsonl" --within "$BAD" --work "$out/work" \
  --build "$BUILD" --module libteam_kernels.so --source src --source CMakeLists.txt --source variants.def \
  --kernel-match sum_kernel --json "$out/bisect.json" --markdown "$out/bisect.md" \
  --link https://github.com/team/kernels/commit/ > "$out/bisect.txt" 2> "$out/bisect.log" || code=$?
sed 's/^/  /' "$out/bisect.txt"
check "kgate bisect --history names the planted commit ${SLOW_ID:0:12} (exit $code)" \
  grep -q "\"culprit\":\"$SLOW_ID\"" "$out/bisect.json"

rm -rf "$out/site"
code=0
KGATE_REPO_URL=https://github.com/team/kernels "$kgate" report "$root/tests/data/nightly/h100-live-night4.json" \
  --html "$out/site" --history "$out/history.jsonl" --bisect "$out/bisect.json" > "$out/report.txt" 2>&1 || code=$?
check "kgate report --bisect writes the page (exit $code: 0, or 3 without gnuplot)" test "$code" = 0 -o "$code" = 3
check "the finding's box links the culprit" \
  grep -qF "<strong>Culprit</strong> (kgate bisect): <a href=\"https://github.com/team/kernels/commit/$SLOW_ID\">" \
  "$out/site/index.html"
echo "page-gpu: the page: $out/site/index.html; the bisect: $out/bisect.txt"
((fails == 0))
