#!/usr/bin/env bash
# kgate action: the job's result from kgate's exit code (README, Exit codes),
# or, in mode bisect, from kgate bisect's.
set -euo pipefail
[[ -n ${KA_CODE:-} || -z ${KA_BISECT_CODE:-} ]] || KA_CODE=0 # mode bisect: no kgate run
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
# bisect: its answers (0, 1, 4) are the step summary's; a bisect that could not run fails the job
# here, after its file was uploaded.
case "${KA_BISECT_CODE:-}" in
  2 | 3)
    echo "::error::kgate bisect exited $KA_BISECT_CODE (2: input, 3: environment): see its step"
    exit "$KA_BISECT_CODE" ;;
esac
