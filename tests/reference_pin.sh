#!/bin/bash
# The nightly's pinned reference through the real kgate and kgate's own built
# module: a pin of another hash is refused in one line with exit 2 before any
# GPU work and before the module is loaded (no GPU is needed to see it); the module's own hash is accepted by
# `reference verify`, and by `run --reference` up to the GPU (exit 3 without one,
# 0 or 4 with one).
# usage: reference_pin.sh KGATE MODULE.so
set -u
kgate=$1 mod=$2
out=$(mktemp -d /tmp/kg_refpin_XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "reference_pin: FAIL: $*"; exit 1; }
pins() { # pins FILE SHA
  printf '{"kind":"kgate-reference-pins","schema_version":1,"pins":[{"module":"kgate","sha256":"%s",%s}]}\n' "$2" \
    '"commit":"79c9a97eb8f4","nvcc":"13.0.88","architectures":"90-real","pinned":"2026-11-25"' > "$1"
}
sha=$(sha256sum "$mod" | cut -d' ' -f1)
pins "$out/wrong.json" "$(printf '%064d' 0)"
pins "$out/right.json" "$sha"

"$kgate" run --sizes 1 --reference "$out/wrong.json" --base-kernels "$mod" > "$out/wrong.txt" 2>&1
code=$?
[ $code = 2 ] || fail "a module of another hash: exit $code, expected 2: $(cat "$out/wrong.txt")"
[ "$(wc -l < "$out/wrong.txt")" = 1 ] || fail "the refusal is not one line: $(cat "$out/wrong.txt")"
grep -q "not a pinned one (pinned: 000000000000" "$out/wrong.txt" || fail "the refusal names no hash: $(cat "$out/wrong.txt")"
# refused from the sealed copy's hash, before any worker loaded the module
grep -q "$mod has sha256 ${sha:0:12}, .*it was not loaded" "$out/wrong.txt" ||
  fail "the refusal does not say the module was not loaded: $(cat "$out/wrong.txt")"

"$kgate" reference verify "$out/right.json" "$mod" > "$out/verify.txt" 2>&1 || fail "reference verify: exit $?"
"$kgate" reference verify "$out/wrong.json" "$mod" > /dev/null 2>&1
[ $? = 2 ] || fail "reference verify of another hash did not exit 2"

"$kgate" run --sizes 1 --perf-sizes 2^20 --variant cub_sum --dtype i32 --reference "$out/right.json" \
  --base-kernels "$mod" -q > "$out/right.txt" 2>&1
code=$?
case $code in
  0 | 4) echo "reference_pin: ok (paired on a GPU)" ;;
  3) echo "reference_pin: ok (the pinned module accepted; no GPU for the run)" ;;
  *) fail "the pinned module: exit $code: $(tail -3 "$out/right.txt")" ;;
esac
