#!/usr/bin/env bash
# kgate bisect end to end on the CPU: a planted git repository of a small
# C "module" (cc, no CUDA) and a stand-in kgate for the paired runs, which
# copies a recorded results file (tests/data/h200-paired.json) with the
# two_pass i32 2^25 cell's ratio set by the modules: 1.012 when only the
# head has the planted marker, 1.000 when both or neither do. The real
# builds, the worktree, the cache, the fingerprints and the outputs run.
# Asserts: the culprit found through a comment-only commit and a failed
# build (exit 0, JSON and Markdown say it); a range without the step is not
# reproduced (exit 4); the nights' own modules that differ while every
# commit builds the same code is outside the module (exit 0); a nightly
# finding whose nights name this repository's commits by their provenance
# is bisected (--history) and its bisect.json makes the page's finding box
# link the culprit (report --bisect); bad input (an unknown commit, an end
# that does not build, a bad option, a team's nights without provenance)
# exits 2.
# usage: bisect_cli.sh KGATE SOURCE_DIR
# shellcheck disable=SC2015 # `A && B || fail`: fail when either does not hold, as meant
set -uo pipefail
kgate=$1 src=$2
for p in git cc; do command -v $p > /dev/null || { echo "bisect_cli: no $p: skipped"; exit 77; }; done
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
fail() { echo "bisect_cli: $*"; exit 1; }

# The stand-in kgate: `run ... --kernels H --base-kernels B ... --json F`.
cat > "$t/fake-kgate" <<EOS
#!/usr/bin/env bash
h= b= j=
while [ \$# -gt 0 ]; do
  case \$1 in --kernels|--own-kernels) h=\$2; shift ;; --base-kernels) b=\$2; shift ;; --json) j=\$2; shift ;; esac
  shift
done
sh=\$(grep -c SLOWMARK "\$h"); sb=\$(grep -c SLOWMARK "\$b")
cell='"variant":"two_pass","dtype":"i32","n":33554432,"verdict":"SLOWER","ratio":1.012,"lo":1.006,"hi":1.018'
f32='"variant":"two_pass","dtype":"f32","n":33554432,"verdict":"SAME","ratio":1.000574,"lo":0.997725,"hi":1.003423'
if [ "\$sh" -gt 0 ] && [ "\$sb" = 0 ]; then new=\$cell new32=\$(echo "\$cell" | sed 's/i32/f32/')
else new='"variant":"two_pass","dtype":"i32","n":33554432,"verdict":"SAME","ratio":1,"lo":0.994,"hi":1.006' new32=\$f32; fi
echo "\$h \$b" >> "$t/pairs.log"
sed "s/\$cell/\$new/; s/\$f32/\$new32/" "$src/tests/data/h200-paired.json" > "\$j"
exit 0
EOS
chmod +x "$t/fake-kgate"

r=$t/repo
mkdir -p "$r" && cd "$r" || exit 1
git init -q . && git config user.email t@example.com && git config user.name t
c() { git add -A && git commit -qm "$1" && git rev-parse HEAD; }
printf 'int team_sum(const int *x, int n) { int s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }\n' > mod.c
echo notes > README
ids=()
ids+=("$(c base)")
for k in 1 2 3; do echo "note $k" >> README; ids+=("$(c "readme $k")"); done
sed -i '1i /* a comment only */' mod.c; ids+=("$(c comment)")                  # 4
printf 'const char *team_mark(void) { return "SLOWMARK"; }\n' >> mod.c; ids+=("$(c slow)")   # 5
echo 'this is not C' >> mod.c; ids+=("$(c broken)")                          # 6
sed -i '$d' mod.c; ids+=("$(c fixed)")                                       # 7
echo "note 4" >> README; ids+=("$(c "readme 4")")                            # 8
cd "$t" || exit 1

# shellcheck disable=SC2016 # expanded by kgate bisect's sh, in the worktree
build='cc -shared -fPIC -O1 -o "$KGATE_BISECT_BUILD/mod.so" mod.c'
run() { "$kgate" bisect --repo "$r" --work "$t/bis" --kgate "$t/fake-kgate" --build "$build" --module mod.so --source mod.c \
  --variant two_pass --dtype i32 --size 33554432 "$@"; }

out=$(run --good "${ids[0]}" --bad "${ids[8]}" --within "${ids[8]}" --effect 1.2 --json "$t/b.json" --markdown "$t/b.md" -q 2>&1)
code=$?
[ -z "${BISECT_SHOW:-}" ] || { echo "$out"; cat "$t/b.md" "$t/b.json"; }
[ $code = 0 ] || fail "found: exit $code: $out"
grep -q "culprit: ${ids[5]} (parent ${ids[4]:0:12})" <<< "$out" || fail "no culprit ${ids[5]}: $out"
grep -q 'commits: 9, skipped as identical 6, failed builds 1, distinct machine code 2 (no device code)' <<< "$out" ||
  fail "counts: $out"
grep -q 'modules: 8 (4 builds run, 5 from the cache)' <<< "$out" || fail "modules: $out"
grep -q '"outcome": *"found"' "$t/b.json" || fail "json: $(cat "$t/b.json")"
grep -q "\"culprit\": *\"${ids[5]}\"" "$t/b.json" || fail "json culprit: $(cat "$t/b.json")"
grep -q "| culprit | \`${ids[5]:0:12}\`" "$t/b.md" || fail "markdown: $(cat "$t/b.md")"
so=("$t"/bis/cache/*.so)
[ ${#so[@]} = 3 ] || fail "cache: $(ls "$t/bis/cache")"   # base, comment, slow (= fixed)
grep -q "mod.c" "$t/bis/logs/build-${ids[6]:0:12}.log" || fail "the broken build's log: $(cat "$t/bis/logs/"*)"
# again: every build comes from the cache
n=$(wc -l < "$t/pairs.log")
out=$(run --good "${ids[0]}" --bad "${ids[8]}" --effect 1.2 2>&1) || fail "again: $out"
grep -q 'building' <<< "$out" && fail "built again despite the cache: $out"
grep -q 'modules: 8 (0 builds run, 8 from the cache)' <<< "$out" || fail "modules the second time: $out"
[ "$(wc -l < "$t/pairs.log")" -gt "$n" ] || fail "no paired runs the second time"

# not reproduced: no step between the ends
run --good "${ids[0]}" --bad "${ids[4]}" --effect 1.2 -q > "$t/o" 2>&1
code=$?
[ $code = 4 ] || fail "not reproduced: exit $code: $(cat "$t/o")"
grep -q 'not reproduced: the environment or the toolchain' "$t/o" || fail "not reproduced: $(cat "$t/o")"

# outside the module: the nights' own modules differ, the range builds one machine code
printf 'int team_sum(const int *x, int n) { return n + x[0]; }\n' > "$t/plain.c"
printf 'int team_sum(const int *x, int n) { return n; }\nconst char *m(void) { return "SLOWMARK"; }\n' > "$t/slow.c"
cc -shared -fPIC -O1 -o "$t/plain.so" "$t/plain.c" && cc -shared -fPIC -O1 -o "$t/slow.so" "$t/slow.c" || fail "cc"
run --good "${ids[0]}" --bad "${ids[3]}" --good-module "$t/plain.so" --bad-module "$t/slow.so" --effect 1.2 -q \
  --json "$t/o.json" > "$t/o" 2>&1
code=$?
[ $code = 0 ] || fail "outside: exit $code: $(cat "$t/o")"
grep -q 'outside the module' "$t/o" || fail "outside: $(cat "$t/o")"
grep -q '"outcome": *"outside"' "$t/o.json" || fail "outside json: $(cat "$t/o.json")"

# A nightly finding to the page: the recorded live nights (tests/data/nightly) with the planted
# cells' names (two_pass for reduce7_shuffle, which regressed, and back), each night's provenance
# naming this repository's commits (fedc545's nights ids[0], c6086ec's ids[8]), as a team's
# nights record them. bisect --history takes the finding's range and cells from it, and the page
# of that history, given its bisect.json, links the culprit in the finding's box.
sed 's/"reduce7_shuffle"/"KGSWAP"/g; s/"two_pass"/"reduce7_shuffle"/g; s/"KGSWAP"/"two_pass"/g' \
  "$src/tests/data/nightly/h100-aa.jsonl" "$src/tests/data/nightly/h100-live.jsonl" |
  sed "s/\"kgate_commit\":\"fedc545a631f\",/&\"provenance\":{\"repository\":\"team\/kernels\",\"sha\":\"${ids[0]}\"},/;
       s/\"kgate_commit\":\"c6086ec42a69\",/&\"provenance\":{\"repository\":\"team\/kernels\",\"sha\":\"${ids[8]}\"},/" > "$t/h.jsonl"
"$kgate" bisect --repo "$r" --work "$t/bis" --kgate "$t/fake-kgate" --history "$t/h.jsonl" --variant two_pass --within "${ids[8]}" \
  --build "$build" --module mod.so --source mod.c --json "$t/f.json" --link https://github.com/team/kernels/commit/ -q \
  > "$t/o" 2>&1
code=$?
[ $code = 0 ] && grep -q "culprit: ${ids[5]}" "$t/o" || fail "--history (the nights' provenance): exit $code: $(cat "$t/o")"
grep -q "cells: two_pass i32 33554432, two_pass i64 33554432, two_pass f32 33554432" "$t/o" || fail "--history cells: $(cat "$t/o")"
KGATE_REPO_URL=https://github.com/team/kernels "$kgate" report "$src/tests/data/nightly/h100-live-night4.json" \
  --html "$t/site" --history "$t/h.jsonl" --bisect "$t/f.json" > "$t/o" 2>&1
code=$?
[ $code = 0 ] || [ $code = 3 ] || fail "report --bisect: exit $code: $(cat "$t/o")" # 3: no gnuplot, the page without charts
box=$(grep -o '<p class="box regression">.*</p>' "$t/site/index.html")
grep -qF "commits <a href=\"https://github.com/team/kernels/compare/${ids[0]}...${ids[8]}\">" <<< "$box" ||
  fail "the finding's range is not the nights' provenance: $box"
grep -qF "<strong>Culprit</strong> (kgate bisect): <a href=\"https://github.com/team/kernels/commit/${ids[5]}\">${ids[5]:0:12}</a>, +" <<< "$box" ||
  fail "the finding's box does not link the culprit: $box"
grep -qF "against its parent <a href=\"https://github.com/team/kernels/commit/${ids[4]}\">${ids[4]:0:12}</a>" <<< "$box" ||
  fail "the finding's box does not link the parent: $box"
grep -qF "**Culprit** (kgate bisect): [\`${ids[5]:0:12}\`](https://github.com/team/kernels/commit/${ids[5]})" "$t/site/summary.md" ||
  fail "the site's summary does not name the culprit: $(cat "$t/site/summary.md")"

# bad input
run --good 0123456789abcdef --bad "${ids[8]}" -q > "$t/o" 2>&1
code=$?
[ $code = 2 ] && grep -q "no commit '0123456789abcdef'" "$t/o" || fail "unknown commit: exit $code: $(cat "$t/o")"
run --good "${ids[0]}" --bad "${ids[6]}" -q > "$t/o" 2>&1
code=$?
[ $code = 2 ] && grep -q 'the last bad commit does not build' "$t/o" || fail "bad end: exit $code: $(cat "$t/o")"
run --good "--upload-pack=x" --bad "${ids[6]}" > "$t/o" 2>&1
code=$?
[ $code = 2 ] && [ "$(wc -l < "$t/o")" = 1 ] && grep -q "bisect: --good '--upload-pack=x' must not start with '-'" "$t/o" ||
  fail "an option as a commit: exit $code: $(cat "$t/o")"
git -C "$r" branch -q side "${ids[4]}"
run --good "${ids[0]}" --bad "${ids[8]}" --within side -q > "$t/o" 2>&1
code=$?
[ $code = 2 ] && grep -q "is not in the first-parent history of side (--within)" "$t/o" || fail "--within: exit $code: $(cat "$t/o")"
# a finding: the recorded team nights (tests/data/nightly), kept before nights recorded their
# provenance: a team's module (no --own) has no commit of its own repository to bisect
# (--kgate: the host-only build drives another kgate's paired runs, else it refuses bisect, exit 3)
"$kgate" bisect --repo "$r" --kgate "$t/fake-kgate" --history "$src/tests/data/nightly/h100-team-live.jsonl" --build true --module m.so > "$t/o" 2>&1
code=$?
[ $code = 2 ] && [ "$(wc -l < "$t/o")" = 1 ] && grep -q "h100-team-live.jsonl: the night of 2026-11-28 00:59 UTC records no commit of the repository it built" "$t/o" ||
  fail "--history without provenance: exit $code: $(cat "$t/o")"
# kgate's own module (--own): kgate_commit is the commit, which this repository lacks
"$kgate" bisect --repo "$r" --kgate "$t/fake-kgate" --history "$src/tests/data/nightly/h100-team-live.jsonl" --own --build true --module m.so > "$t/o" 2>&1
code=$?
[ $code = 2 ] && grep -q "no commit '985859d98c78' in this repository" "$t/o" || fail "--history --own: exit $code: $(cat "$t/o")"
"$kgate" bisect --repo "$r" --kgate "$t/fake-kgate" --history "$src/tests/data/nightly/h100-aa.jsonl" --build true --module m.so > "$t/o" 2>&1
code=$?
[ $code = 2 ] && grep -q "h100-aa.jsonl: no open regression finding 1" "$t/o" || fail "no finding: exit $code: $(cat "$t/o")"
"$kgate" bisect --help > "$t/o" 2>&1 || fail "--help: exit $?"
grep -q '^usage: kgate bisect' "$t/o" || fail "--help: $(cat "$t/o")"
echo "bisect_cli: found, cached, not reproduced, outside the module, a finding to the page's culprit and bad input as planted"
