# 4. Comparison, one chart per dtype, as small multiples: a panel per size
# (panel_title<p>), a row per variant in every panel (ytic_label<k>, on the
# left column only), one bar a row: the time of the case in this run over its
# baseline time, as a bar from 1; the case's tolerance as a grey band behind
# it; colour by verdict (SLOWER amber, FASTER green, SAME grey: the page's
# severity scale). Only SLOWER and FASTER carry their change as a label,
# beside the bar's end; a case with no ratio (NEW, MISSING) its verdict at 1.
# Sizes without a panel are named in the line `left`.
# Data: a block per panel, columns y ratio bar_lo bar_hi bar_ylo bar_yhi
# tol_lo tol_hi color label_x side verdict label (see the .dat header).
load plots.'/common.gp'
top = (left eq '' ? 110.0 : 130.0)
set multiplot layout rows,cols title sprintf("%s\n%s\n%s%s", title, subtitle, note, (left eq '' ? '' : "\n".left)) \
    font ',13' margins (210.0/width), (1 - 20.0/width), (75.0/height), (1 - top/height) spacing (30.0/width), (60.0/height)
set yrange [nrows-0.5:-0.5]
set ytics scale 0 font ',10'
set xrange [xmin:xmax]
set xtics font ',9'
set format x '%g'
set grid xtics noytics
unset key
set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lw 1.2 lc rgb '#333333'
do for [p=1:npanels] {
  set title value(sprintf('panel_title%d', p)) font ',12' offset 0,-0.6
  set ytics ()
  do for [k=1:nytics] {
    set ytics add (((p - 1) % cols == 0 ? value(sprintf('ytic_label%d', k)) : '') value(sprintf('ytic_pos%d', k)))
  }
  set xlabel (p > npanels - cols ? 'this run / baseline (right of 1: slower)' : '') font ',10'
  plot data index (p-1) using (1):1:7:8:5:6 with boxxyerror fs solid 1.0 noborder lc rgb '#e9e9e9', \
       data index (p-1) using (($3+$4)/2):1:3:4:5:6:9 with boxxyerror fs solid 1.0 noborder lc rgb variable, \
       data index (p-1) using 10:1:($11 > 0 ? stringcolumn(13) : ''):9 with labels left offset 0.4,0 font ',9' \
            textcolor rgb variable, \
       data index (p-1) using 10:1:($11 < 0 ? stringcolumn(13) : ''):9 with labels right offset -0.4,0 font ',9' \
            textcolor rgb variable, \
       data index (p-1) using 10:1:($11 == 0 ? stringcolumn(13) : ''):9 with labels center font ',9' \
            textcolor rgb variable, \
       data index (p-1) using 10:1:14 with labels hypertext point pt 5 ps 1.6 lc rgb tip_ink notitle
}
unset multiplot
unset output
