# Shared by every kgate chart: terminal, fonts, colours, axes.
# The caller sets: vars (the chart's settings file, written by kgate),
# fmt ('png' or 'svg') and out (the image file). kgate runs gnuplot in the
# output folder, so the settings name the data file relatively.
# Text in the settings (GPU names, dates, commits, variant names) comes from
# files made elsewhere: it is only ever used as a value, never pasted into a
# command (no eval, no @macro, no backquote), so gnuplot never runs it.
reset
set encoding utf8
if (!exists("fmt")) fmt = 'png'
load vars
if (!exists("width")) width = 1400
if (!exists("height")) height = 800
# noenhanced: variant names hold underscores, which enhanced text would
# turn into subscripts. Sizes use Unicode superscripts instead (2²⁵).
if (fmt eq 'svg') {
  set terminal svg size width,height dynamic noenhanced font 'DejaVu Sans,13' background rgb 'white'
} else {
  set terminal pngcairo size width,height noenhanced font 'DejaVu Sans,13' background rgb 'white'
}
if (exists("out")) set output out
set datafile missing '?'
# Each point's tooltip (the last column of its .dat row) is drawn as a
# hypertext label on an invisible point (alpha ff: transparent); kgate turns
# it into the point's <title> in the SVG and drops what gnuplot wrote there.
tip_ink = '#ff000000'
set border 3 lw 1 lc rgb '#555555'
set tics nomirror out scale 0.6 textcolor rgb '#222222'
set grid lc rgb '#e0e0e0' lw 1 dt 1
# The title block: the chart's title, then GPU, date and commit in grey.
set title sprintf("%s\n%s", title, subtitle) font ',15' textcolor rgb '#111111'
