#!/bin/bash
# Cells proven unchanged through the real kgate on a GPU (unchanged.h,
# device/launches.h, proof.h): against a copy of kgate's own module in
# another folder the cells of two_pass and reduce7_shuffle are UNCHANGED,
# with their evidence in the results and their case timed once; cub_sum and
# kgate_single_pass, whose units hold __device__ data the host may set, are
# paired with that reason in the log; --time-unchanged pairs them all
# instead; the roofline is kept in the cache folder and read back by the
# next run. With a team's module built as a head and a base that differ
# only at the host (tests/modules/gpu_unchanged.cu): the same launch is
# UNCHANGED; a carve-out passed with the launch, a call that asks whether it
# is captured and a call whose arguments change from call to call are paired
# with their reasons; against itself the carve-out is UNCHANGED again.
# usage: unchanged_gpu.sh KGATE [HEAD_MODULE BASE_MODULE]   (exit 77 without a GPU)
set -u
. "$(dirname "$0")/skip_gpu.sh"
kgate=$1 head=${2:-} base=${3:-}
gpu_scratch unchanged_gpu
mkdir -p "$out/base"
cp "$(dirname "$kgate")/libkgate_kernels.so" "$out/base/" || fail "no module beside $kgate"
run() { # name, then kgate run's arguments
  local name=$1; shift
  "$kgate" run --variant cub_sum,two_pass,kgate_single_pass,reduce7_shuffle --dtype i32,f32,f64 --sizes 1 \
    --perf-sizes 2^20 --base-kernels "$out/base/libkgate_kernels.so" --json "$out/$name.json" "$@" \
    > "$out/$name.txt" 2> "$out/$name.err"
}
count() { grep -o "\"verdict\":\"$2\"" "$out/$1.json" | wc -l; }

run proven
code=$?
[ $code = 3 ] && skip_gpu unchanged_gpu $code "$out/proven.err" "$out/proven.txt"
[ $code = 0 ] || { cat "$out/proven.txt" "$out/proven.err"; fail "the run exited $code"; }
grep -q "6 of 12 cells proven unchanged" "$out/proven.err" || { cat "$out/proven.err"; fail "not 6 cells proven"; }
[ "$(count proven UNCHANGED)" = 6 ] || fail "$(count proven UNCHANGED) UNCHANGED cells, not 6"
[ "$(grep -o 'same machine code (sm_[0-9]*, SHA-256 [0-9a-f]\{16\}) and launches: [0-9]* kernels\?, [0-9]* launch' \
  "$out/proven.json" | wc -l)" = 6 ] || fail "evidence missing from the results"
for v in cub_sum kgate_single_pass; do
  grep -q "kgate: $v is paired: not proven unchanged (.*its unit holds __device__ or __constant__ data" "$out/proven.err" ||
    { cat "$out/proven.err"; fail "$v not paired for its __device__ data"; }
done
grep -q "is paired: not proven unchanged (.*\(capturing\|second call\|launch attribute\)" "$out/proven.err" &&
  { cat "$out/proven.err"; fail "a variant tripped the capture checks"; }
# the UNCHANGED cells are not timed: the six paired cells' cases alone have samples
timed=$(grep -o '"samples":[1-9][0-9]*' "$out/proven.json" | wc -l)
[ "$timed" = 6 ] || fail "$timed timed cases, not 6 (the UNCHANGED cells timed?)"
grep -q "^kgate-roofline 1 GPU-" "$KGATE_CACHE_DIR/roofline.txt" || fail "no roofline kept"
# --absolute-unchanged: the same six UNCHANGED, and every case timed once
run absolute --absolute-unchanged
code=$?
[ $code = 0 ] || { cat "$out/absolute.txt" "$out/absolute.err"; fail "the --absolute-unchanged run exited $code"; }
[ "$(count absolute UNCHANGED)" = 6 ] || fail "$(count absolute UNCHANGED) UNCHANGED cells with --absolute-unchanged, not 6"
timed=$(grep -o '"samples":[1-9][0-9]*' "$out/absolute.json" | wc -l)
[ "$timed" -ge 12 ] || fail "$timed timed cases with --absolute-unchanged, not 12"
run timed --time-unchanged
code=$?
[ $code = 0 ] || { cat "$out/timed.txt" "$out/timed.err"; fail "the --time-unchanged run exited $code"; }
[ "$(count timed UNCHANGED)" = 0 ] || fail "--time-unchanged still left UNCHANGED cells"
grep -q "proven unchanged" "$out/timed.err" && fail "--time-unchanged still probed"
r1=$(grep -o '"roofline_gbps":[0-9.]*' "$out/proven.json" | head -1 | cut -d: -f2)
r2=$(grep -o '"roofline_gbps":[0-9.]*' "$out/timed.json" | head -1 | cut -d: -f2)
# the file keeps one decimal: the second run reads the first's value to within 0.05 GB/s
awk -v a="$r1" -v b="$r2" 'BEGIN { d = a - b; exit !(a > 0 && d < 0.051 && d > -0.051) }' ||
  fail "the second run did not read the kept roofline ($r1, $r2)"
echo "unchanged_gpu: 6 cells UNCHANGED with their evidence, untimed (--absolute-unchanged times them once), 6 paired for __device__ data; --time-unchanged pairs them; the roofline kept ($r1)"
[ -n "$head" ] || exit 0

team() { # name, base module
  "$kgate" run --kernels "$head" --base-kernels "$2" --variant unch_plain,unch_carveout,unch_query,unch_stateful \
    --dtype i32 --sizes 1 --perf-sizes 2^20 --json "$out/$1.json" > "$out/$1.txt" 2> "$out/$1.err"
  code=$?
  [ $code = 0 ] || { cat "$out/$1.txt" "$out/$1.err"; fail "the $1 run exited $code"; }
}
verdict() { grep -o "\"variant\":\"$2\",\"dtype\":\"i32\",\"n\":1048576,\"verdict\":\"[A-Z]*\"" "$out/$1.json" | cut -d'"' -f14; }
paired_for() { # name, variant, reason
  grep -q "kgate: $2 is paired: not proven unchanged (.*$3" "$out/$1.err" ||
    { cat "$out/$1.err"; fail "$1: $2 not paired for: $3"; }
  [ "$(verdict "$1" "$2")" != UNCHANGED ] || fail "$1: $2 is UNCHANGED"
}
team host "$base"
[ "$(verdict host unch_plain)" = UNCHANGED ] || { cat "$out/host.err"; fail "unch_plain is $(verdict host unch_plain)"; }
paired_for host unch_carveout "launches differ at line"
paired_for host unch_query "asked whether its stream is capturing"
paired_for host unch_stateful "queued other work on a second call"
grep "is paired" "$out/host.err"
team self "$head"
[ "$(verdict self unch_carveout)" = UNCHANGED ] || { cat "$out/self.err"; fail "the carve-out against itself: $(verdict self unch_carveout)"; }
paired_for self unch_query "asked whether its stream is capturing"
echo "unchanged_gpu: a team's host-side changes: the same launch UNCHANGED; a carve-out, a capture query, a changing argument paired"
