#!/usr/bin/env bash
# The checks of a release tag (docs/release.md), run by .github/workflows/release.yml:
#   scripts/release/version.sh TAG NOTES_FILE   (in the repository, tags fetched)
# TAG must be vX.Y.Z or vX.Y.Z-PRE (PRE: letters, digits, dots); X.Y.Z must be
# project(kgate VERSION X.Y.Z) in CMakeLists.txt and have its section
# "## [X.Y.Z]" in CHANGELOG.md, which is written to NOTES_FILE (the release
# notes). Prints, for $GITHUB_OUTPUT: version=X.Y.Z, major=vX,
# prerelease=true|false, and move-major=true when the major tag should point
# here: a final release that is the highest vX.*.* tag (a fix to an older
# minor line must not take v1 back). Exit 1, with one line on stderr, on a
# breach; 2 on a usage error.
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: version.sh TAG NOTES_FILE" >&2; exit 2; }
tag=$1 notes=$2
die() { echo "release: $*" >&2; exit 1; }
[[ $tag =~ ^v(([0-9]+)\.[0-9]+\.[0-9]+)(-[0-9A-Za-z.]+)?$ ]] ||
  die "tag '$tag' is not vX.Y.Z or vX.Y.Z-PRE"
version=${BASH_REMATCH[1]} major=v${BASH_REMATCH[2]} pre=${BASH_REMATCH[3]}
[[ ! $version =~ (^|\.)0[0-9] ]] || die "tag '$tag': no leading zeros in X.Y.Z"
cmake=$(sed -nE 's/^project\(kgate VERSION ([0-9.]+) .*/\1/p' CMakeLists.txt)
[[ $cmake == "$version" ]] || die "tag '$tag' but CMakeLists.txt says project(kgate VERSION ${cmake:-?}): bump it first"
# The section: from its heading to the next "## " heading.
awk -v v="$version" '
  /^## / { on = (index($0, "## [" v "]") == 1) }
  on && !/^## / { print }
' CHANGELOG.md > "$notes"
grep -q '[^[:space:]]' "$notes" || die "CHANGELOG.md has no section '## [$version]' with notes"
move=false
if [[ -z $pre ]]; then
  # The highest final vX.*.* tag; this one counts even before it is fetched.
  top=$({ git tag -l "$major.*.*"; echo "$tag"; } | grep -E "^$major\.[0-9]+\.[0-9]+$" | sort -V | tail -1)
  [[ $top == "$tag" ]] && move=true
fi
echo "version=$version"
echo "major=$major"
echo "prerelease=$([[ -n $pre ]] && echo true || echo false)"
echo "move-major=$move"
