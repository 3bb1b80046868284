#!/usr/bin/env bash
# kgate nightly push (publish/push/action.yml), in the one job that may write:
# no kgate, no token, nothing from the GPU job. The files the read-only render
# job handed over (KP_IN) are taken only if
#   - they are the ones it listed (KP_MANIFEST, scripts/ci/manifest.sh);
#   - they are the history (KP_HISTORY) and, with site: branch, the page's
#     plain files under site/ (one folder, a page's names: .html .png .svg
#     .csv .json .dat .vars), nothing else, no link;
#   - the branch checked out at KP_PAGES is still KP_BASE, the commit they
#     were built on (none: there was no branch, and there is none);
#   - the history as the branch has it is kept byte for byte and only
#     appended to, in whole lines;
# then they are committed on the branch, for the push step.
set -euo pipefail
# shellcheck source=scripts/action/lib.sh
. "$(dirname "$0")/lib.sh"
ci="$(dirname "$0")/../ci"
in=${KP_IN:?} pages=${KP_PAGES:?}
# A file handed over that is not taken: exit 2 (bad input), nothing committed.
refuse() { die "push: $1" 2; }
publish_inputs
[[ ${KP_MANIFEST:-} =~ ^[0-9a-f]{64}$ ]] || die "input manifest: give the render job's manifest output" 2
[[ ${KP_BASE:-} == none || ${KP_BASE:-} =~ ^([0-9a-f]{40}|[0-9a-f]{64})$ ]] ||
  die "input base: give the render job's base output (a commit, or none)" 2
[[ -d $in && ! -L $in ]] || refuse "no files handed over (artifact ${KP_HANDOVER_NAME:-})"

got=$("$ci/manifest.sh" "$in")
[[ $got == "$KP_MANIFEST" ]] || refuse "the files handed over are not the ones the render job listed (its manifest)"

# Each entry by name: the history, and the page's files (site: branch) in site/.
page=()
have_history=0
while IFS= read -r -d '' p; do
  p=${p#./}
  if [[ -L $in/$p || ! (-f $in/$p || -d $in/$p) ]]; then
    refuse "'$(printf %q "$p")' is not a plain file"
  elif [[ $p == "$KP_HISTORY" && -f $in/$p ]]; then
    have_history=1
  elif [[ $KP_SITE_MODE == branch && $p == site && -d $in/$p ]]; then
    :
  elif [[ $KP_SITE_MODE == branch && $p =~ ^site/[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.(html|png|svg|csv|json|dat|vars)$ &&
          -f $in/$p ]]; then
    page+=("${p#site/}")
  else
    refuse "'$(printf %q "$p")' is not a file the nightly pushes"
  fi
done < <(cd "$in" && find . -mindepth 1 -print0 | LC_ALL=C sort -z)
[[ $have_history == 1 ]] || refuse "no $KP_HISTORY handed over"

# The branch is where the render job read it.
if [[ ${KP_HAVE_BRANCH:-} != success ]]; then
  [[ $KP_BASE == none ]] || die "push: the branch $KP_BRANCH is gone since the render job read it ($KP_BASE)"
  rm -rf "$pages"
  git init -q -b "$KP_BRANCH" "$pages"
else
  now=$(git -C "$pages" rev-parse HEAD)
  [[ $now == "$KP_BASE" ]] ||
    die "push: the branch $KP_BRANCH moved since the render job read it ($KP_BASE, now $now): not pushed"
fi

# A night appends: the history as the branch has it must be the start of the new one.
old=$pages/$KP_HISTORY new=$in/$KP_HISTORY
if [[ -L $old || (-e $old && ! -f $old) ]]; then
  refuse "$KP_HISTORY on the branch is not a plain file"
elif [[ -f $old ]] && ! cmp -s -n "$(stat -c %s "$old")" "$old" "$new"; then
  refuse "$KP_HISTORY does not keep the branch's history as it was (a night only appends)"
elif [[ -s $new && $(tail -c1 "$new" | wc -l) != 1 ]]; then
  refuse "$KP_HISTORY does not end in a whole line"
fi
for b in "${page[@]}"; do
  [[ ! -L $pages/$b && (! -e $pages/$b || -f $pages/$b) ]] || refuse "$b on the branch is not a plain file"
done

cp "$new" "$old"
git -C "$pages" add -- "$KP_HISTORY"
if [[ $KP_SITE_MODE == branch ]]; then
  for b in "${page[@]}"; do
    cp "$in/site/$b" "$pages/$b"
    git -C "$pages" add -- "$b"
  done
  touch "$pages/.nojekyll" # the page's files as they are, no Jekyll build
  git -C "$pages" add -- .nojekyll
fi
git -C "$pages" config user.name "kgate nightly"
git -C "$pages" config user.email "kgate-nightly@users.noreply.github.com"
git -C "$pages" commit -q -m "kgate nightly ${KP_RUN_ID:-}" || echo "::notice::kgate nightly: the history is unchanged"
echo "kgate nightly: $KP_HISTORY${page[*]:+ and ${#page[@]} page file(s)} committed on $KP_BRANCH"
