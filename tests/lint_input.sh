#!/bin/bash
# kgate lint's input is a file from elsewhere (docs/lint.md, "Input"): a FIFO,
# a device or a directory is refused in one line (exit 2) without blocking on
# it; a listing with a control byte (ESC and its sequences, CR), a C1 control
# or bytes that are not UTF-8, from a file or from the disassembler, is
# refused in one line (exit 2), and nothing kgate prints holds a raw control
# byte, not even the name of a file given on the command line.
# usage: lint_input.sh KGATE SOURCE_DIR
set -u
kgate=$1 data=$2/tests/data/sass
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "lint_input: $*"; exit 1; }
ESC=$'\033'
expect() { # CODE WHAT ARGS...: kgate lint ARGS exits CODE within 10 s, one line on stderr, no raw ESC anywhere
  local want=$1 what=$2 got
  shift 2
  timeout 10 "$kgate" lint "$@" > "$t/out" 2> "$t/err" < /dev/null
  got=$?
  [ "$got" != 124 ] || fail "$what: kgate lint did not return within 10 s"
  [ "$got" = "$want" ] || { cat "$t/out" "$t/err"; fail "$what: exit $got, expected $want"; }
  [ "$(wc -l < "$t/err")" = 1 ] || fail "$what: not one line on stderr: $(cat "$t/err")"
  ! grep -q "[$ESC]" "$t/out" "$t/err" || fail "$what: a raw ESC byte was printed"
  ! grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$t/out" "$t/err" || fail "$what: a raw control byte was printed"
}

# not a regular file: refused before any read; a FIFO with no writer must not block
mkfifo "$t/fifo"
expect 2 "a FIFO" "$t/fifo"
grep -qx "kgate lint: cannot read $t/fifo: it is a FIFO, not a regular file" "$t/err" || fail "FIFO: $(cat "$t/err")"
expect 2 "/dev/zero" /dev/zero
grep -q '/dev/zero: it is a character device, not a regular file' "$t/err" || fail "/dev/zero: $(cat "$t/err")"
expect 2 "a directory" "$t"
grep -q 'it is a directory, not a regular file' "$t/err" || fail "directory: $(cat "$t/err")"

# control bytes in a listing: refused, naming the file, the line and the byte;
# the escape sequence is in a kernel's name, which a finding prints
sed "s/mut_fence_after_kernel/mut_fence_after_kernel${ESC}]0;owned${ESC}\\\\/g" \
  "$data/mut_fence_after_sm90_O3.nvdisasm" > "$t/esc.nvdisasm"
grep -q "$ESC" "$t/esc.nvdisasm" || fail "the test listing has no ESC"
expect 2 "an ESC in a listing" "$t/esc.nvdisasm"
grep -q "^kgate lint: $t/esc.nvdisasm: line [0-9]* holds the control byte 0x1b: not a SASS listing$" "$t/err" ||
  fail "ESC: $(cat "$t/err")"
sed 's/$/\r/' "$data/cub_reduce_sm90_O3.nvdisasm" > "$t/crlf.nvdisasm"
expect 2 "a carriage return" "$t/crlf.nvdisasm"
grep -q 'line 1 holds the control byte 0x0d' "$t/err" || fail "CR: $(cat "$t/err")"
{ cat "$data/cub_reduce_sm90_O3.nvdisasm"; printf '// \xc2\x9b2J\n'; } > "$t/c1.nvdisasm"
expect 2 "a C1 control (CSI)" "$t/c1.nvdisasm"
grep -q 'holds a C1 control character or bytes that are not UTF-8' "$t/err" || fail "C1: $(cat "$t/err")"
{ cat "$data/cub_reduce_sm90_O3.nvdisasm"; printf '// \x9b2J\n'; } > "$t/raw.nvdisasm"
expect 2 "a byte that is not UTF-8" "$t/raw.nvdisasm"

# the same from the disassembler: a cubin whose listing holds an escape sequence
{ printf '\177ELF\002\001\001'; head -c 11 /dev/zero; printf '\276\000'; head -c 44 /dev/zero; } > "$t/a.cubin"
printf '#!/bin/bash\ncat "%s"\n' "$t/esc.nvdisasm" > "$t/nvdisasm"
chmod +x "$t/nvdisasm"
KGATE_NVDISASM=$t/nvdisasm expect 2 "an ESC from the disassembler" "$t/a.cubin"
grep -q 'holds the control byte 0x1b' "$t/err" || fail "disassembler ESC: $(cat "$t/err")"

# a file name with an escape sequence: named, escaped
expect 2 "an ESC in a file name" "$t/x${ESC}[2J.sass"
grep -q "^kgate lint: cannot read $t/x?\\[2J.sass: No such file or directory$" "$t/err" || fail "name: $(cat "$t/err")"

# a clean listing still passes
timeout 10 "$kgate" lint "$data/cub_reduce_sm90_O3.nvdisasm" > "$t/out" 2>&1 || fail "a clean listing: $(cat "$t/out")"
echo "lint_input: FIFO, device and directory refused without blocking; control bytes and non-UTF-8 refused, never printed raw"
