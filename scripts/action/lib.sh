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

valid_repo() {
  [[ $1 =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]
}
