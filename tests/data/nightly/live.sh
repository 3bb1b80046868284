#!/usr/bin/env bash
# The nightly's live check on a GPU machine, as nightly.yml runs it: each
# night is `kgate run` paired against the pinned reference (--reference
# checks its SHA-256), then the control: the reference paired with a second
# load of itself (--own-kernels, a copy at another path). Then a reference
# that is not the pinned one, which kgate must refuse (exit 2).
# Usage: live.sh OUTDIR PINS.json REFERENCE.so KIND...
#   KIND: head (tonight's build: BUILD/kgate) or slow (SLOW/kgate: reduce7_shuffle
#   streaming 0.6 % more bytes). BUILD and SLOW default to build-gpu and .nightly/slow2.
set -u
out=$1 pins=$2 ref=$3
shift 3
build=${BUILD:-build-gpu} slow=${SLOW:-.nightly/slow2}
mkdir -p "$out"
nvidia-smi --query-gpu=name,uuid,pci.bus_id,clocks.sm,temperature.gpu --format=csv > "$out/card.csv" 2>&1
ctl=$(mktemp -d)/libkgate_kernels.so
cp "$ref" "$ctl"
i=0
for kind in "$@"; do
  i=$((i + 1))
  bin=$build/kgate
  [[ $kind == slow ]] && bin=$slow/kgate
  s=$(date +%s)
  "$bin" run --sizes 1 --perf-sizes 2^25 --rounds 4 --reference "$pins" --base-kernels "$ref" --quiet \
    --json "$out/night-$i-$kind.json" > "$out/night-$i-$kind.log" 2>&1
  rc=$?
  echo "night $i ($kind, $("$bin" --version)): exit $rc in $(( $(date +%s) - s )) s"
  "$bin" run --sizes 1 --perf-sizes 2^25 --rounds 4 --variant cub_sum,reduce7_shuffle,kgate_single_pass \
    --reference "$pins" --own-kernels "$ctl" --base-kernels "$ref" --quiet --json "$out/control-$i.json" \
    > "$out/control-$i.log" 2>&1
  rc=$?
  echo "control $i: exit $rc"
done
"$build/kgate" run --sizes 1 --reference "$pins" --base-kernels "$build/libkgate_kernels.so" > "$out/wrong-ref.log" 2>&1
rc=$?
echo "a reference that is not pinned: exit $rc ($(head -c 300 "$out/wrong-ref.log"))"
