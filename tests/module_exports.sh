#!/usr/bin/env bash
# A kernel module exports kgate_module_abi, kgate_module, kgate_module_toolchain,
# kgate_module_lint_waivers and kgate_module_sanitizer_waivers and nothing else (include/kgate/module.h):
# modules of two commits then load side by side.
# Usage: module_exports.sh MODULE.so...
set -u
want="kgate_module kgate_module_abi kgate_module_lint_waivers kgate_module_sanitizer_waivers kgate_module_toolchain "
for m in "$@"; do
  got=$(nm -D --defined-only "$m" | awk '{print $NF}' | sort | tr '\n' ' ')
  if [ "$got" != "$want" ]; then
    echo "FAIL $m exports: $got (want only $want)"
    exit 1
  fi
done
echo "$*: export kgate_module_abi, kgate_module, kgate_module_toolchain and the two waiver tables only"
