# 2. The ladder, one chart per dtype: % of theoretical peak per variant at
# 2²² and 2²⁵ (horizontal bars, variants top to bottom in ladder order),
# the value printed at the end of each bar, the measured roofline marked.
# Data: columns row variant pct_<size1> [pct_<size2>].
load plots.'/common.gp'
# top to bottom: the first rung on top
set yrange [nrows-0.4:-0.6]
set ytics scale 0 font ',12'
set xrange [0:xmax]
set xtics 10
set xlabel '% of theoretical peak bandwidth'
set grid xtics noytics
# the key under the x label, clear of the bars and their values
set bmargin 6
set key at screen 0.5, screen 0.015 center bottom horizontal samplen 1.5 font ',12'
# bar k of a variant sits off its row by off(k); half its height is hh
off(k) = nsizes > 1 ? (k - 1.5) * 0.4 : 0
hh = nsizes > 1 ? 0.18 : 0.3
set arrow 1 from first 100, graph 0 to first 100, graph 1 nohead dt 2 lw 1.5 lc rgb '#444444'
# labels along their lines, top down: side by side they would collide
set label 1 'theoretical peak' at first 100, graph 0.99 right rotate by 90 offset -1.1,0 textcolor rgb '#333333' font ',11'
if (roofline_pct == roofline_pct) {
  set arrow 2 from first roofline_pct, graph 0 to first roofline_pct, graph 1 nohead dt 4 lw 1.5 lc rgb '#8c8c8c'
  set label 2 sprintf('measured roofline %.0f %%', roofline_pct) at first roofline_pct, graph 0.99 right rotate by 90 \
      offset -1.1,0 textcolor rgb '#555555' font ',11'
}
# a thin line between variant families (Harris, in place, atomics, ...)
do for [s in separators] {
  set arrow from graph 0, first real(s) to graph 1, first real(s) nohead lw 1 lc rgb '#bbbbbb'
}
plot data using (0):1:ytic(2) with points ps 0 notitle, \
     for [k=1:nsizes] data using (column(2+k)/2):($1+off(k)):(column(2+k)/2):(hh) with boxxyerror \
       fs solid 1.0 noborder lc rgb value('color'.k) title value('size'.k), \
     for [k=1:nsizes] data using (column(2+k)):($1+off(k)):(sprintf(column(2+k) < 1 ? '%.2f' : '%.1f', column(2+k))) with labels left \
       offset 0.4,0 font ',10' textcolor rgb '#222222' notitle, \
     for [k=1:nsizes] data using (column(2+k)):($1+off(k)):(stringcolumn(2+nsizes+k)) with labels hypertext point pt 5 ps 1.6 lc rgb tip_ink notitle
unset output
