# 4. Comparison, one chart per dtype: the time of each case in this run over
# its baseline time, as a bar from 1; the tolerance of the case as a grey
# band behind it; colour by verdict (SLOWER red, FASTER green, SAME grey).
# Data: columns y ratio bar_lo bar_hi bar_ylo bar_yhi tol_lo tol_hi color
# label_x verdict label (see the header of the .dat file).
load plots.'/common.gp'
set title sprintf("%s\n%s\n%s", title, subtitle, note) font ',15'
set yrange [nrows-0.4:-0.6]
set ytics ()
do for [k=1:nytics] { set ytics add (value(sprintf('ytic_label%d', k)) value(sprintf('ytic_pos%d', k))) }
set ytics scale 0 font ',12'
set ylabel sizes_note font ',12'
set xrange [xmin:xmax]
set xlabel 'time of this run / baseline time (right of 1: slower)'
# the labels stand in a column right of the plot
set rmargin 18
set label 2 'change' at graph 1, graph 1 left offset 1,0.8 textcolor rgb '#333333' font ',11'
set grid xtics noytics
set bmargin 6
set key at screen 0.5, screen 0.015 center bottom horizontal maxcols 4 samplen 1.5 width 1 font ',12'
set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lw 1.5 lc rgb '#333333'
plot data using (1):1:7:8:5:6 with boxxyerror fs solid 1.0 noborder lc rgb '#e6e6e6' notitle, \
     data using (($3+$4)/2):1:3:4:5:6:9 with boxxyerror fs solid 1.0 noborder lc rgb variable notitle, \
     data using 10:1:12:9 with labels left offset 1,0 font ',10' textcolor rgb variable notitle, \
     keyentry with boxes fs solid 1.0 noborder lc rgb color_SLOWER title legend_SLOWER, \
     keyentry with boxes fs solid 1.0 noborder lc rgb color_FASTER title legend_FASTER, \
     keyentry with boxes fs solid 1.0 noborder lc rgb color_SAME title legend_SAME, \
     keyentry with boxes fs solid 1.0 noborder lc rgb '#e6e6e6' title "the case's tolerance"
unset output
