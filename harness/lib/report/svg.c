/* gnuplot's SVG, finished for the page (svg.h). gnuplot writes a point's
 * hypertext as a call to a script it only includes in its "mouse" mode
 * (gnuplot_svg.showHypertext(evt,'text') on a <g>, with an empty <title>),
 * and titles every plot with its command; the page has no script, so the
 * text moves into the <title> a browser shows by itself, and the commands go. */
#include "svg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fileio.h"

enum { KG_SVG_LIMIT = 64 << 20 }; /* gnuplot's largest chart is a few MB */

static const char k_doc_title[] = "<title>Gnuplot</title>";
static const char k_tip_open[] = "<g onmousemove=\"gnuplot_svg.showHypertext(evt,'";
static const char k_tip_close[] = "')\" onmouseout=\"gnuplot_svg.hideHypertext()\"><title> </title>";

/* Dark: lightness inverted, hues kept (rotated back), so white paper turns
 * dark, black text and axes light, and each series keeps its colour family.
 * color-scheme: the page's, so a browser gives the chart's <object> no opaque
 * light backdrop in dark mode (it showed as a white stripe where the box and
 * the chart's aspect differ by a pixel). */
static const char k_dark[] =
    "<style>svg { color-scheme: light dark; } "
    "@media (prefers-color-scheme: dark) { svg { filter: invert(0.88) hue-rotate(180deg); } }</style>\n";

#define STARTS(p, lit) (!strncmp((p), (lit), sizeof(lit) - 1))

/* A tooltip as gnuplot quoted it, back to text: its "\n" a line break, and
 * anything gnuplot would have escaped (kg__dat_tip never writes one) a '?'. */
static void tip_text(const char *s, size_t n, char *out, size_t len) {
  size_t o = 0;
  for (size_t i = 0; i < n && o + 1 < len; i++) {
    if (s[i] == '\\' && i + 1 < n && s[i + 1] == 'n') out[o++] = '\n', i++;
    else out[o++] = strchr("&<>\"'\\", s[i]) ? '?' : s[i];
  }
  out[o] = '\0';
}

typedef struct kg__svg {
  const char *text, *caption;
} kg__svg;

/* The SVG with kgate's changes, onto f; a tooltip gnuplot left unclosed is
 * written as it was (the document stays as well-formed as gnuplot made it). */
static void svg_fill(FILE *f, const void *ctx) {
  const kg__svg *s = ctx;
  const char *p = s->text;
  for (const char *q; (q = strchr(p, '<'));) {
    fwrite(p, 1, (size_t)(q - p), f);
    const char *e = STARTS(q, k_tip_open) ? strstr(q, k_tip_close) : NULL;
    if (STARTS(q, k_doc_title)) {
      fputs("<title>", f);
      kg_esc_xml(f, s->caption);
      fprintf(f, "</title>\n%s", k_dark);
      p = q + sizeof k_doc_title - 1;
    } else if (e) {
      char tip[1024];
      const char *t = q + sizeof k_tip_open - 1;
      tip_text(t, (size_t)(e - t), tip, sizeof tip);
      fputs("<g class=\"tip\"><title>", f);
      kg_esc_xml(f, tip);
      fputs("</title>", f);
      p = e + sizeof k_tip_close - 1;
    } else if (STARTS(q, "<title>") && strstr(q, "</title>")) {
      p = strstr(q, "</title>") + 8; /* a plot's command, as gnuplot titles it */
    } else {
      fputc('<', f);
      p = q + 1;
    }
  }
  fputs(p, f);
}

int kg_svg_finish(const char *path, const char *caption, char *err, size_t errlen) {
  char *text = NULL;
  size_t len = 0;
  if (kg_read_file(path, KG_SVG_LIMIT, &text, &len, err, errlen)) return -1;
  if (!strstr(text, k_doc_title)) { /* not gnuplot's (a test's stand-in): as it is */
    free(text);
    return 0;
  }
  kg__svg s = {text, caption};
  int rc = kg_out_write(path, svg_fill, &s, err, errlen);
  free(text);
  return rc;
}

int kg_svg_size(const char *path, int *w, int *h) {
  char head[512];
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  const char *v = strstr(head, "viewBox=\"0 0 ");
  return v && sscanf(v, "viewBox=\"0 0 %d %d\"", w, h) == 2 && *w > 0 && *h > 0 ? 0 : -1;
}
