#!/bin/bash
# kgate lint end to end: stored listings, exit codes, and machine code through
# stand-ins for nvdisasm and cuobjdump (this test's own scripts: a "cubin"
# here is an ELF header of machine EM_CUDA followed by the name of a listing
# in tests/data/sass, and a "module" a host ELF header followed by names, or a
# real module whose listing the stand-in takes from $KG_TEST_LISTING). The
# waivers: each module's own (kgate/module.h: kgate_module_lint_waivers),
# matched by whole kernel name; the modules are built from
# tests/modules/registry_module.c: none, two waivers, a waiver with no reason.
# usage: lint.sh KGATE SOURCE_DIR PLAIN.so WAIVE.so BADWAIVE.so
set -u
kgate=$1 data=$2/tests/data/sass plain=$3 waive=$4 badwaive=$5
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "lint.sh: $*"; exit 1; }
expect() { # CODE ARGS...: kgate lint ARGS exits CODE; its output is in $t/out
  local want=$1 got
  shift
  "$kgate" lint "$@" > "$t/out" 2>&1
  got=$?
  [ "$got" = "$want" ] || { cat "$t/out"; fail "kgate lint $*: exit $got, expected $want"; }
}
elf() { # MACHINE NAMES... > file: an ELF header, then the names
  printf '\177ELF\002\001\001'; head -c 11 /dev/zero; printf "\\$(printf %03o "$1")\\000"; head -c 44 /dev/zero
  shift; [ $# = 0 ] || printf '%s\n' "$@"
}

expect 1 "$data/fences_sm90_O3.nvdisasm"
grep -q '^_Z12bug_no_fencePKiPiS1_ (sm_90): release:' "$t/out" || fail "no release finding for bug_no_fence"
grep -q '^lint .*: 20 kernels, 19 tickets, 12 findings, 0 waived$' "$t/out" || fail "summary: $(tail -1 "$t/out")"
expect 0 "$data/cub_reduce_sm90_O3.nvdisasm"
# a listing is no module: no waiver applies, kgate's own included
expect 1 "$data/single_pass_sm90_O3.nvdisasm"
grep -q '^lint .*: 6 kernels, 21 tickets, [1-9][0-9]* findings*, 0 waived$' "$t/out" || fail "listing: $(tail -1 "$t/out")"
expect 1 "$data/cub_reduce_sm90_O3.nvdisasm" "$data/mut_fence_after_sm80_O3.nvdisasm"
expect 2 /nonexistent/x.cubin "$data/mut_fence_after_sm80_O3.nvdisasm"
grep -q '^kgate lint: cannot read /nonexistent/x.cubin: No such file or directory$' "$t/out" || fail "the error does not name the file"
expect 2
grep -q 'lint needs a kernel module, cubin or SASS listing' "$t/out" || fail "no usage error: $(cat "$t/out")"
expect 1 "$data/fences_sm90_O3.nvdisasm" --kernel bug_one_branch
[ "$(grep -c '^_Z' "$t/out")" = 1 ] || fail "--kernel kept other kernels"
expect 2 "$data/fences_sm90_O3.nvdisasm" --kernel no_such_kernel

# machine code: no disassembler is exit 3, with a line that says what to do
elf 190 mut_fence_after_sm90_O3.nvdisasm > "$t/a.cubin"
KGATE_NVDISASM=/nonexistent KGATE_CUOBJDUMP=/nonexistent expect 3 "$t/a.cubin"
grep -q 'is machine code (a cubin): reading it needs nvdisasm or cuobjdump' "$t/out" || fail "$(cat "$t/out")"

# the stand-ins
cat > "$t/nvdisasm" <<EOS
#!/bin/bash
[ "\$1 \$2" = "-c -g" ] || exit 2
cat "$data/\$(tail -c +65 "\$3" | head -1)"
EOS
cat > "$t/cuobjdump" <<EOS
#!/bin/bash
[ "\$1 \$2" = "-xelf all" ] || exit 2
k=0
{ if [ -n "\${KG_TEST_LISTING:-}" ]; then echo "\$KG_TEST_LISTING"; else tail -c +65 "\$3"; fi; } | while read -r name; do
  k=\$((k + 1)); { head -c 64 "$t/a.cubin"; printf '%s\n' "\$name"; } > "m.\$k.sm_90.cubin"
done
EOS
chmod +x "$t/nvdisasm" "$t/cuobjdump"
export KGATE_NVDISASM=$t/nvdisasm KGATE_CUOBJDUMP=$t/cuobjdump
expect 1 "$t/a.cubin"
grep -q 'mut_fence_after_kernel' "$t/out" || fail "the cubin's listing was not linted"
elf 62 cub_reduce_sm90_O3.nvdisasm > "$t/clean.so"
expect 0 "$t/clean.so"
grep -q '^lint .*: 10 kernels, 0 tickets, 0 findings, 0 waived$' "$t/out" || fail "module summary: $(tail -1 "$t/out")"
elf 62 single_pass_sm90_O3.nvdisasm mut_fence_none_sm90_O3.nvdisasm mut_fence_no_acquire_sm90_O3.nvdisasm > "$t/m.so"
expect 1 "$t/m.so"
grep -q 'mut_fence_none_kernel' "$t/out" && grep -q 'mut_fence_no_acquire_kernel' "$t/out" || fail "module findings"
elf 62 > "$t/empty.so"
expect 2 "$t/empty.so"
grep -q 'no cubin in it' "$t/out" || fail "$(cat "$t/out")"

# Waivers. kgate's own (single_pass) is its modules' alone: a team's module
# with none gets the single_pass kernels' findings.
KG_TEST_LISTING=single_pass_sm90_O3.nvdisasm expect 1 "$plain"
grep -q '^_ZN.*11single_passIddEE.* (sm_90): ' "$t/out" || fail "kgate's waiver hid a team module's finding"
grep -q 'waived: ' "$t/out" && fail "a waiver shown for a module that has none: $(cat "$t/out")"
# a module's own waiver hides its kernel's finding, shown with its reason
KG_TEST_LISTING=mut_fence_after_sm90_O3.nvdisasm expect 0 "$waive"
grep -q '^mut_fence_after_kernel: waived: a test waiver: the fence is elsewhere (1 finding)$' "$t/out" ||
  fail "the module's waiver is not shown: $(cat "$t/out")"
grep -q '^lint .*: 1 kernel, 1 ticket, 0 findings, 1 waived$' "$t/out" || fail "waived summary: $(tail -1 "$t/out")"
# whole names only: the waiver "bug_one" leaves bug_one_branch's finding
KG_TEST_LISTING=fences_sm90_O3.nvdisasm expect 1 "$waive"
grep -q '^_Z14bug_one_branchPKiPiS1_ (sm_90): release:' "$t/out" || fail "a part of a name waived a kernel"
grep -q 'waived: ' "$t/out" && fail "a waiver matched no kernel's whole name, yet is shown: $(cat "$t/out")"
# a bad table: one line naming the module and the waiver, exit 2
KG_TEST_LISTING=fences_sm90_O3.nvdisasm expect 2 "$badwaive"
[ "$(wc -l < "$t/out")" = 1 ] || fail "not one line: $(cat "$t/out")"
grep -q "^kgate lint: .*$(basename "$badwaive"): kgate_module_lint_waivers: waiver 1 (bug_no_fence): reason is missing" "$t/out" ||
  fail "the bad table's line: $(cat "$t/out")"
echo "lint.sh: listings, exit codes 0/1/2/3, cubins and modules through the disassembler stand-ins, each module's own waivers by whole name"
