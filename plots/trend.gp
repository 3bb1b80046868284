# 3. Trend, one chart per dtype: % of theoretical peak at 2²⁵ (or the
# largest size the history timed) over the runs of a history, one panel per
# variant; the baseline as a band (its median, dashed, and its tolerance),
# quartiles as error bars, a cell on a night the nightly's detector calls
# REGRESSION as a triangle (mark -1; the night's verdict is the last column),
# a run whose median lies outside the band as a ring; the markers in the
# page's severity colour (sev_regression).
# Data: one block per variant, rows run pct_peak pct_at_q3 pct_at_q1 mark verdict.
load plots.'/common.gp'
set multiplot layout rows,cols title sprintf("%s\n%s\n%s", title, subtitle, legend) font ',14' \
    margins 0.055, 0.99, (70.0/height), (1 - 120.0/height) spacing 0.05, (100.0/height)
set xrange [0.5:nruns+0.5]
# a tick's time, when it has one, under its date
set xtics ()
do for [k=1:nxtics] {
  d = value(sprintf('xtic_label%d', k)); t = value(sprintf('xtic_sub%d', k))
  set xtics add ((t eq '' ? d : d."\n".t) value(sprintf('xtic_pos%d', k)))
}
set xtics font ',10'
set ytics font ',10'
# the unit on every tick: the panels are too small for an axis label each
set format y '%g %%'
set grid xtics ytics
unset key
do for [i=1:nseries] {
  set title value(sprintf('name%d', i)) font ',12' offset 0,-0.6
  set yrange [real(word(yranges, 2*i-1)):real(word(yranges, 2*i))]
  unset object 1
  unset arrow 1
  mid = real(word(base_mid, i))
  lo = real(word(base_lo, i))
  hi = real(word(base_hi, i))
  if (mid == mid) {
    set object 1 rect from graph 0, first real(word(base_lo, i)) to graph 1, first real(word(base_hi, i)) \
        fc rgb '#e8e8e8' fs solid 1.0 noborder behind
    set arrow 1 from graph 0, first mid to graph 1, first mid nohead dt 2 lw 1.5 lc rgb '#555555'
  }
  plot data index (i-1) using 1:2:3:4 with yerrorbars pt 0 lw 1 lc rgb '#6baed6', \
       data index (i-1) using 1:2 with linespoints lw 2 pt 7 ps (nruns > 60 ? 0.3 : 0.8) lc rgb '#08519c', \
       data index (i-1) using 1:($5 < 0 ? $2 : NaN) with points pt 11 ps 2.2 lc rgb sev_regression, \
       data index (i-1) using 1:(mid == mid && ($2 < lo || $2 > hi) ? $2 : NaN) with points pt 6 ps 2.6 lw 2 \
            lc rgb sev_regression, \
       data index (i-1) using 1:2:7 with labels hypertext point pt 7 ps 1.4 lc rgb tip_ink notitle
}
unset multiplot
unset output
