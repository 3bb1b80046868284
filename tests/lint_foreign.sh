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
[ "${#listings[@]}" -ge 16 ] || { echo "lint_foreign: only ${#listings[@]} listings, 16 stored"; exit 1; }
kernels=$(cat "${listings[@]}" | grep -c '^[[:space:]]*\.type[[:space:]].*,@function')
bash "$src/tests/data/sass/corpus-check.sh" "$kgate" "${listings[@]}" > "$t/out"
cat "$t/out"
[ "$kernels" -ge 1000 ] || { echo "lint_foreign: $kernels functions, fewer than 1,000"; exit 1; }
# Each kernel's line that differs from corpus-expect.tsv ("LISTING.nvdisasm  SYMBOL: want W, got G,"),
# held to foreign-false.tsv: a line it names is a known false finding; any other fails, and so
# does a row of it that no longer happens.
known=$src/tests/data/sass/foreign-false.tsv
awk -F'\t' 'FNR == NR { if ($0 !~ /^#/ && NF >= 3) { l[++n] = $1; k[n] = $2; g[n] = $3 } next }
  /^[^ ]*\.nvdisasm  / {
    split($0, a, "  "); lst = a[1]; sub(/\.nvdisasm$/, "", lst)
    got = $0; sub(/.*, got /, "", got); sub(/,$/, "", got)
    for (i = 1; i <= n; i++) if (l[i] == lst && index($0, k[i]) && g[i] == got && !(i in seen)) { seen[i] = 1; next }
    print "lint_foreign: not as expected: " $0; bad++ }
  END { for (i = 1; i <= n; i++) if (!(i in seen)) { print "lint_foreign: gone (delete its row): " l[i] " " k[i] " " g[i]; bad++ }
        exit bad > 0 }' "$known" FS=' ' "$t/out" || { echo "lint_foreign: a false finding or a miss not in foreign-false.tsv (above)"; exit 1; }
nfalse=$(grep -vc '^#' "$known")
echo "lint_foreign: ${#listings[@]} listings, $kernels functions; every kernel as corpus-expect.tsv says but the" \
  "$nfalse known false findings of foreign-false.tsv"
