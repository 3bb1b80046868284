#!/usr/bin/env bash
# A kernel module exports kgate_module_abi, kgate_module and
# kgate_module_toolchain and nothing else (include/kgate/module.h): modules of
# two commits then load side by side.
# Usage: module_exports.sh MODULE.so
set -u
got=$(nm -D --defined-only "$1" | awk '{print $NF}' | sort | tr '\n' ' ')
if [ "$got" != "kgate_module kgate_module_abi kgate_module_toolchain " ]; then
  echo "FAIL $1 exports: $got (want only kgate_module kgate_module_abi kgate_module_toolchain)"
  exit 1
fi
echo "$1: exports kgate_module_abi, kgate_module and kgate_module_toolchain only"
