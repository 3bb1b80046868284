/* What kgate adds to the SVG gnuplot draws (plot.c runs it on each chart
 * before the file takes its name): the chart's caption as the document's
 * <title>; each point's tooltip (the hypertext labels the scripts draw from
 * the last column of the .dat, chart_io.h's kg__dat_tip) as that point's
 * <title>, which a browser shows on hover with no script; no <title> of
 * gnuplot's own ("data index (i-1) using 1:2", "gnuplot_plot_3"); and a
 * dark rendering under prefers-color-scheme: dark. */
#ifndef KG_SVG_H
#define KG_SVG_H

#include <stddef.h>

/* Rewrites the SVG at path in place (atomically); one without gnuplot's
 * <title>Gnuplot</title> is left as it is. 0, or -1 with err when it cannot
 * be read or written. */
int kg_svg_finish(const char *path, const char *caption, char *err, size_t errlen);

/* The chart's size in pixels, from the viewBox gnuplot writes first
 * ("0 0 W H"): 0, or -1 when the file has none. */
int kg_svg_size(const char *path, int *w, int *h);

#endif
