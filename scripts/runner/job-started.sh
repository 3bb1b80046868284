#!/usr/bin/env bash
# The job-started hook of kgate's self-hosted GPU runners
# (ACTIONS_RUNNER_HOOK_JOB_STARTED in the runner's environment; docs/runners.md).
# The runner's worker starts it (`bash -e`) as the job's user before the job's
# first step. A fresh VM or container per job is the defence; this hook is the
# tripwire behind it, and the last line of a persistent host:
#   1. it kills every process of the job's user but its own ancestry (the
#      runner), judged by its threads (a process whose main thread exited is
#      alive while any thread is), with their process groups and sessions:
#      nothing an earlier job left running reaches this job; another runner
#      is known by its executable (root's, in a bin folder), never by a name;
#   2. it refuses a runner where an earlier job could have left something for
#      this one: a writable runner, a git setting that runs a program or
#      rewrites a checkout (templates, hooks, credential helpers, includes,
#      rewritten URLs, in any scope), files on PATH or in shell start-up;
#   3. it wipes this runner's own workspace, .git included, the caches a
#      build reads (~/.cache: kgate's references, ccache; ~/.nv, the CUDA JIT
#      cache; ~/.cmake/packages, CMake's user package registry) and kgate's
#      reference-cache key (a new one per job); it refuses what it cannot
#      wipe safely (git attributes, gh or docker credentials, at jobs, a
#      group or socket that gives root).
#   KGATE_RUNNER_ROOT   the runner's install folder (set in its .env)
#   KGATE_RUNNER_WORK   the runner's own work folder (set in its .env; without
#                       it, the folder that holds RUNNER_WORKSPACE)
# Exit 1 (with one ::error:: line per finding) fails the job before it starts.
set -uo pipefail
cd / || exit 1 # no repository's own configuration is read below
found=0
# Text from the file system (process names, paths) goes into the log as data:
# a line break in it would start a workflow command of its own.
clean() {
  local s=${1//[[:cntrl:]]/?}
  printf '%s' "${s:0:300}"
}
refuse() {
  echo "::error::runner hook: $(clean "$*"); re-provision this runner (docs/runners.md)"
  found=1
}
me=$(id -u)
who=$(id -un 2>/dev/null || echo "uid $me")

# 1. Processes. The runner's own process tree is this hook and its ancestors
#    (the worker, the listener, run.sh, up to init); every other process of
#    this user is something an earlier job left running (a watcher that keeps
#    writing into the next checkout's .git). Read from /proc without starting
#    a program, so the hook has no child of its own while it looks.
# proc PID: P_STATE P_PPID P_PGRP P_SID P_UID (real) P_COMM of a process; 1 once it is gone.
# P_STATE is its threads': a main thread that exited (Z) while another thread
# runs is a live process, which keeps writing.
proc() {
  local s k v t ts
  { read -r s < "/proc/$1/stat" && read -r P_COMM < "/proc/$1/comm"; } 2>/dev/null || return 1
  s=${s##*) }
  read -r P_STATE P_PPID P_PGRP P_SID _ <<< "$s"
  if [[ $P_STATE == [ZX] ]]; then
    for t in /proc/"$1"/task/[0-9]*; do
      { read -r ts < "$t/stat"; } 2>/dev/null || continue
      ts=${ts##*) }
      if [[ ${ts%% *} != [ZX] ]]; then P_STATE=${ts%% *}; break; fi
    done
  fi
  P_UID=
  while read -r k v _; do
    if [[ $k == Uid: ]]; then P_UID=$v; break; fi
  done 2>/dev/null < "/proc/$1/status"
  [[ -n $P_UID ]]
}
declare -A runner_tree=()
p=$$
while [[ $p =~ ^[1-9][0-9]*$ && -z ${runner_tree[$p]:-} ]] && proc "$p"; do
  runner_tree[$p]=1
  p=$P_PPID
done
declare -A runner_groups=()
for p in "${!runner_tree[@]}"; do
  if proc "$p"; then runner_groups[g$P_PGRP]=1 runner_groups[s$P_SID]=1; fi
done
# is_runner PID: its executable is a runner's (bin/Runner.Listener or
# bin/Runner.Worker, neither owned nor writable by this user: an install
# folder of root's), whatever the process calls itself. A copy of any
# program that a job named Runner.Worker is a stray like any other.
is_runner() {
  local exe
  exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  [[ $exe == /*/bin/Runner.Listener || $exe == /*/bin/Runner.Worker ]] &&
    [[ ! -O /proc/$1/exe && ! -w /proc/$1/exe ]]
}
# strays: the live processes of this user outside the runner's tree, and
# outside another runner's (other: its pid; its processes are its job's).
strays() {
  stray=()
  other_runner=
  local d pid q n
  declare -A seen_other=()
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    if [[ -n ${runner_tree[$pid]:-} ]] || ! proc "$pid"; then continue; fi
    if [[ $P_UID != "$me" || $P_STATE == [ZX] || $P_PPID == "$$" ]]; then continue; fi
    # Inside another (real) runner's tree: that runner's job, not a leftover.
    q=$pid n=0
    while [[ $q =~ ^[1-9][0-9]*$ && $q != 1 && $n -lt 64 ]] && proc "$q"; do
      if [[ -n ${seen_other[$q]:-} ]] || { [[ $P_UID == "$me" ]] && is_runner "$q"; }; then
        seen_other[$q]=1
        other_runner="$q ($P_COMM)"
        continue 2
      fi
      q=$P_PPID n=$((n + 1))
    done
    stray+=("$pid")
  done
}
for round in {1..50}; do
  strays
  if [[ ${#stray[@]} == 0 ]]; then break; fi
  if [[ $round == 1 ]]; then
    echo "runner hook: killing ${#stray[@]} process(es) of $who an earlier job left: ${stray[*]:0:20}"
  fi
  # Stopped first, so that none forks between the look and the kill; then
  # each one's process group and session too, where the runner is in neither.
  kill -STOP "${stray[@]}" 2>/dev/null || true
  groups=()
  for pid in "${stray[@]}"; do
    if proc "$pid"; then
      if [[ -z ${runner_groups[g$P_PGRP]:-} && $P_PGRP != 0 ]]; then groups+=("-$P_PGRP"); fi
    fi
  done
  kill -KILL "${stray[@]}" "${groups[@]}" 2>/dev/null || true
  sleep 0.1
done
if [[ ${#stray[@]} != 0 ]]; then
  refuse "cannot kill the processes of $who an earlier job left (${stray[*]:0:20})"
  exit 1
fi
if [[ -n $other_runner ]]; then
  # Not killed: it is another runner's live job (every stray of this user
  # outside it is gone). Runners that share a user share everything a job can write.
  refuse "another runner runs as $who (pid $other_runner): each runner needs its own user"
  exit 1
fi

# 2. The runner itself: its folder, .env (environment of every job), .path
#    (its PATH) and this hook must not be writable by the job's user.
root=${KGATE_RUNNER_ROOT:-}
if [[ -z $root || ! -d $root ]]; then
  refuse "KGATE_RUNNER_ROOT is not set to the runner's install folder"
else
  for f in "$root" "$root/.env" "$root/.path" "$root/bin" "$0"; do
    if [[ -e $f && -w $f ]]; then refuse "$f is writable by $who"; fi
  done
fi

# 3. Git, in every scope a checkout of this job reads: the system and global
#    files ($XDG_CONFIG_HOME/git/config and ~/.gitconfig, or the files
#    GIT_CONFIG_SYSTEM and GIT_CONFIG_GLOBAL name), the files they include and
#    the settings GIT_CONFIG_COUNT/GIT_CONFIG_PARAMETERS give. Refused: a
#    template (its hooks land in the next `git init`), hooks, any program git
#    would run (fsmonitor, credential helpers, filters, ...), includes and
#    rewritten URLs.
for v in GIT_TEMPLATE_DIR GIT_CONFIG GIT_EXEC_PATH GIT_SSH GIT_SSH_COMMAND GIT_ASKPASS GIT_PROXY_COMMAND \
         GIT_EXTERNAL_DIFF GIT_DIR GIT_WORK_TREE; do
  if [[ -n ${!v+set} ]]; then refuse "the runner's environment sets $v=${!v}"; fi
done
bad_key='^(init\.templatedir|core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand|attributesfile)|include(if)?\..*|url\..*|credential\..*|filter\..*|diff\..*\.(textconv|command)|merge\..*\.driver|hook\..*|protocol\..*|http\..*|gpg\.(.*\.)?program|sequence\.editor|uploadpack\.packobjectshook)$'
mapfile -d '' -t cfg < <(git config --list --show-scope --show-origin --name-only -z 2>/dev/null)
if ! wait "$!"; then
  refuse "git cannot read its configuration: git config --list --show-scope fails (a file it reads is broken, or git is older than 2.26)"
fi
shopt -s nocasematch
for ((i = 0; i + 2 < ${#cfg[@]}; i += 3)); do
  scope=${cfg[i]} origin=${cfg[i + 1]} key=${cfg[i + 2]}
  if [[ $key =~ $bad_key ]]; then
    case $origin in
      file:*) where=${origin#file:} ;;
      *) where="the environment (GIT_CONFIG_COUNT/GIT_CONFIG_PARAMETERS)" ;;
    esac
    refuse "git config: $key is set in $where ($scope scope)"
  fi
done
shopt -u nocasematch
# The default template folder (PREFIX/share/git-core/templates beside git's
# PREFIX/lib/git-core): only the shipped *.sample hooks, which never run.
templates=(/usr/share/git-core/templates)
if exec_path=$(git --exec-path 2>/dev/null) && [[ $exec_path == /*/* ]]; then
  templates+=("${exec_path%/*/*}/share/git-core/templates")
fi
for t in "${templates[@]}"; do
  if [[ -e $t/config || -L $t/config ]]; then refuse "git's default template folder has a config: $t/config"; fi
  for h in "$t"/hooks/*; do
    if [[ ( -e $h || -L $h ) && $h != *.sample ]]; then refuse "git's default template folder has a hook: $h"; fi
  done
done

# 4. The job user's home: nothing on PATH ahead of the system, no shell start-up
#    files beyond the skeleton's, no scheduled jobs.
if [[ -d $HOME/.local/bin && -n $(ls -A "$HOME/.local/bin" 2>/dev/null) ]]; then
  refuse "$HOME/.local/bin is not empty"
fi
for f in .bashrc .bash_profile .profile .bash_login .bash_logout; do
  if [[ -e $HOME/$f ]] && ! cmp -s "$HOME/$f" "/etc/skel/$f"; then refuse "$HOME/$f differs from /etc/skel"; fi
done
if crontab -l >/dev/null 2>&1; then refuse "$who has a crontab"; fi
if command -v atq >/dev/null && [[ -n $(atq 2>/dev/null) ]]; then refuse "$who has at jobs (atq)"; fi
# Files a checkout or a tool reads and runs with: git's attributes (they
# change the next checkout's bytes: filters, eol), gh's and docker's
# credentials and helpers, stored passwords.
xdg=${XDG_CONFIG_HOME:-$HOME/.config}
for f in "$xdg/git/attributes" "$HOME/.config/git/attributes" "$xdg/gh" "$HOME/.config/gh" "$HOME/.docker/config.json" \
         "$HOME/.netrc" "$HOME/.git-credentials"; do
  if [[ -e $f || -L $f ]]; then refuse "$f exists (an earlier job's, read by this job's tools)"; fi
done
# A group or a socket that gives root: a job could leave a container running, or a root-owned file.
for g in $(id -Gn 2>/dev/null); do
  case $g in docker | lxd | incus | libvirt | podman | sudo | wheel | admin | disk) refuse "$who is in the group $g (root's powers)" ;; esac
done
for s in /var/run/docker.sock /run/docker.sock /run/podman/podman.sock "${XDG_RUNTIME_DIR:-/nonexistent}/docker.sock" \
         "${XDG_RUNTIME_DIR:-/nonexistent}/podman/podman.sock"; do
  if [[ -S $s && -w $s ]]; then refuse "$who can use the container socket $s"; fi
done

# 5. This runner's own workspace: inside its own work folder, with no symbolic
#    link on the way down (an earlier job's link would point the wipe at a
#    neighbouring runner's live workspace).
plain() { [[ $1 == /?* && $1 != */ && $1 != *//* && $1/ != */./* && $1/ != */../* ]]; }
ws=${GITHUB_WORKSPACE:-}
work=${KGATE_RUNNER_WORK:-}
if [[ -z $work && ${RUNNER_WORKSPACE:-} == /*/* ]]; then work=${RUNNER_WORKSPACE%/*}; fi
if ! plain "$work" || [[ ! -d $work || $work == "$HOME" || $work == "${root:-/}" ]]; then
  refuse "the runner's work folder '$work' (KGATE_RUNNER_WORK, or RUNNER_WORKSPACE's folder) is not a folder of its own"
elif ! plain "$ws" || [[ $ws != "$work"/?* ]]; then
  refuse "GITHUB_WORKSPACE '$ws' is not inside this runner's work folder $work: not wiping it"
else
  p=$work
  IFS=/ read -r -a parts <<< "${ws#"$work"/}"
  for c in "${parts[@]}"; do
    p=$p/$c
    if [[ -L $p ]]; then
      refuse "$p is a symbolic link (to $(readlink "$p")): not wiping the workspace through it"
      break
    elif [[ -e $p && ! -d $p ]]; then
      refuse "$p is not a folder"
      break
    fi
  done
fi

if [[ $found != 0 ]]; then exit 1; fi

# 6. The wipe, .git included: the checkout starts from nothing.
if [[ -d $ws ]]; then
  find -P "$ws" -mindepth 1 -delete || { echo "::error::runner hook: cannot wipe $(clean "$ws")"; exit 1; }
fi
# The caches a build or a run reads: kgate's reference cache (docs/checks.md:
# an earlier job could have written a wrong reference with a valid MAC),
# ccache (an earlier job's object for this job's source), the CUDA JIT cache
# (~/.nv/ComputeCache: its kernels for this job's PTX), CMake's user package
# registry (its find_package answers). Each job starts without them; the
# reference-cache key goes with them, so a job never holds an earlier job's.
for d in "${XDG_CACHE_HOME:-$HOME/.cache}" "$HOME/.cache" "$HOME/.ccache" "$HOME/.nv" "$HOME/.cmake/packages" \
         "${XDG_STATE_HOME:-$HOME/.local/state}/kgate"; do
  if ! plain "$d" || [[ $d == "$HOME" || $d == "$work" || $d == "${root:-/}" ]]; then
    echo "::error::runner hook: not removing $(clean "$d") (XDG_CACHE_HOME or XDG_STATE_HOME is not a folder of its own)"
    exit 1
  fi
  rm -rf "$d" || { echo "::error::runner hook: cannot remove $(clean "$d")"; exit 1; }
done
echo "runner hook: clean runner, empty workspace $(clean "$ws"), no caches, a new reference-cache key"
