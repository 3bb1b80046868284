/* Drawing: runs gnuplot (a child process) on the chart data of chart.h with
 * the scripts in plots/, to <name>.png (pngcairo) and <name>.svg. */
#ifndef KG_PLOT_H
#define KG_PLOT_H

#include <stddef.h>

#include "chart.h"

/* The one message for a missing gnuplot (docs/charts-and-page.md; exit 3). */
#define KG_NO_GNUPLOT "gnuplot not found: install gnuplot (apt-get install gnuplot-nox) to draw charts"

typedef enum kg_plot_status {
  KG_PLOT_OK = 0,
  KG_PLOT_NO_GNUPLOT, /* not on PATH */
  KG_PLOT_NO_SCRIPTS, /* the gnuplot scripts of plots/ not found */
  KG_PLOT_FAILED,     /* gnuplot failed on a chart, or wrote no image */
  KG_PLOT_IO          /* the output folder cannot be made or written */
} kg_plot_status;

/* gnuplot's path from PATH. 0, or -1 when it is not there. */
int kg_gnuplot_find(char *path, size_t len);

/* The folder holding the gnuplot scripts, absolute. In this order:
 * $KGATE_PLOTS; <executable's folder>/../share/kgate/plots (an installed
 * kgate); the source tree's plots/ (KG_SOURCE_DIR, set at build time).
 * 0, or -1 with err saying where it looked. */
int kg_plot_scripts(char *dir, size_t len, char *err, size_t errlen);

/* Draws every chart: <dir>/<name>.png and .svg, each written to a temporary
 * name and renamed once gnuplot has succeeded, so a failed chart leaves no
 * half image. Checks for gnuplot and the scripts first. On failure err holds
 * one line (with gnuplot's last message when it failed). */
kg_plot_status kg_plot_render(const char *dir, const kg_charts *charts, char *err, size_t errlen);

#endif
