#!/usr/bin/env bash
# Records nights for the nightly detector's fixture on a GPU machine: each
# night is a fresh `kgate run` paired against the pinned reference module
# (every default perf cell, --rounds 4). Usage:
#   record.sh OUTDIR BUDGET_S SCHEDULE
# SCHEDULE is a word per night: "aa" (tonight's build = the reference) or
# "slow" (tonight's build slows reduce7_shuffle by about 0.5 % at 2^25).
# Nights run in order while BUDGET_S allows another (a night takes about 100 s).
set -u
out=$1 budget=$2; shift 2
ref=${KG_REF:-.nightly/ref/libkgate_kernels.so}
mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,pci.bus_id,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$out/card.csv" 2>&1
t0=$(date +%s) last=0 i=0
for kind in "$@"; do
  now=$(date +%s)
  if (( now - t0 + last + 15 > budget )); then echo "record: budget reached before night $i"; break; fi
  case $kind in
    aa) bin=build/kgate ;;
    slow) bin=.nightly/slow/kgate ;;
    *) echo "record: unknown night kind $kind"; exit 2 ;;
  esac
  i=$((i + 1))
  s=$(date +%s)
  "$bin" run --sizes 1 --rounds 4 --base-kernels "$ref" --quiet --json "$out/night-$i-$kind.json" \
    > "$out/night-$i-$kind.log" 2>&1
  echo "night $i ($kind): exit $? in $(( $(date +%s) - s )) s"
  last=$(( $(date +%s) - s ))
done
