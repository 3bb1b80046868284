#!/usr/bin/env bash
# The planted range for kgate bisect (docs/bisect.md): a git repository of a
# team's two-variant module (examples/external-kernels: team_warp_sum and
# team_block_max), 32 commits, oldest first:
#   commit 0          the example, with the nightly's planted slowdown in its
#                     source but off (tests/data/nightly/team-live.sh's patch:
#                     code under #ifdef TEAM_SLOW_PER_MILLE, and the CMake lines
#                     that pass -DTEAM_SLOW_PER_MILLE=K on)
#   commit COMMENT    a comment in team_warp_sum.cu, nothing else
#   commit OTHER      team_block_max's kernel changed (#pragma unroll 4 on its
#                     loop): another variant's machine code
#   commit SLOW       #define TEAM_SLOW_PER_MILLE 5 in team_warp_sum.cu: its
#                     first launch streams 0.5 % more bytes (the culprit)
#   every other one   a line of NOTES.md, outside the module
#
#   make-range.sh DIR [SLOW COMMENT OTHER]   (defaults 19 7 13; each 1..31, distinct)
#
# Writes DIR/repo and DIR/range.env (shell assignments: GOOD, BAD, SLOW_ID,
# COMMENT_ID, OTHER_ID, and BUILD, the build command for kgate bisect --build,
# which builds the module with this checkout's kgate, Release, sm_90 SASS
# only, through ccache when there is one). Needs git; the build needs nvcc and cmake.
set -euo pipefail
die() { echo "make-range: $*" >&2; exit 2; }
[[ $# == 1 || $# == 4 ]] || die "usage: make-range.sh DIR [SLOW COMMENT OTHER]"
dir=$1 slow=${2:-19} comment=${3:-7} other=${4:-13}
for v in "$slow" "$comment" "$other"; do
  if [[ ! $v =~ ^[0-9]+$ ]] || ((v < 1 || v > 31)); then die "'$v' is not 1..31"; fi
done
((slow != comment && slow != other && comment != other)) || die "SLOW, COMMENT and OTHER must differ"
root=$(cd "$(dirname "$0")/../../.." && pwd)
ex=$root/examples/external-kernels
live=$root/tests/data/nightly/team-live.sh
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
repo=$dir/repo
rm -rf "$repo"
mkdir -p "$repo"
cp -r "$ex/src" "$ex/CMakeLists.txt" "$ex/variants.def" "$repo/"
bash "$live" --slow-patch | patch -s -p1 -d "$repo" --no-backup-if-mismatch || die "the slowdown patch does not apply"
bash "$live" --slow-cmake >> "$repo/CMakeLists.txt"
cd "$repo"
git init -q . && git config user.email bisect@kgate.invalid && git config user.name "kgate bisect range"
echo "# notes" > NOTES.md
git add -A && git commit -qm "range: the team's module" && ids=("$(git rev-parse HEAD)")
for k in $(seq 1 31); do
  if ((k == comment)); then
    sed -i 's|^#include "team_common.cuh"|// (a comment only: no code changes here)\n&|' src/team_warp_sum.cu
    msg="team_warp_sum: a comment"
  elif ((k == other)); then
    sed -i '0,/^  for (size_t i = (size_t)blockIdx.x \* kBlock/s||#pragma unroll 4\n&|' src/team_block_max.cu
    grep -q '^#pragma unroll 4$' src/team_block_max.cu || die "team_block_max.cu: no loop to unroll"
    msg="team_block_max: unroll its loop by 4"
  elif ((k == slow)); then
    sed -i 's|^#include "team_common.cuh"|#define TEAM_SLOW_PER_MILLE 5\n&|' src/team_warp_sum.cu
    msg="team_warp_sum: read 0.5 % more bytes"
  else
    echo "- note $k" >> NOTES.md
    msg="notes: $k"
  fi
  git add -A && git commit -qm "$msg"
  ids+=("$(git rev-parse HEAD)")
done
[[ $(git diff "${ids[$((slow - 1))]}" "${ids[$slow]}" -- src | grep -c '^+#define TEAM_SLOW_PER_MILLE 5') == 1 ]] ||
  die "the slow commit does not define TEAM_SLOW_PER_MILLE"
launcher=
command -v ccache > /dev/null && launcher="-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
{
  printf 'GOOD=%s\nBAD=%s\nSLOW_ID=%s\nCOMMENT_ID=%s\nOTHER_ID=%s\n' "${ids[0]}" "${ids[31]}" "${ids[$slow]}" \
    "${ids[$comment]}" "${ids[$other]}"
  # The build for kgate bisect --build: run by sh in the worktree, the build folder in $KGATE_BISECT_BUILD.
  printf "BUILD='cmake -S . -B \"\$KGATE_BISECT_BUILD\" -DFETCHCONTENT_SOURCE_DIR_KGATE=%s -DFETCHCONTENT_TRY_FIND_PACKAGE_MODE=NEVER -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real -DBUILD_TESTING=OFF -DKGATE_MODULE_ONLY=ON %s && cmake --build \"\$KGATE_BISECT_BUILD\" --target team_kernels -j\"\$(nproc)\"'\n" \
    "$root" "$launcher"
} > "$dir/range.env"
echo "make-range: $dir/repo: 32 commits, the culprit ${ids[$slow]:0:12} (commit $slow), a comment at $comment, team_block_max at $other"
