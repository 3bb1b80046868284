#!/usr/bin/env bash
# Tests of the action's scripts (action.yml's steps) without GitHub and without
# a GPU: a made-up team repository (base and head commits whose "build" writes
# a file), a fake kgate that records its arguments and answers with a
# committed results file, and the step environment GitHub would give.
#   scripts/action/test_action.sh          prints "N passed, N failed"
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
expect() { # expect NAME CONDITION...
  local name=$1
  shift
  if "$@"; then ok; else bad "$name"; fi
}
# shellcheck disable=SC2053 # $2 is a pattern on purpose
glob() { [[ $1 == $2 ]]; }
output() { sed -n "s/^$1=//p" "$GITHUB_OUTPUT" | tail -n1; }

# --- a fake kgate ----------------------------------------------------------
prefix="$tmp/prefix"
mkdir -p "$prefix/bin"
cat > "$prefix/bin/kgate" <<EOF
#!/usr/bin/env bash
printf '%s\n' "\$@" > "$tmp/kgate.args"
echo "\$*" >> "$tmp/kgate.calls"
case "\$1" in
  reference)
    if grep -q UNPINNED "\$4"; then echo "kgate: \$4: not a pinned reference" >&2; exit 2; fi
    exit 0 ;;
  list)
    printf '%-24s %s\n' variant idea reduce0_divergent "interleaved" cub_sum "CUB"
    if [[ \$# -ge 3 ]]; then
      if grep -q BADABI "\$3"; then echo "kgate: \$3: module ABI 7, kgate reads 1" >&2; exit 2; fi
      printf '%-24s %s\n' team_warp_sum "a sum" team_block_max "a max"
    fi
    exit 0 ;;
  run)
    while [[ \$# -gt 0 ]]; do
      if [[ \$1 == --json ]]; then cp "$root/tests/data/h200-paired.json" "\$2"; fi
      if [[ \$1 == --comment ]]; then cp "$root/tests/data/reports/paired.comment.md" "\$2"; fi
      shift
    done
    echo "kgate (fake): done"
    exit "\${FAKE_CODE:-0}" ;;
  history)
    if [[ \$2 == add ]]; then
      [[ -z \${FAKE_HISTORY_ADD:-} ]] || { echo "kgate: history.jsonl: line 1: bad" >&2; exit "\$FAKE_HISTORY_ADD"; }
      while [[ \$# -gt 0 ]]; do [[ \$1 != --file ]] || echo night >> "\$2"; shift; done
      exit 0
    fi
    exit "\${FAKE_FINDINGS:-0}" ;;
  report)
    code=0
    while [[ \$# -gt 0 ]]; do
      [[ \$1 != --html ]] || { mkdir -p "\$2"; echo page > "\$2/index.html"; }
      [[ \$1 != --bisect ]] || code=\${FAKE_REPORT_BISECT:-0}
      shift
    done
    exit "\$code" ;;
  bisect)
    echo "\$KGATE_PREFIX \$KGATE_CUDA_ARCHITECTURES \$CMAKE_PREFIX_PATH" > "$tmp/bisect.env"
    while [[ \$# -gt 0 ]]; do
      case \$1 in
        --json) [[ -z \${FAKE_OUTCOME:-} ]] || {
                  echo '{"kind":"kgate-bisect",'; echo "\"outcome\":\"\$FAKE_OUTCOME\","
                  [[ -z \${FAKE_CULPRIT:-} ]] || echo "\"culprit\":\"\$FAKE_CULPRIT\","; echo '"exit_code":0}'
                } > "\$2" ;;
        --markdown) echo "## kgate bisect: \${FAKE_OUTCOME:-none}" >> "\$2" ;;
      esac
      shift
    done
    exit "\${FAKE_BISECT:-0}" ;;
  --version) echo "kgate 0.1.0 (fake)" ;;
esac
EOF
chmod +x "$prefix/bin/kgate"

# --- a team repository: base commit, then the pull request's head ---------
repo="$tmp/team"
git init -q -b main "$repo"
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name t
cat > "$repo/build.sh" <<'EOF'
#!/bin/sh
# writes the "module": the commit's word, and where kgate is
mkdir -p build && { cat word; echo "$KGATE_PREFIX $KGATE_CUDA_ARCHITECTURES"; } > build/libteam.so
EOF
echo base > "$repo/word"
git -C "$repo" add -A && git -C "$repo" commit -qm base
base_sha=$(git -C "$repo" rev-parse HEAD)
git -C "$repo" update-ref refs/remotes/origin/main "$base_sha"
git -C "$repo" checkout -q -b pr
echo head > "$repo/word"
git -C "$repo" commit -qam head

# The environment of a step, fresh for each scenario.
fresh() {
  export RUNNER_TEMP="$tmp/runner-temp-$1"
  rm -rf "$RUNNER_TEMP"
  mkdir -p "$RUNNER_TEMP"
  export GITHUB_OUTPUT="$RUNNER_TEMP/output" GITHUB_STEP_SUMMARY="$RUNNER_TEMP/summary"
  : > "$GITHUB_OUTPUT"
  export GITHUB_ACTION_PATH="$root" RUNNER_OS=Linux RUNNER_ARCH=X64
  export KA_KGATE_PREFIX="$prefix" KA_ARCH=90 KA_EVENT=pull_request KA_PR_BASE=main
  export KA_BUILD="sh build.sh" KA_MODULE=build/libteam.so KA_BASE_REF='' KA_BASE_BUILD='' KA_BASE_MODULE=''
  export KA_PREFIX="$prefix" KA_PAIRED=1 KA_PLOTS=false KA_MARKER=kgate KA_ARGS='' KA_PERF_SIZES=''
  export KA_MIN_EFFECT='' KA_TOLERANCE='' KA_DEVICES=''
  unset FAKE_CODE
}

cd "$repo" || exit 1

# 1. setup: the merge base of HEAD and origin/main, the keys, the prefix.
fresh setup
"$here/setup.sh" > "$tmp/log" 2>&1
expect "setup exits 0" test $? -eq 0
expect "setup: paired" test "$(output paired)" = 1
expect "setup: base is the merge base" test "$(output base-sha)" = "$base_sha"
expect "setup: base key names the commit" grep -q "^base-key=kgate-base-module-Linux-$base_sha-" "$GITHUB_OUTPUT"
expect "setup: prefix is the installed kgate" test "$(output prefix)" = "$prefix"
work=$(output work)

# 2. the head's module, then the base's (worktree, cleaned up after).
KA_OUT="$work/head/module.so" "$here/build-module.sh" head > "$tmp/log" 2>&1
expect "head build exits 0" test $? -eq 0
expect "head module is the head's" grep -qx head "$work/head/module.so"
expect "the build sees kgate's prefix and the architectures" grep -qx "$prefix 90" "$work/head/module.so"
KA_BASE_SHA=$base_sha KA_OUT="$work/base/module.so" "$here/build-base.sh" > "$tmp/log" 2>&1
expect "base build exits 0" test $? -eq 0
expect "base module is the base's" grep -qx base "$work/base/module.so"
expect "base module checked by kgate list" grep -qx -- --kernels "$tmp/kgate.args"
expect "base: ok=1 (cache it)" test "$(output ok)" = 1
expect "base worktree removed" test ! -d "$RUNNER_TEMP/kgate-action/base-src"
expect "the checkout is untouched" test "$(git status --porcelain --untracked-files=no)" = ""

# 3. the gate: arguments, outputs, summary.
export KA_WORK="$work" KA_BASE_SHA=$base_sha KA_PERF_SIZES='2^22,2^25' KA_ARGS='--rounds 3  --sizes *'
FAKE_CODE=4 "$here/gate.sh" > "$tmp/log" 2>&1
expect "gate exits 0 whatever kgate said" test $? -eq 0
mapfile -t args < "$tmp/kgate.args"
want=(run --kernels "$work/head/module.so" --json "$work/out/results.json" --junit "$work/out/junit.xml"
      --markdown "$work/out/summary.md" --csv "$work/out/results.csv" --comment "$work/out/comment.md"
      --base-kernels "$work/base/module.so"
      --perf-sizes '2^22,2^25' --variant 'team_warp_sum,team_block_max,cub_sum' --rounds 3 --sizes '*')
expect "gate: kgate's arguments (extra ones split on white space, no glob)" test "${args[*]}" = "${want[*]}"
expect "gate: code" test "$(output code)" = 4
expect "gate: verdict" test "$(output verdict)" = slower
expect "gate: paired" test "$(output paired)" = true
expect "gate: results" test "$(output results)" = "$work/out/results.json"
expect "gate: summary names the base" grep -q "paired gate against the base \`${base_sha:0:12}\`" "$GITHUB_STEP_SUMMARY"
expect "gate: the comment is kgate's, in the artifact (posted by a job without kgate)" \
  cmp -s "$work/out/comment.md" "$root/tests/data/reports/paired.comment.md"
expect "gate: the log is kept" grep -q "kgate (fake): done" "$work/out/kgate.log"

KA_ARGS='--variant team_warp_sum' "$here/gate.sh" > "$tmp/log" 2>&1
expect "gate: a --variant of the caller's replaces the module's list" \
  test "$(grep -c -- --variant "$tmp/kgate.args")" = 1
KA_VARIANTS=all "$here/gate.sh" > "$tmp/log" 2>&1
expect "gate: variants all gates every variant" test "$(grep -c -- --variant "$tmp/kgate.args")" = 0

# 3b. the comment action, on the uploaded artifact: kgate's comment defused
# and composed here, and no pull request in the event means no call to GitHub
# (a notice).
dl="$RUNNER_TEMP/kgate-comment/results"
mkdir -p "$dl"
cp "$work/out/comment.md" "$dl/"
echo '{}' > "$tmp/event.json"
KA_DIR=$dl KA_CODE=4 KA_MARKER=leg1 GITHUB_EVENT_PATH="$tmp/event.json" GITHUB_TOKEN=t \
  "$here/comment.sh" > "$tmp/log" 2>&1
expect "comment: exits 0" test $? -eq 0
body="$RUNNER_TEMP/kgate-comment/comment.md"
expect "comment: has its marker" test "$(head -n1 "$body")" = "<!-- kgate-action:leg1 -->"
expect "comment: kgate's headline next" test "$(sed -n 2p "$body")" = "### kgate: REGRESSION (exit 4)"
expect "comment: lists the SLOWER cells" grep -q '| \*\*SLOWER\*\* |' "$body"
expect "comment: not a pull request, nothing posted" grep -q "not a pull request" "$tmp/log"
KA_DIR=$dl KA_CODE=2 GITHUB_EVENT_PATH="$tmp/event.json" "$here/comment.sh" > "$tmp/log" 2>&1
expect "comment: an exit code not the comment's is said" grep -q "kgate exited 2 after writing this report" "$body"
printf '### kgate: PASS (exit 0)\n\n<img src=x> @octocat [x](https://evil.example)\n' > "$dl/comment.md"
KA_DIR=$dl KA_CODE=0 GITHUB_EVENT_PATH="$tmp/event.json" "$here/comment.sh" > "$tmp/log" 2>&1
expect "comment: a forged file's HTML, mention and link are defused" \
  test "$(grep -c '<img\|@octocat\|\[x\](https://' "$body")" = 0
KA_DIR="$tmp/none" KA_CODE=3 GITHUB_EVENT_PATH="$tmp/event.json" "$here/comment.sh" > "$tmp/log" 2>&1
expect "comment: no comment file (the gate stopped early) still says the exit code" \
  grep -q "kgate: exited 3 before writing its report" "$body"
KA_DIR=$dl KA_CODE='1; rm -rf /' "$here/comment.sh" > "$tmp/log" 2>&1
expect "comment: an exit code that is not a number is refused (exit 2)" test $? -eq 2
KA_DIR=$dl KA_CODE='' "$here/comment.sh" > "$tmp/log" 2>&1
expect "comment: no exit code, no comment" grep -q "gave no exit code" "$tmp/log"

# 4. the verdict step: kgate's exit code is the job's, SLOWER optionally not.
for row in "0 true 0" "1 true 1" "2 true 2" "3 true 3" "4 true 4" "4 false 0" "1 false 1" " true 3"; do
  read -r code fail want <<< "$row"
  if [[ -z $want ]]; then want=$fail fail=$code code=; fi
  KA_CODE=$code KA_FAIL_ON_SLOWER=$fail "$here/verdict.sh" > /dev/null 2>&1
  expect "verdict: code '$code' fail-on-slower $fail exits $want" test $? -eq "$want"
done

# 4b. no kgate-prefix: kgate's source is the action's own, keyed by its content.
src="$tmp/kgate-src"
mkdir -p "$src/include/kgate"
echo 'project(kgate)' > "$src/CMakeLists.txt"
echo '/* abi */' > "$src/include/kgate/module.h"
fresh source
KA_KGATE_PREFIX='' GITHUB_ACTION_PATH=$src "$here/setup.sh" > "$tmp/log" 2>&1
expect "source: setup exits 0" test $? -eq 0
expect "source: kgate-src is the action's folder" test "$(output kgate-src)" = "$src"
expect "source: prefix under runner.temp" test "$(output prefix)" = "$RUNNER_TEMP/kgate-action/prefix"
key1=$(output kgate-key)
expect "source: key names the architectures" glob "$key1" "kgate-install-Linux-X64-*-sm90"
fresh source2
KA_KGATE_PREFIX='' GITHUB_ACTION_PATH=$src "$here/setup.sh" > /dev/null 2>&1
expect "source: the same source, the same key" test "$(output kgate-key)" = "$key1"
echo '/* abi 2 */' > "$src/include/kgate/module.h"
fresh source3
KA_KGATE_PREFIX='' GITHUB_ACTION_PATH=$src "$here/setup.sh" > /dev/null 2>&1
expect "source: a changed file, another key" test "$(output kgate-key)" != "$key1"
expect "source: another kgate, another base key" test "$(output base-key)" != "$(sed -n 's/^base-key=//p' "$tmp/runner-temp-source/output")"
fresh notsource
KA_KGATE_PREFIX='' GITHUB_ACTION_PATH=$tmp "$here/setup.sh" > "$tmp/log" 2>&1
expect "source: a folder that is not kgate is refused" grep -q "is not a kgate source tree" "$tmp/log"

# 5. a base that does not build: a warning, no module, an unpaired run.
fresh nobuild
"$here/setup.sh" > /dev/null 2>&1
work=$(output work)
KA_BUILD="sh build.sh && test \"\$(cat word)\" = head" KA_BASE_SHA=$base_sha KA_OUT="$work/base/module.so" \
  "$here/build-base.sh" > "$tmp/log" 2>&1
expect "unbuildable base exits 0" test $? -eq 0
expect "unbuildable base: a warning" grep -q "::warning::kgate action: the base ${base_sha:0:12} did not build" "$tmp/log"
expect "unbuildable base: no module" test ! -e "$work/base/module.so"
expect "unbuildable base: not cached" test -z "$(output ok)"
KA_WORK="$work" "$here/gate.sh" > /dev/null 2>&1
expect "unbuildable base: no --base-kernels" test "$(grep -c -- --base-kernels "$tmp/kgate.args")" = 0
expect "unbuildable base: paired=false" test "$(output paired)" = false

# 6. a base module kgate refuses (another ABI): a warning, not cached.
fresh refused
"$here/setup.sh" > /dev/null 2>&1
work=$(output work)
KA_BUILD="sh build.sh && echo BADABI >> build/libteam.so" KA_BASE_SHA=$base_sha KA_OUT="$work/base/module.so" \
  "$here/build-base.sh" > "$tmp/log" 2>&1
expect "refused base exits 0" test $? -eq 0
expect "refused base: kgate's line in the warning" grep -q "kgate refuses the base's module (kgate: .*module ABI 7" "$tmp/log"
expect "refused base: no module" test ! -e "$work/base/module.so"

# 7. setup's refusals and fallbacks.
fresh same
KA_BASE_REF='pr' "$here/setup.sh" > "$tmp/log" 2>&1
expect "base = HEAD: not paired" test "$(output paired)" = 0
for ref in "--upload-pack=touch$IFS/tmp/x" "main..pr" "a b" "-x"; do
  fresh badref
  KA_BASE_REF=$ref "$here/setup.sh" > "$tmp/log" 2>&1
  code=$?
  expect "base-ref '$ref' refused with exit 3" test $code -eq 3
  expect "base-ref '$ref': one ::error:: line naming the input" grep -q "^::error::kgate action: input base-ref" "$tmp/log"
done
fresh explicit
KA_BASE_REF=$base_sha "$here/setup.sh" > /dev/null 2>&1
expect "explicit base-ref: that commit" test "$(output base-sha)" = "$base_sha"
fresh nomodule
KA_MODULE='' "$here/setup.sh" > "$tmp/log" 2>&1
expect "empty module input refused" test $? -eq 3
fresh outside
work=$(output work)
KA_MODULE=../elsewhere.so KA_OUT="$tmp/x.so" "$here/build-module.sh" head > "$tmp/log" 2>&1
expect "a module path outside the checkout is refused (exit 2)" test $? -eq 2
fresh nothing
KA_BUILD=true KA_OUT="$tmp/y.so" "$here/build-module.sh" head > "$tmp/log" 2>&1
expect "a build that makes no module fails (exit 3)" test $? -eq 3
expect "... naming the module input" grep -q "made no build/libteam.so (input module)" "$tmp/log"

# 8. nightly mode: no base; the reference verified against the pins and copied
# for the control; tonight's module and the control paired against it.
fresh nightly
KA_MODE=nightly "$here/setup.sh" > "$tmp/log" 2>&1
expect "nightly: setup exits 0" test $? -eq 0
expect "nightly: setup pairs with no base commit" test "$(output paired)" = 0 -a -z "$(output base-sha)"
work=$(output work)
echo ref > "$tmp/ref.so"
echo '{}' > "$tmp/pins.json"
export KA_WORK=$work KA_PINS=$tmp/pins.json KA_REF_RELEASE='' KA_REF_ASSET=''
KA_REF_MODULE=$tmp/ref.so "$here/nightly-reference.sh" > "$tmp/log" 2>&1
expect "nightly: reference step exits 0" test $? -eq 0
expect "nightly: reference verified against the pins" \
  test "$(tail -n1 "$tmp/kgate.calls")" = "reference verify $tmp/pins.json $work/ref/module.so"
expect "nightly: the reference and its copy" cmp -s "$work/ref/module.so" "$work/ctl/module.so"
echo UNPINNED > "$tmp/bad.so"
KA_REF_MODULE=$tmp/bad.so "$here/nightly-reference.sh" > "$tmp/log" 2>&1
expect "nightly: an unpinned reference is refused (exit 2)" test $? -eq 2
expect "nightly: ... with one ::error:: line" grep -q "^::error::kgate action: the reference module is not pinned" "$tmp/log"
KA_REF_MODULE='' "$here/nightly-reference.sh" > "$tmp/log" 2>&1
expect "nightly: no reference input refused (exit 2)" test $? -eq 2
KA_REF_MODULE=$tmp/ref.so KA_REF_RELEASE=v1 "$here/nightly-reference.sh" > "$tmp/log" 2>&1
expect "nightly: both reference inputs refused (exit 2)" test $? -eq 2
KA_REF_MODULE='' KA_REF_RELEASE='--repo=x' "$here/nightly-reference.sh" > "$tmp/log" 2>&1
expect "nightly: a release name that is an option refused (exit 2)" test $? -eq 2
KA_REF_MODULE=$tmp/ref.so KA_PINS=$tmp/none.json "$here/nightly-reference.sh" > "$tmp/log" 2>&1
expect "nightly: no pin file refused (exit 2)" test $? -eq 2
KA_REF_MODULE=$tmp/ref.so "$here/nightly-reference.sh" > /dev/null 2>&1
KA_OUT="$work/head/module.so" "$here/build-module.sh" head > /dev/null 2>&1
: > "$tmp/kgate.calls"
KA_ROUNDS=6 KA_VARIANTS='' FAKE_CODE=4 "$here/nightly-run.sh" > "$tmp/log" 2>&1
expect "nightly: run exits 0 whatever kgate said" test $? -eq 0
mapfile -t runs < <(grep '^run ' "$tmp/kgate.calls")
expect "nightly: two runs, tonight's and the control" test "${#runs[@]}" = 2
common="run --sizes 1 --rounds 6 --reference $tmp/pins.json --base-kernels $work/ref/module.so"
expect "nightly: tonight's module against the reference, the module's variants" \
  test "${runs[0]}" = "$common --kernels $work/head/module.so --variant team_warp_sum,team_block_max --json $work/out/paired.json"
expect "nightly: the control, the copy against the reference" \
  test "${runs[1]}" = "$common --kernels $work/ctl/module.so --variant team_warp_sum,team_block_max --json $work/out/control.json"
expect "nightly: a SLOWER night is recorded (code 4, slower)" test "$(output code)/$(output verdict)" = 4/slower
expect "nightly: both files, complete (to attest)" test "$(output complete)" = 1
expect "nightly: results is the paired file" test "$(output results)" = "$work/out/paired.json"
rm -f "$work/out/"*.json
: > "$GITHUB_OUTPUT"
: > "$tmp/kgate.calls"
KA_ROUNDS=6 FAKE_CODE=3 "$here/nightly-run.sh" > "$tmp/log" 2>&1
expect "nightly: a failed run stops the night (no control)" test "$(grep -c '^run ' "$tmp/kgate.calls")" = 1
expect "nightly: ... code 3, nothing to attest" test "$(output code)/$(output complete)" = 3/
KA_ROUNDS='6; x' "$here/nightly-run.sh" > "$tmp/log" 2>&1
expect "nightly: rounds not a number refused (exit 2)" test $? -eq 2
# 8a. mode: bisect, a job of its own after the night's. setup refuses what bisect cannot use
# before anything is built: bisect inside the job that attests the night (mode nightly with
# bisect: true), and a job that can mint an OIDC token; tonight's downloaded files join a copy
# of the branch's history (the branch's file untouched), and only an open regression finding is
# bisected, over this checkout (--within HEAD), with the team's build in the night's environment;
# bisect.json goes to the uploaded folder, the outcome and the culprit to the outputs; a bisect
# that cannot run is an ::error:: and the code for the verdict step.
bisect_env() { export KA_MODE=bisect KA_BISECT=false KA_BISECT_BUILD='sh b.sh' KA_BISECT_MODULE=libteam.so \
  KA_HISTORY_BRANCH=gh-pages KA_HISTORY=history.jsonl KA_BUILD='' KA_MODULE=''; }
for row in "KA_MODE=nightly KA_BISECT=true KA_BUILD=b KA_MODULE=m|input bisect: true: bisect runs in a job of its own with no id-token" \
           "ACTIONS_ID_TOKEN_REQUEST_URL=https://token.example|mode: bisect: this job can mint an OIDC token (ACTIONS_ID_TOKEN_REQUEST_URL)" \
           "KA_BISECT=yes|input bisect: 'yes' is not true or false" \
           "KA_BISECT_BUILD=|input bisect-build-command is empty" \
           "KA_BISECT_MODULE=../m.so|input bisect-module: '../m.so' must be a path in the build folder" \
           "KA_BISECT_MODULE=|input bisect-module: '' must be a path in the build folder" \
           "KA_BISECT_MODULE=--x|input bisect-module: '--x' must be a path in the build folder" \
           "KA_HISTORY_BRANCH=--force|input history-branch: '--force' is not a plain branch name" \
           "KA_HISTORY=../h.jsonl|input history: '../h.jsonl' is not a file name ending in .jsonl"; do
  IFS='|' read -r setting want <<< "$row"
  fresh bisect-refused
  # shellcheck disable=SC2086 # a row may set several variables
  (bisect_env && export ${setting?} && "$here/setup.sh") > "$tmp/log" 2>&1
  code=$?
  expect "bisect setup: $setting refused (exit 2)" test $code -eq 2
  expect "bisect setup: $setting: one ::error:: line naming the input" grep -qF "::error::kgate action: $want" "$tmp/log"
done
git clone -q --depth 1 "file://$repo" "$tmp/shallow" 2>/dev/null
fresh bisect-shallow
(cd "$tmp/shallow" && bisect_env && "$here/setup.sh") > "$tmp/log" 2>&1
expect "bisect setup: a shallow checkout refused (exit 2)" test $? -eq 2
expect "bisect setup: ... saying fetch-depth: 0" grep -q "the checkout is shallow.*fetch-depth: 0" "$tmp/log"
fresh bisect
(bisect_env && "$here/setup.sh") > "$tmp/log" 2>&1
expect "bisect setup: mode bisect with its inputs passes" test $? -eq 0
work=$(output work)
mkdir -p "$work/night" "$tmp/branch"
echo '{}' > "$work/night/paired.json"
echo '{}' > "$work/night/control.json"
echo old > "$tmp/branch/history.jsonl"
culprit=0123456789abcdef0123456789abcdef01234567
# shellcheck disable=SC2016 # the team's command, as given
bisect_run() { # settings... : nightly-bisect.sh with the nightly's environment, then these
  env KA_PREFIX="$prefix" KA_WORK="$work" KA_ARCH='80;90a' KA_BISECT_BUILD='cmake --build "$KGATE_BISECT_BUILD"' \
    KA_BISECT_MODULE=libteam.so KA_BISECT_SOURCES='src  variants.def' KA_HAVE_BRANCH=success \
    KA_HISTORY_DIR="$tmp/branch" KA_HISTORY=history.jsonl KA_ACK="$tmp/ack.json" GITHUB_SERVER_URL=https://github.com \
    GITHUB_REPOSITORY=team/kernels "$@" "$here/nightly-bisect.sh" > "$tmp/log" 2>&1
}
echo '{}' > "$tmp/ack.json"
: > "$tmp/kgate.calls"
bisect_run FAKE_FINDINGS=0
expect "bisect: no finding open exits 0" test $? -eq 0
expect "bisect: ... bisect none, no kgate bisect" test "$(output bisect)/$(grep -c '^bisect' "$tmp/kgate.calls")" = none/0
expect "bisect: tonight added to a copy of the branch's history" \
  test "$(tr '\n' ' ' < "$work/bisect/history/history.jsonl")/$(cat "$tmp/branch/history.jsonl")" = "old night /old"
expect "bisect: history check on the copy, with the acknowledgements" \
  grep -qx "history check $work/bisect/history/history.jsonl --ack $tmp/ack.json" "$tmp/kgate.calls"
: > "$GITHUB_OUTPUT"
bisect_run FAKE_FINDINGS=4 FAKE_OUTCOME=found FAKE_CULPRIT=$culprit
expect "bisect: a finding bisected, exit 0" test $? -eq 0
mapfile -t args < "$tmp/kgate.args"
# shellcheck disable=SC2016 # the team's command, as given
want=(bisect --history "$work/bisect/history/history.jsonl" --ack "$tmp/ack.json" --within HEAD
      --build 'cmake --build "$KGATE_BISECT_BUILD"' --module libteam.so --work "$work/bisect/work"
      --json "$work/out/bisect.json" --markdown "$GITHUB_STEP_SUMMARY" --link https://github.com/team/kernels/commit/
      --arch 80 --source src --source variants.def)
expect "bisect: kgate bisect's arguments (the card's architecture, each source its own)" test "${args[*]}" = "${want[*]}"
expect "bisect: the build sees kgate's prefix and the architectures" \
  test "$(cat "$tmp/bisect.env")" = "$prefix 80;90a $prefix"
expect "bisect: outputs found, its culprit, the file, code 0" \
  test "$(output bisect) $(output culprit) $(output json) $(output code)" = "found $culprit $work/out/bisect.json 0"
expect "bisect: its Markdown in the step summary" grep -qx "## kgate bisect: found" "$GITHUB_STEP_SUMMARY"
: > "$GITHUB_OUTPUT"
bisect_run FAKE_FINDINGS=4 FAKE_OUTCOME=not-reproduced FAKE_BISECT=4
expect "bisect: not reproduced is an answer (exit 0, code 4, no culprit)" \
  test "$?/$(output bisect)/$(output code)/$(output culprit)" = "0/not-reproduced/4/"
for row in "3||environment" "2|bad-input|bad-input" "127||environment"; do
  IFS='|' read -r code outcome want <<< "$row"
  : > "$GITHUB_OUTPUT"
  bisect_run FAKE_FINDINGS=4 FAKE_OUTCOME="$outcome" FAKE_BISECT="$code"
  expect "bisect: exit $code never stops the night's files (exit 0)" test $? -eq 0
  expect "bisect: exit $code: $want, code $([[ $code == 2 ]] && echo 2 || echo 3), an ::error::" \
    test "$(output bisect)/$(output code)/$(grep -c '^::error::kgate bisect: ' "$tmp/log")" = \
         "$want/$([[ $code == 2 ]] && echo 2 || echo 3)/1"
done
: > "$GITHUB_OUTPUT"
: > "$tmp/kgate.calls"
bisect_run FAKE_HISTORY_ADD=2 FAKE_FINDINGS=4
expect "bisect: a history kgate refuses: bad-input, code 2, nothing bisected" \
  test "$?/$(output bisect)/$(output code)/$(grep -c '^bisect' "$tmp/kgate.calls")" = "0/bad-input/2/0"
: > "$GITHUB_OUTPUT"
bisect_run KA_HAVE_BRANCH=failure FAKE_FINDINGS=0
expect "bisect: no branch yet, tonight alone" test "$(cat "$work/bisect/history/history.jsonl")" = night
rm "$work/night/control.json"
: > "$GITHUB_OUTPUT"
bisect_run FAKE_FINDINGS=4
expect "bisect: the night did not finish: none" test "$?/$(output bisect)" = 0/none
unset -f bisect_env bisect_run
# The verdict step after a bisect: its answers pass, one that could not run fails the job.
for row in "0 0 0" "0 1 0" "0 4 0" "0 2 2" "0 3 3" "4 3 3" "1 0 1"; do
  read -r code bcode want <<< "$row"
  KA_CODE=$code KA_FAIL_ON_SLOWER=false KA_BISECT_CODE=$bcode "$here/verdict.sh" > /dev/null 2>&1
  expect "verdict: night $code, bisect $bcode exits $want" test $? -eq "$want"
done
# 8b. the render half (publish/action.yml, mode: render, a read-only job): the
# history read from the branch (none yet), the page, the findings, and the
# files handed to the push job with their manifest and the commit read.
fresh publish
pub="$tmp/publish"
mkdir -p "$pub/in"
echo '{}' > "$pub/in/paired.json"
echo '{}' > "$pub/in/control.json"
echo '{}' > "$tmp/ack.json"
export KP_KGATE="$prefix/bin/kgate" KP_DIR="$pub/in" KP_PAGES="$pub/render1" KP_HAVE_BRANCH=failure KP_BRANCH=gh-pages
export KP_HISTORY=history.jsonl KP_ACK="$tmp/ack.json" KP_SITE_MODE=pages KP_SITE="$pub/site" KP_RUN_ID=42
export KP_HANDOVER="$pub/handover1" KP_HANDOVER_NAME=kgate-nightly-history-42-1
: > "$tmp/kgate.calls"
FAKE_FINDINGS=4 "$here/nightly-publish.sh" > "$tmp/log" 2>&1
expect "publish: exits 0 with a finding open" test $? -eq 0
expect "publish: findings 4" test "$(output findings)" = 4
expect "publish: the night added with its control" \
  grep -qx "history add $pub/in/paired.json --control $pub/in/control.json --file $pub/render1/history.jsonl" "$tmp/kgate.calls"
expect "publish: the page from the history, acknowledgements read" \
  grep -qx "report $pub/in/paired.json --html $pub/site --history $pub/render1/history.jsonl --ack $tmp/ack.json" "$tmp/kgate.calls"
expect "publish: the findings in the step summary" \
  grep -qx "history check $pub/render1/history.jsonl --ack $tmp/ack.json --summary $GITHUB_STEP_SUMMARY" "$tmp/kgate.calls"
expect "publish: no branch yet, base none" test "$(output base)" = none
expect "publish: hands over the history only (site: pages)" test "$(cd "$pub/handover1" && find . | sort | tr '\n' ' ')" = ". ./history.jsonl "
expect "publish: the manifest of what it hands over" test "$(output manifest)" = "$("$root/scripts/ci/manifest.sh" "$pub/handover1")"
expect "publish: the handover artifact's name" test "$(output handover)" = kgate-nightly-history-42-1
expect "publish: commits nothing (the push job does)" test ! -e "$pub/render1/.git"
m1=$(output manifest)
FAKE_FINDINGS=2 "$here/nightly-publish.sh" > "$tmp/log" 2>&1
expect "publish: history check refusing the file stops it (exit 2)" test $? -eq 2
# The bisect job's bisect.json (its own folder), verified with the night: the page with it; one
# kgate refuses, without it; a bisect.json among the night's files (not the bisect job's) is not read.
cp -r "$pub/in" "$pub/in-bisect"
mkdir -p "$pub/in-bisect/bisect"
echo '{}' > "$pub/in-bisect/bisect/bisect.json"
: > "$tmp/kgate.calls"
KP_DIR="$pub/in-bisect" KP_PAGES="$pub/render-b" KP_HANDOVER="$pub/handover-b" "$here/nightly-publish.sh" > "$tmp/log" 2>&1
expect "publish: the page with the GPU job's bisect" \
  grep -qx "report $pub/in-bisect/paired.json --html $pub/site --history $pub/render-b/history.jsonl --ack $tmp/ack.json --bisect $pub/in-bisect/bisect/bisect.json" "$tmp/kgate.calls"
: > "$tmp/kgate.calls"
FAKE_REPORT_BISECT=2 KP_DIR="$pub/in-bisect" KP_PAGES="$pub/render-c" KP_HANDOVER="$pub/handover-c" \
  "$here/nightly-publish.sh" > "$tmp/log" 2>&1
expect "publish: a bisect.json kgate refuses: the page without it (exit 0)" \
  test "$?/$(grep -c '^report ' "$tmp/kgate.calls")/$(grep -c '^report .*--bisect' "$tmp/kgate.calls")" = 0/2/1
expect "publish: ... and an ::error:: saying so" grep -q "^::error::kgate nightly: kgate refuses the GPU job's bisect.json" "$tmp/log"
for bad in "KP_BRANCH=--force" "KP_HISTORY=../x.jsonl" "KP_HISTORY=history.json" "KP_SITE_MODE=web" \
           "KP_HANDOVER_NAME=a/b"; do
  env "$bad" "$here/nightly-publish.sh" > "$tmp/log" 2>&1
  expect "publish: $bad refused (exit 2)" test $? -eq 2
done

# 8c. the push (publish/push/action.yml, the only job that may write): no kgate;
# the files handed over only if they are the ones listed, the branch is where
# the render job read it, and the history is only appended to.
unset KP_KGATE KP_DIR KP_ACK KP_SITE KP_HANDOVER
push() { KP_IN=$1 KP_PAGES=$2 KP_MANIFEST=$3 KP_BASE=$4 "$here/nightly-push.sh" > "$tmp/log" 2>&1; }
: > "$tmp/kgate.calls"
KP_HAVE_BRANCH=failure push "$pub/handover1" "$pub/branch" "$m1" none
expect "push: the first night starts the branch (exit 0)" test $? -eq 0
expect "push: one commit of the history on gh-pages" \
  test "$(git -C "$pub/branch" branch --show-current) $(git -C "$pub/branch" rev-list --count HEAD) $(git -C "$pub/branch" ls-files)" = \
       "gh-pages 1 history.jsonl"
expect "push: runs no kgate" test ! -s "$tmp/kgate.calls"
base1=$(git -C "$pub/branch" rev-parse HEAD)
# The second night, the page beside the history (site: branch): the render job reads a checkout of the branch.
git clone -q -b gh-pages "$pub/branch" "$pub/render2"
fresh publish2
KP_KGATE="$prefix/bin/kgate" KP_DIR="$pub/in" KP_PAGES="$pub/render2" KP_HAVE_BRANCH=success KP_SITE_MODE=branch \
  KP_SITE="$pub/site" KP_HANDOVER="$pub/handover2" "$here/nightly-publish.sh" > "$tmp/log" 2>&1
expect "publish: the next night read from the branch, base its commit" test "$(output base)" = "$base1"
expect "publish: site: branch hands over the page too" \
  test "$(cd "$pub/handover2" && find . -type f | sort | tr '\n' ' ')" = "./history.jsonl ./site/index.html "
m2=$(output manifest)
cp -r "$pub/branch" "$pub/branch1" # the branch after night 1, for the refusals below
KP_HAVE_BRANCH=success KP_SITE_MODE=branch push "$pub/handover2" "$pub/branch" "$m2" "$base1"
expect "push: the next night on the branch, the page beside it" \
  test "$(git -C "$pub/branch" rev-list --count HEAD) $(git -C "$pub/branch" ls-files | tr '\n' ' ')" = \
       "2 .nojekyll history.jsonl index.html "
expect "push: the history grows" test "$(wc -l < "$pub/branch/history.jsonl")" = 2
# Refusals: each on a copy of night 2's files and of the branch after night 1; nothing is committed.
# refused NAME WANT-CODE WANT-TEXT MUTATION [MANIFEST [BASE]]: MANIFEST @ is the one of the
# mutated files (a render job that lists what it hands over); by default night 2's.
refused() {
  local name=$1 code=$2 text=$3 mutation=$4 m=${5:-$m2} got
  rm -rf "$pub/h" "$pub/b"
  cp -r "$pub/handover2" "$pub/h"
  cp -r "$pub/branch1" "$pub/b"
  (cd "$pub/h" && eval "$mutation")
  [[ $m != @ ]] || m=$("$root/scripts/ci/manifest.sh" "$pub/h")
  KP_HAVE_BRANCH=${have:-success} KP_SITE_MODE=${site:-branch} push "$pub/h" "$pub/b" "$m" "${6:-$base1}"
  got=$?
  expect "push: $name refused (exit $code)" test $got -eq "$code"
  expect "push: $name: one ::error:: line saying why" grep -q "^::error::kgate action: $text" "$tmp/log"
  expect "push: $name: nothing committed" test "$(git -C "$pub/b" rev-parse HEAD)" = "$base1"
}
listed="the files handed over are not the ones the render job listed"
refused "a file not in the manifest" 2 "push: $listed" 'echo x > site/extra.html'
refused "a file changed since it was listed" 2 "push: $listed" 'echo page2 > site/index.html'
for mu in 'echo evil.example > site/CNAME' 'echo x > .nojekyll' 'echo x > history-next-abc.jsonl' \
          'mkdir -p .github/workflows && echo x > .github/workflows/x.yml' 'mkdir site/sub && echo x > site/sub/a.html' \
          'echo x > site/a.sh'; do
  refused "a file listed that is no history or page file ($mu)" 2 "push: '.*' is not a file the nightly pushes" "$mu" @
done
refused "a link" 2 "push: 'site/x.html' is not a plain file" 'ln -s /etc/passwd site/x.html'
refused "an old history line changed" 2 "push: history.jsonl does not keep the branch's history as it was" \
  'sed -i 1s/night/nite/ history.jsonl' @
refused "a history cut short" 2 "push: history.jsonl does not keep the branch's history as it was" ': > history.jsonl' @
refused "a history with a partial line" 2 "push: history.jsonl does not end in a whole line" 'printf x >> history.jsonl' @
refused "no history" 2 "push: no history.jsonl handed over" 'rm history.jsonl' @
site=pages refused "the page with site: pages" 2 "push: 'site' is not a file the nightly pushes" ':'
refused "a branch moved since the render job read it" 3 "push: the branch gh-pages moved since the render job read it" \
  ':' "$m2" "$(printf %040d 0)"
refused "a base of none while the branch is there" 3 "push: the branch gh-pages moved" ':' "$m2" none
have=failure refused "a branch gone since the render job read it" 3 "push: the branch gh-pages is gone" ':'
refused "a manifest that is not a SHA-256" 2 "input manifest" ':' "x$m2"
refused "a base that is not a commit" 2 "input base" ':' "$m2" "HEAD~1"
# A link on the branch where the page goes: not written through.
rm -rf "$pub/h" "$pub/b" && cp -r "$pub/handover2" "$pub/h" && cp -r "$pub/branch1" "$pub/b"
ln -s "$tmp/outside" "$pub/b/index.html"
KP_HAVE_BRANCH=success KP_SITE_MODE=branch push "$pub/h" "$pub/b" "$m2" "$base1"
expect "push: a link on the branch refused" grep -q "index.html on the branch is not a plain file" "$tmp/log"
expect "push: ... nothing written through it" test ! -e "$tmp/outside"
unset -f push refused
unset KP_PAGES KP_HAVE_BRANCH KP_BRANCH KP_HISTORY KP_SITE_MODE KP_RUN_ID KP_HANDOVER_NAME
KP_VERIFY=true KP_DIR="$tmp/none" KP_WORKFLOW_REF="o/r/.github/workflows/kgate-nightly.yml@refs/heads/main" \
  "$here/nightly-verify.sh" > "$tmp/log" 2>&1
expect "verify: no files from the GPU job refused before any token use" grep -q "handed over no paired.json" "$tmp/log"
KP_VERIFY=true KP_DIR="$pub/in" KP_WORKFLOW_REF="o/r/.github/workflows/a b.yml@refs/heads/main" \
  "$here/nightly-verify.sh" > "$tmp/log" 2>&1
expect "verify: an odd workflow file name refused" grep -q "cannot tell this workflow's file" "$tmp/log"
manifest=$("$root/scripts/ci/manifest.sh" "$pub/in")
fresh manifest
KP_DIR="$pub/in" KP_MANIFEST=$manifest "$here/nightly-verify.sh" > "$tmp/log" 2>&1
expect "publish: the files verified are read" test $? -eq 0
KP_DIR="$pub/in" KP_MANIFEST='' "$here/nightly-verify.sh" > "$tmp/log" 2>&1
expect "publish: no manifest refused (exit 2)" test $? -eq 2
echo '{"x":1}' > "$pub/in/control.json"
KP_DIR="$pub/in" KP_MANIFEST=$manifest "$here/nightly-verify.sh" > "$tmp/log" 2>&1
expect "publish: a file changed since the verify job refused" grep -q "differ from the ones whose attestations were verified" "$tmp/log"

fresh badmode
KA_MODE=bogus "$here/setup.sh" > "$tmp/log" 2>&1
expect "mode other than gate or nightly refused (exit 2)" test $? -eq 2
unset KA_WORK KA_PINS KA_REF_RELEASE KA_REF_ASSET

# --- kgate's own nightly after "Re-run failed jobs" (.github/actions/download-verified) ---
# The shard that passed keeps its attempt-1 artifact; the re-run shard uploads at attempt 2.
na="$root/.github/actions/download-verified/newest-attempts.sh"
att="$tmp/attempts"
mkdir -p "$att/in/kgate-shard-1-77-1" "$att/in/kgate-shard-2-77-1" "$att/in/kgate-shard-2-77-2" \
  "$att/in/kgate-shard-paired-77-1"
echo passed > "$att/in/kgate-shard-1-77-1/results-1.json"
echo failed > "$att/in/kgate-shard-2-77-1/results-2.json"
echo failed > "$att/in/kgate-shard-2-77-1/junit-2.xml"
echo rerun > "$att/in/kgate-shard-2-77-2/results-2.json"
echo paired > "$att/in/kgate-shard-paired-77-1/paired-abc.json"
"$na" "$att/in" "$att/out" 77 2 kgate-shard-1 kgate-shard-2 > "$tmp/log" 2>&1
expect "re-run: each shard's newest attempt is read" \
  test "$(cat "$att/out/results-1.json" "$att/out/results-2.json" "$att/out/paired-abc.json" 2>&1)" \
  = "$(printf 'passed\nrerun\npaired')"
expect "re-run: nothing of the failed attempt beside it" test ! -e "$att/out/junit-2.xml"
"$na" "$att/in" "$att/out-1" 77 1 kgate-shard-1 kgate-shard-2 > "$tmp/log" 2>&1
expect "re-run: an artifact of a later attempt refused" grep -q "after this one (1)" "$tmp/log"
rm -rf "$att/in/kgate-shard-2-77-"*
"$na" "$att/in" "$att/out-partial" 77 2 kgate-shard-1 kgate-shard-2 > "$tmp/log" 2>&1
expect "re-run: a partial set (one shard missing) refused" grep -q "no artifact kgate-shard-2-77-\* in this run" "$tmp/log"
mkdir -p "$att/in/kgate-shard-2-77-2"
echo twice > "$att/in/kgate-shard-2-77-2/results-1.json"
"$na" "$att/in" "$att/out-both" 77 2 kgate-shard-1 kgate-shard-2 > "$tmp/log" 2>&1
expect "re-run: a file in two jobs' artifacts refused" grep -q "results-1.json is in two artifacts" "$tmp/log"
mkdir -p "$att/in/kgate-shard-1-78-1"
"$na" "$att/in" "$att/out-run" 77 2 > "$tmp/log" 2>&1
expect "re-run: an artifact of another run refused" grep -q "is not STEM-77-ATTEMPT" "$tmp/log"
# nightly.yml reads every shard that way, in verify and in publish.
# shellcheck disable=SC2016 # ${{ }} is the workflow's text, not the shell's
expect "nightly: verify and publish read each shard's newest attempt, both shards required" python3 -c '
import sys, yaml
jobs = yaml.safe_load(open(sys.argv[1]))["jobs"]
for j in ("verify", "publish"):
    w = [s.get("with", {}) for s in jobs[j]["steps"] if s.get("uses") == "./.github/actions/download-verified"]
    assert w and all(x.get("attempts") == "newest" and x.get("pattern", "").endswith("-${{ github.run_id }}-*")
                     and set(x.get("require", "").split()) >= {"kgate-shard-1", "kgate-shard-2"} for x in w), j
' "$root/.github/workflows/nightly.yml"

# The page waits for the bisect and reads its file only once its attestation verifies;
# publish's files only as publish listed them; deploy runs nothing but the deploy.
# shellcheck disable=SC2016 # ${{ }} is the workflow's text, not the shell's
expect "nightly: the page reads the bisect's file verified, and deploy only deploys" python3 -c '
import sys, yaml
jobs = yaml.safe_load(open(sys.argv[1]))["jobs"]
page, deploy = jobs["page"], jobs["deploy"]
assert page["runs-on"] == "ubuntu-24.04" and page["permissions"] == {"contents": "read", "attestations": "read"}
assert "bisect" in page["needs"] and "always()" in page["if"] and "needs.publish.result == \x27success\x27" in page["if"]
dl = {s["with"]["pattern"]: s["with"] for s in page["steps"] if s.get("uses") == "./.github/actions/download-verified"}
b = dl["kgate-bisect-${{ github.run_id }}-*"]
assert not b.get("manifest") and b["workflow"] == "nightly.yml" and b["attempts"] == "newest", b
for name, out in (("kgate-nightly", "results"), ("kgate-history", "manifest")):
    assert dl[name + "-${{ github.run_id }}-${{ github.run_attempt }}"]["manifest"] == "${{ needs.publish.outputs.%s }}" % out
runs = [s.get("run", "") for s in page["steps"]]
assert any("--bisect bisect/bisect.json" in r for r in runs)
assert not any("--bisect" in s.get("run", "") for j in jobs if j != "page" for s in jobs[j].get("steps", []))
assert deploy["needs"] == "page" and [s.get("uses", "").split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
assert jobs["bisect"]["outputs"]["json"] == "${{ steps.bisect.outputs.json }}"
' "$root/.github/workflows/nightly.yml"
# bisect builds commits: it starts only after the night's files are attested (sweep and paired, by
# way of publish), holds no id-token or attestations, and a hosted job that builds and runs nothing
# attests its file, which the page reads only once that job attested it.
# shellcheck disable=SC2016 # ${{ }} is the workflow's text, not the shell's
expect "nightly: bisect holds no id-token, its file is attested by a job that built nothing" python3 -c '
import sys, yaml
jobs = yaml.safe_load(open(sys.argv[1]))["jobs"]
def needs(j):
    n = jobs[j].get("needs", [])
    n = [n] if isinstance(n, str) else n
    return set(n).union(*[needs(k) for k in n]) if n else set()
b, a = jobs["bisect"], jobs["attest-bisect"]
assert b["permissions"] == {"contents": "read"}, b["permissions"]
assert {"sweep", "paired"} <= needs("bisect"), needs("bisect")
assert not any("attest" in s.get("uses", "") for s in b["steps"])
assert a["runs-on"] == "ubuntu-24.04" and a["needs"] == "bisect", a
assert [s.get("uses", "").split("@")[0] for s in a["steps"]] == ["actions/download-artifact", "actions/attest-build-provenance"]
assert not any("run" in s for s in a["steps"]) and a["steps"][1]["with"]["subject-path"] == "out/*/bisect.json"
for j in ("sweep", "paired"):
    assert not any("bisect" in s.get("run", "") for s in jobs[j]["steps"]), j
page = jobs["page"]
assert "attest-bisect" in page["needs"]
assert [s["if"] for s in page["steps"] if s.get("with", {}).get("require") == "kgate-bisect"] == [
    "needs.attest-bisect.outputs.attested == \x27true\x27"]
' "$root/.github/workflows/nightly.yml"

# GITHUB_TOKEN is the whole job's: a job that may write to the repository (kgate's
# workflows, the example's a team copies) builds and runs no kgate (whose readers
# take the GPU runners' files), neither in its own steps nor in an action it uses:
# kgate's actions are followed into their steps and the scripts those run.
# shellcheck disable=SC2016 # Python, not the shell
expect "workflows: no job with contents: write runs kgate" python3 -c '
import glob, os, re, sys, yaml
root = sys.argv[1]
# A kgate build, a path ending in /kgate, $kgate, or kgate SUBCOMMAND where a command starts.
KGATE = re.compile(r"host-kgate|build-kgate|/kgate(?=[\s\"\x27;)]|$)|\bKP_KGATE\b|\$\{?kgate\b|"
                   r"(?:^|[;&|(`]|\$\()\s*(?:\w+=\S*\s+)*kgate\s+(?:merge|history|report|run|check|compare|"
                   r"list|reference|selftest|baseline|lint|unchanged)\b", re.M)
SCRIPT = re.compile(r"scripts/[\w/.-]+\.(?:sh|py)")
def code(text):
    return "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
def run_kgate(run):
    """The kgate a run: script starts: in itself or in a script of kgate it names."""
    if KGATE.search(code(run)):
        return True
    for m in SCRIPT.findall(run):
        path = os.path.join(root, m[m.index("scripts/"):])
        if os.path.exists(path) and KGATE.search(code(open(path).read())):
            return True
    return False
def action_of(uses, own):
    """kgate action.yml a uses: names: OWNER/kgate[/dir]@REF, or ./dir in kgate own workflows."""
    m = re.fullmatch(r"OWNER/kgate(/[\w./-]+)?@REF", uses)
    if m:
        return os.path.join(root, (m.group(1) or "/").lstrip("/"), "action.yml")
    if own and uses.startswith("./"):
        return os.path.join(root, uses[2:], "action.yml")
    return None
def steps_kgate(steps, own, seen=()):
    for s in steps or []:
        if run_kgate(str(s.get("run", ""))):
            return s.get("name") or s.get("run")
        path = action_of(str(s.get("uses", "")), own)
        if path and path not in seen:
            inner = steps_kgate(yaml.safe_load(open(path))["runs"]["steps"], True, seen + (path,))
            if inner:
                return "%s -> %s" % (s["uses"], inner)
    return None
def writes(perms):
    """May write to the repository, or publish the site (the page is what people read)."""
    return perms == "write-all" or isinstance(perms, dict) and "write" in (perms.get("contents"), perms.get("pages"))
# The detector finds kgate where it is, and the push action is free of it.
load = lambda p: yaml.safe_load(open(os.path.join(root, p)))["runs"]["steps"]
assert steps_kgate(load("publish/action.yml"), True), "publish/action.yml: no kgate found"
assert steps_kgate(load("action.yml"), True), "action.yml: no kgate found"
assert not steps_kgate(load("publish/push/action.yml"), True), steps_kgate(load("publish/push/action.yml"), True)
writers = 0
for own, pattern in ((True, "/.github/workflows/*.yml"), (False, "/examples/*/.github/workflows/*.yml")):
    for wf in sorted(glob.glob(root + pattern)):
        doc = yaml.safe_load(open(wf))
        for name, job in doc["jobs"].items():
            if not writes(job.get("permissions", doc.get("permissions"))):
                continue
            writers += 1
            found = steps_kgate(job.get("steps"), own)
            assert not found, (wf, name, found)
assert writers >= 4, writers
' "$root"
# The example's nightly: the writer is publish/push alone, after a read-only render job; with
# bisect, a checkout with the history.
# shellcheck disable=SC2016 # Python, not the shell
expect "example nightly: kgate runs in a read-only job, the push job only pushes" python3 -c '
import sys, yaml
jobs = yaml.safe_load(open(sys.argv[1]))["jobs"]
uses = {n: [s.get("uses", "") for s in j.get("steps", [])] for n, j in jobs.items()}
assert jobs["publish"]["permissions"] == {"contents": "read"}, jobs["publish"]["permissions"]
assert [s.get("with", {}).get("mode") for s in jobs["publish"]["steps"] if s.get("uses") == "OWNER/kgate/publish@REF"] == ["render"]
assert jobs["push"]["permissions"] == {"contents": "write"} and uses["push"] == ["OWNER/kgate/publish/push@REF"], uses["push"]
w = jobs["push"]["steps"][0]["with"]
for k in ("manifest", "base", "handover", "findings"):
    assert w[k] == "${{ needs.publish.outputs.%s }}" % k, k
# bisect walks the commits of a finding: a job of its own after the night (which attests its files
# and bisects nothing), with no id-token; it checks out the whole history and gives the build; a
# hosted job that builds nothing attests its file before verify reads it.
night = jobs["night"]["steps"]
kg = [s["with"] for s in night if s.get("uses") == "OWNER/kgate@REF"][0]
assert kg.get("mode") == "nightly" and kg.get("bisect", "false") == "false", kg
b = jobs["bisect"]
assert b["needs"] == "night" and b["permissions"] == {"contents": "read"}, b
kb = [s["with"] for s in b["steps"] if s.get("uses") == "OWNER/kgate@REF"][0]
assert kb["mode"] == "bisect" and b["steps"][0]["with"].get("fetch-depth") == 0, b["steps"][0]
assert "$KGATE_BISECT_BUILD" in kb["bisect-build-command"] and kb["bisect-module"], kb
a = jobs["attest-bisect"]
assert a["runs-on"] == "ubuntu-24.04" and not any("run" in s for s in a["steps"])
assert [s.get("uses", "").split("@")[0] for s in a["steps"]] == ["actions/download-artifact", "actions/attest-build-provenance"]
assert a["steps"][0]["with"]["name"] == kb["artifact-name"] + "-bisect-${{ github.run_id }}-${{ github.run_attempt }}"
assert set(jobs["verify"]["needs"]) == {"night", "bisect", "attest-bisect"}
' "$root/examples/external-kernels/.github/workflows/kgate-nightly.yml"

echo "action scripts: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
