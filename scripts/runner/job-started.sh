#!/usr/bin/env bash
# The job-started hook of kgate's self-hosted GPU runners
# (ACTIONS_RUNNER_HOOK_JOB_STARTED in the runner's .env; docs/runners.md).
# Runs as the job's user before the job's first step. An ephemeral runner is
# the defence; this hook is the tripwire behind it: it refuses to run a job on
# a runner where an earlier job could have left something for this one, and
# wipes the workspace, .git included, so that nothing of an earlier checkout
# is reused.
#   KGATE_RUNNER_ROOT   the runner's install folder (set in its .env)
# Exit 1 (with one ::error:: line per finding) fails the job before it starts.
set -uo pipefail
found=0
refuse() {
  echo "::error::runner hook: $*; re-provision this runner (docs/runners.md)"
  found=1
}

# 1. The runner itself: its folder, .env (environment of every job), .path
#    (its PATH) and this hook must not be writable by the job's user.
root=${KGATE_RUNNER_ROOT:-}
if [[ -z $root || ! -d $root ]]; then
  refuse "KGATE_RUNNER_ROOT is not set to the runner's install folder"
else
  for f in "$root" "$root/.env" "$root/.path" "$root/bin" "$0"; do
    if [[ -e $f && -w $f ]]; then refuse "$f is writable by $(id -un)"; fi
  done
fi

# 2. Git configuration outside the repository, which every later checkout reads:
#    hooks elsewhere, fsmonitor and other commands git runs, rewritten URLs.
for scope in --system --global; do
  if said=$(git config "$scope" --name-only --get-regexp \
              '^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy)|include(if)?\..*|url\..*|credential\..*|filter\..*|diff\..*\.(textconv|command)|protocol\..*|http\..*)$' \
              2>/dev/null); then
    refuse "git config $scope sets $(tr '\n' ' ' <<< "$said")"
  fi
done

# 3. The job user's home: nothing on PATH ahead of the system, no shell start-up
#    files beyond the skeleton's, no scheduled jobs.
if [[ -d $HOME/.local/bin && -n $(ls -A "$HOME/.local/bin" 2>/dev/null) ]]; then
  refuse "$HOME/.local/bin is not empty"
fi
for f in .bashrc .bash_profile .profile .bash_login .bash_logout; do
  if [[ -e $HOME/$f ]] && ! cmp -s "$HOME/$f" "/etc/skel/$f"; then refuse "$HOME/$f differs from /etc/skel"; fi
done
if crontab -l >/dev/null 2>&1; then refuse "$(id -un) has a crontab"; fi

if [[ $found != 0 ]]; then exit 1; fi

# 4. The workspace, .git included: the checkout starts from nothing.
ws=${GITHUB_WORKSPACE:?}
case "$ws" in
  / | "$HOME" | "${root:-/}") echo "::error::runner hook: refusing to wipe $ws"; exit 1 ;;
esac
if [[ -d $ws ]]; then
  find "$ws" -mindepth 1 -delete || { echo "::error::runner hook: cannot wipe $ws"; exit 1; }
fi
# 5. kgate's reference cache (docs/checks.md): an earlier job could have
#    written a wrong reference with a valid checksum. The default inputs'
#    references ship with kgate; anything else is recomputed.
rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/kgate" || { echo "::error::runner hook: cannot remove kgate's cache"; exit 1; }
echo "runner hook: clean runner, empty workspace $ws, no kgate cache"
