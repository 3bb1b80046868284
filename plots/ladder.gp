# 2. The ladder, one chart per dtype: % of theoretical peak per variant at
# 2²² and 2²⁵ (horizontal bars, variants top to bottom in ladder order),
# the value printed at the end of each bar, the measured roofline marked.
# Data: columns row variant pct_<size1> [pct_<size2>].
load plots.'/common.gp'
set yrange [-0.6:nrows-0.4] reverse
set ytics scale 0 font ',12'
set xrange [0:xmax]
set xtics 10
set xlabel '% of theoretical peak bandwidth'
set grid xtics noytics
set key outside top center horizontal samplen 1.5 font ',12'
# bar k of a variant sits off its row by off(k); half its height is hh
off(k) = nsizes > 1 ? (k - 1.5) * 0.4 : 0
hh = nsizes > 1 ? 0.18 : 0.3
set arrow 1 from first 100, graph 0 to first 100, graph 1 nohead dt 2 lw 1.5 lc rgb '#b2182b'
set label 1 'theoretical peak' at first 100, graph 1 right offset -0.4,-0.8 textcolor rgb '#b2182b' font ',11'
if (roofline_pct == roofline_pct) {
  set arrow 2 from first roofline_pct, graph 0 to first roofline_pct, graph 1 nohead dt 4 lw 1.5 lc rgb '#e08214'
  set label 2 sprintf('measured roofline %.0f %%', roofline_pct) at first roofline_pct, graph 1 right offset -0.4,-2 \
      textcolor rgb '#b35806' font ',11'
}
plot data using (0):1:ytic(2) with points ps 0 notitle, \
     for [k=1:nsizes] data using (column(2+k)/2):($1+off(k)):(column(2+k)/2):(hh) with boxxyerror \
       fs solid 1.0 noborder lc rgb value('color'.k) title value('size'.k), \
     for [k=1:nsizes] data using (column(2+k)):($1+off(k)):(sprintf('%.1f', column(2+k))) with labels left \
       offset 0.4,0 font ',10' textcolor rgb '#222222' notitle
unset output
