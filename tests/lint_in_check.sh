#!/bin/bash
# The lint inside check (docs/lint.md): a --kernels module is linted beside
# the matrix; a finding fails the run (exit 1) and is in the terminal report,
# the results JSON and the Markdown; a clean module passes; no disassembler
# says "not run" and the run passes. The worker is tests/fake_worker.c, the
# disassemblers are this test's stand-ins: whatever module they are given,
# they hand kgate the stored listing named by $KG_TEST_LISTING.
# usage: lint_in_check.sh KGATE FAKE_WORKER MODULE.so SOURCE_DIR
set -u
kgate=$1 worker=$2 mod=$3 data=$4/tests/data/sass
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "lint_in_check: $*"; exit 1; }
cat > "$t/cuobjdump" <<EOS
#!/bin/bash
[ "\$1 \$2" = "-xelf all" ] || exit 2
{ printf '\177ELF\002\001\001'; head -c 11 /dev/zero; printf '\276\000'; head -c 44 /dev/zero
  printf '%s\n' "\$KG_TEST_LISTING"; } > m.1.sm_90.cubin
EOS
cat > "$t/nvdisasm" <<EOS
#!/bin/bash
[ "\$1 \$2" = "-c -g" ] || exit 2
cat "$data/\$(tail -c +65 "\$3" | head -1)"
EOS
chmod +x "$t/cuobjdump" "$t/nvdisasm"
run() { # the check of one case of the module's variant; its exit in $code
  "$kgate" check --worker "$worker" --kernels "$mod" --variant team_min --dtype i32 --sizes 1 \
    --json "$t/r.json" --markdown "$t/r.md" --junit "$t/r.xml" > "$t/out" 2>&1
  code=$?
}
name=$(basename "$mod")

KGATE_CUOBJDUMP=$t/cuobjdump KGATE_NVDISASM=$t/nvdisasm KG_TEST_LISTING=mut_fence_after_sm90_O3.nvdisasm run
[ "$code" = 1 ] || { cat "$t/out"; fail "a finding: exit $code, expected 1"; }
grep -q '^lint FINDING _Z[0-9]*mut_fence_after_kernel.* (sm_90) release: ' "$t/out" || fail "no finding line: $(cat "$t/out")"
grep -q "^lint $name: [0-9]* kernels, [0-9]* tickets, 1 finding$" "$t/out" || fail "no summary line: $(cat "$t/out")"
grep -q '{"module":"[^"]*'"$name"'","ran":true,' "$t/r.json" || fail "the results lack the lint"
grep -q '"side":"release"' "$t/r.json" || fail "the results lack the finding"
grep -q '^## Memory ordering (kgate lint)$' "$t/r.md" || fail "the Markdown lacks the lint"
grep -q '<testsuite name="lint" tests="[0-9]*" failures="1"' "$t/r.xml" || fail "the JUnit lacks the failing lint"

KGATE_CUOBJDUMP=$t/cuobjdump KGATE_NVDISASM=$t/nvdisasm KG_TEST_LISTING=cub_reduce_sm90_O3.nvdisasm run
[ "$code" = 0 ] || { cat "$t/out"; fail "a clean module: exit $code, expected 0"; }
grep -q "^lint $name: [0-9]* kernels, 0 tickets, 0 findings$" "$t/out" || fail "clean summary: $(cat "$t/out")"

if [ -x /usr/local/cuda/bin/cuobjdump ] || [ -x /usr/local/cuda/bin/nvdisasm ]; then
  echo "lint_in_check: a finding fails check, a clean module passes (no-disassembler case skipped: the toolkit has one)"
  exit 0
fi
KGATE_CUOBJDUMP=/nonexistent KGATE_NVDISASM=/nonexistent PATH=/usr/bin:/bin CUDA_HOME=/nonexistent run
[ "$code" = 0 ] || { cat "$t/out"; fail "no disassembler: exit $code, expected 0"; }
grep -q "^lint $name: not run: .*needs cuobjdump" "$t/out" || fail "no 'not run' line: $(cat "$t/out")"
grep -q '"ran":false,"why":' "$t/r.json" || fail "the results lack why the lint did not run"
echo "lint_in_check: a finding fails check, a clean module passes, no disassembler is 'not run'"
