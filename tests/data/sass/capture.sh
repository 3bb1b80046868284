#!/bin/bash
# The listings under tests/data/sass/ and what proves `kgate lint` on a GPU
# machine's toolkit (docs/lint.md). Two steps, so the compiling can run where
# nvcc is and the disassembling where cuobjdump and nvdisasm are:
#   capture.sh compile DIR          cubins of fences.cu, the fence mutants and
#                                   cub_reduce.cu: sm_75/80/90, ptxas -O0..-O3,
#                                   -lineinfo (needs nvcc; NVCC overrides)
#   capture.sh dump DIR OUT.tar [MODULE.so ...]
#                                   cuobjdump -sass and nvdisasm -c -g of every
#                                   cubin in DIR, cuobjdump -sass of each module
#                                   and the seconds it took, into one tar
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
archs=${ARCHS:-"75 80 90"}
levels=${LEVELS:-"0 1 2 3"}

compile() { # DIR: one PTX per source and architecture, then ptxas per level
  local dir=$1 nvcc=${NVCC:-nvcc} ptxas root
  root=$(cd "$here/../../.." && pwd)
  ptxas=${PTXAS:-$(dirname "$(command -v "$nvcc")")/ptxas}
  mkdir -p "$dir"
  local srcs=("$here/fences.cu" "$here/cub_reduce.cu")
  for m in "$root"/kernels/mutants/mut_fence_*.cu; do srcs+=("$m"); done
  for a in $archs; do
    for s in "${srcs[@]}"; do
      local b; b=$(basename "$s" .cu)
      "$nvcc" -std=c++17 -ptx -arch=compute_$a -lineinfo -I"$root/kernels" -I"$root/include" \
        "$s" -o "$dir/${b}_sm$a.ptx"
      for o in $levels; do
        "$ptxas" -arch=sm_$a -O$o -lineinfo "$dir/${b}_sm$a.ptx" -o "$dir/${b}_sm${a}_O$o.cubin"
      done
    done
  done
  # -G: the fence and the atomics become calls into the toolkit's code
  "$nvcc" -std=c++17 -cubin -G -arch=sm_90 "$here/fences.cu" -o "$dir/fences_sm90_G.cubin"
}

dump() { # DIR OUT.tar MODULE.so...
  local dir=$1 tar=$2 work
  shift 2
  work=$(mktemp -d)
  mkdir -p "$work/sass"
  for c in "$dir"/*.cubin; do
    local b; b=$(basename "$c" .cubin)
    cuobjdump -sass "$c" > "$work/sass/$b.cuobjdump"
    nvdisasm -c -g "$c" > "$work/sass/$b.nvdisasm"
  done
  for m in "$@"; do
    local b t0 t1; b=$(basename "$m" .so)
    t0=$(date +%s.%N)
    cuobjdump -sass "$m" > "$work/sass/$b.cuobjdump"
    t1=$(date +%s.%N)
    echo "$b cuobjdump -sass: $(echo "$t1 - $t0" | bc) s, $(wc -c < "$work/sass/$b.cuobjdump") bytes" >> "$work/sass/TIMES"
    # the same code with source lines: its cubins, each through nvdisasm -c -g
    mkdir -p "$work/x" && t0=$(date +%s.%N)
    (cd "$work/x" && cuobjdump -xelf all "$m" > /dev/null && for c in *.cubin; do nvdisasm -c -g "$c"; done) \
      > "$work/sass/$b.nvdisasm"
    t1=$(date +%s.%N) && rm -rf "$work/x"
    echo "$b cuobjdump -xelf all + nvdisasm -c -g: $(echo "$t1 - $t0" | bc) s" >> "$work/sass/TIMES"
  done
  { cuobjdump --version; nvdisasm --version; } > "$work/sass/TOOLKIT" 2>&1 || true
  tar -C "$work" -cJf "$tar" sass
  rm -rf "$work"
}

case ${1:-} in
compile) compile "$2" ;;
dump) dump "${@:2}" ;;
*) echo "usage: capture.sh compile DIR | capture.sh dump DIR OUT.tar [MODULE.so ...]" >&2; exit 2 ;;
esac
