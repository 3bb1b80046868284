#!/bin/bash
# Lints corpus listings and compares each kernel's sides with corpus-expect.tsv
# (README.md, "The corpus"). A listing is named SOURCE_smNN_OL.{nvdisasm,cuobjdump}
# (split_*: split_fenced.cu and split_unfenced.cu linked into one cubin). A
# kernel is matched by its identifier as the mangling spells it (<length><name>);
# every kernel of cub_algos is expected clean; a row KERNEL@TOOL holds for
# that tool's listings only (nvdisasm, cuobjdump). Prints each mismatch, then one
# line per listing: source arch level false-findings misses.
# usage: corpus-check.sh KGATE LISTING...   (exit 1 on any mismatch)
set -u
kgate=$1; shift
tsv=$(dirname "$0")/corpus-expect.tsv
bad=0
for f in "$@"; do
  b=$(basename "$f"); stem=${b%%_sm[0-9]*}; rest=${b#"$stem"_sm}
  arch=${rest%%_*}; lev=${rest#*_O}; lev=${lev%%.*}; tool=${b##*.}
  case $stem in split) srcs="split_fenced.cu split_unfenced.cu" ;; *) srcs="$stem.cu" ;; esac
  out=$("$kgate" lint "$f" 2>&1)
  res=$( { printf '%s\n' "$out" | sed -n 's/^\([^ ]*\) (sm_[0-9]*): \([a-z]*\): .*/F \1 \2/p'
           sed -n 's/^[[:space:]]*\.type[[:space:]]*\([^,]*\),@function.*/K \1/p; s/^[[:space:]]*Function : \(.*\)$/K \1/p' "$f"
           awk -F'\t' -v s=" $srcs " -v tool="$tool" '!/^#/ && index(s, " " $1 " ") {
             k = $2; t = ""; if (i = index(k, "@")) { t = substr(k, i + 1); k = substr(k, 1, i - 1) }
             if (t == "" && !(k in row)) row[k] = $3
             if (t == tool) row[k] = $3
           } END { for (k in row) print "E", k, row[k] }' "$tsv"; } |
    awk -v cub="$([ "$stem" = cub_algos ] && echo 1)" '
      function ident(sym, k,   w) { w = length(k) k; return sym ~ ("(^|[^0-9])" w "($|[^A-Za-z0-9_])") || sym ~ ("(^|[^0-9])" w "[A-Z]") || sym ~ ("(^|[^0-9])" w "[a-z]") }
      $1 == "F" { got[$2] = got[$2] (index(got[$2], $3) ? "" : $3 ",") }
      $1 == "K" { syms[$2] = 1 }
      $1 == "E" { ne++; en[ne] = $2; es[ne] = $3 }
      END {
        for (i = 1; i <= ne; i++) {
          g = ""; seen = 0
          for (s in syms) if (s == en[i] || (s ~ /^_Z/ && ident(s, en[i]))) { seen = 1; n = split(got[s], a, ","); for (j = 1; j < n; j++) if (!index(g, a[j])) g = g a[j] ","; claimed[s] = 1 }
          if (!seen) continue
          want = es[i] == "none" ? "" : es[i] ","
          fal = 0; mis = 0
          n = split(g, a, ","); for (j = 1; j < n; j++) if (!index(want, a[j])) fal = 1
          n = split(want, a, ","); for (j = 1; j < n; j++) if (!index(g, a[j])) mis = 1
          if (fal || mis) print "  " en[i] ": want " es[i] ", got " (g == "" ? "none" : substr(g, 1, length(g) - 1))
          nf += fal; nm += mis
        }
        for (s in got) if (!(s in claimed)) { print "  " s ": want " (cub ? "none" : "(no row)") ", got " got[s]; nf++ }
        print "=", nf + 0, nm + 0
      }')
  fm=$(printf '%s\n' "$res" | sed -n 's/^= //p')
  printf '%s\n' "$res" | grep -v '^= ' | sed "s|^|$b|"
  printf '%-16s sm_%s O%s %-9s false %s misses %s\n' "$stem" "$arch" "$lev" "$tool" ${fm% *} ${fm#* }
  [ "$fm" = "0 0" ] || bad=1
done
exit $bad
