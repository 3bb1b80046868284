#!/bin/bash
# The reference cache through the real kgate on a GPU (refcache.h): a first
# run of a seed outside the shipped table computes the references on the CPU
# and keeps them; a second run uses them (inputs made on the GPU, checked by
# fingerprint) with the same results; a line corrupted in place is dropped,
# said and rebuilt; a forged reference with a correct SHA-256 (a checksum, not
# a MAC) and a file of the old checksummed format are never used; an entry
# MACed with the key but another input's fingerprint is never used, said, and
# replaced; a key of mode 0644 is refused and the cache left alone; the
# shipped table covers the default seed.
# usage: ref_cache_gpu.sh KGATE   (exit 77 without a GPU)
set -u
. "$(dirname "$0")/skip_gpu.sh"
kgate=$1
gpu_scratch ref_cache_gpu
export KGATE_REFCACHE_KEY=$out/state/refcache.key
cache=$KGATE_CACHE_DIR/refs.txt
# The HMAC-SHA256 (hex) of the header, a newline and $1 under the key (refcache.h).
mac() {
  python3 -c 'import hmac, hashlib, sys
key = open(sys.argv[1], "rb").read()
print(hmac.new(key, (sys.argv[2] + "\n" + sys.argv[3]).encode(), hashlib.sha256).hexdigest())' \
    "$KGATE_REFCACHE_KEY" "$(head -1 "$cache")" "$1"
}
run() { # name, then kgate check's arguments
  local name=$1; shift
  "$kgate" check --variant cub_sum,reduce7_shuffle --seed 7 --sizes 1000,4097,2^22 --dtype f32,i32 -q \
    --json "$out/$name.json" "$@" > "$out/$name.txt" 2> "$out/$name.err"
}
cases() { grep -o '"got":"[^"]*","expected":"[^"]*"' "$out/$1.json" | sort; }

run first
code=$?
[ $code = 3 ] && skip_gpu ref_cache_gpu $code "$out/first.err" "$out/first.txt"
[ $code = 0 ] || { cat "$out/first.txt" "$out/first.err"; fail "first run exited $code"; }
[ -f "$cache" ] || fail "no cache written at $cache"
[ "$(stat -c %a "$KGATE_REFCACHE_KEY")" = 600 ] || fail "the key is not a file of mode 0600"
[ "$(stat -c %s "$KGATE_REFCACHE_KEY")" = 32 ] || fail "the key is not 32 bytes"
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

# A forged reference: the i32 exact sum of n=4097 made another value, the
# line ending in a correct SHA-256 of what it says. A checksum is what anyone
# who can write the file can compute; only the key's holder can MAC a line.
line=$(grep -n '^i32 4097 exact ' "$cache" | cut -d: -f1)
body=$(sed -n "${line}p" "$cache" | awk '{ $7 = $7 + 1; NF = NF - 1; print }')
sum=$(printf '%s' "$body" | sha256sum | cut -c1-64)
sed -i "${line}s/.*/$body $sum/" "$cache"
run forgedsum || fail "the run over a forged reference exited $?"
grep -q 'MAC does not verify' "$out/forgedsum.err" || fail "the forged line was not reported: $(cat "$out/forgedsum.err")"
[ "$(cases first)" = "$(cases forgedsum)" ] || fail "a forged reference changed the results"
grep -qF "$body" "$cache" && fail "the forged reference is still in the cache"

# The old format (checksummed lines) at the cache's path: read as empty, replaced.
cp "$cache" "$out/keyed"
{ echo "kgate-refcache 1: dtype n pattern seed gen fingerprint isum sum sum_err sum_abs nan pinf ninf imin imax fmin fmax nvals check"
  tail -n +2 "$out/keyed" | while read -r l; do b=${l% *}; echo "$b $(printf '%s' "$b" | sha256sum | cut -c1-16)"; done
} > "$cache"
run oldformat || fail "the run over an old-format cache exited $?"
grep -q 'not a kgate reference cache of this format' "$out/oldformat.err" ||
  fail "the old format was not reported: $(cat "$out/oldformat.err")"
[ "$(cases first)" = "$(cases oldformat)" ] || fail "an old-format cache changed the results"
head -1 "$cache" | grep -q '^kgate-refcache 2: ' || fail "the old-format cache was not replaced"

# An entry MACed with the key but another input's fingerprint: the line
# verifies, but the GPU's input is not the one it was computed from.
if command -v python3 > /dev/null; then
  line=$(grep -n '^i32 4097 exact ' "$cache" | cut -d: -f1)
  body=$(sed -n "${line}p" "$cache" | awk '{ $6 = "0123456789abcdef"; NF = NF - 1; print }')
  sed -i "${line}s/.*/$body $(mac "$body")/" "$cache"
  run forged || fail "the run over a forged entry exited $?"
  grep -q 'belongs to other data' "$out/forged.err" || fail "the forged entry was not reported: $(cat "$out/forged.err")"
  [ "$(cases first)" = "$(cases forged)" ] || fail "a forged entry changed the results"
  grep -q '^i32 4097 exact .* 0123456789abcdef ' "$cache" && fail "the forged entry is still in the cache"
else
  echo "ref_cache_gpu: no python3: the fingerprint case (a line MACed with the key) not run"
fi

# A key others could read or write is refused: the run computes every
# reference on the CPU and leaves the cache as it was.
chmod 644 "$KGATE_REFCACHE_KEY"
cp "$cache" "$out/before"
run openkey || fail "the run with a key of mode 0644 exited $?"
grep -q 'mode is not 0600.*reference cache is not used' "$out/openkey.err" ||
  fail "the open key was not refused: $(cat "$out/openkey.err")"
[ "$(cases first)" = "$(cases openkey)" ] || fail "a refused key changed the results"
cmp -s "$out/before" "$cache" || fail "the cache was written under a refused key"
chmod 600 "$KGATE_REFCACHE_KEY"

# The default seed needs no cache: the shipped table has every default input.
rm -rf "$KGATE_CACHE_DIR"
"$kgate" check --variant cub_sum --dtype f64 -q > "$out/shipped.txt" 2>&1 || fail "default-seed check exited $?"
[ ! -e "$cache" ] || fail "the default seed computed references that kgate ships ($(wc -l < "$cache") lines)"
echo "ref_cache_gpu: cached, corrupt, forged and old-format references and an open key all handled"
