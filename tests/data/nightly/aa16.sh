#!/usr/bin/env bash
# Records A/A nights at the nightly's rounds on a GPU machine: one night per
# card, all cards of the machine at once (each run sees one card through
# CUDA_VISIBLE_DEVICES), each night followed by its control on the same card.
# A night is every default perf cell, `--rounds 16 --time-unchanged`, tonight's
# module a copy of the reference; the control pairs the nightly's control
# variants of another copy against the reference. Usage:
#   aa16.sh BUILD OUTDIR [IMAGE]
# BUILD holds kgate and libkgate_kernels.so; IMAGE is recorded as the runner
# image (KGATE_RUNNER_IMAGE). Writes OUTDIR/card-N/{night,control}.{json,log},
# OUTDIR/cards.csv and OUTDIR/times; exit 1 if any run failed.
set -u
b=$1 out=$2
export KGATE_RUNNER_IMAGE=${3:-${KGATE_RUNNER_IMAGE:-}}
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$out/cards.csv" 2>&1 || { echo "aa16: nvidia-smi failed"; exit 1; }
n=$(($(wc -l < "$out/cards.csv") - 1))
[ "$n" -ge 1 ] || { echo "aa16: no card"; exit 1; }
night() { # CARD: one night and its control on that card
  local c=$1 d="$out/card-$1" s
  mkdir -p "$d/own" "$d/ctl"
  cp "$b/libkgate_kernels.so" "$d/ref.so"
  cp "$b/libkgate_kernels.so" "$d/own/libkgate_kernels.so"
  cp "$b/libkgate_kernels.so" "$d/ctl/libkgate_kernels.so"
  export CUDA_VISIBLE_DEVICES=$c
  s=$(date +%s)
  "$b/kgate" run --sizes 1 --rounds 16 --time-unchanged --own-kernels "$d/own/libkgate_kernels.so" \
    --base-kernels "$d/ref.so" --quiet --json "$d/night.json" > "$d/night.log" 2>&1
  echo "card $c night: exit $? in $(($(date +%s) - s)) s" >> "$out/times"
  s=$(date +%s)
  "$b/kgate" run --sizes 1 --rounds 16 --time-unchanged --variant cub_sum,reduce7_shuffle,kgate_single_pass \
    --own-kernels "$d/ctl/libkgate_kernels.so" --base-kernels "$d/ref.so" --quiet --json "$d/control.json" \
    > "$d/control.log" 2>&1
  echo "card $c control: exit $? in $(($(date +%s) - s)) s" >> "$out/times"
}
for ((c = 0; c < n; c++)); do
  night "$c" &
  sleep 2 # each night its own UTC second: a history holds no two nights of one date
done
wait
cat "$out/times"
! grep -qv 'exit 0 ' "$out/times"
