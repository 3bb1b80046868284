#!/bin/bash
# The reference cache through the real kgate on a GPU (refcache.h): a first
# run of a seed outside the shipped table computes the references on the CPU
# and keeps them; a second run uses them (inputs made on the GPU, checked by
# fingerprint) with the same results; a line corrupted in place is dropped,
# said and rebuilt; an entry re-signed with another input's fingerprint is
# never used, said, and replaced; the shipped table covers the default seed.
# usage: ref_cache_gpu.sh KGATE   (exit 77 without a GPU)
set -u
kgate=$1
out=$(mktemp -d /tmp/kg_ref_cache_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "ref_cache_gpu: FAIL: $*"; exit 1; }
export KGATE_CACHE_DIR=$out/cache
cache=$KGATE_CACHE_DIR/refs.txt
run() { # name, then kgate check's arguments
  local name=$1; shift
  "$kgate" check --variant cub_sum,reduce7_shuffle --seed 7 --sizes 1000,4097,2^22 --dtype f32,i32 -q \
    --json "$out/$name.json" "$@" > "$out/$name.txt" 2> "$out/$name.err"
}
cases() { grep -o '"got":"[^"]*","expected":"[^"]*"' "$out/$1.json" | sort; }

run first
code=$?
if [ $code = 3 ]; then echo "ref_cache_gpu: skipped: $(tail -1 "$out/first.txt" "$out/first.err")"; exit 77; fi
[ $code = 0 ] || { cat "$out/first.txt" "$out/first.err"; fail "first run exited $code"; }
[ -f "$cache" ] || fail "no cache written at $cache"
entries=$(($(wc -l < "$cache") - 1))
[ "$entries" = 30 ] || fail "$entries entries, not 30 (3 sizes x (8 f32 + 2 i32 patterns))"

run second || fail "second run exited $?"
[ "$(cases first)" = "$(cases second)" ] || fail "the cached run's results differ from the first's"
[ ! -s "$out/second.err" ] || fail "the second run said: $(cat "$out/second.err")"

# A digit of one reference flipped in place: its checksum no longer holds.
# (sum_abs, field 10: its first mantissa digit changed)
cp "$cache" "$out/orig"
awk '$1 == "f32" && $2 == 4194304 && $3 == "uniform" {
  d = substr($10, 5, 1); $10 = substr($10, 1, 4) (d == "f" ? "e" : "f") substr($10, 6) } { print }' \
  "$out/orig" > "$cache"
cmp -s "$out/orig" "$cache" && fail "could not corrupt the cache"
run corrupt || fail "the run over a corrupt cache exited $?"
grep -q 'refs.txt' "$out/corrupt.err" || fail "the corrupt line was not reported: $(cat "$out/corrupt.err")"
[ "$(cases first)" = "$(cases corrupt)" ] || fail "a corrupt cache changed the results"
[ "$(($(wc -l < "$cache") - 1))" = 30 ] || fail "the corrupt entry was not rebuilt"

# An entry re-signed with another input's fingerprint: its checksum holds,
# but the GPU's input is not the one it was computed from.
line=$(grep -n '^i32 4097 exact ' "$cache" | cut -d: -f1)
body=$(sed -n "${line}p" "$cache" | awk '{ $6 = "0123456789abcdef"; NF = NF - 1; print }')
sum=$(printf '%s' "$body" | sha256sum | cut -c1-16)
sed -i "${line}s/.*/$body $sum/" "$cache"
run forged || fail "the run over a forged entry exited $?"
grep -q 'belongs to other data' "$out/forged.err" || fail "the forged entry was not reported: $(cat "$out/forged.err")"
[ "$(cases first)" = "$(cases forged)" ] || fail "a forged entry changed the results"
grep -q '^i32 4097 exact .* 0123456789abcdef ' "$cache" && fail "the forged entry is still in the cache"

# The default seed needs no cache: the shipped table has every default input.
rm -rf "$KGATE_CACHE_DIR"
"$kgate" check --variant cub_sum --dtype f64 -q > "$out/shipped.txt" 2>&1 || fail "default-seed check exited $?"
[ ! -e "$cache" ] || fail "the default seed computed references that kgate ships ($(wc -l < "$cache") lines)"
echo "ref_cache_gpu: cached, corrupt and forged references all handled"
