/* A page's folder, written whole or not at all (report --html DIR): begin
 * makes a fresh folder DIR.tmp.<pid>.XXXXXX beside DIR (beside the folder it
 * names when DIR is a link) to render into; commit renames it over DIR in
 * one step (an existing DIR is swapped out, then removed); abort removes it.
 * A full disk or a crash leaves the old site as it was and never a partial
 * DIR. An existing DIR must be a folder that is empty or holds a kgate page
 * (its index.html), so a mistyped --html never removes other files. */
#ifndef KG_SITE_H
#define KG_SITE_H

#include <stddef.h>

/* How a kgate page's title begins (html.c writes it): what marks a folder
 * as one begin may replace. A nightly's page (a history), or a one-off
 * report's. */
#define KG_SITE_TITLE "<title>kgate nightly: "
#define KG_SITE_TITLE_REPORT "<title>kgate report: "

typedef struct kg_site {
  char dir[4096]; /* where the page goes (the link's target when DIR is a link) */
  char tmp[4096]; /* the folder being rendered, "" when none */
  int replace;    /* DIR exists and is swapped out at commit */
} kg_site;
/* 0, or -1 with err (DIR is not a folder, or not a kgate page; no room for the temp folder). */
int kg_site_begin(kg_site *s, const char *dir, char *err, size_t errlen);
int kg_site_commit(kg_site *s, char *err, size_t errlen);
void kg_site_abort(kg_site *s);

#endif
