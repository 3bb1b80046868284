#!/usr/bin/env bash
# kgate lint on code no one here wrote (tests/data/sass/README.md, "Code from
# elsewhere"): the stored listings of cooperative_groups, libcu++, CUB and
# thrust, cuda-samples' reduction and threadFenceReduction (fixed) and the
# message flags, sm_80 and sm_90, each kernel held to corpus-expect.tsv: no
# finding on a correct kernel, every planted bug found with its sides.
# Usage: lint_foreign.sh KGATE SOURCE_DIR
set -u
kgate=$1 src=$2
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
tar -C "$t" -xJf "$src/tests/data/sass/foreign.tar.xz" || { echo "lint_foreign: cannot unpack foreign.tar.xz"; exit 1; }
shopt -s nullglob
listings=("$t"/s/*.nvdisasm)
[ "${#listings[@]}" -ge 20 ] || { echo "lint_foreign: only ${#listings[@]} listings"; exit 1; }
kernels=$(cat "${listings[@]}" | grep -c '^[[:space:]]*\.type[[:space:]].*,@function')
bash "$src/tests/data/sass/corpus-check.sh" "$kgate" "${listings[@]}" > "$t/out"
rc=$?
cat "$t/out"
[ "$kernels" -ge 1000 ] || { echo "lint_foreign: $kernels functions, fewer than 1,000"; exit 1; }
[ "$rc" = 0 ] || { echo "lint_foreign: a false finding or a miss (above)"; exit 1; }
echo "lint_foreign: ${#listings[@]} listings, $kernels functions, every kernel as corpus-expect.tsv says"
