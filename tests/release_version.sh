#!/usr/bin/env bash
# scripts/release/version.sh in a scratch repository: the tag against
# CMakeLists.txt and CHANGELOG.md, the notes it extracts, and when the major
# tag moves (not for a prerelease, not back to an older minor line).
# usage: release_version.sh SOURCE_DIR
set -u
script=$1/scripts/release/version.sh
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
cd "$t" && git init -q . && git config user.email t@example.com && git config user.name t
fail=0
check() { # NAME WANT_CODE WANT_OUTPUT_SUBSTRING TAG
  local out code
  out=$(bash "$script" "$4" notes.md 2>&1) && code=0 || code=$?
  if [[ $code != "$2" || $out != *"$3"* ]]; then
    echo "FAIL $1: exit $code, wanted $2 with '$3':"; echo "$out"; fail=1
  else
    echo "ok $1"
  fi
}
printf 'cmake_minimum_required(VERSION 3.22)\nproject(kgate VERSION 1.2.0 LANGUAGES C)\n' > CMakeLists.txt
printf '# Changelog\n\n## [Unreleased]\n\n- next\n\n## [1.2.0] - 2026-11-25\n\n- the nightly mode\n\n## [1.1.0] - 2026-11-01\n\n- older\n' > CHANGELOG.md
git add . && git commit -qm base
check "final release moves v1" 0 $'prerelease=false\nmove-major=true' v1.2.0
[[ $(cat notes.md) == $'\n- the nightly mode' ]] || { echo "FAIL notes: '$(cat notes.md)'"; fail=1; }
check "prerelease keeps v1" 0 $'major=v1\nprerelease=true\nmove-major=false' v1.2.0-rc.1
git tag v1.3.0
check "older minor line keeps v1" 0 "move-major=false" v1.2.0
git tag -d v1.3.0 >/dev/null
git tag v1.10.0
check "1.10 sorts above 1.2" 0 "move-major=false" v1.2.0
git tag -d v1.10.0 >/dev/null
check "version differs from CMakeLists.txt" 1 "CMakeLists.txt says project(kgate VERSION 1.2.0)" v1.2.1
check "not a version tag" 1 "is not vX.Y.Z" v1.2
check "leading zero" 1 "no leading zeros" v1.02.0
sed -i 's/VERSION 1.2.0/VERSION 1.3.0/' CMakeLists.txt
check "no changelog section" 1 "no section '## [1.3.0]'" v1.3.0
out=$(bash "$script" 2>&1) && code=0 || code=$?
[[ $code == 2 ]] || { echo "FAIL usage: exit $code"; fail=1; }
exit $fail
