#!/bin/bash
# Checks carried over through the real kgate on a GPU (checkrec.h, carry.h):
# a run records the digests of its groups of 2^20 elements and more; once
# that run is the baseline, the next run carries those cases over instead of
# running them when given that baseline's folder (--carry-from:
# reduce0_divergent, reduce7_shuffle, and kgate_single_pass, whose unit's
# __device__ variables the probe reads), runs the rest (the groups below
# 2^20), and says so in its log, results and summary; a run without --carry-from, and a baseline
# checked by other kgate code (its harness digest edited), carry nothing.
# usage: carry_gpu.sh KGATE   (exit 77 without a GPU)
set -u
. "$(dirname "$0")/skip_gpu.sh"
kgate=$1
gpu_scratch carry_gpu
mkdir -p "$out/base" "$out/b"
cp "$(dirname "$kgate")/libkgate_kernels.so" "$out/base/" || fail "no module beside $kgate"
# name, then kgate run's arguments; "first" times every case, as a baseline
# refresh does (baseline-refresh.yml), the others are a pull request's gate
run() {
  local name=$1; shift
  local base=(--base-kernels "$out/base/libkgate_kernels.so")
  [ "$name" = first ] && base=()
  "$kgate" run --variant reduce0_divergent,reduce7_shuffle,kgate_single_pass --dtype i32,f32 --sizes 1000,2^20,2^20+1 \
    --perf-sizes 2^20 "${base[@]}" --baseline-dir "$out/b" --json "$out/$name.json" \
    "$@" > "$out/$name.txt" 2> "$out/$name.err"
}
carried() { grep -c '"carried":true' "$out/$1.json"; }
# cases of variant $2 of at least 2^20 elements that passed, in results $1
big() { grep "\"variant\":\"$2\"" "$out/$1.json" | grep -E '"n":(1048576|1048577),' | grep -c '"status":"pass"'; }

run first
code=$?
[ $code = 3 ] && skip_gpu carry_gpu $code "$out/first.err" "$out/first.txt"
[ $code = 0 ] || { cat "$out/first.txt" "$out/first.err"; fail "the first run exited $code"; }
[ "$(carried first)" = 0 ] || fail "cases carried over with no baseline"
grep -q '"check_record":{' "$out/first.json" || fail "no check record in the results"
for v in reduce0_divergent reduce7_shuffle kgate_single_pass; do
  grep -q "\[\"$v\",\"f32\",1048576,[0-9]*,\"[0-9a-f]\{64\}\",false\]" "$out/first.json" || fail "no group of $v recorded"
done
"$kgate" baseline update "$out/first.json" --baseline-dir "$out/b" > /dev/null 2>&1 || fail "baseline update failed"
baseline=$(ls "$out"/b/*.json)
grep -q '"check_record":' "$baseline" || fail "the baseline lacks the check record"

run second --carry-from "$out/b"
code=$?
[ $code = 0 ] || { cat "$out/second.txt" "$out/second.err"; fail "the second run exited $code"; }
want=$(($(big first reduce0_divergent) + $(big first reduce7_shuffle) + $(big first kgate_single_pass)))
[ "$want" -gt 0 ] || fail "no case of 2^20 elements passed in the first run"
[ "$(carried second)" = "$want" ] || { cat "$out/second.err"; fail "$(carried second) cases carried over, not $want"; }
grep -q "kgate: $want cases carried over from .*'s check record" "$out/second.err" || { cat "$out/second.err"; fail "no log line"; }
grep -q "($want of them carried over from the baseline's check)" "$out/second.txt" || fail "the summary does not say it"
grep '"variant":"kgate_single_pass"' "$out/second.json" | grep -q '"carried":true' ||
  fail "no kgate_single_pass case carried over"
grep '"n":1000,' "$out/second.json" | grep -q '"carried":true' && fail "a case below 2^20 carried over"
grep -q '"message":"carried over from .*same kgate, machine code and launches' "$out/second.json" || fail "no evidence"

run all
[ $? = 0 ] || fail "the run without --carry-from failed"
[ "$(carried all)" = 0 ] || fail "cases carried over without --carry-from"

sed -i 's/"harness":"[0-9a-f]\{64\}"/"harness":"'"$(printf '0%.0s' $(seq 64))"'"/' "$baseline"
run other --carry-from "$out/b"
[ $? = 0 ] || { cat "$out/other.err"; fail "the run against another kgate's record failed"; }
[ "$(carried other)" = 0 ] || fail "cases carried over from another kgate's check"
grep -q "is checked, not carried over from .*: kgate's check code differs" "$out/other.err" || { cat "$out/other.err"; fail "no reason given"; }
echo "carry_gpu: ok ($want cases carried over)"
