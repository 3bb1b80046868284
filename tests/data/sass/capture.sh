#!/bin/bash
# The listings under tests/data/sass/ and what proves `kgate lint` on a GPU
# machine's toolkit (docs/lint.md). Two steps, so the compiling can run where
# nvcc is and the disassembling where cuobjdump and nvdisasm are:
#   capture.sh compile DIR          cubins of fences.cu, the fence mutants,
#                                   cub_reduce.cu and the corpus (README.md, "The
#                                   corpus"): sm_75/80/90, ptxas -O0..-O3,
#                                   -lineinfo (needs nvcc; NVCC overrides); the
#                                   seconds of each source in DIR/COMPILE_TIMES
#   capture.sh foreign DIR          cubins of the corpus of code no one here
#                                   wrote (README.md, "Code from elsewhere"):
#                                   cooperative_groups, libcu++, CUB and thrust,
#                                   the message flags, and with CUDA_SAMPLES=a
#                                   cuda-samples checkout its reduction and
#                                   threadFenceReduction (fixed) samples; sm_80
#                                   and sm_90 (FOREIGN_ARCHS), ptxas -O3, CUB and
#                                   the flags also -O0
#   capture.sh dump DIR OUT.tar [MODULE.so ...]
#                                   cuobjdump -sass and nvdisasm -c -g of every
#                                   cubin in DIR; of each module cuobjdump -sass
#                                   and its cubins through nvdisasm -c -g, and
#                                   with KGATE=path/to/kgate its lint; the
#                                   seconds of each step in TIMES; one tar
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
archs=${ARCHS:-"75 80 90"}
levels=${LEVELS:-"0 1 2 3"}

compile() { # DIR: one PTX per source and architecture, then ptxas per level
  local dir=$1 nvcc=${NVCC:-nvcc} ptxas root t lv
  root=$(cd "$here/../../.." && pwd)
  ptxas=${PTXAS:-$(dirname "$(command -v "$nvcc")")/ptxas}
  mkdir -p "$dir"
  : > "$dir/COMPILE_TIMES"
  tmp=$(mktemp -d) # PTX and relocatable units: only the cubins are kept
  trap 'rm -rf "$tmp"' EXIT
  local srcs=("$here/fences.cu" "$here/cub_reduce.cu")
  for m in "$root"/kernels/mutants/mut_fence_*.cu; do srcs+=("$m"); done
  srcs+=("$here/atomics_idioms.cu" "$here/semaphore.cu" "$here/bug_shapes.cu" "$here/cub_algos.cu")
  for s in "${srcs[@]}"; do
    local b; b=$(basename "$s" .cu)
    lv=$levels t=$(now)
    # CUB's algorithms: about 2.5 MB a cubin, so -O0 and -O3 only (CUB_LEVELS)
    [ "$b" != cub_algos ] || lv=${CUB_LEVELS:-"0 3"}
    for a in $archs; do
      "$nvcc" -std=c++17 -ptx -arch=compute_$a -lineinfo -I"$root/kernels" -I"$root/include" \
        "$s" -o "$tmp/${b}_sm$a.ptx"
      for o in $lv; do
        "$ptxas" -arch=sm_$a -O$o -lineinfo "$tmp/${b}_sm$a.ptx" -o "$dir/${b}_sm${a}_O$o.cubin"
      done
    done
    echo "$(basename "$s"): $(since "$t") s" >> "$dir/COMPILE_TIMES"
  done
  # Two units with a same-named static helper, linked into one cubin (-rdc):
  # each unit relocatable from its PTX, then nvlink.
  t=$(now)
  for a in $archs; do
    for u in split_fenced split_unfenced; do
      "$nvcc" -std=c++17 -ptx -rdc=true -arch=compute_$a -lineinfo "$here/$u.cu" -o "$tmp/${u}_sm$a.ptx"
    done
    for o in $levels; do
      for u in split_fenced split_unfenced; do
        "$ptxas" -c -arch=sm_$a -O$o -lineinfo "$tmp/${u}_sm$a.ptx" -o "$tmp/${u}_sm${a}_O$o.o"
      done
      "${NVLINK:-$(dirname "$ptxas")/nvlink}" -arch=sm_$a "$tmp/split_fenced_sm${a}_O$o.o" \
        "$tmp/split_unfenced_sm${a}_O$o.o" -o "$dir/split_sm${a}_O$o.cubin"
    done
  done
  echo "split_fenced.cu + split_unfenced.cu (-rdc, nvlink): $(since "$t") s" >> "$dir/COMPILE_TIMES"
  # -G: the fence and the atomics become calls into the toolkit's code
  "$nvcc" -std=c++17 -cubin -G -arch=sm_90 "$here/fences.cu" -o "$dir/fences_sm90_G.cubin"
}

# One source through PTX per architecture, then ptxas at each level: DIR SRC NAME LEVELS [nvcc flags...]
cubins() {
  local dir=$1 src=$2 name=$3 lv=$4 a o
  shift 4
  for a in ${FOREIGN_ARCHS:-80 90}; do
    "$nvcc" -std=c++17 -ptx -arch=compute_$a -lineinfo -I"$here" "$@" "$src" -o "$tmp/${name}_sm$a.ptx"
    for o in $lv; do
      "$ptxas" -arch=sm_$a -O$o -lineinfo "$tmp/${name}_sm$a.ptx" -o "$dir/${name}_sm${a}_O$o.cubin"
    done
  done
}

foreign() { # DIR: the corpus of code no one here wrote
  local dir=$1 t s
  nvcc=${NVCC:-nvcc}
  ptxas=${PTXAS:-$(dirname "$(command -v "$nvcc")")/ptxas}
  mkdir -p "$dir"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for s in cg_groups:3 libcu_sync:3 flags:"0 3" cub_more:"0 3"; do
    t=$(now)
    cubins "$dir" "$here/${s%%:*}.cu" "${s%%:*}" "${s#*:}"
    echo "${s%%:*}.cu: $(since "$t") s" >> "$dir/COMPILE_TIMES"
  done
  [ -n "${CUDA_SAMPLES:-}" ] || { echo "capture.sh: CUDA_SAMPLES unset: the samples are left out" >&2; return 0; }
  local c=$CUDA_SAMPLES/Samples/2_Concepts_and_Techniques
  t=$(now)
  cubins "$dir" "$c/reduction/reduction_kernel.cu" samples_reduction 3
  # threadFenceReduction as the sample has it lacks the last block's acquire
  # (semaphore.cu's bug_fence_reduction); fixed the way ok_fence_reduction is:
  # thread 0 fences once it sees it is last, the barrier passes it on.
  sed 's/^\( *\)amLast = (ticket == gridDim.x - 1);/&\n\1if (amLast) __threadfence();/' \
    "$c/threadFenceReduction/threadFenceReduction_kernel.cuh" > "$tmp/threadfence_fixed.cu"
  grep -q 'if (amLast) __threadfence();' "$tmp/threadfence_fixed.cu" || { echo "capture.sh: the threadFenceReduction fix did not apply" >&2; return 1; }
  cubins "$dir" "$tmp/threadfence_fixed.cu" samples_threadfence 3
  echo "cuda-samples ${CUDA_SAMPLES_REV:-$(git -C "$CUDA_SAMPLES" rev-parse --short HEAD 2>/dev/null || echo "?")}: $(since "$t") s" >> "$dir/COMPILE_TIMES"
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

dump() { # DIR OUT.tar MODULE.so...: every step's seconds in TIMES
  local dir=$1 tar=$2 work t m b
  shift 2
  work=$(mktemp -d)
  mkdir -p "$work/sass"
  [ ! -f "$dir/COMPILE_TIMES" ] || cp "$dir/COMPILE_TIMES" "$work/sass/"
  { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cuobjdump --version | tail -1
    nvdisasm --version | tail -1; echo "$(nproc) processors"; } > "$work/sass/TIMES" 2>&1 || true
  t=$(now) # both tools over every cubin, one per processor at a time
  find "$dir" -name '*.cubin' -print0 | W=$work/sass xargs -0 -P "$(nproc)" -I{} sh -c \
    'b=$(basename {} .cubin); cuobjdump -sass {} > "$W/$b.cuobjdump"; nvdisasm -c -g {} > "$W/$b.nvdisasm"' ||
    echo "a tool failed on a cubin (see the empty listings)" >> "$work/sass/TIMES"
  echo "cuobjdump -sass and nvdisasm -c -g of every cubin: $(since "$t") s" >> "$work/sass/TIMES"
  for m in "$@"; do
    m=$(cd "$(dirname "$m")" && pwd)/$(basename "$m") b=$(basename "$m" .so)
    t=$(now)
    cuobjdump -sass "$m" > "$work/sass/$b.cuobjdump" || echo "$b: cuobjdump -sass failed" >> "$work/sass/TIMES"
    echo "$b: cuobjdump -sass: $(since "$t") s, $(wc -c < "$work/sass/$b.cuobjdump") bytes" >> "$work/sass/TIMES"
    # the same code with source lines: its cubins, each through nvdisasm -c -g, one file per architecture
    mkdir -p "$work/x" && t=$(now)
    (cd "$work/x" && cuobjdump -xelf all "$m" > /dev/null &&
      find . -name '*.cubin' -print0 | xargs -0 -P "$(nproc)" -I{} sh -c 'nvdisasm -c -g {} > {}.sass' &&
      for c in *.sass; do a=${c##*.sm_}; cat "$c" >> "$work/sass/${b}_sm${a%%.*}.nvdisasm"; done) ||
      echo "$b: extracting or listing its cubins failed" >> "$work/sass/TIMES"
    echo "$b: cuobjdump -xelf all, nvdisasm -c -g of each cubin: $(since "$t") s" >> "$work/sass/TIMES"
    rm -rf "$work/x"
    if [ -x "${KGATE:-}" ]; then # the lint itself, end to end
      t=$(now)
      local rc=0
      "$KGATE" lint "$m" > "$work/sass/$b.lint" || rc=$?
      echo "$b: kgate lint (exit $rc): $(since "$t") s" >> "$work/sass/TIMES"
    fi
  done
  tar -C "$work" -cJf "$tar" sass
  rm -rf "$work"
}

case ${1:-} in
compile) compile "$2" ;;
foreign) foreign "$2" ;;
dump) dump "${@:2}" ;;
*) echo "usage: capture.sh compile DIR | capture.sh foreign DIR | capture.sh dump DIR OUT.tar [MODULE.so ...]" >&2; exit 2 ;;
esac
