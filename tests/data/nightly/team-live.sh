#!/usr/bin/env bash
# A team's nightly, live on a GPU machine: a one-variant team module (the
# example's team_warp_sum, examples/external-kernels) against its pinned
# reference. Nights 1-4 are A/A (tonight's module is a copy of the
# reference), nights 5-7 a build whose variant streams 0.5 % more bytes.
# Each night also runs its control, the reference against a copy of itself
# (`--kernels CTL.so --base-kernels REF.so`, as the action's nightly mode runs
# a team's), and is added to a history with `history add --control`; then
# `history check`. A second history holds the same nights, but the control of
# nights 5-7 is the slow build against the reference: a control that moved.
# The want: the first history fails (exit 4, a regression) by night 6, the
# second slow night, and none before night 5; the second, after night 7,
# holds an environment finding and no open regression (exit 0).
#
#   team-live.sh --build TEAMDIR [KGATE]
#       Here, no GPU needed (nvcc, cmake, kgate's build dependencies): builds
#       TEAMDIR/ref.so (the example's team_warp_sum alone, this checkout's
#       kgate through FetchContent, Release, sm_90 SASS only), slow.so (the same
#       with TEAM_SLOW_PER_MILLE=5: the patch below) and pins.json (the
#       reference pinned as `team`), then deletes its build folders. With
#       KGATE: checks the pin (`reference verify`) and lists both modules.
#   team-live.sh KGATE TEAMDIR OUTDIR [BUDGET_S]
#       On the GPU machine: the seven nights, everything under OUTDIR (results,
#       logs, both histories, each night's `history check`), a line per night
#       and PASS or FAIL (exit 0 or 1; 2 for bad arguments, 3 when a run cannot
#       run). BUDGET_S (default 330): a night's moved control is its own run
#       while the runs left fit in it, else the slow night's own results (the
#       same pairing: the slow build against the reference), and the line says so.
#
# Dates: `history add` takes a night's date from its results file (`run.date`,
# the UTC second the run was made) and the history holds nights oldest first,
# no two with one date. The nights here run one after another, each `kgate
# run` many seconds, so each has its own later date; the script checks it.
set -uo pipefail

usage() {
  sed -n '15,28p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "team-live: $*" >&2; exit "${2:-2}"; }

# ---- the build (here) -------------------------------------------------------------------

# The planted slowdown, as kgate's selftest plants one (kernels/mutants/mut_slow.cuh).
slow_patch() {
  cat <<'EOF'
--- a/src/team_warp_sum.cu
+++ b/src/team_warp_sum.cu
@@ -5,6 +5,11 @@
 // the same kernel, one block, folds the partials, so the result is made on
 // the device in a fixed order (deterministic, no atomics). Integer sums wrap
 // (two's complement), as kgate's reference does (kgate::add).
+//
+// Built with TEAM_SLOW_PER_MILLE=K (kgate's tests/data/nightly/team-live.sh):
+// a planted slowdown. The first launch also streams K/1000 of the input's
+// bytes more, from a region of scratch that nothing else reads (as kgate's
+// selftest slowdown, kernels/mutants/mut_slow.cuh); the result is unchanged.
 #include "team_common.cuh"
 
 namespace {
@@ -18,12 +23,35 @@
   return v;
 }
 
-template <typename T, typename A> __global__ void __launch_bounds__(kBlock) sum_kernel(const T *in, A *out, size_t n) {
+#ifdef TEAM_SLOW_PER_MILLE
+// The extra 16-byte words for n elements of `elem` bytes.
+inline size_t slow_words(size_t n, size_t elem) { return n * elem * TEAM_SLOW_PER_MILLE / 1000 / 16; }
+inline size_t elem_bytes(int dtype) {
+  return dtype == KG_I64 || dtype == KG_F64 ? 8 : dtype == KG_F16 || dtype == KG_BF16 ? 2 : 4;
+}
+// Scratch: the partials (team::scratch's, rounded up to 16 bytes), a trash word, then the extra region.
+inline size_t slow_partials(size_t n, size_t acc) {
+  size_t g = team::grid_for(n);
+  return ((g > 1 ? g * acc : 0) + 15) & ~(size_t)15;
+}
+inline size_t slow_scratch(int dtype, size_t n) {
+  return slow_partials(n, kgate::acc_size(dtype)) + 16 + 16 * slow_words(n, elem_bytes(dtype));
+}
+#endif
+
+template <typename T, typename A>
+__global__ void __launch_bounds__(kBlock)
+    sum_kernel(const T *in, A *out, size_t n, const uint4 *extra = nullptr, size_t nextra = 0, unsigned *trash = nullptr) {
   __shared__ A warps[kBlock / 32];
   unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
   A v = A(0);
   for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < n; i += (size_t)kBlock * gridDim.x)
     v = kgate::add(v, kgate::to_acc<A>(in[i]));
+  // The planted bytes: loaded, and stored only when they hash to a value they never do.
+  unsigned x = 0;
+  for (size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x; i < nextra; i += (size_t)kBlock * gridDim.x)
+    x ^= extra[i].x ^ extra[i].w;
+  if (nextra && x == 0x9e3779b9u) *trash = x;
   v = warp_sum(v);
   if (lane == 0) warps[warp] = v;
   __syncthreads();
@@ -36,7 +64,15 @@
 template <typename T> int launch(const T *in, size_t n, void *out, void *scratch, cudaStream_t st) {
   using A = kgate::acc_t<T>;
   size_t g = team::grid_for(n);
+#ifdef TEAM_SLOW_PER_MILLE
+  char *base = (char *)scratch;
+  size_t part = slow_partials(n, sizeof(A));
+  sum_kernel<T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? (A *)out : (A *)scratch, n,
+                                                   (const uint4 *)(base + part + 16), slow_words(n, sizeof(T)),
+                                                   (unsigned *)(base + part));
+#else
   sum_kernel<T, A><<<(unsigned)g, kBlock, 0, st>>>(in, g == 1 ? (A *)out : (A *)scratch, n);
+#endif
   cudaError_t e = cudaGetLastError();
   if (e != cudaSuccess || g == 1) return (int)e;
   sum_kernel<A, A><<<1, kBlock, 0, st>>>((const A *)scratch, (A *)out, g);
@@ -45,4 +81,8 @@
 
 }  // namespace
 
+#ifdef TEAM_SLOW_PER_MILLE
+KGATE_DEFINE_VARIANT(team_warp_sum, launch, slow_scratch, team::depth)
+#else
 KGATE_DEFINE_VARIANT(team_warp_sum, launch, team::scratch, team::depth)
+#endif
EOF
}

# The CMake lines that pass -DTEAM_SLOW_PER_MILLE=K on to the compiler.
slow_cmake() {
  cat <<'EOF'

# The nightly's planted slowdown (kgate's tests/data/nightly/team-live.sh): the
# first launch of team_warp_sum streams TEAM_SLOW_PER_MILLE/1000 more bytes.
if(DEFINED TEAM_SLOW_PER_MILLE)
  target_compile_definitions(team_kernels PRIVATE TEAM_SLOW_PER_MILLE=${TEAM_SLOW_PER_MILLE})
endif()
EOF
}

# The example as a one-variant project in DIR: its CMakeLists.txt with
# team_warp_sum's source alone, its registry line alone, no tests (its own
# check_module expects both variants).
one_variant() { # EXAMPLE DIR
  local ex=$1 dir=$2
  rm -rf "$dir"
  mkdir -p "$dir/src"
  cp "$ex/src/team_warp_sum.cu" "$ex/src/team_common.cuh" "$dir/src/"
  sed 's|SOURCES src/team_warp_sum.cu src/team_block_max.cu|SOURCES src/team_warp_sum.cu|' \
    "$ex/CMakeLists.txt" > "$dir/CMakeLists.txt"
  grep -q 'SOURCES src/team_warp_sum.cu$' "$dir/CMakeLists.txt" ||
    die "$ex/CMakeLists.txt: no 'SOURCES src/team_warp_sum.cu src/team_block_max.cu' line to cut"
  {
    echo '/* The example'"'"'s registry, team_warp_sum alone (kgate'"'"'s tests/data/nightly/team-live.sh). */'
    sed -n '/^KGATE_VARIANT(team_warp_sum,/,/)$/p' "$ex/variants.def"
  } > "$dir/variants.def"
  [[ $(grep -c '^KGATE_VARIANT(' "$dir/variants.def") == 1 ]] || die "$ex/variants.def: no team_warp_sum line"
}

build() { # TEAMDIR [KGATE]
  local dir=$1 kgate=${2:-} root ex k
  command -v nvcc > /dev/null || export PATH="/usr/local/cuda/bin:$PATH"
  command -v nvcc > /dev/null || die "--build: no nvcc on PATH or in /usr/local/cuda/bin"
  root=$(cd "$(dirname "$0")/../../.." && pwd)
  ex=$root/examples/external-kernels
  [[ -f $ex/CMakeLists.txt ]] || die "--build: no $ex/CMakeLists.txt"
  mkdir -p "$dir" || die "--build: cannot make $dir"
  dir=$(cd "$dir" && pwd)
  one_variant "$ex" "$dir/src-ref"
  one_variant "$ex" "$dir/src-slow"
  slow_patch | patch -s -p1 -d "$dir/src-slow" --no-backup-if-mismatch || die "--build: the slowdown patch does not apply"
  slow_cmake >> "$dir/src-slow/CMakeLists.txt"
  slow_patch > "$dir/slow.diff"
  for k in ref slow; do
    local extra=()
    [[ $k == slow ]] && extra=(-DTEAM_SLOW_PER_MILLE=5)
    # kgate from this checkout (no network), only the module built: kgate_add_kernels needs kgate's headers and
    # CMake files, not kgate itself. Native sm_90 code only, as a pinned reference is built (docs/nightly.md).
    cmake -S "$dir/src-$k" -B "$dir/build/$k" -DFETCHCONTENT_SOURCE_DIR_KGATE="$root" \
      -DFETCHCONTENT_TRY_FIND_PACKAGE_MODE=NEVER -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
      -DBUILD_TESTING=OFF "${extra[@]}" > "$dir/build-$k.log" 2>&1 || die "--build: cmake ($k): see $dir/build-$k.log"
    nice cmake --build "$dir/build/$k" --target team_kernels -j2 --verbose >> "$dir/build-$k.log" 2>&1 ||
      die "--build: the $k module: see $dir/build-$k.log"
  done
  # The planted definition reached nvcc in the slow build, and only there.
  grep -q -- '-DTEAM_SLOW_PER_MILLE=5 ' "$dir/build-slow.log" || die "--build: the slow build was not compiled slow"
  ! grep -q -- '-DTEAM_SLOW_PER_MILLE' "$dir/build-ref.log" || die "--build: the reference was compiled slow"
  cp "$dir/build/ref/libteam_kernels.so" "$dir/ref.so"
  cp "$dir/build/slow/libteam_kernels.so" "$dir/slow.so"
  # The pin, as the example's README writes one (module `team`: NAME of kgate_add_kernels).
  local sha commit nvccv
  sha=$(sha256sum "$dir/ref.so" | cut -d' ' -f1)
  commit=$(git -C "$root" rev-parse --short=12 HEAD)
  nvccv=$(nvcc --version | sed -n 's/.*, V//p')
  printf '{"kind":"kgate-reference-pins","schema_version":1,"pins":[{"module":"team","sha256":"%s","commit":"%s","nvcc":"%s","architectures":"90-real","pinned":"%s"}]}\n' \
    "$sha" "$commit" "$nvccv" "$(date -u +%F)" > "$dir/pins.json"
  {
    echo "team-live.sh --build at $commit$(git -C "$root" diff --quiet HEAD -- examples include cmake || echo ' (with changes)'), $(date -u +%FT%TZ), nvcc $nvccv"
    sha256sum "$dir/ref.so" "$dir/slow.so" | sed "s|$dir/||"
  } > "$dir/MANIFEST"
  rm -rf "$dir/build"
  if [[ -n $kgate ]]; then
    "$kgate" reference verify "$dir/pins.json" "$dir/ref.so" || die "--build: reference verify failed"
    "$kgate" list --kernels "$dir/ref.so" | grep team_ || die "--build: kgate list --kernels ref.so"
    "$kgate" list --kernels "$dir/slow.so" | grep team_ || die "--build: kgate list --kernels slow.so"
  fi
  echo "team-live: built $dir: ref.so, slow.so, pins.json ($(du -sh "$dir" | cut -f1) in all)"
}

# ---- the nights (on the GPU machine) ---------------------------------------------------

# "lo..hi %" of the paired cells' ratios at size N in a results file (its cells are
# compact JSON, in kgate's key order); "-" when it holds none.
spread() { # FILE N
  grep -oE "\"n\":$2,\"verdict\":\"[A-Z_]*\",\"ratio\":[-0-9.eE+]+" "$1" 2> /dev/null |
    sed 's/.*"ratio"://' |
    awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $1 > hi { hi = $1 }
         END { if (NR) printf "%+.2f..%+.2f %%", 100 * (lo - 1), 100 * (hi - 1); else printf "-" }'
}
run_date() { grep -oE '"date":"[0-9T:Z-]+"' "$1" 2> /dev/null | head -1 | cut -d'"' -f4; }
# Each finding of a `history check` output: its first line (cut at 120 characters) and its cells.
findings() {
  awk 'function put() { if (h != "") out = out (out == "" ? "" : "; ") h " [" c " cells]"; h = "" }
       /^kgate: (regression|environment|health|improvement)/ {
         put(); h = substr($0, 8); if (length(h) > 120) h = substr(h, 1, 117) "..."; c = 0; next }
       /^  / { c++; next }
       { put() }
       END { put(); print out == "" ? "no finding" : out }' "$1"
}

nights() { # KGATE TEAMDIR OUTDIR BUDGET_S
  local kgate=$1 team=$2 out=$3 budget=$4
  local ref=$team/ref.so slow=$team/slow.so pins=$team/pins.json
  local f
  for f in "$ref" "$slow" "$pins"; do
    [[ -f $f ]] || die "no $f (make TEAMDIR with: $0 --build TEAMDIR)"
  done
  mkdir -p "$out" || die "cannot make $out"
  [[ -z $(ls -A "$out") ]] || die "$out is not empty: each live run starts its histories afresh"
  # Nothing of the GPU first: the pin, and both modules loadable by this kgate.
  "$kgate" reference verify "$pins" "$ref" > "$out/verify.log" 2>&1 || die "reference verify: $(cat "$out/verify.log")"
  for f in "$ref" "$slow"; do
    "$kgate" list --kernels "$f" > "$out/list-${f##*/}.log" 2>&1 || die "kgate list --kernels $f: $(tail -3 "$out/list-${f##*/}.log")"
    grep -q team_warp_sum "$out/list-${f##*/}.log" || die "$f has no variant team_warp_sum"
  done
  "$kgate" --version > "$out/kgate-version.txt" 2>&1
  cp "$team/MANIFEST" "$out/" 2> /dev/null
  nvidia-smi --query-gpu=name,uuid,pci.bus_id,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv \
    > "$out/card.csv" 2>&1

  # Second loads at other paths: tonight's A/A module, the control's, the moved control's.
  local mods
  mods=$(mktemp -d) || die "mktemp"
  # shellcheck disable=SC2064 # the folder is known now
  trap "rm -rf '$mods'" EXIT
  mkdir "$mods/aa" "$mods/ctl" "$mods/mctl"
  cp "$ref" "$mods/aa/libteam_kernels.so"
  cp "$ref" "$mods/ctl/libteam_kernels.so"
  cp "$slow" "$mods/mctl/libteam_kernels.so"

  local common=(run --sizes 1 --rounds 16 --variant team_warp_sum --reference "$pins" --base-kernels "$ref" --quiet)
  # kgate's lint reads the modules with cuobjdump and fails a run without it (exit 3); a machine
  # with no cuobjdump still shows the detector, without the lint.
  if ! command -v cuobjdump > /dev/null && [[ ! -x ${CUDA_HOME:-/nonexistent}/bin/cuobjdump ]] &&
    [[ ! -x /usr/local/cuda/bin/cuobjdump ]]; then
    common+=(--lint off)
    echo "team-live: no cuobjdump on this machine: the runs go with --lint off"
  fi
  local t0=$SECONDS runs=0 i kind mod rc code hrc mrc moved prev="" d
  local -a want_fail=() hist_rc=() moved_rc=()
  # One kgate run: exit 0 or 4 (a cell SLOWER tonight: the detector judges the series) go on.
  kgrun() { # NAME MODULE
    "$kgate" "${common[@]}" --kernels "$2" --json "$out/$1.json" > "$out/$1.log" 2>&1
    code=$?
    runs=$((runs + 1))
    if [[ $code != 0 && $code != 4 ]]; then
      echo "team-live: $1: kgate run exit $code:" >&2
      tail -5 "$out/$1.log" >&2
      echo "FAIL: $1 did not run (exit $code)"
      exit 3
    fi
  }
  for i in 1 2 3 4 5 6 7; do
    kind=aa mod=$mods/aa/libteam_kernels.so
    ((i > 4)) && kind=slow mod=$slow
    kgrun "night-$i" "$mod"
    rc=$code
    d=$(run_date "$out/night-$i.json")
    [[ -n $d && ( -z $prev || $d > $prev ) ]] || die "night $i is dated '$d', not after night $((i - 1)) ($prev)" 3
    prev=$d
    kgrun "control-$i" "$mods/ctl/libteam_kernels.so"
    moved=control-$i
    if [[ $kind == slow ]]; then
      # The runs still to come after this one: this night's checks, the later nights' three each.
      local left=$(( (7 - i) * 3 + 1 )) avg=$(( (SECONDS - t0) / runs ))
      if (( SECONDS - t0 + left * avg <= budget )); then
        kgrun "moved-$i" "$mods/mctl/libteam_kernels.so"
        moved=moved-$i
      else
        moved=night-$i
        echo "night $i: the moved control is the slow night's own results (budget: $((SECONDS - t0)) s of $budget used)"
      fi
    fi
    "$kgate" history add "$out/night-$i.json" --control "$out/control-$i.json" --file "$out/history.jsonl" \
      > "$out/add-$i.log" 2>&1 || die "history add, night $i: $(cat "$out/add-$i.log")" 3
    "$kgate" history add "$out/night-$i.json" --control "$out/$moved.json" --file "$out/history-moved.jsonl" \
      > "$out/add-moved-$i.log" 2>&1 || die "history add (moved control), night $i: $(cat "$out/add-moved-$i.log")" 3
    "$kgate" history check "$out/history.jsonl" > "$out/check-$i.txt" 2>&1
    hrc=$?
    "$kgate" history check "$out/history-moved.jsonl" > "$out/check-moved-$i.txt" 2>&1
    mrc=$?
    hist_rc[i]=$hrc moved_rc[i]=$mrc
    printf 'night %d (%s, %s, %s s): run exit %d, ratios %s @2^25, %s @2^22; control %s @2^25, %s @2^22' \
      "$i" "$kind" "$d" "$((SECONDS - t0))" "$rc" "$(spread "$out/night-$i.json" 33554432)" \
      "$(spread "$out/night-$i.json" 4194304)" "$(spread "$out/control-$i.json" 33554432)" \
      "$(spread "$out/control-$i.json" 4194304)"
    [[ $moved == moved-$i ]] && printf ', moved control %s @2^25, %s @2^22' "$(spread "$out/$moved.json" 33554432)" \
      "$(spread "$out/$moved.json" 4194304)"
    printf '\n  history check: exit %d: %s\n  with the moved control: exit %d: %s\n' \
      "$hrc" "$(findings "$out/check-$i.txt")" "$mrc" "$(findings "$out/check-moved-$i.txt")"
  done

  # The want, night by night.
  local ok=1 first=""
  for i in 1 2 3 4 5 6 7; do
    [[ -z $first && ${hist_rc[i]} == 4 ]] && first=$i
    [[ ${hist_rc[i]} == 0 || ${hist_rc[i]} == 4 ]] || want_fail+=("history check exit ${hist_rc[i]} on night $i")
  done
  if [[ -z $first ]]; then
    want_fail+=("no regression by night 7")
  elif ((first < 5)); then
    want_fail+=("a regression on A/A night $first")
  elif ((first > 6)); then
    want_fail+=("the regression came on night $first, the third slow night, not by the second")
  fi
  grep -qE '^kgate: regression \(open\)' "$out/check-7.txt" || want_fail+=("night 7: no open regression finding")
  [[ ${moved_rc[7]} == 0 ]] || want_fail+=("moved control, night 7: history check exit ${moved_rc[7]}, not 0")
  grep -qE '^kgate: environment' "$out/check-moved-7.txt" || want_fail+=("moved control, night 7: no environment finding")
  [[ ${#want_fail[@]} == 0 ]] || ok=0
  echo "team-live: $runs runs in $((SECONDS - t0)) s; results, logs and both histories in $out"
  echo "--- history check after night 7:"
  cat "$out/check-7.txt"
  echo "--- with the moved control:"
  cat "$out/check-moved-7.txt"
  if ((ok)); then
    echo "PASS: regression from night $first (slow night $((first - 4))), exit 4; with the moved control: environment, exit 0"
    return 0
  fi
  printf 'FAIL: %s' "${want_fail[0]}"
  printf '; %s' "${want_fail[@]:1}"
  echo
  return 1
}

case ${1:-} in
  --slow-patch) slow_patch ;; # for tests/data/bisect/make-range.sh
  --slow-cmake) slow_cmake ;;
  --build)
    [[ $# == 2 || $# == 3 ]] || usage
    build "$2" "${3:-}"
    ;;
  -h | --help | "") usage ;;
  *)
    [[ $# == 3 || $# == 4 ]] || usage
    [[ -x $1 && -f $1 ]] || die "KGATE: $1 is not an executable file"
    [[ -d $2 ]] || die "TEAMDIR: $2 is not a folder"
    [[ ${4:-330} =~ ^[1-9][0-9]*$ ]] || die "BUDGET_S: '$4' is not a number of seconds"
    nights "$1" "$2" "$3" "${4:-330}"
    ;;
esac
