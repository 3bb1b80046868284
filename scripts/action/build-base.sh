#!/usr/bin/env bash
# kgate action: the base's module, built in a git worktree of KA_BASE_SHA with
# the same command as the head's. A base that does not build (say it predates
# the team's module) or whose module kgate refuses (another module ABI) is a
# warning and an unpaired run, not a failure. Output ok=1: a module to cache.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
# working-directory may be a folder inside the checkout: the same folder of the worktree
sub=$(git rev-parse --show-prefix)
src="${RUNNER_TEMP:?}/kgate-action/base-src"
rm -f "${KA_OUT:?}"
git worktree prune # a self-hosted runner keeps .git between jobs; runner.temp is not kept
if [[ -d $src ]]; then git worktree remove --force "$src" 2>/dev/null || rm -rf "$src"; fi
git worktree add -q --detach "$src" "${KA_BASE_SHA:?}" || die "cannot check out the base ${KA_BASE_SHA:0:12}"
cleanup() {
  git worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
  git worktree prune
}
trap cleanup EXIT
# The worktree has no submodules yet: bring them in when the checkout has any.
if [[ -f $src/.gitmodules ]]; then git -C "$src" submodule update -q --init --recursive || true; fi
if ! (cd "$src/$sub" && "$here/build-module.sh" base 1); then
  rm -f "$KA_OUT"
  echo "::warning::kgate action: the base ${KA_BASE_SHA:0:12} did not build a module; the run is not paired"
  exit 0
fi
# kgate refuses a module of another ABI in one line, without touching a GPU.
if ! said=$("${KA_PREFIX:?}/bin/kgate" list --kernels "$KA_OUT" 2>&1 >/dev/null); then
  rm -f "$KA_OUT"
  said=${said//%/%25}
  echo "::warning::kgate action: kgate refuses the base's module (${said//$'\n'/ }); the run is not paired"
  exit 0
fi
out ok 1
