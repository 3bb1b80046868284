#!/usr/bin/env bash
# Tests of scripts/runner/job-started.sh on a made-up runner: a clean one
# (the workspace, .git included, is wiped), and each leftover it must refuse.
# As root (CI's container) the hook runs as `nobody`, since root may write
# anything and the hook would rightly refuse every runner.
#   scripts/runner/test_job_started.sh    prints "N passed, N failed"
set -uo pipefail
hook=$(cd "$(dirname "$0")" && pwd)/job-started.sh
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
as=()
user=$(id -un)
if [[ $(id -u) == 0 ]]; then
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  user=$(id -un 65534)
fi

# A fresh runner: root-owned install folder and hook, the job user's home and workspace.
fresh() {
  rm -rf "${tmp:?}/r"
  mkdir -p "$tmp/r/runner/bin" "$tmp/r/home/.local/bin" "$tmp/r/ws/.git/hooks"
  touch "$tmp/r/runner/.env" "$tmp/r/runner/.path" "$tmp/r/ws/file" "$tmp/r/ws/.git/hooks/post-checkout"
  cp "$hook" "$tmp/r/hook.sh"
  chmod 755 "$tmp/r" "$tmp/r/hook.sh"
  chmod -R a-w "$tmp/r/runner"
  : > "$tmp/r/gitconfig"
  if [[ ${#as[@]} -gt 0 ]]; then chown -R "$user" "$tmp/r/home" "$tmp/r/ws" "$tmp/r/gitconfig"; fi
}
# run_hook [KGATE_RUNNER_ROOT]: the hook with the runner's environment; $code its exit.
run_hook() {
  env -i PATH=/usr/bin:/bin HOME="$tmp/r/home" GITHUB_WORKSPACE="$tmp/r/ws" KGATE_RUNNER_ROOT="${1-$tmp/r/runner}" \
    GIT_CONFIG_GLOBAL="$tmp/r/gitconfig" GIT_CONFIG_SYSTEM=/dev/null \
    "${as[@]}" bash "$tmp/r/hook.sh" > "$tmp/log" 2>&1
  code=$?
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
refused() { [[ $code == 1 ]] && grep -q "$1" "$tmp/log" && [[ -e $tmp/r/ws/file ]]; }
wiped() { [[ $code == 0 && -d $tmp/r/ws && -z $(ls -A "$tmp/r/ws") ]]; }

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
git config --file "$tmp/r/gitconfig" core.fsmonitor "touch /tmp/pwned"
run_hook
verdict "core.fsmonitor in the global git config" refused "git config --global sets core.fsmonitor"

fresh
git config --file "$tmp/r/gitconfig" core.hooksPath /tmp/hooks
run_hook
verdict "core.hooksPath" refused "sets core.hookspath"

fresh
git config --file "$tmp/r/gitconfig" url.https://evil.example/.insteadOf https://github.com/
run_hook
verdict "a rewritten URL" refused "sets url\."

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
run_hook ""
verdict "no KGATE_RUNNER_ROOT" refused "KGATE_RUNNER_ROOT is not set"

echo "runner hook: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
