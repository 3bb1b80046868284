# Sourced by the GPU tests: skip_gpu NAME CODE FILE... prints the one line of
# a skip, "NAME: skipped: REASON", and exits 77. REASON is the first line
# kgate wrote that starts "kgate: " (a worker that cannot start is said
# first, before any progress line), else the exit code.
skip_gpu() {
  local name=$1 code=$2 why
  shift 2
  why=$(cat "$@" 2>/dev/null | grep -m1 '^kgate: ' | cut -c8-)
  echo "$name: skipped: ${why:-kgate exited $code and said no reason}"
  exit 77
}

# gpu_scratch NAME: a scratch folder $out, removed at exit, kgate's cache
# folder inside it (a run of its own: no roofline or reference of another),
# and fail MESSAGE, which prints "NAME: FAIL: MESSAGE" and exits 1.
gpu_scratch() {
  out=$(mktemp -d "/tmp/kg_$1_XXXXXX")
  trap 'rm -rf "$out"' EXIT
  eval "fail() { echo \"$1: FAIL: \$*\"; exit 1; }"
  export KGATE_CACHE_DIR=$out/cache
}
