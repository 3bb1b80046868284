#!/usr/bin/env bash
# Tests of scripts/runner/job-started.sh on a made-up runner: a clean one
# (the workspace, .git included, is wiped), and each leftover it must refuse
# or remove.
#
# The hook kills every process of its user but its own ancestry, so each run
# is sealed in a PID namespace of its own (unshare; as a normal user, in a
# user namespace too): it sees and kills only what the test started there.
# As root (CI's container) the hook runs as `nobody`, since root may write
# anything and the hook would rightly refuse every runner; where root cannot
# make a namespace, the tests run only while `nobody` has no process at all.
# Without either, they are skipped (exit 77): they would kill this user's
# processes.
#   scripts/runner/test_job_started.sh    prints "N passed, N failed"
set -uo pipefail
hook=$(cd "$(dirname "$0")" && pwd)/job-started.sh
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
passed=0
failed=0
as=()
user=$(id -un)
if [[ $(id -u) == 0 ]]; then
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  user=$(id -un 65534)
  ns=(unshare --pid --fork --mount-proc)
else
  ns=(unshare --user --map-current-user --pid --fork --mount-proc)
fi
if ! "${ns[@]}" true 2>/dev/null; then
  ns=()
  if [[ $(id -u) != 0 ]] || awk '$1 == "Uid:" && $2 == 65534 { found = 1 } END { exit !found }' /proc/[0-9]*/status 2>/dev/null; then
    echo "runner hook: tests skipped: no PID namespace here (unshare), and the hook would kill every process of $user"
    exit 77
  fi
fi

# A fresh runner: root-owned install folder and hook; the job user's home,
# its work folder with one workspace (and a neighbour's, for the tests that
# need one), and an empty system git config (the host's is not the runner's).
fresh() {
  if [[ -d $tmp/r ]]; then chmod -R u+w "$tmp/r"; fi
  rm -rf "${tmp:?}/r"
  mkdir -p "$tmp/r/runner/bin" "$tmp/r/home/.local/bin" "$tmp/r/work/kgate/kgate/.git/hooks" \
    "$tmp/r/b-work/kgate/kgate/.git" "$tmp/r/out"
  touch "$tmp/r/runner/.env" "$tmp/r/runner/.path" "$tmp/r/work/kgate/kgate/file" \
    "$tmp/r/work/kgate/kgate/.git/hooks/post-checkout" "$tmp/r/b-work/kgate/kgate/file" \
    "$tmp/r/home/.gitconfig" "$tmp/r/sysconfig"
  cp "$hook" "$tmp/r/hook.sh"
  cp "$tmp/fake-runner.sh" "$tmp/r/fake-runner.sh"
  chmod 755 "$tmp/r" "$tmp/r/fake-runner.sh"
  chmod 555 "$tmp/r/hook.sh"
  chmod -R a-w "$tmp/r/runner"
  if [[ ${#as[@]} -gt 0 ]]; then chown -R "$user" "$tmp/r/home" "$tmp/r/work" "$tmp/r/b-work" "$tmp/r/out"; fi
}
# What stands in for the runner's worker: it starts what the test asks for (a
# process an earlier job left, in a session of its own; another runner), then
# the hook as its child, as the runner does (bash -e), and then says whether
# it, the leftover and the other runner are still there.
cat > "$tmp/fake-runner.sh" <<'EOF'
hook=$1 out=$2
alive() { # any of its threads
  local s t
  for t in /proc/"$1"/task/[0-9]*; do
    { read -r s < "$t/stat"; } 2>/dev/null || continue
    s=${s##*) }
    [[ ${s%% *} != [ZX] ]] && return 0
  done
  return 1
}
if [[ -n ${T_LEFTOVER:-} ]]; then
  setsid bash -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 300' "$out/leftover" </dev/null >/dev/null 2>&1 &
  disown
  for _ in {1..100}; do [[ -s $out/leftover ]] && break; sleep 0.05; done
fi
if [[ -n ${T_ZOMBIE_LEADER:-} ]]; then
  # A leftover whose main thread exited while another thread runs on (its state reads Z).
  setsid python3 -c 'import ctypes, os, sys, threading, time
threading.Thread(target=time.sleep, args=(300,)).start()
open(sys.argv[1] + ".tmp", "w").write(str(os.getpid())); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
ctypes.CDLL(None).pthread_exit(None)' "$out/leftover" </dev/null >/dev/null 2>&1 &
  disown
  for _ in {1..100}; do [[ -s $out/leftover ]] && break; sleep 0.05; done
  sleep 0.2
fi
if [[ -n ${T_OTHER_RUNNER:-} ]]; then
  setsid "$T_OTHER_RUNNER" 300 </dev/null >/dev/null 2>&1 &
  echo $! > "$out/other"
  disown
fi
bash -e "$hook" > "$out/log" 2>&1
echo $? > "$out/code"
for f in leftover other; do
  if [[ -s $out/$f ]]; then
    if alive "$(< "$out/$f")"; then echo alive; else echo gone; fi > "$out/$f.state"
  fi
done
echo alive > "$out/runner"
EOF
# run_hook [VAR=VALUE...]: the hook with the runner's environment (plus these);
# $code its exit status, $tmp/log its output.
run_hook() {
  rm -f "$tmp/r/out/"*
  env -i PATH=/usr/bin:/bin HOME="$tmp/r/home" KGATE_RUNNER_ROOT="$tmp/r/runner" \
    KGATE_RUNNER_WORK="$tmp/r/work" RUNNER_WORKSPACE="$tmp/r/work/kgate" GITHUB_WORKSPACE="$tmp/r/work/kgate/kgate" \
    GIT_CONFIG_SYSTEM="$tmp/r/sysconfig" "$@" \
    "${ns[@]}" "${as[@]}" bash -c 'bash "$@"; exit $?' _ "$tmp/r/fake-runner.sh" "$tmp/r/hook.sh" "$tmp/r/out"
  code=$(cat "$tmp/r/out/code" 2>/dev/null || echo "none")
  cat "$tmp/r/out/log" > "$tmp/log" 2>/dev/null
  # without a namespace nothing ends them with the run
  if [[ ${#ns[@]} == 0 ]]; then
    for f in leftover other; do
      if [[ -s $tmp/r/out/$f ]]; then kill -KILL "$(< "$tmp/r/out/$f")" 2>/dev/null; fi
    done
  fi
}
verdict() { # NAME CONDITION...
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (exit $code):" >&2
    cat "$tmp/log" >&2
  fi
}
# refused: exit 1, the finding named, and the workspace left alone.
refused() { [[ $code == 1 ]] && grep -qF -- "$1" "$tmp/log" && [[ -e $tmp/r/work/kgate/kgate/file ]]; }
wiped() { [[ $code == 0 && -d $tmp/r/work/kgate/kgate && -z $(ls -A "$tmp/r/work/kgate/kgate") ]]; }
# gitconfig FILE KEY VALUE: a setting an earlier job left in one of the user's files
gitconfig() {
  mkdir -p "$(dirname "$1")"
  git config --file "$1" "$2" "$3"
  if [[ ${#as[@]} -gt 0 ]]; then chown -R "$user" "$tmp/r/home"; fi
}

fresh
run_hook
verdict "a clean runner: exit 0 and an empty workspace, .git included" wiped

fresh
mkdir -p "$tmp/r/home/.cache/kgate"
echo forged > "$tmp/r/home/.cache/kgate/refs.txt"
if [[ ${#as[@]} -gt 0 ]]; then chown -R "$user" "$tmp/r/home/.cache"; fi
run_hook
cache_gone() { [[ $code == 0 && ! -e $tmp/r/home/.cache/kgate ]]; }
verdict "an earlier job's kgate reference cache is removed" cache_gone

fresh
gitconfig "$tmp/r/home/.gitconfig" core.fsmonitor "touch /tmp/pwned"
run_hook
verdict "core.fsmonitor in ~/.gitconfig" refused "core.fsmonitor is set in $tmp/r/home/.gitconfig"

fresh
gitconfig "$tmp/r/home/.gitconfig" core.hooksPath /tmp/hooks
run_hook
verdict "core.hooksPath" refused "core.hookspath is set in $tmp/r/home/.gitconfig"

fresh
gitconfig "$tmp/r/home/.gitconfig" url.https://evil.example/.insteadOf https://github.com/
run_hook
verdict "a rewritten URL" refused "url.https://evil.example/.insteadof is set in"

# A template's hooks/post-checkout runs in the next job's `git init` and checkout.
fresh
gitconfig "$tmp/r/home/.gitconfig" init.templateDir "$tmp/r/home/t"
run_hook
verdict "init.templateDir in ~/.gitconfig" refused "init.templatedir is set in $tmp/r/home/.gitconfig"

# git reads $XDG_CONFIG_HOME/git/config beside ~/.gitconfig (git config --global only one of them).
fresh
gitconfig "$tmp/r/home/.config/git/config" init.templateDir "$tmp/r/home/t"
run_hook
verdict "init.templateDir in ~/.config/git/config" refused "init.templatedir is set in $tmp/r/home/.config/git/config"

fresh
gitconfig "$tmp/r/xdg/git/config" init.templateDir "$tmp/r/home/t"
run_hook XDG_CONFIG_HOME="$tmp/r/xdg"
verdict "init.templateDir in \$XDG_CONFIG_HOME/git/config" refused "init.templatedir is set in $tmp/r/xdg/git/config"

fresh
run_hook GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=init.templateDir GIT_CONFIG_VALUE_0="$tmp/r/home/t"
verdict "init.templateDir from GIT_CONFIG_COUNT" refused "init.templatedir is set in the environment"

fresh
gitconfig "$tmp/r/g" init.templateDir "$tmp/r/home/t"
run_hook GIT_CONFIG_GLOBAL="$tmp/r/g"
verdict "init.templateDir in the file GIT_CONFIG_GLOBAL names" refused "init.templatedir is set in $tmp/r/g"

fresh
run_hook GIT_TEMPLATE_DIR="$tmp/r/home/t"
verdict "GIT_TEMPLATE_DIR in the environment" refused "the runner's environment sets GIT_TEMPLATE_DIR"

# git's default template folder, beside its exec-path: a git that says its
# exec-path is under $tmp/r/git (the test cannot write /usr/share).
fresh
mkdir -p "$tmp/r/git/bin" "$tmp/r/git/lib/git-core" "$tmp/r/git/share/git-core/templates/hooks"
touch "$tmp/r/git/share/git-core/templates/hooks/pre-commit.sample" "$tmp/r/git/share/git-core/templates/hooks/post-checkout"
cat > "$tmp/r/git/bin/git" <<EOF
#!/bin/sh
if [ "\$1" = --exec-path ]; then echo "$tmp/r/git/lib/git-core"; exit 0; fi
exec /usr/bin/git "\$@"
EOF
chmod 755 "$tmp/r/git/bin/git"
run_hook PATH="$tmp/r/git/bin:/usr/bin:/bin"
verdict "a hook in git's default template folder" refused "default template folder has a hook: $tmp/r/git/share/git-core/templates/hooks/post-checkout"

fresh
gitconfig "$tmp/r/home/.config/git/config" credential.helper "store --file $tmp/r/home/creds"
run_hook
verdict "a credential helper in ~/.config/git/config" refused "credential.helper is set in $tmp/r/home/.config/git/config"

fresh
run_hook GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=credential.https://github.com.helper GIT_CONFIG_VALUE_0="!cat"
verdict "a credential helper from GIT_CONFIG_COUNT" refused "credential.https://github.com.helper is set in the environment"

fresh
gitconfig "$tmp/r/home/.gitconfig" include.path "$tmp/r/home/more"
run_hook
verdict "an include in ~/.gitconfig" refused "include.path is set in $tmp/r/home/.gitconfig"

fresh
printf '[oops\n' > "$tmp/r/home/.gitconfig"
run_hook
verdict "a ~/.gitconfig git cannot read" refused "git cannot read its configuration"

# A process an earlier job left (in a session of its own, so not the runner's
# child any more) keeps writing into the next checkout's .git: killed; the
# runner that started the hook lives on.
fresh
run_hook T_LEFTOVER=1
leftover_killed() {
  wiped && [[ $(cat "$tmp/r/out/leftover.state" 2>/dev/null) == gone ]] \
    && [[ $(cat "$tmp/r/out/runner" 2>/dev/null) == alive ]] && grep -q "killing 1 process" "$tmp/log"
}
verdict "a process an earlier job left is killed, the runner is not" leftover_killed

# A leftover whose main thread exited (state Z) while a thread of it runs on: killed.
if command -v python3 >/dev/null; then
  fresh
  run_hook T_ZOMBIE_LEADER=1
  verdict "a leftover whose main thread exited, its other thread alive, is killed" leftover_killed
fi

# Another runner under the same user (its executable root's, in a bin folder): its job is not
# killed, the job refused. Only root can make a file the job's user does not own.
if [[ ${#as[@]} -gt 0 ]]; then
  fresh
  mkdir -p "$tmp/r/other/bin"
  cp "$(command -v sleep)" "$tmp/r/other/bin/Runner.Worker"
  run_hook T_OTHER_RUNNER="$tmp/r/other/bin/Runner.Worker"
  other_left_alone() {
    refused "another runner runs as $user" && [[ $(cat "$tmp/r/out/other.state" 2>/dev/null) == alive ]]
  }
  verdict "another runner of the same user: refused, its job left alone" other_left_alone
fi

# A leftover that calls itself Runner.Worker (a copy of a program the job's user owns) is no
# runner: killed, and the job runs (it used to refuse every later job, never killing it).
fresh
mkdir -p "$tmp/r/home/x/bin"
cp "$(command -v sleep)" "$tmp/r/home/x/bin/Runner.Worker"
if [[ ${#as[@]} -gt 0 ]]; then chown -R "$user" "$tmp/r/home/x"; fi
run_hook T_OTHER_RUNNER="$tmp/r/home/x/bin/Runner.Worker"
fake_runner_killed() { wiped && [[ $(cat "$tmp/r/out/other.state" 2>/dev/null) == gone ]]; }
verdict "a leftover named Runner.Worker is killed, the job runs" fake_runner_killed

# The home: what a build or a tool reads, an earlier job's, wiped or refused.
fresh
mkdir -p "$tmp/r/home/.cache/ccache/a" "$tmp/r/home/.nv/ComputeCache/0" "$tmp/r/home/.cmake/packages/team" \
  "$tmp/r/home/.local/state/kgate"
touch "$tmp/r/home/.cache/ccache/a/obj" "$tmp/r/home/.nv/ComputeCache/0/k" "$tmp/r/home/.cmake/packages/team/x" \
  "$tmp/r/home/.local/state/kgate/refcache.key"
if [[ ${#as[@]} -gt 0 ]]; then chown -R "$user" "$tmp/r/home"; fi
run_hook
caches_gone() {
  wiped && [[ ! -e $tmp/r/home/.cache && ! -e $tmp/r/home/.nv && ! -e $tmp/r/home/.cmake/packages &&
              ! -e $tmp/r/home/.local/state/kgate/refcache.key ]]
}
verdict "ccache, the CUDA JIT cache, CMake's package registry and the reference-cache key are removed" caches_gone

fresh
mkdir -p "$tmp/r/home/.config/git"
echo '* filter=evil' > "$tmp/r/home/.config/git/attributes"
run_hook
verdict "git attributes in ~/.config/git/attributes" refused "$tmp/r/home/.config/git/attributes exists"

fresh
gitconfig "$tmp/r/home/.gitconfig" core.attributesFile "$tmp/r/home/attrs"
run_hook
verdict "core.attributesFile" refused "core.attributesfile is set in $tmp/r/home/.gitconfig"

fresh
mkdir -p "$tmp/r/home/.config/gh"
touch "$tmp/r/home/.config/gh/hosts.yml"
run_hook
verdict "gh's configuration" refused "$tmp/r/home/.config/gh exists"

# at jobs, a root-giving group and a container socket (programs that say so, on PATH first).
fresh
mkdir -p "$tmp/r/fakebin"
printf '#!/bin/sh\necho "7\tMon Dec  7 03:00:00 2026 a %s"\n' "$user" > "$tmp/r/fakebin/atq"
chmod 755 "$tmp/r/fakebin/atq"
run_hook PATH="$tmp/r/fakebin:/usr/bin:/bin"
verdict "an at job" refused "has at jobs (atq)"

fresh
mkdir -p "$tmp/r/fakebin"
# shellcheck disable=SC2016 # the stand-in's own shell text
printf '#!/bin/sh\nif [ "$1" = -Gn ]; then echo "%s docker"; exit 0; fi\nexec /usr/bin/id "$@"\n' "$user" > "$tmp/r/fakebin/id"
chmod 755 "$tmp/r/fakebin/id"
run_hook PATH="$tmp/r/fakebin:/usr/bin:/bin"
verdict "the docker group" refused "is in the group docker"

if command -v python3 >/dev/null; then
  fresh
  mkdir -p "$tmp/r/run"
  python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/r/run/docker.sock"
  if [[ ${#as[@]} -gt 0 ]]; then chown -R "$user" "$tmp/r/run"; fi
  run_hook XDG_RUNTIME_DIR="$tmp/r/run"
  verdict "a container socket" refused "can use the container socket $tmp/r/run/docker.sock"
fi

# Two runners on one host, two work folders. An earlier job of runner A made
# A's workspace a link into B's: A's hook wipes neither.
b_untouched() { refused "$1" && [[ -e $tmp/r/b-work/kgate/kgate/file ]]; }
fresh
rm -rf "$tmp/r/work/kgate"
ln -s "$tmp/r/b-work/kgate" "$tmp/r/work/kgate"
run_hook
verdict "A's workspace linked to B's: B's workspace untouched" b_untouched "$tmp/r/work/kgate is a symbolic link"
# A runner whose GITHUB_WORKSPACE is not in its own work folder (two runners
# configured with one work folder).
fresh
run_hook RUNNER_WORKSPACE="$tmp/r/b-work/kgate" GITHUB_WORKSPACE="$tmp/r/b-work/kgate/kgate"
verdict "A's GITHUB_WORKSPACE in B's work folder: B's workspace untouched" b_untouched "is not inside this runner's work folder"
fresh
run_hook GITHUB_WORKSPACE="$tmp/r/work/../b-work/kgate/kgate"
verdict "A's GITHUB_WORKSPACE climbing out with ..: B's workspace untouched" b_untouched "is not inside this runner's work folder"

fresh
touch "$tmp/r/home/.local/bin/git"
run_hook
verdict "a program in ~/.local/bin" refused "local/bin is not empty"

fresh
# shellcheck disable=SC2016 # the text a job would plant, unexpanded
echo 'export PATH=/tmp:$PATH' > "$tmp/r/home/.bashrc"
run_hook
verdict "a changed ~/.bashrc" refused ".bashrc differs from /etc/skel"

fresh
chmod a+w "$tmp/r/runner/.env"
run_hook
verdict "a writable .env" refused "runner/.env is writable"

fresh
run_hook KGATE_RUNNER_ROOT=
verdict "no KGATE_RUNNER_ROOT" refused "KGATE_RUNNER_ROOT is not set"

echo "runner hook: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
