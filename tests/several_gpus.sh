#!/bin/bash
# The gate on several cards of one host, measured in one call: on 1, 2 and 4
# cards (as many as the host has), each twice, interleaved: the full gate
# with nothing changed (carrying checks over from a baseline this kgate
# made: --carry-from), with one variant changed (reduce2_sequential's loop
# kept rolled, `#pragma unroll 1`: other machine code, the same sums), and
# with every cell paired (--time-unchanged); the base is a copy of kgate's
# module. Everything (each command's stdout and stderr, the results files
# gzipped, a line per run, the Markdown rows for tests/data/gate-timing and
# docs/several-gpus.md) goes into OUTDIR/several-gpus/ and one tar,
# OUTDIR/several-gpus.tar.gz.
#
#   several_gpus.sh BUILD OUTDIR [BUDGET_S]
#
# BUILD: a build folder (configured for the host's cards, e.g.
# -DCMAKE_CUDA_ARCHITECTURES=90) holding kgate and libkgate_kernels.so.
# BUDGET_S (default 540): the script's own wall time; a run that would not
# fit what is left is not started, and left_out.txt says so. With
# $CHANGED_SO set, that module is the changed one; else it is built here
# from this checkout (cmake, nvcc: about a minute on 16 cores).
#
# From each results file it checks that the cases ran on exactly the cards
# asked for, each case on one card (the paired rounds record no card per
# round: each round of a cell is one case, timed head and base in one worker
# on one card). Exit 0 when every step ran and every check held (the times
# are the result: nothing is asserted about them), 77 without a GPU, 1 when
# a step or a check failed, 2 on bad arguments. `several_gpus.sh --summary
# DIR` only writes DIR/runs.txt and DIR/summary.md from the files already
# in DIR (the CPU part; tests/CMakeLists.txt runs --self-test on made-up
# files: several_gpus_summary).
set -u
kinds=(none changed every)

# ---- the summary: from the results files and steps.txt, no GPU ---------------
num_of() { grep -o "\"$1\":[0-9.e+-]*" "$2" 2>/dev/null | head -1 | cut -d: -f2; }
r2() { awk -v x="${1:-0}" 'BEGIN { printf "%.2f", x }'; }
# a run's line, as tests/data/gate-timing has them: NAME rc C process P s | wall W startup ... {verdicts} carried N
run_line() { # DIR NAME
  local f=$1/$2.json st rc proc v
  st=$(grep "^$2 exit " "$1/steps.txt" 2>/dev/null | tail -1)
  rc=$(cut -d' ' -f3 <<<"$st") proc=$(cut -d' ' -f4 <<<"$st")
  v=$(grep -o '{"variant":"[^"]*","dtype":"[^"]*","n":[0-9]*,"verdict":"[A-Z]*"' "$f" |
    sed 's/.*"verdict":"//; s/"$//' |
    sort | uniq -c | awk '{ printf "%s%s: %d", (NR > 1 ? ", " : ""), $2, $1 }')
  printf '%s rc %s process %s s | wall %s startup %s inputs %s check %s timing %s paired %s reports %s' "$2" \
    "${rc:-?}" "${proc:-?}" "$(r2 "$(num_of wall_s "$f")")" "$(r2 "$(num_of startup_s "$f")")" \
    "$(r2 "$(num_of inputs_s "$f")")" "$(r2 "$(num_of check_s "$f")")" "$(r2 "$(num_of timing_s "$f")")" \
    "$(r2 "$(num_of paired_s "$f")")" "$(r2 "$(num_of reports_s "$f")")"
  printf ' {%s} carried %s\n' "$v" "$(grep -o '"carried":true' "$f" | wc -l)"
}
# the cards a run's cases ran on must be the ones asked for: "ok" or why not
cards_check() { # FILE DEVICES
  local got want
  got=$(grep -o '"device":[0-9][0-9]*' "$1" | cut -d: -f2 | sort -nu | paste -sd, -)
  want=$(tr , '\n' <<<"$2" | sort -nu | paste -sd, -)
  [ "$got" = "$want" ] && echo ok || echo "cases on cards $got, asked for $want"
}
range() { # values: "a" or "a-b" (min-max), one decimal
  sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 }
    END { a = sprintf("%.1f", lo); b = sprintf("%.1f", hi); print NR == 0 ? "-" : a == b ? a : a "-" b }'
}
summary() {
  local d=$1 name k kind cell label
  : > "$d/runs.txt"
  for f in "$d"/*-*cards-*.json; do
    [ -s "$f" ] || continue
    name=$(basename "$f" .json)
    run_line "$d" "$name" >> "$d/runs.txt"
  done
  {
    echo "| $(head -1 "$d/device.txt" 2>/dev/null | tr -d '|') | 1 card | 2 cards | 4 cards |"
    echo "|---|---|---|---|"
    for kind in "${kinds[@]}"; do
      case $kind in
        none) label="the full default gate, nothing changed (\`--carry-from\`)" ;;
        changed) label="one variant changed (\`reduce2_sequential\`)" ;;
        every) label="every cell paired (\`--time-unchanged\`)" ;;
      esac
      printf '| %s |' "$label"
      for k in 1 2 4; do
        local proc wall
        proc=$(grep "^$kind-${k}cards-" "$d/runs.txt" | awk '{ print $5 }' | grep -v '?' | range)
        wall=$(grep "^$kind-${k}cards-" "$d/runs.txt" | awk '{ print $9 }' | range)
        cell="$proc s ($wall)"
        [ "$proc" = - ] && cell="not run"
        printf ' %s |' "$cell"
      done
      echo
    done
  } > "$d/summary.md"
}

# --self-test: made-up results files of two runs on 1 and 2 cards must give
# their lines and rows (what ctest runs as several_gpus_summary).
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
  fail() { echo "several_gpus: self-test: $*"; exit 1; }
  res() { # FILE WALL PAIRED DEVICES VERDICTS...
    local f=$1 wall=$2 paired=$3 devs=$4 v
    shift 4
    {
      printf '{"kind":"kgate-results",\n"run":{"wall_s":%s,"device":{"name":"X"},"phases":{"startup_s":0.5,' "$wall"
      printf '"inputs_s":0.08,"check_s":1.7,"timing_s":0.0,"paired_s":%s,"reports_s":0.02}},\n"cases":[\n' "$paired"
      for dv in ${devs//,/ }; do printf '{"variant":"a","n":1,"carried":true,"device":%s},\n' "$dv"; done
      printf '{"variant":"a","n":2,"carried":false,"device":%s}\n],\n"paired":{"cells":[' "${devs%%,*}"
      for v in "$@"; do printf '{"variant":"a","dtype":"f32","n":4,"verdict":"%s","ratio":1.0},' "$v"; done
      printf '{"variant":"z","dtype":"i32","n":8,"verdict":"UNCHANGED"}],'
      printf '"variants":[{"variant":"a","n":4,"verdict":"SAME"}]}}\n'
    } > "$f"
  }
  res "$t/none-1cards-1.json" 4.12 0.28 0 SAME
  res "$t/none-1cards-2.json" 4.31 0.30 0 SAME
  res "$t/every-2cards-1.json" 21.5 17.25 0,1 SAME SAME UNDECIDED
  printf '%s\n' "none-1cards-1 exit 0 4.9 s" "none-1cards-2 exit 0 5.04 s" "every-2cards-1 exit 4 22.0 s" \
    > "$t/steps.txt"
  echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)" > "$t/device.txt"
  bash "$0" --summary "$t" > /dev/null || fail "--summary failed"
  line="none-1cards-1 rc 0 process 4.9 s | wall 4.12 startup 0.50 inputs 0.08 check 1.70 timing 0.00 paired 0.28"
  grep -qxF "$line reports 0.02 {SAME: 1, UNCHANGED: 1} carried 1" "$t/runs.txt" ||
    fail "the run's line: $(cat "$t/runs.txt")"
  grep -qF "every-2cards-1 rc 4 process 22.0 s | wall 21.50 " "$t/runs.txt" &&
    grep -qF "{SAME: 2, UNCHANGED: 1, UNDECIDED: 1} carried 2" "$t/runs.txt" ||
    fail "the two-card line: $(cat "$t/runs.txt")"
  for want in '| GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1) | 1 card | 2 cards | 4 cards |' \
    '| the full default gate, nothing changed (`--carry-from`) | 4.9-5.0 s (4.1-4.3) | not run | not run |' \
    '| one variant changed (`reduce2_sequential`) | not run | not run | not run |' \
    '| every cell paired (`--time-unchanged`) | not run | 22.0 s (21.5) | not run |'; do
    grep -qxF -- "$want" "$t/summary.md" || fail "the rows lack '$want': $(cat "$t/summary.md")"
  done
  [ "$(cards_check "$t/every-2cards-1.json" 0,1)" = ok ] || fail "cards 0,1 not seen on 0,1"
  [ "$(cards_check "$t/every-2cards-1.json" 0,1,2,3)" = "cases on cards 0,1, asked for 0,1,2,3" ] ||
    fail "a card asked for and unused was not found: $(cards_check "$t/every-2cards-1.json" 0,1,2,3)"
  # no GPU (an nvidia-smi that fails): skipped with 77 before anything runs
  mkdir -p "$t/bin" "$t/build"
  printf '#!/binh\nexit 9\n' > "$t/bin/nvidia-smi"
  printf '#!/binh\necho ran > "$(dirname "$0")/ran"\n' > "$t/build/kgate"
  chmod +x "$t/bin/nvidia-smi" "$t/build/kgate"
  : > "$t/build/libkgate_kernels.so"
  PATH="$t/bin:$PATH" bash "$0" "$t/build" "$t/out" > "$t/skip.txt" 2>&1
  code=$?
  [ $code = 77 ] && grep -q "several_gpus: skipped: no GPU" "$t/skip.txt" && [ ! -e "$t/build/ran" ] ||
    fail "without a GPU it exited $code: $(cat "$t/skip.txt")"
  echo "several_gpus: self-test: the lines and rows of the made-up runs are right; the card check finds an unused" \
    "card; no GPU skips with 77"
  exit 0
fi

if [ "${1:-}" = --summary ]; then
  [ -d "${2:-}" ] || { echo "usage: several_gpus.sh --summary DIR"; exit 2; }
  summary "$2"
  cat "$2/runs.txt" "$2/summary.md"
  exit 0
fi

# ---- the GPU part -------------------------------------------------------------
[ $# -ge 2 ] || { echo "usage: several_gpus.sh BUILD OUTDIR [BUDGET_S]"; exit 2; }
build=$(cd "$1" && pwd) || exit 2
outdir=$2 budget=${3:-540}
kgate=$build/kgate src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$kgate" ] && [ -f "$build/libkgate_kernels.so" ] ||
  { echo "several_gpus: $build lacks kgate or libkgate_kernels.so"; exit 2; }
if ! ncards=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU '); then ncards=0; fi
if [ "$ncards" -lt 1 ]; then
  echo "several_gpus: skipped: no GPU (nvidia-smi -L failed)"
  exit 77
fi
d=$outdir/several-gpus
mkdir -p "$d/base" "$d/baselines" "$d/cache"
export KGATE_CACHE_DIR=$d/cache
cp "$build/libkgate_kernels.so" "$d/base/" # the A/A base: a copy of the module
nvidia-smi -L > "$d/device.txt" 2>&1
nvidia-smi >> "$d/device.txt" 2>&1
git -C "$src" rev-parse HEAD > "$d/commit.txt" 2>/dev/null
: > "$d/left_out.txt"
: > "$d/steps.txt"
: > "$d/cards.txt"
. "$(dirname "$0")/gpu_steps.sh"
failed=0
counts=()
for k in 1 2 4; do [ "$k" -le "$ncards" ] && counts+=("$k"); done
devices_of() { seq -s, 0 $(($1 - 1)); }
all=$(devices_of "${counts[-1]}")

# 1. the changed module: reduce2_sequential's loop kept rolled (other machine code, the same sums)
changed=${CHANGED_SO:-}
if [ -z "$changed" ]; then
  arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt")
  mkdir -p "$d/changed-src"
  out_rel=$(realpath -m --relative-to="$src" "$d") # this script's own output, when it lies in the checkout
  (cd "$src" && { git ls-files -co --exclude-standard 2> /dev/null ||
    find . \( -path './build*' -o -path ./.git \) -prune -o -type f -print | sed 's|^\./||'; } |
    grep -v -e '^build' -e "^$out_rel/" | tar -cf - -T -) | tar -C "$d/changed-src" -xf -
  kfile=$d/changed-src/kernels/reduce2_sequential.cu
  sed -i '0,/^  for (unsigned stride = kBlock \/ 2;/s||  #pragma unroll 1\n&|' "$kfile"
  grep -q '^  #pragma unroll 1$' "$kfile" || { echo "several_gpus: $kfile: no loop to keep rolled"; exit 1; }
  step changed-build bash -c "cmake -S '$d/changed-src' -B '$d/changed-build' -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES='${arch:-90}' -DKG_TESTS=OFF -DKGATE_SELFTEST=OFF &&
    cmake --build '$d/changed-build' --target kgate_kernels -j\$(nproc)" || failed=1
  changed=$d/changed-build/libkgate_kernels.so
  rm -rf "$d/changed-src"
fi
[ -f "$changed" ] || { echo "several_gpus: no changed module ($changed)"; failed=1; }

# 2. the baseline with its check record: a plain run of this kgate on all the cards
step baseline-run "$kgate" run --devices "$all" --json "$d/baseline-run.json" || { [ $? = 4 ] || failed=1; }
step baseline-update "$kgate" baseline update "$d/baseline-run.json" --baseline-dir "$d/baselines" || failed=1
rm -f "$d/baseline-run.json" # 20 MB of cases; the baseline keeps what the runs read

# 3. each kind on each card count, twice, interleaved
# the seconds a run may take (one H100: 9-11, 11-12 and 37-44 s on one card; fewer on more)
need() { case $1 in none) echo 15 ;; changed) echo 20 ;; every) echo $((10 + 50 / $2)) ;; esac; }
for rep in 1 2; do
  for k in "${counts[@]}"; do
    for kind in "${kinds[@]}"; do
      name=$kind-${k}cards-$rep devs=$(devices_of "$k")
      fits "$(need "$kind" "$k")" "$name" || continue
      args=(run --devices "$devs" --base-kernels "$d/base/libkgate_kernels.so" --carry-from "$d/baselines"
            --baseline-dir "$d/baselines" --json "$d/$name.json")
      [ "$kind" = changed ] && { [ -f "$changed" ] || continue; args+=(--own-kernels "$changed"); }
      [ "$kind" = every ] && args+=(--time-unchanged)
      step "$name" "$kgate" "${args[@]}" || { [ $? = 4 ] || failed=1; } # 4: a false SLOWER, which is a result here
      [ -s "$d/$name.json" ] || continue
      c=$(cards_check "$d/$name.json" "$devs")
      echo "$name $c" >> "$d/cards.txt"
      [ "$c" = ok ] || failed=1
    done
  done
done

rm -rf "$d/cache" "$d/base" "$d/changed-build"
echo "total $(($(date +%s) - t0)) s of a budget of $budget s on $ncards card(s)" >> "$d/steps.txt"
summary "$d"
gzip -q "$d"/*-*cards-*.json 2>/dev/null
tar -czf "$outdir/several-gpus.tar.gz" -C "$outdir" several-gpus
cat "$d/runs.txt" "$d/summary.md" "$d/cards.txt" "$d/left_out.txt"
echo "several_gpus: $(tail -1 "$d/steps.txt"); tar: $outdir/several-gpus.tar.gz"
exit $failed
