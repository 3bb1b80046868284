#!/bin/bash
# The phases of a gate run on 1, 2 and 4 devices (phases.h), through the
# real kgate with the fake worker as four "devices": a paired run (the test
# module against a copy of itself, every cell paired: no machine code to
# prove any unchanged) whose workers take HELLO ms to start and CASE ms a
# case (a quarter of it reported as making inputs). On every device count:
# - run.phases add up to run.wall_s within 0.1 s (the only time outside the
#   passes is between them: the check's table, the lint joined);
# - start-up is one worker's per pass (3 passes: the check, 2 rounds), not
#   the devices' sum;
# - the paired phase is the rounds' work: 2 rounds of the busiest device's
#   cells (ceil(cells / devices) cases of CASE ms each), not less (the
#   start-up taken off as the devices' sum) and not more (start-up left in);
# - the check's work is shared as the workers' sums say: inputs a quarter.
# Prints each run's numbers. usage: phases_devices.sh KGATE FAKE_WORKER MODULE.so
set -u
kgate=$1 worker=$2 mod=$3
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "phases_devices: $*"; exit 1; }
mkdir -p "$t/ctl"
cp "$mod" "$t/ref.so" && cp "$mod" "$t/ctl/ref.so" || fail "cannot copy $mod"
hello=250 case_ms=20 cells=18 # 3 variants x 2 dtypes x 3 timed sizes
num() { grep -o "\"$1\":[0-9.e+-]*" "$2" | head -1 | cut -d: -f2; }
# awk's exit status: 0 when the condition holds
holds() { awk "BEGIN { exit !($1) }"; }

for devices in 0 0,1 0,1,2,3; do
  nd=$(($(tr -cd , <<<"$devices" | wc -c) + 1))
  FAKE_PAIR=wide FAKE_CASE_MS=$case_ms FAKE_HELLO_MS=$hello \
    "$kgate" run --worker "$worker" --lint off --kernels "$t/ctl/ref.so" --base-kernels "$t/ref.so" \
    --variant team_sum,team_max,team_min --dtype f32,i32 --sizes 1,2,3,4,5,6 --perf-sizes 2,4,6 \
    --rounds 2 --max-rounds 2 --devices "$devices" --json "$t/r.json" > "$t/out" 2>&1
  code=$?
  [ $code = 0 ] || { cat "$t/out"; fail "$nd devices: exit $code"; }
  r=$t/r.json
  used=$(grep -o '"device":[0-9][0-9]*' "$r" | sort -u | wc -l)
  [ "$used" = "$nd" ] || fail "$nd devices: the cases ran on $used"
  # "rounds":2, the run's and each cell's
  [ "$(grep -o '"rounds":2,' "$r" | wc -l)" -gt $cells ] || fail "$nd devices: not every cell had 2 rounds"
  wall=$(num wall_s "$r") startup=$(num startup_s "$r") inputs=$(num inputs_s "$r") check=$(num check_s "$r")
  timing=$(num timing_s "$r") paired=$(num paired_s "$r")
  [ -n "$wall" ] && [ -n "$paired" ] && [ -n "$inputs" ] || fail "$nd devices: no run.phases in $(head -c 600 "$r")"
  sum=$(awk "BEGIN { print $startup + $inputs + $check + $timing + $paired }")
  ran=$(grep -c '"status":"pass"' "$r")
  busiest=$(((cells + nd - 1) / nd))
  echo "phases_devices: $nd device(s): wall $wall s, phases $sum s (start-up $startup, inputs $inputs, check $check," \
    "timing $timing, paired $paired)"
  holds "$sum <= $wall + 0.001 && $sum >= $wall - 0.1" || fail "$nd devices: the phases add up to $sum s, wall $wall s"
  holds "$startup >= 3 * $hello / 1000 && $startup <= 3 * $hello / 1000 * 1.5 + 0.1" ||
    fail "$nd devices: start-up $startup s, not 3 passes of one worker's $hello ms"
  lo=$(awk "BEGIN { print 2 * $busiest * $case_ms / 1000 }")
  holds "$paired >= $lo && $paired <= $lo * 1.5 + 0.1" ||
    fail "$nd devices: paired $paired s, not the rounds' work of 2 x $busiest cases of $case_ms ms ($lo s)"
  holds "$inputs / ($inputs + $check) > 0.24 && $inputs / ($inputs + $check) < 0.26" ||
    fail "$nd devices: inputs $inputs s of inputs and check $(awk "BEGIN { print $inputs + $check }") s, not a quarter"
  holds "$inputs + $check >= $ran * $case_ms / 1000 / $nd * 0.9" ||
    fail "$nd devices: inputs and check $inputs + $check s for $ran cases of $case_ms ms on $nd devices"
done
echo "phases_devices: the phases add up to the wall time on 1, 2 and 4 devices; start-up and paired right"
