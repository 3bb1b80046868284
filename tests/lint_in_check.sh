#!/bin/bash
# The lint inside check (docs/lint.md): a --kernels module is linted beside
# the matrix; a finding fails the run (exit 1) and is in the terminal report,
# the results JSON and the Markdown; a clean module passes; a module the lint
# could not read (the disassembler refuses it, or there is none) fails the
# run (exit 3, one line naming the module) and every report says so, unless
# --lint off, which passes and is recorded. The worker is tests/fake_worker.c, the
# disassemblers are this test's stand-ins: they hand kgate the stored listing
# named by $KG_TEST_LISTING for the module under test, and CUB's clean one for
# kgate's own module (linted too, with no planted bug in it to leave out).
# usage: lint_in_check.sh KGATE FAKE_WORKER MODULE.so SOURCE_DIR
set -u
kgate=$1 worker=$2 mod=$3 data=$4/tests/data/sass
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "lint_in_check: $*"; exit 1; }
cat > "$t/cuobjdump" <<EOS
#!/bin/bash
[ "\$1 \$2" = "-xelf all" ] || exit 2
case "\$3" in */libkgate_kernels.so) l=cub_reduce_sm90_O3.nvdisasm ;; *) l=\$KG_TEST_LISTING ;; esac
{ printf '\177ELF\002\001\001'; head -c 11 /dev/zero; printf '\276\000'; head -c 44 /dev/zero
  printf '%s\n' "\$l"; } > m.1.sm_90.cubin
EOS
cat > "$t/nvdisasm" <<EOS
#!/bin/bash
[ "\$1 \$2" = "-c -g" ] || exit 2
cat "$data/\$(tail -c +65 "\$3" | head -1)"
EOS
chmod +x "$t/cuobjdump" "$t/nvdisasm"
run() { # the check of one case of the module's variant (and ARGS); its exit in $code
  "$kgate" check --worker "$worker" --kernels "$mod" --variant team_min --dtype i32 --sizes 1 \
    --json "$t/r.json" --markdown "$t/r.md" --junit "$t/r.xml" "$@" > "$t/out" 2> "$t/err"
  code=$?
  cat "$t/err" >> "$t/out"
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

# a disassembler that refuses the module (as for a PTX-only one): not linted
# is not passed; one line on stderr names the module and why
printf '#!/bin/bash\nexit 1\n' > "$t/refuse"
chmod +x "$t/refuse"
KGATE_CUOBJDUMP=$t/refuse KGATE_NVDISASM=$t/refuse run
[ "$code" = 3 ] || { cat "$t/out"; fail "a module the lint could not read: exit $code, expected 3"; }
grep -q "^lint $name: not run: .*failed on it" "$t/out" || fail "no 'not run' line: $(cat "$t/out")"
[ "$(grep -c "^kgate: lint: .*$name was not linted: .*failed on it (a failure, exit 3; --lint off" "$t/err")" = 1 ] ||
  fail "not one stderr line naming the module: $(cat "$t/err")"
grep -q '"ran":false,"why":' "$t/r.json" || fail "the results lack why the lint did not run"
grep -q '"off"' "$t/r.json" && fail "the results say the lint was off"
grep -q "minmax\.so: \*\*not run\*\*: .*the gate fails (exit 3" "$t/r.md" || fail "the Markdown lacks the failure: $(cat "$t/r.md")"
grep -q '<testsuite name="lint" tests="[0-9]*" failures="[1-9]' "$t/r.xml" || fail "the JUnit lint suite does not fail"
grep -q 'message="not run: ' "$t/r.xml" || fail "the JUnit lacks why the lint did not run"

# --lint off: nothing is linted, the run passes, and every report says it was off
KGATE_CUOBJDUMP=$t/refuse KGATE_NVDISASM=$t/refuse run --lint off
[ "$code" = 0 ] || { cat "$t/out"; fail "--lint off: exit $code, expected 0"; }
grep -q "^lint $name: off (--lint off): not linted$" "$t/out" || fail "no 'off' line: $(cat "$t/out")"
grep -q 'was not linted' "$t/err" && fail "--lint off still printed a failure: $(cat "$t/err")"
grep -q '"ran":false,"off":true,"why":"--lint off"' "$t/r.json" || fail "the results do not record --lint off"
grep -q "minmax\.so: off (--lint off)" "$t/r.md" || fail "the Markdown does not say the lint was off"
grep -q '<testsuite name="lint" tests="[0-9]*" failures="0"' "$t/r.xml" || fail "the JUnit lint suite fails with --lint off"

if [ -x /usr/local/cuda/bin/cuobjdump ] || [ -x /usr/local/cuda/bin/nvdisasm ]; then
  echo "lint_in_check: a finding fails check, a clean module passes, an unread module fails (exit 3), --lint off passes (no-disassembler case skipped: the toolkit has one)"
  exit 0
fi
KGATE_CUOBJDUMP=/nonexistent KGATE_NVDISASM=/nonexistent PATH=/usr/bin:/bin CUDA_HOME=/nonexistent run
[ "$code" = 3 ] || { cat "$t/out"; fail "no disassembler: exit $code, expected 3"; }
grep -q "^lint $name: not run: .*needs cuobjdump" "$t/out" || fail "no 'not run' line: $(cat "$t/out")"
grep -q "^kgate: lint: .*$name was not linted: .*needs cuobjdump" "$t/err" || fail "no stderr line: $(cat "$t/err")"
grep -q '"ran":false,"why":' "$t/r.json" || fail "the results lack why the lint did not run"
echo "lint_in_check: a finding fails check, a clean module passes, an unread module and no disassembler fail (exit 3), --lint off passes"
