#!/bin/bash
# Shards across runners (docs/several-gpus.md): the paired gate split over
# three "runners" (each its own kgate run --shard i/3 with the fake worker,
# its own RUNNER_NAME, one GITHUB_RUN_ID), merged with kgate merge, gives the
# verdict and the cases of one runner's run of the whole plan. Two gates: one
# that passes (every paired cell SAME), and one that fails (a size whose
# cases crash the worker, every paired cell SLOWER: the failure in one shard).
# The verdict of the merged file is what the merge job reads: kgate compare
# against the same file as the one runner's (its exit code and verdict line,
# and its Markdown); the results must be the same but for the fields that
# say where and when each shard ran:
#   run.date, run.wall_s (merge: the largest shard's), run.phases (merge:
#   none, shards on several machines do not add up to one run), run.options
#   .shard (merge: none), run.provenance.runner (merge: every runner's name),
#   paired.wall_s (the largest shard's); each case's device and its times
#   (input_us, check_us, time_us), and here "got", the fake worker's pid;
#   and the pooled evidence (paired.variants: merge pools the cells as read
#   back, written to 15 digits) in its last digits.
# usage: shards_merge.sh KGATE FAKE_WORKER MODULE.so
set -u
kgate=$1 worker=$2 mod=$3
t=$(mktemp -d) && trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
fail() { echo "shards_merge: $*"; exit 1; }
mkdir -p "$t/ctl" "$t/none"
cp "$mod" "$t/ref.so" && cp "$mod" "$t/ctl/ref.so" || fail "cannot copy $mod"
export GITHUB_RUN_ID=4242 GITHUB_RUN_ATTEMPT=1

gate() { # NAME SIZES [--shard i/3]: kgate run as runner gpu-i; its exit code in NAME.code
  local name=$1 sizes=$2 runner=gpu-1
  shift 2
  [ $# -gt 0 ] && runner=gpu-${2%/3}
  RUNNER_NAME=$runner "$kgate" run --worker "$worker" --lint off --kernels "$t/ctl/ref.so" --base-kernels "$t/ref.so" \
    --variant team_sum,team_max,team_min --dtype f32,i32 --sizes "$sizes" --perf-sizes 2,4,8 --rounds 2 \
    --max-rounds 2 --baseline-dir "$t/none" --json "$t/$name.json" "$@" > "$t/$name.out" 2>&1
  echo $? > "$t/$name.code"
}
# the results' lines by part, each with what may differ taken out
cases_of() {
  sed -n '/^"cases":\[$/,/^\],*$/p' "$1" | grep '^{"variant"' | sed -E 's/,$//; s/"got":"[0-9]*"/"got":"pid"/;
    s/,"device":[0-9]+//; s/"(input|check|time)_us":[0-9.e+-]+/"\1_us":0/g' | sort
}
line_of() { grep "^\"$1\":" "$2" | sed -E 's/"wall_s":[0-9.e+-]+/"wall_s":0/g; s/"date":"[^"]*"/"date":""/;
  s/,"phases":\{[^}]*\}//; s/,"shard":"[0-9]+\/3"//; s/"runner":"[^"]*"/"runner":""/; s/,$//
  s/("llr_(slower|faster)":-?[0-9]+\.[0-9]{10})[0-9]*/\1/g; s/^("lint":\[.*\])\}$/\1/'; }

for scenario in pass fail; do
  sizes=1,2,3,4,5,6,7,8 spread=wide want=0
  [ $scenario = fail ] && sizes=1,2,3,4,8,13 spread=slow want=1 # 13: the fake worker's SIGSEGV
  export FAKE_PAIR=$spread
  gate one "$sizes"
  for i in 1 2 3; do gate "shard$i" "$sizes" --shard "$i/3"; done
  code=$(cat "$t/one.code")
  [ "$code" = $want ] || { cat "$t/one.out"; fail "$scenario: the one runner's gate exited $code, not $want"; }
  for i in 1 2 3; do
    c=$(cat "$t/shard$i.code")
    [ "$c" = 0 ] || [ "$c" = 1 ] || [ "$c" = 4 ] || { cat "$t/shard$i.out"; fail "$scenario: shard $i exited $c"; }
    grep -q "\"shard\":\"$i/3\"" "$t/shard$i.json" || fail "$scenario: shard $i does not record its shard"
  done
  "$kgate" merge "$t"/shard{3,1,2}.json -o "$t/all.json" > "$t/merge.out" 2>&1 ||
    fail "$scenario: merge: $(cat "$t/merge.out")"
  n=$(cases_of "$t/one.json" | wc -l)
  grep -q "^kgate: merged $n cases from 3 files" "$t/merge.out" || fail "$scenario: $(cat "$t/merge.out"), not $n cases"
  grep -q '"runner":"gpu-3,gpu-1,gpu-2"' "$t/all.json" || fail "$scenario: the merged file lacks the three runners"
  # the verdict: what the merge job reads, and the one runner's own
  "$kgate" compare "$t/one.json" "$t/one.json" --markdown "$t/one.md" > "$t/cmp-one.out" 2>&1
  c1=$?
  "$kgate" compare "$t/one.json" "$t/all.json" --markdown "$t/all.md" > "$t/cmp-all.out" 2>&1
  c3=$?
  [ $c1 = "$code" ] && [ $c3 = "$code" ] ||
    fail "$scenario: compare exits $c1 (one runner) and $c3 (merged), the gate $code"
  v1=$(grep '^verdict: ' "$t/cmp-one.out") v3=$(grep '^verdict: ' "$t/cmp-all.out")
  [ -n "$v1" ] && [ "$v1" = "$v3" ] || fail "$scenario: verdicts differ: '$v1' and '$v3'"
  w=${v1#verdict: } && w=${w%% *}
  grep -q "\"verdict\":{\"verdict\":\"$w\",\"exit_code\":$code," "$t/one.json" ||
    fail "$scenario: the one runner's results do not say $w (exit $code)"
  # the Markdown: its Run line (date, wall time), Time line (the phases) and the paired rounds' wall time
  md() { grep -Ev '^- \*\*(Run|Time)\*\*: ' "$1" | sed -E 's/^(- \*\*Base module\*\*: .* rounds), [0-9.]+ s$/\1/'; }
  diff <(md "$t/one.md") <(md "$t/all.md") > "$t/md.diff" ||
    fail "$scenario: the Markdown differs: $(cat "$t/md.diff")"
  # the results
  diff <(cases_of "$t/one.json") <(cases_of "$t/all.json") > "$t/cases.diff" ||
    fail "$scenario: the cases differ: $(head -c 2000 "$t/cases.diff")"
  for part in run paired lint check_record; do
    [ "$(line_of $part "$t/one.json")" = "$(line_of $part "$t/all.json")" ] ||
      fail "$scenario: \"$part\" differs: $(line_of $part "$t/one.json" | head -c 600) /" \
        "$(line_of $part "$t/all.json" | head -c 600)"
  done
  [ $scenario = pass ] || grep -q '"verdict":"SLOWER"' "$t/all.json" || fail "fail: no SLOWER cell merged"
  echo "shards_merge: $scenario: 3 shards merged: $n cases, $v3"
done
echo "shards_merge: three runners' shards merge into the one runner's verdict and cases"
