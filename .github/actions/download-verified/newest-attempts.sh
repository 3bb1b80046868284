#!/usr/bin/env bash
# "Re-run failed jobs" runs them again under a new attempt number, and the jobs
# that passed keep the artifacts of their own attempt. From SRC (one folder per
# artifact, STEM-RUN_ID-ATTEMPT, as download-artifact leaves them without
# merge-multiple), copy into DEST the files of each STEM's newest attempt up to
# ATTEMPT: each job's files from one attempt of it, never two attempts of one
# job mixed (a file both name is refused), none from a later attempt. Every
# STEM named after ATTEMPT must be there: a partial set is refused.
#   newest-attempts.sh SRC DEST RUN_ID ATTEMPT [STEM...]
set -euo pipefail
die() { echo "::error::download-verified: $1" >&2; exit 1; }
src=${1:?usage: newest-attempts.sh SRC DEST RUN_ID ATTEMPT [STEM...]} dest=${2:?} run=${3:?} attempt=${4:?}
shift 4
[[ $run =~ ^[0-9]+$ && $attempt =~ ^[1-9][0-9]*$ ]] || die "run id '$run' or attempt '$attempt' is not a number"
declare -A newest=()
shopt -s nullglob
for d in "$src"/*/; do
  name=$(basename "$d")
  [[ $name =~ ^([A-Za-z0-9._-]+)-${run}-([1-9][0-9]*)$ ]] || die "artifact '$name' is not STEM-$run-ATTEMPT"
  stem=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
  ((n <= attempt)) || die "artifact '$name' comes from attempt $n, after this one ($attempt)"
  if [[ -z ${newest[$stem]:-} ]] || ((n > newest[$stem])); then newest[$stem]=$n; fi
done
for stem in "$@"; do
  [[ -n ${newest[$stem]:-} ]] || die "no artifact $stem-$run-* in this run: a partial set is not read"
done
[[ ${#newest[@]} -gt 0 ]] || die "no artifact of run $run in $src"
mkdir -p "$dest"
for stem in $(printf '%s\n' "${!newest[@]}" | LC_ALL=C sort); do
  from="$src/$stem-$run-${newest[$stem]}"
  echo "$stem: attempt ${newest[$stem]}"
  while IFS= read -r -d '' f; do
    rel=${f#"$from"/}
    [[ -f $f && ! -L $f ]] || die "$stem: $rel is not a plain file"
    [[ ! -e $dest/$rel ]] || die "$rel is in two artifacts (another is $stem's): which one is meant?"
    mkdir -p "$dest/$(dirname "$rel")"
    cp "$f" "$dest/$rel"
  done < <(find "$from" -mindepth 1 \( -type f -o -type l \) -print0 | LC_ALL=C sort -z)
done
