#!/usr/bin/env bash
# kgate bisect builds only reviewed code, with no token beside it. A planted
# repository: main, and a pull request merged with a merge commit whose
# intermediate commit rewrites the build script (a CMake configure payload's
# stand-in: it records that it ran, and its environment) and whose last
# commit puts it back, so the merged net diff is one line of mod.c. A stand-in
# kgate does the paired runs (as tests/bisect_cli.sh's) and records its own
# environment, since the paired runs load the built modules.
# Asserts:
#  - by default the range is the first-parent history: the merge is a commit
#    of it, the intermediate commit is never built, and the merge is named
#    as the culprit with a note on how to look inside it;
#  - every build and every paired run sees no GITHUB_TOKEN, ACTIONS_*,
#    GITHUB_* (the runner's command files), OIDC or secret-like variable, and
#    keeps PATH and the caller's other variables;
#  - a job that holds an OIDC token (ACTIONS_ID_TOKEN_REQUEST_*) is refused
#    before anything is built (exit 3);
#  - --enter-merges (the separate step for an untrusted runner) walks the
#    merged pull request's own commits, the intermediate one included, and
#    names the commit inside the pull request, still with a scrubbed environment;
#  - a --good that is not on --bad's first-parent history is refused (exit 2).
# usage: bisect_reviewed.sh KGATE SOURCE_DIR
# shellcheck disable=SC2015 # `A && B || fail`: fail when either does not hold, as meant
set -uo pipefail
kgate=$1 src=$2
for p in git cc; do command -v $p > /dev/null || { echo "bisect_reviewed: no $p: skipped"; exit 77; }; done
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "bisect_reviewed: $*"; exit 1; }

cat > "$t/fake-kgate" <<EOS
#!/usr/bin/env bash
env > "$t/env-run-\$\$"
h= b= j=
while [ \$# -gt 0 ]; do
  case \$1 in --kernels|--own-kernels) h=\$2; shift ;; --base-kernels) b=\$2; shift ;; --json) j=\$2; shift ;; esac
  shift
done
sh=\$(grep -c SLOWMARK "\$h"); sb=\$(grep -c SLOWMARK "\$b")
cell='"variant":"two_pass","dtype":"i32","n":33554432,"verdict":"SLOWER","ratio":1.012,"lo":1.006,"hi":1.018'
if [ "\$sh" -gt 0 ] && [ "\$sb" = 0 ]; then new=\$cell
else new='"variant":"two_pass","dtype":"i32","n":33554432,"verdict":"SAME","ratio":1,"lo":0.994,"hi":1.006'; fi
sed "s/\$cell/\$new/" "$src/tests/data/h200-paired.json" > "\$j"
EOS
chmod +x "$t/fake-kgate"

r=$t/repo
mkdir -p "$r" && cd "$r" || exit 1
git init -q -b main . && git config user.email t@example.com && git config user.name t
c() { git add -A && git commit -qm "$1" && git rev-parse HEAD; }
printf 'int team_sum(const int *x, int n) { int s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }\n' > mod.c
# The reviewed build script: it records the environment it was given, then builds.
cat > build.sh <<'EOS'
env > "$KGATE_BISECT_BUILD/../../env-build-$KGATE_BISECT_COMMIT"
cc -shared -fPIC -O1 -o "$KGATE_BISECT_BUILD/mod.so" mod.c
EOS
base=$(c base)
echo "note 1" > README && n1=$(c "readme 1")
git checkout -q -b pr "$base"
# The pull request: its intermediate commit replaces the build with a payload...
cat > build.sh <<'EOS'
touch "$KGATE_BISECT_BUILD/../../PAYLOAD-RAN"
env > "$KGATE_BISECT_BUILD/../../env-payload"
cc -shared -fPIC -O1 -o "$KGATE_BISECT_BUILD/mod.so" mod.c
EOS
payload=$(c "wip")
# ...and its last commit puts the build back: the net diff is mod.c's one line.
git checkout -q "$base" -- build.sh
printf 'const char *team_mark(void) { return "SLOWMARK"; }\n' >> mod.c
slow=$(c "mark")
git checkout -q main
git merge -q --no-ff -m "merge pull request" pr
merge=$(git rev-parse HEAD)
echo "note 2" >> README && n2=$(c "readme 2")
[ "$(git diff --stat "$n1" "$merge" -- build.sh)" = "" ] || fail "planted: the merge's net diff touches build.sh"
cd "$t" || exit 1

# shellcheck disable=SC2016 # expanded by kgate bisect's sh, in the worktree
build='sh build.sh'
secrets=(GITHUB_TOKEN=ghs_secret ACTIONS_RUNTIME_TOKEN=rt_secret ACTIONS_CACHE_URL=https://cache.example
         GITHUB_ENV="$t/github-env" GITHUB_PATH="$t/github-path" GITHUB_OUTPUT="$t/github-output"
         GH_TOKEN=gh_secret NPM_TOKEN=npm_secret AWS_SECRET_ACCESS_KEY=aws_secret TEAM_DEPLOY_PASSWORD=pw_secret
         KGATE_REFCACHE_KEY=0123 MY_API_KEY=key_secret INPUT_TOKEN=input_secret)
run() { env "${secrets[@]}" KEEP_ME=kept "$kgate" bisect --repo "$r" --kgate "$t/fake-kgate" --build "$build" --module mod.so \
  --variant two_pass --dtype i32 --size 33554432 --effect 1.2 "$@"; }
leaks() { # FILE...: the secret-like variables in recorded environments, if any
  grep -hE '^(GITHUB_|ACTIONS_|GH_TOKEN|NPM_TOKEN|AWS_|TEAM_DEPLOY_PASSWORD|KGATE_REFCACHE_KEY|MY_API_KEY|INPUT_)' "$@" |
    cut -d= -f1 | sort -u | tr '\n' ' '
}

# 1. The default: the first-parent history; the pull request's own commits are not built.
run --work "$t/w1/bis" --good "$base" --bad "$n2" --within "$n2" --json "$t/b.json" -q > "$t/o" 2>&1
code=$?
[ $code = 0 ] || fail "first-parent: exit $code: $(cat "$t/o")"
[ -e "$t/w1/PAYLOAD-RAN" ] && fail "first-parent: the pull request's intermediate commit was built"
ls "$t/w1/bis/logs/build-${payload:0:12}.log" > /dev/null 2>&1 && fail "first-parent: a build log of the intermediate commit"
grep -q "\"$payload\"" "$t/b.json" && fail "first-parent: the intermediate commit is in the range: $(cat "$t/b.json")"
grep -q "\"$slow\"" "$t/b.json" && fail "first-parent: the pull request's last commit is in the range"
grep -q "commits: 4," "$t/o" || fail "first-parent: not 4 commits (base, readme 1, the merge, readme 2): $(cat "$t/o")"
grep -q "culprit: $merge " "$t/o" || fail "first-parent: the merge is not the culprit: $(cat "$t/o")"
grep -q "the culprit $merge is a merge.*--enter-merges.*untrusted, ephemeral runner with no token" "$t/o" ||
  fail "first-parent: no note on how to look inside the merge: $(cat "$t/o")"
# 2. No token beside a build or a paired run.
envs=("$t"/w1/env-build-* "$t"/env-run-*)
[ -f "${envs[0]}" ] && [ -f "${envs[-1]}" ] || fail "no recorded environment: $(ls "$t" "$t/w1")"
bad=$(leaks "${envs[@]}")
[ -z "$bad" ] || fail "a build or a paired run saw: $bad"
grep -q '^KEEP_ME=kept$' "${envs[0]}" && grep -q '^PATH=' "${envs[0]}" || fail "the build lost the caller's variables: $(cat "${envs[0]}")"
grep -q "^KGATE_BISECT_COMMIT=$base\$" "$t/w1/env-build-$base" || fail "the build has no KGATE_BISECT_COMMIT"
# 3. A job that holds an OIDC token builds nothing.
rm -f "$t"/env-run-*
env ACTIONS_ID_TOKEN_REQUEST_URL=https://token.example ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc_secret \
  "$kgate" bisect --repo "$r" --work "$t/w3/bis" --kgate "$t/fake-kgate" --build "$build" --module mod.so \
  --variant two_pass --good "$base" --bad "$n2" -q > "$t/o" 2>&1
code=$?
[ $code = 3 ] && [ "$(wc -l < "$t/o")" = 1 ] || fail "an OIDC token: exit $code (want 3, one line): $(cat "$t/o")"
grep -q "ACTIONS_ID_TOKEN_REQUEST_" "$t/o" || fail "an OIDC token: the line does not name it: $(cat "$t/o")"
ls "$t"/w3/env-build-* "$t"/env-run-* > /dev/null 2>&1 && fail "an OIDC token: something was built or run"
# 4. --enter-merges: the pull request's own commits, the separate step (an untrusted runner).
run --work "$t/w4/bis" --good "$base" --bad "$n2" --enter-merges -q > "$t/o" 2>&1
code=$?
[ $code = 0 ] || fail "--enter-merges: exit $code: $(cat "$t/o")"
[ -e "$t/w4/PAYLOAD-RAN" ] || fail "--enter-merges: the intermediate commit was not built: $(cat "$t/o")"
grep -q "culprit: $slow " "$t/o" || fail "--enter-merges: the culprit is not the pull request's commit: $(cat "$t/o")"
bad=$(leaks "$t/w4/env-payload" "$t"/env-run-*)
[ -z "$bad" ] || fail "--enter-merges: the unreviewed commit's build saw: $bad"
# 5. A --good off the first-parent history (the pull request's commit) is refused.
run --work "$t/w5/bis" --good "$payload" --bad "$n2" -q > "$t/o" 2>&1
code=$?
[ $code = 2 ] && grep -q "is not on the first-parent history of" "$t/o" || fail "--good off the first parents: exit $code: $(cat "$t/o")"
echo "bisect_reviewed: first-parent range, no token beside a build, OIDC refused, --enter-merges and a side --good as planted"
