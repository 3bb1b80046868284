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
# Usage: timing_guard_gpu.sh KGATE [TEAM_MODULE [OUTDIR]]   (exit 77 without a GPU)
# OUTDIR (default: a scratch folder, removed): the logs and results files.
set -u
. "$(dirname "$0")/skip_gpu.sh"
kgate=$1 team=${2:-} keep=${3:-}
gpu_scratch timing_guard_gpu
[ -n "$keep" ] && mkdir -p "$keep" && out=$keep && export KGATE_CACHE_DIR=$out/cache
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
