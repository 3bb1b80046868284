#!/usr/bin/env bash
# kgate action, step 1 (action.yml): the GPU architecture and nvcc version,
# where kgate's source is and the key of its cached install, the base commit
# and the key of its cached module. Writes step outputs; runs in the team's
# checkout. Inputs arrive as KA_* environment variables, never as expressions.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"

if [[ ${KA_MODE:-gate} != bisect ]]; then
  [[ -n ${KA_BUILD:-} ]] || die "input build-command is empty"
  [[ -n ${KA_MODULE:-} ]] || die "input module is empty"
fi
git rev-parse --git-dir >/dev/null 2>&1 ||
  die "working-directory $(pwd) is not a git checkout (actions/checkout first, with fetch-depth: 0)"

# bisect: a job that can mint no token, its inputs, and a checkout with the history it walks, before
# anything is built. bisect builds a range of commits: never in the job that attests the night.
case ${KA_BISECT:-false} in
  false) ;;
  true) [[ ${KA_MODE:-gate} == bisect ]] ||
          die "input bisect: true: bisect runs in a job of its own with no id-token (mode: bisect, after the night's job; docs/modules.md)" 2 ;;
  *) die "input bisect: '$KA_BISECT' is not true or false" 2 ;;
esac
case ${KA_MODE:-gate} in
  bisect)
    for v in ACTIONS_ID_TOKEN_REQUEST_URL ACTIONS_ID_TOKEN_REQUEST_TOKEN; do
      [[ -z ${!v:-} ]] || die "mode: bisect: this job can mint an OIDC token ($v): give it permissions contents: read only (bisect builds code; a job that builds nothing attests its file)" 2
    done
    [[ -n ${KA_BISECT_BUILD:-} ]] || die "input bisect-build-command is empty (bisect builds the module at each commit)" 2
    case ${KA_BISECT_MODULE:-} in
      '' | /* | -* | ../* | */../* | *'/..') die "input bisect-module: '${KA_BISECT_MODULE:-}' must be a path in the build folder" 2 ;;
    esac
    history_inputs "${KA_HISTORY_BRANCH:-}" "${KA_HISTORY:-}" history-branch history
    [[ $(git rev-parse --is-shallow-repository) != true ]] ||
      die "mode: bisect: the checkout is shallow; bisect walks its history (actions/checkout with fetch-depth: 0)" 2 ;;
esac

work="${RUNNER_TEMP:?}/kgate-action"
rm -rf "$work/head" "$work/base" "$work/out" # a second use in one job starts clean
mkdir -p "$work/head" "$work/base" "$work/out"
out work "$work"

# --- kgate: installed, or built from a source tree (cached by its content) ---
export PATH="/usr/local/cuda/bin:$PATH"
if [[ -n ${KA_KGATE_PREFIX:-} ]]; then
  [[ -x $KA_KGATE_PREFIX/bin/kgate ]] || die "input kgate-prefix: no $KA_KGATE_PREFIX/bin/kgate"
  out prefix "$KA_KGATE_PREFIX"
else
  if [[ -n ${KA_KGATE_REF:-} ]]; then
    repo=${KA_KGATE_REPOSITORY:-${KA_ACTION_REPOSITORY:-}}
    valid_repo "$repo" || die "input kgate-repository: '$repo' is not owner/name (needed with kgate-ref)"
    valid_ref "$KA_KGATE_REF" || die "input kgate-ref: '$KA_KGATE_REF' is not a plain git ref"
    src="$work/kgate-src"
    rm -rf "$src"
    git init -q "$src"
    git -C "$src" fetch -q --depth 1 "${GITHUB_SERVER_URL:-https://github.com}/$repo" "$KA_KGATE_REF" ||
      die "cannot fetch kgate $KA_KGATE_REF from $repo"
    git -C "$src" checkout -q --detach FETCH_HEAD
  else
    src=${GITHUB_ACTION_PATH:?}
  fi
  [[ -f $src/CMakeLists.txt && -f $src/include/kgate/module.h ]] || die "$src is not a kgate source tree"
  command -v nvcc >/dev/null || die "nvcc not found (the CUDA toolkit builds kgate's worker and the modules)"
  # The content of the source, not a ref: a moved tag or a local `uses: ./` rebuilds.
  hash=$(cd "$src" && find . -type f ! -path './.git/*' ! -path './build*' -print0 | LC_ALL=C sort -z |
         xargs -0 sha256sum | sha256sum | cut -c1-16)
  out kgate-src "$src"
  out prefix "$work/prefix"
fi

arch=${KA_ARCH:-}
if [[ -z $arch ]]; then
  # The first GPU this runner may use; nvidia-smi ignores CUDA_VISIBLE_DEVICES.
  dev=${CUDA_VISIBLE_DEVICES:-0}
  dev=${dev%%,*}
  cap=$(nvidia-smi -i "$dev" --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1) || cap=
  cap=$(tr -d '[:space:]' <<< "$cap")
  [[ $cap =~ ^[0-9]+\.[0-9]+$ ]] ||
    die "cannot read the compute capability of GPU $dev (nvidia-smi said '$cap'); set input cuda-architectures"
  arch=${cap/./}
fi
[[ $arch =~ ^[0-9a-z]+(\;[0-9a-z]+)*$ ]] || die "input cuda-architectures: '$arch' is not a list such as 90 or 80;90"
cuda=$(nvcc --version 2>/dev/null | sed -n 's/.*, V\([0-9][0-9.]*\)$/\1/p') || cuda=
[[ -n $cuda ]] || cuda=none
out arch "$arch"
out cuda "$cuda"
if [[ -z ${KA_KGATE_PREFIX:-} ]]; then
  out kgate-key "kgate-install-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$hash-cuda$cuda-sm${arch//;/-}"
fi
echo "kgate: sm_$arch, nvcc $cuda"

# --- the base commit (the gate; the nightly pairs against its pinned reference) ---
case ${KA_MODE:-gate} in
  gate) ;;
  nightly | bisect)
    out paired 0
    exit 0 ;;
  *) die "input mode: '$KA_MODE' is not gate, nightly or bisect" 2 ;;
esac
nopair() {
  echo "$1; the run is not paired (correctness and timings only)"
  out paired 0
  exit 0
}
head=$(git rev-parse HEAD)
if [[ -n ${KA_BASE_REF:-} ]]; then
  valid_ref "$KA_BASE_REF" || die "input base-ref: '$KA_BASE_REF' is not a plain git ref"
  git rev-parse -q --verify "$KA_BASE_REF^{commit}" >/dev/null ||
    git fetch -q --no-tags origin "$KA_BASE_REF" 2>/dev/null || true
  base=$(git rev-parse -q --verify "$KA_BASE_REF^{commit}" 2>/dev/null ||
         git rev-parse -q --verify "origin/$KA_BASE_REF^{commit}" 2>/dev/null ||
         git rev-parse -q --verify "FETCH_HEAD^{commit}" 2>/dev/null) ||
    die "input base-ref: no commit $KA_BASE_REF in this checkout (fetch-depth: 0?)"
else
  case "${KA_EVENT:-}" in
    pull_request | pull_request_target) want="refs/remotes/origin/${KA_PR_BASE:-}" ;;
    merge_group)
      want=${KA_GROUP_BASE:-}
      git cat-file -e "$want^{commit}" 2>/dev/null || git fetch -q --no-tags origin "$want" || true ;;
    *) want="refs/remotes/origin/${KA_DEFAULT_BRANCH:-main}" ;;
  esac
  base=$(git merge-base HEAD "$want" 2>/dev/null) ||
    nopair "::warning::kgate: no merge base of HEAD and $want (a shallow checkout? use fetch-depth: 0)"
fi
[[ $base != "$head" ]] || nopair "::notice::kgate: HEAD is the base commit (nothing to pair with)"
echo "base: $base ($(git log -1 --format=%s "$base" | tr -d '\r' | head -c 100))"
# The base's module depends on its commit, the build command, the compiler,
# the architectures and kgate (headers and kgate_add_kernels' flags).
recipe=$(printf '%s\n%s\n' "${KA_BASE_BUILD:-$KA_BUILD}" "${KA_BASE_MODULE:-$KA_MODULE}" | sha256sum | cut -c1-12)
kg=${hash:-$(cd "${KA_KGATE_PREFIX:-/}" && "bin/kgate" --version 2>/dev/null | tr -cd 'A-Za-z0-9.+-' | head -c 40)}
out base-sha "$base"
out base-key "kgate-base-module-${RUNNER_OS:-Linux}-$base-$recipe-cuda$cuda-sm${arch//;/-}-kgate$kg"
out paired 1
