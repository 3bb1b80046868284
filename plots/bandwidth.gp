# 1. Bandwidth against size, one chart per dtype: GB/s against n (log2
# axis), a line per variant, the theoretical peak and the measured roofline
# as labelled grey horizontal lines (references, not data), the L2 size marked (sizes left of it fit in
# the cache, so their times depend on what the cache holds).
# Data: one block per variant, columns n gbps pct_peak median_us.
load plots.'/common.gp'
set logscale x 2
set xrange [xmin:xmax]
set xtics ()
do for [k=1:nxtics] { set xtics add (value(sprintf('xtic_label%d', k)) value(sprintf('xtic_pos%d', k))) }
set mxtics default
set xlabel xlabel
set ylabel 'bandwidth (GB/s, 10⁹ bytes/s)'
set yrange [0:ymax]
set grid xtics ytics
set key outside right top vertical Left reverse samplen 2.5 spacing 1.05 width 1 title 'variant (ladder order)' font ',12'
if (l2_n == l2_n) {
  set object 1 rect from graph 0, graph 0 to first l2_n, graph 1 fc rgb '#f2f2f2' fs solid 1.0 noborder behind
  set arrow 1 from first l2_n, graph 0 to first l2_n, graph 1 nohead dt 3 lw 1.5 lc rgb '#666666'
  set label 1 '◂ input fits in the '.l2_label.': cache-sensitive' at first l2_n, graph 0.975 right offset -0.6,0 textcolor rgb '#555555' font ',11'
}
if (peak == peak) {
  set arrow 2 from graph 0, first peak to graph 1, first peak nohead dt 2 lw 2 lc rgb '#444444'
  set label 2 sprintf('theoretical peak %.0f GB/s', peak) at graph 0.01, first peak offset 0,0.75 textcolor rgb '#333333' font ',11'
}
if (roofline == roofline) {
  set arrow 3 from graph 0, first roofline to graph 1, first roofline nohead dt 4 lw 2 lc rgb '#8c8c8c'
  set label 3 sprintf('measured roofline %.0f GB/s (%.0f %% of peak)', roofline, peak == peak ? 100*roofline/peak : 0) \
      at graph 0.01, first roofline offset 0,-0.85 textcolor rgb '#555555' font ',11'
}
plot for [i=1:nseries] data index (i-1) using 1:2 with linespoints lw 2 pt int(word(points,i)) ps 1.0 \
     lc rgb word(colors,i) title value(sprintf('name%d', i))
unset output
