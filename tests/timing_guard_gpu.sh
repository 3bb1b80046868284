#!/usr/bin/env bash
# The timer a module cannot fool, on a GPU (docs/timing-and-verdicts.md,
# "What kgate does not let a module do"): every game mutant of
# kernels/mutants/mutants.def is caught by the check it names (selftest
# --only them: a refusal for the persisting-L2 window and the side stream,
# outputs wrong after timing for the caches, less work after N calls, size
# sniffing and clock-dependent work), and nothing honest is refused or
# failed: kgate run over its own module (the seeds, CUB, kgate_single_pass)
# and, when given, a team's module exit 0 (every case passed, so none was
# refused or wrong after timing).
# The paired rounds (the pull-request gate and the nightly time their cells
# there alone) re-check too, given GAME_HEAD and GAME_BASE (the team module
# tests/modules/gpu_game.cu built twice: the head's game_cache_ptr and
# game_less_after_n are mut_game_cache_ptr and mut_game_less_after_n, the
# base's are reduce7_shuffle): paired with the base, each head's timed case
# fails wrong_after_timing (exit 1), its cell UNKNOWN and none FASTER; the
# other way round, each cell says the base was wrong and no case fails
# (exit 0); and kgate's own variants paired with a copy of their module (in
# place, float atomics, CUB, kgate_single_pass) fail none, every paired
# case re-checked. --time-unchanged pairs every cell: the unchanged proof
# sees two calls, and game_less_after_n launches what the base launches
# for its first 8.
# Usage: timing_guard_gpu.sh KGATE [TEAM_MODULE [OUTDIR [GAME_HEAD GAME_BASE]]]   (exit 77 without a GPU)
# OUTDIR (default, or "": a scratch folder, removed): the logs and results files. TEAM_MODULE "": none.
set -u
. "$(dirname "$0")/skip_gpu.sh"
kgate=$1 team=${2:-} keep=${3:-} game_head=${4:-} game_base=${5:-}
gpu_scratch timing_guard_gpu
# a folder asked for is kept: the scratch one goes, and the trap with it
[ -n "$keep" ] && { rm -rf "$out"; trap - EXIT; mkdir -p "$keep" && out=$keep && export KGATE_CACHE_DIR=$out/cache; }
games=$(grep -o '^KG_MUTANT(mut_game_[a-z_]*' "$(dirname "$0")/../kernels/mutants/mutants.def" | cut -d'(' -f2 | paste -sd,)
[ -n "$games" ] || fail "no game mutants in kernels/mutants/mutants.def"

"$kgate" selftest --only "$games" > "$out/selftest.txt" 2> "$out/selftest.err"
rc=$?
[ "$rc" = 3 ] && skip_gpu timing_guard_gpu "$rc" "$out/selftest.err"
[ "$rc" = 0 ] || { cat "$out/selftest.txt"; fail "selftest --only the game mutants: exit $rc, expected 0"; }
for m in ${games//,/ }; do
  grep -q "^| $m | .* | yes |$" "$out/selftest.txt" || fail "$m not caught: $(grep "^| $m |" "$out/selftest.txt")"
done

honest() { # name, then kgate run's arguments: exit 0 is every case passed, none refused
  local name=$1; shift
  "$kgate" run --json "$out/$name.json" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  local rc=$?
  [ "$rc" = 0 ] || { grep -i -m5 'refused\|after timing\|FAIL' "$out/$name.txt"; fail "$name: kgate run exit $rc, expected 0"; }
}
honest own
[ -n "$team" ] && honest team --kernels "$team"
echo "timing_guard_gpu: $(echo "$games" | tr , '\n' | wc -l) game mutants caught; own module${team:+ and $(basename "$team")}: no case refused or wrong after timing"
[ -n "$game_head" ] && [ -n "$game_base" ] || exit 0

# NAME, the exit codes expected ("0 4"), then kgate run's arguments (a paired run, every cell paired)
paired() {
  local name=$1 want=$2; shift 2
  "$kgate" run --time-unchanged --json "$out/$name.json" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  local rc=$?
  [[ " $want " == *" $rc "* ]] ||
    { cat "$out/$name.txt"; tail -20 "$out/$name.err"; fail "paired $name: exit $rc, expected $want"; }
}
count() { grep -o "$2" "$out/$1.json" | wc -l; } # NAME, a pattern: its matches in NAME.json
# the timed pattern alone: the check's other patterns at one size reuse the input's buffer, where a
# cache by pointer returns the last pattern's sum and fails the check itself, before any timing; no
# lint (what is tested here is the timing, and the modules hold copies of every kgate kernel)
game=(--variant game_cache_ptr,game_less_after_n --dtype i32 --pattern wrap --sizes 1000 --perf-sizes 2^20,2^22
  --lint off)
# the head games, the base is honest: 2 variants x 2 sizes, each timed case failed after timing
paired game-head 1 --kernels "$game_head" --base-kernels "$game_base" "${game[@]}"
for v in game_cache_ptr game_less_after_n; do
  n=$(count game-head "\"variant\":\"$v\",\"dtype\":\"i32\",\"n\":[0-9]*,\"pattern\":\"wrap\",\"supported\":true,\"timed\":true,\
\"status\":\"fail\"[^}]*\"fail\":\"wrong_after_timing\"")
  [ "$n" = 2 ] || { grep -i "$v" "$out/game-head.txt"; fail "game-head: $v wrong_after_timing in $n timed cases, not 2"; }
done
[ "$(count game-head '"message":"paired, copy [0-9], after timing, sample')" = 4 ] ||
  fail "game-head: the cases' messages"
[ "$(count game-head '"verdict":"UNKNOWN","[^}]*the head was wrong after timing')" = 4 ] ||
  { grep -A8 '^paired against' "$out/game-head.txt"; fail "game-head: not 4 cells UNKNOWN for a wrong head"; }
[ "$(count game-head '"verdict":"FASTER"')" = 0 ] || fail "game-head: a game came out FASTER"
# the base games, the head is honest: the cells say so, no case fails
paired game-base 0 --kernels "$game_base" --base-kernels "$game_head" "${game[@]}"
[ "$(count game-base '"verdict":"UNKNOWN","[^}]*the base was wrong after timing, not the head')" = 4 ] ||
  { grep -A8 '^paired against' "$out/game-base.txt"; fail "game-base: not 4 cells UNKNOWN for a wrong base"; }
[ "$(count game-base '"fail":')" = 0 ] || fail "game-base: a case failed"
# kgate's own variants against a copy of their module: no case failed (a false SLOWER, exit 4, is not this test's)
mkdir -p "$out/base"
cp "$(dirname "$kgate")/libkgate_kernels.so" "$out/base/" || fail "no module beside $kgate"
paired own-paired "0 4" --base-kernels "$out/base/libkgate_kernels.so" \
  --variant reduce7_shuffle,unrolling8,smem_atomic,cub_sum,kgate_single_pass --dtype i32,f32,f64,f16 --sizes 1 \
  --perf-sizes 2^20,2^25
[ "$(count own-paired '"fail":')" = 0 ] || fail "own-paired: a case failed"
timed=$(count own-paired '"timed":true,"status":"pass"')
checked=$(count own-paired '"rechecked":[1-9]')
[ "$timed" -gt 0 ] && [ "$checked" -ge "$timed" ] || fail "own-paired: $checked of $timed timed cases re-checked"
echo "timing_guard_gpu: paired: a head's cache by pointer and less work after N calls failed wrong_after_timing" \
  "(4 cases, 4 cells UNKNOWN, none FASTER); a base's said so and failed no case;" \
  "own variants paired: $checked of $timed timed cases re-checked, none failed"
