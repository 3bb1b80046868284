# 1. Bandwidth against size, one chart per dtype, as small multiples: a panel
# per variant family (panel_title<k>), CUB and kgate's own kernel (panels
# word 0) drawn in every panel as the references, so no panel holds more than
# its family plus two lines. GB/s against n (log2 axis), the theoretical peak
# and the measured roofline as labelled grey horizontal lines (references,
# not data), the L2 size marked (sizes left of it fit in the cache, so their
# times depend on what the cache holds). Within a panel the hues are distinct
# (pcolors); CUB is black, kgate red.
# Data: one block per variant, columns n gbps pct_peak median_us.
load plots.'/common.gp'
set multiplot layout rows,cols title sprintf("%s\n%s", title, subtitle) font ',14' \
    margins 0.06, 0.99, (75.0/height), (1 - 95.0/height) spacing 0.07, (70.0/height)
set logscale x 2
set xrange [xmin:xmax]
set xtics ()
do for [k=1:nxtics] { set xtics add (value(sprintf('xtic_label%d', k)) value(sprintf('xtic_pos%d', k))) }
set xtics font ',10'
set ytics font ',10'
set mxtics default
set ylabel 'GB/s' font ',11' offset 1.5,0
set yrange [0:ymax]
set grid xtics ytics
set key inside left top vertical Left reverse samplen 2 spacing 1.0 font ',10' opaque box lc rgb '#dddddd'
if (l2_n == l2_n) {
  set object 1 rect from graph 0, graph 0 to first l2_n, graph 1 fc rgb '#f2f2f2' fs solid 1.0 noborder behind
  set arrow 1 from first l2_n, graph 0 to first l2_n, graph 1 nohead dt 3 lw 1.5 lc rgb '#666666'
  set label 1 '◂ fits in the '.l2_label at first l2_n, graph 0.04 right offset -0.6,0 textcolor rgb '#555555' font ',9'
}
if (peak == peak) {
  set arrow 2 from graph 0, first peak to graph 1, first peak nohead dt 2 lw 1.5 lc rgb '#444444'
  set label 2 sprintf('peak %.0f GB/s', peak) at graph 0.99, first peak right offset 0,0.6 textcolor rgb '#333333' font ',9'
}
if (roofline == roofline) {
  set arrow 3 from graph 0, first roofline to graph 1, first roofline nohead dt 4 lw 1.5 lc rgb '#8c8c8c'
  set label 3 sprintf('roofline %.0f GB/s', roofline) at graph 0.99, first roofline right offset 0,-0.7 \
      textcolor rgb '#555555' font ',9'
}
do for [p=1:npanels] {
  set title value(sprintf('panel_title%d', p)) font ',12' offset 0,-0.5
  set xlabel (p > npanels - cols ? xlabel : '') font ',10'
  members = ''
  do for [i=1:nseries] { if (int(word(panels, i)) == p || int(word(panels, i)) == 0) { members = members.' '.i } }
  plot for [w in members] data index (int(w)-1) using 1:2 with linespoints lw 2 pt int(word(points, int(w))) ps 0.8 \
       lc rgb word(pcolors, int(w)) title value(sprintf('name%d', int(w))), \
       for [w in members] data index (int(w)-1) using 1:2:5 with labels hypertext point pt 7 ps 1.4 lc rgb tip_ink notitle
}
unset multiplot
unset output
