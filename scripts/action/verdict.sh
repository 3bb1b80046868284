#!/usr/bin/env bash
# kgate action: the job's result from kgate's exit code (README, Exit codes).
set -euo pipefail
case "${KA_CODE:-}" in
  0) echo "kgate: passed" ;;
  1) echo "::error::kgate: correctness failure (exit 1)"; exit 1 ;;
  4)
    if [[ ${KA_FAIL_ON_SLOWER:-true} == true ]]; then
      echo "::error::kgate: performance regression: a cell is SLOWER than the base (exit 4)"
      exit 4
    fi
    echo "::warning::kgate: a cell is SLOWER than the base (exit 4; fail-on-slower is false)" ;;
  *) echo "::error::kgate exited ${KA_CODE:-nothing} (2: input, 3: environment)"; exit "${KA_CODE:-3}" ;;
esac
