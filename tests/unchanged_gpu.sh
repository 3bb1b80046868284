#!/bin/bash
# Cells proven unchanged through the real kgate on a GPU (unchanged.h,
# device/launches.h, proof.h): against a copy of kgate's own module in
# another folder every cell of two_pass, reduce7_shuffle, cub_sum and
# kgate_single_pass is UNCHANGED, with its evidence in the results and its
# case not timed; the last two, whose units hold __device__ data, with their
# variables read alike; --absolute-unchanged times them once,
# --time-unchanged pairs them all instead; the roofline is kept in the cache
# folder and read back by the next run. With a team's module built as a
# head and a base that differ only at the host (tests/modules/gpu_unchanged.cu):
# the same launch is UNCHANGED; a carve-out passed with the launch, a call
# that asks whether it is captured, a call whose arguments change from call
# to call and a __device__ variable the host sets to another value are
# paired with their reasons, and so are a kernel's cache configuration
# (cudaFuncSetCacheConfig) and its cluster scheduling policy preference
# (cudaFuncSetAttribute) set otherwise; against itself the carve-out, the
# variable and both settings are UNCHANGED again.
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
grep -q "12 of 12 cells proven unchanged" "$out/proven.err" || { cat "$out/proven.err"; fail "not 12 cells proven"; }
[ "$(count proven UNCHANGED)" = 12 ] || fail "$(count proven UNCHANGED) UNCHANGED cells, not 12"
[ "$(grep -o 'same machine code (sm_[0-9]*, SHA-256 [0-9a-f]\{16\}) and launches: [0-9]* kernels\?, [0-9]* launch' \
  "$out/proven.json" | wc -l)" = 12 ] || fail "evidence missing from the results"
for v in cub_sum kgate_single_pass; do
  [ "$(grep -o "\"variant\":\"$v\",[^}]*[0-9] variables\? read alike" "$out/proven.json" | wc -l)" = 3 ] ||
    { grep "\"variant\":\"$v\"" "$out/proven.json" | head -3; fail "$v: its variables not read alike in 3 cells"; }
done
grep -q "is paired: not proven unchanged (.*\(capturing\|second call\|launch attribute\)" "$out/proven.err" &&
  { cat "$out/proven.err"; fail "a variant tripped the capture checks"; }
# the UNCHANGED cells are not timed
timed=$(grep -o '"samples":[1-9][0-9]*' "$out/proven.json" | wc -l)
[ "$timed" = 0 ] || fail "$timed timed cases, not 0 (the UNCHANGED cells timed?)"
grep -q "^kgate-roofline 1 GPU-" "$KGATE_CACHE_DIR/roofline.txt" || fail "no roofline kept"
# --absolute-unchanged: the same twelve UNCHANGED, and every case timed once
run absolute --absolute-unchanged
code=$?
[ $code = 0 ] || { cat "$out/absolute.txt" "$out/absolute.err"; fail "the --absolute-unchanged run exited $code"; }
[ "$(count absolute UNCHANGED)" = 12 ] || fail "$(count absolute UNCHANGED) UNCHANGED cells with --absolute-unchanged, not 12"
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
echo "unchanged_gpu: 12 cells UNCHANGED with their evidence (6 with __device__ data read alike), untimed (--absolute-unchanged times them once); --time-unchanged pairs them; the roofline kept ($r1)"
[ -n "$head" ] || exit 0

team() { # name, base module, the exit code expected
  "$kgate" run --kernels "$head" --base-kernels "$2" --variant unch_plain,unch_carveout,unch_query,unch_stateful,unch_knob,unch_cachecfg,unch_csp \
    --dtype i32 --sizes 1 --perf-sizes 2^20 --json "$out/$1.json" > "$out/$1.txt" 2> "$out/$1.err"
  code=$?
  [ $code = "$3" ] || { cat "$out/$1.txt" "$out/$1.err"; fail "the $1 run exited $code, not $3"; }
}
verdict() { grep -o "\"variant\":\"$2\",\"dtype\":\"i32\",\"n\":1048576,\"verdict\":\"[A-Z]*\"" "$out/$1.json" | cut -d'"' -f14; }
paired_for() { # name, variant, reason
  grep -q "kgate: $2 is paired: not proven unchanged (.*$3" "$out/$1.err" ||
    { cat "$out/$1.err"; fail "$1: $2 not paired for: $3"; }
  [ "$(verdict "$1" "$2")" != UNCHANGED ] || fail "$1: $2 is UNCHANGED"
}
# the knob's two passes make the head SLOWER: exit 4
team host "$base" 4
[ "$(verdict host unch_plain)" = UNCHANGED ] || { cat "$out/host.err"; fail "unch_plain is $(verdict host unch_plain)"; }
paired_for host unch_carveout "launches differ at line"
paired_for host unch_query "asked whether its stream is capturing"
paired_for host unch_stateful "queued other work on a second call"
paired_for host unch_knob "launches differ at line"
paired_for host unch_cachecfg "launches differ at line"
paired_for host unch_csp "launches differ at line"
[ "$(verdict host unch_knob)" = SLOWER ] || fail "the knob set to two passes is $(verdict host unch_knob), not SLOWER"
for v in unch_plain unch_carveout unch_query unch_stateful unch_cachecfg unch_csp; do
  [ "$(verdict host $v)" != SLOWER ] || fail "$v is SLOWER"
done
grep "is paired" "$out/host.err"
team self "$head" 0
[ "$(verdict self unch_carveout)" = UNCHANGED ] || { cat "$out/self.err"; fail "the carve-out against itself: $(verdict self unch_carveout)"; }
paired_for self unch_query "asked whether its stream is capturing"
[ "$(verdict self unch_knob)" = UNCHANGED ] || { cat "$out/self.err"; fail "the knob against itself: $(verdict self unch_knob)"; }
for v in unch_cachecfg unch_csp; do
  [ "$(verdict self $v)" = UNCHANGED ] || { cat "$out/self.err"; fail "$v against itself: $(verdict self $v)"; }
done
grep -q '"variant":"unch_knob",[^}]*1 variable read alike' "$out/self.json" || fail "the knob's evidence lacks its variable"
echo "unchanged_gpu: a team's host-side changes: the same launch UNCHANGED; a carve-out, a capture query, a changing argument paired; a __device__ knob set to two passes paired and SLOWER"
