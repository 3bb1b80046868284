# 5. The paired gate, one chart per dtype: per cell (variant, n), the change
# head / base - 1 in % as a point with its confidence interval as an error
# bar, and the cell's minimum effect as a shaded band around 0. Colour by
# verdict: SLOWER red, FASTER green, SAME black, UNDECIDED grey. NEW,
# MISSING, UNKNOWN and UNCHANGED cells have no numbers: their rows hold
# only a label.
# Data: columns y change lo hi shown shown_lo shown_hi band band_ylo band_yhi
# color label_x verdict label (see the header of the .dat file).
load plots.'/common.gp'
set title sprintf("%s\n%s\n%s", title, subtitle, note) font ',15'
set yrange [nrows-0.4:-0.6]
set ytics ()
do for [k=1:nytics] { set ytics add (value(sprintf('ytic_label%d', k)) value(sprintf('ytic_pos%d', k))) }
set ytics scale 0 font ',12'
set xrange [xmin:xmax]
set xlabel 'change of head against base, % (right of 0: slower)'
# the labels stand in a column right of the plot
set rmargin 34
set label 2 'verdict, change [interval]' at graph 1, graph 1 left offset 1,0.8 textcolor rgb '#333333' font ',11'
set grid xtics noytics
set bmargin 6
set key at screen 0.5, screen 0.015 center bottom horizontal maxcols 5 samplen 1.5 width 1 font ',12'
set arrow 1 from first 0, graph 0 to first 0, graph 1 nohead lw 1.5 lc rgb '#333333'
plot data using (0):1:(-$8):8:9:10 with boxxyerror fs solid 1.0 noborder lc rgb '#e6e6e6' notitle, \
     data using 5:1:6:7:11 with xerrorbars pt 7 ps 1.2 lw 2 lc rgb variable notitle, \
     data using 12:1:14:11 with labels left offset 1,0 font ',10' textcolor rgb variable notitle, \
     data using 5:1:15 with labels hypertext point pt 7 ps 1.4 lc rgb tip_ink notitle, \
     keyentry with points pt 7 ps 1.2 lc rgb color_SLOWER title 'SLOWER', \
     keyentry with points pt 7 ps 1.2 lc rgb color_FASTER title 'FASTER', \
     keyentry with points pt 7 ps 1.2 lc rgb color_SAME title 'SAME', \
     keyentry with points pt 7 ps 1.2 lc rgb color_UNDECIDED title 'UNDECIDED', \
     keyentry with boxes fs solid 1.0 noborder lc rgb '#e6e6e6' title 'minimum effect'
unset output
