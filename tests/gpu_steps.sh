# Sourced by the GPU measuring scripts (power_gpu.sh, several_gpus.sh): a
# budget of wall time and the steps run within it. Needs $d (the output
# folder) and $budget (seconds) set; starts the clock when sourced.
t0=$(date +%s)
left() { echo $((budget - ($(date +%s) - t0))); }
fits() { # NEEDED_S WHAT: whether NEEDED_S is left, else a line in left_out.txt
  [ "$(left)" -ge "$1" ] && return 0
  echo "$2 (needs about $1 s, $(left) s left)" >> "$d/left_out.txt"
  return 1
}
step() { # NAME CMD...: stdout to NAME.txt, stderr to NAME.err, the exit code and time to steps.txt
  local name=$1 s=$(date +%s.%N) code
  shift
  "$@" > "$d/$name.txt" 2> "$d/$name.err"
  code=$?
  echo "$name exit $code $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s" >> "$d/steps.txt"
  return $code
}
