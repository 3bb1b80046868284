# 4. Comparison, one chart per dtype: the time of each case in this run over
# its baseline time, as a bar from 1; the tolerance of the case as a grey
# band behind it; colour by verdict (SLOWER red, FASTER green, SAME grey).
# Data: columns y ratio bar_lo bar_hi bar_ylo bar_yhi tol_lo tol_hi color
# label_x side verdict label (see the header of the .dat file).
load plots.'/common.gp'
set yrange [-0.6:nrows-0.4] reverse
eval 'set ytics '.ytics
set ytics scale 0 font ',12'
set xrange [xmin:xmax]
set xlabel 'time of this run / baseline time (right of 1: slower)'
set grid xtics noytics
set key outside top center horizontal samplen 1.5 font ',12'
set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lw 1.5 lc rgb '#333333'
set label 1 sizes_note at screen 0.99, screen 0.012 right textcolor rgb '#555555' font ',11'
plot data using (1):1:7:8:5:6 with boxxyerror fs solid 1.0 noborder lc rgb '#e6e6e6' notitle, \
     data using (($3+$4)/2):1:3:4:5:6:9 with boxxyerror fs solid 1.0 noborder lc rgb variable notitle, \
     data using ($11 > 0 ? $10 : NaN):1:13:9 with labels left offset 0.5,0 font ',10' textcolor rgb variable notitle, \
     data using ($11 < 0 ? $10 : NaN):1:13:9 with labels right offset -0.5,0 font ',10' textcolor rgb variable notitle, \
     keyentry with boxes fs solid 1.0 noborder lc rgb color_SLOWER title legend_SLOWER, \
     keyentry with boxes fs solid 1.0 noborder lc rgb color_FASTER title legend_FASTER, \
     keyentry with boxes fs solid 1.0 noborder lc rgb color_SAME title legend_SAME, \
     keyentry with boxes fs solid 1.0 noborder lc rgb '#e6e6e6' title 'tolerance band'
unset output
