# shellcheck shell=bash
# Helpers of the kgate action's scripts (sourced).

# One ::error:: line, then exit 3 (the environment, in kgate's exit codes).
die() {
  local msg=${1//%/%25}
  echo "::error::kgate action: ${msg//$'\n'/ }" >&2
  exit "${2:-3}"
}

# A step output: name=value (values are single lines here).
out() {
  [[ $2 != *$'\n'* ]] || die "output $1 holds a line break"
  echo "$1=$2" >> "${GITHUB_OUTPUT:?}"
}

# A git ref or commit a person would write: no option, no revision syntax.
valid_ref() {
  [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}$ && $1 != *..* ]]
}

# The history's branch and its file's name (exit 2 on a bad one), named as
# the caller's inputs are: history_inputs BRANCH HISTORY BRANCH-INPUT HISTORY-INPUT.
history_inputs() {
  valid_ref "$1" || die "input $3: '$1' is not a plain branch name" 2
  [[ $2 =~ ^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.jsonl$ ]] || die "input $4: '$2' is not a file name ending in .jsonl" 2
}

# The inputs the nightly's render and push steps share: the branch, the
# history's file name and the site mode (exit 2 on a bad one).
publish_inputs() {
  history_inputs "${KP_BRANCH:-}" "${KP_HISTORY:-}" branch history
  case ${KP_SITE_MODE:-pages} in
    pages | branch | none) ;;
    *) die "input site: '$KP_SITE_MODE' is not pages, branch or none" 2 ;;
  esac
}

valid_repo() {
  [[ $1 =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]
}

# The variants a module adds to kgate's own, comma-separated, then cub_sum
# when kgate has it: the names `kgate list --kernels M` prints that `kgate
# list` does not (first column, past the header).
module_variants() {
  local kgate=$1 so=$2 own mod
  own=$("$kgate" list) || return 1
  mod=$("$kgate" list --kernels "$so") || return 1
  awk -v own="$own" '
    BEGIN { n = split(own, l, "\n"); for (i = 2; i <= n; i++) { split(l[i], f, " "); seen[f[1]] = 1 } }
    NR > 1 && $1 != "" && !($1 in seen) { out = out (out == "" ? "" : ",") $1 }
    END { if (out == "") exit 1; if ("cub_sum" in seen) out = out ",cub_sum"; print out }' <<< "$mod"
}
