# 6. The ratio to the pinned reference, one chart per dtype: a panel per cell
# (name<i>; the cells in findings first, then the nearest to an alarm, as the
# legend line says), per paired night tonight / reference - 1 in % as a point
# with its interval as an error bar, the accepted level dashed, and each
# finding's first bad night as a vertical line in the page's severity colour
# (mark_panel<k>, mark_x<k>, mark_color<k>).
# Data: a block per panel, columns night change lo hi verdict (the night's, not drawn).
load plots.'/common.gp'
set multiplot layout rows,cols title sprintf("%s\n%s\n%s", title, subtitle, legend) font ',13' \
    margins 0.06, 0.99, (70.0/height), (1 - 120.0/height) spacing 0.05, (95.0/height)
set xrange [0.5:nruns+0.5]
set xtics ()
do for [k=1:nxtics] {
  d = value(sprintf('xtic_label%d', k)); t = value(sprintf('xtic_sub%d', k))
  set xtics add ((t eq '' ? d : d."\n".t) value(sprintf('xtic_pos%d', k)))
}
set xtics font ',10'
set ytics font ',10'
set format y '%+.1f %%'
set grid xtics ytics
unset key
do for [i=1:npanels] {
  set title value(sprintf('name%d', i)) font ',12' offset 0,-0.6
  set yrange [value(sprintf('ylo%d', i)):value(sprintf('yhi%d', i))]
  unset arrow
  lv = value(sprintf('level%d', i))
  if (lv == lv) { set arrow 1 from graph 0, first lv to graph 1, first lv nohead dt 2 lw 1.5 lc rgb '#555555' }
  do for [m=1:nmarks] {
    if (value(sprintf('mark_panel%d', m)) == i) {
      set arrow (m + 1) from first value(sprintf('mark_x%d', m)), graph 0 to first value(sprintf('mark_x%d', m)), \
          graph 1 nohead lw 2.5 lc rgb value(sprintf('mark_color%d', m))
    }
  }
  plot data index (i-1) using 1:2:3:4 with yerrorbars pt 7 ps 0.7 lw 1.2 lc rgb '#08519c', \
       data index (i-1) using 1:2 with lines lw 1 lc rgb '#6baed6', \
       data index (i-1) using 1:2:6 with labels hypertext point pt 7 ps 1.4 lc rgb tip_ink notitle
}
unset multiplot
unset output
