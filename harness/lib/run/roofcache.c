/* The roofline cache (roofcache.h). */
#include "roofcache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "fields.h"

#define KG_ROOFCACHE_LIMIT ((size_t)1 << 20) /* a line per card: far below this */

typedef struct rline {
  char uuid[48];
  int driver, memclk;
  double gbps, when;
} rline;

/* One line, checked: 0, or -1 when it is malformed or cannot be true. */
static int parse(const char *s, rline *r) {
  int version = 0, used = 0;
  if (sscanf(s, "kgate-roofline %d %47s %d %d %lf %lf%n", &version, r->uuid, &r->driver, &r->memclk, &r->gbps, &r->when,
             &used) != 6 ||
      s[used] != '\0' || version != 1 || kg_why_bad_uuid(r->uuid) || r->driver <= 0 || r->memclk <= 0 ||
      !isfinite(r->gbps) || r->gbps <= 0 || !isfinite(r->when) || r->when <= 0)
    return -1;
  return 0;
}

/* The file's lines, each passed to keep(line, ctx) after parsing. */
static int each_line(const char *path, void (*keep)(const rline *r, const char *text, void *ctx), void *ctx) {
  char *text = NULL, err[300];
  size_t len = 0;
  if (kg_read_file(path, KG_ROOFCACHE_LIMIT, &text, &len, err, sizeof err)) return -1;
  for (char *s = text, *e; s < text + len; s = e + 1) {
    e = strchr(s, '\n');
    if (!e) e = text + len;
    *e = '\0';
    rline r;
    if (!parse(s, &r)) keep(&r, s, ctx);
  }
  free(text);
  return 0;
}

typedef struct finder {
  const kg_device_info *d;
  double now, *gbps;
  int hit;
} finder;

static void find_one(const rline *r, const char *text, void *ctx) {
  finder *f = ctx;
  (void)text;
  const kg_device_info *d = f->d;
  if (strcmp(r->uuid, d->uuid) || r->driver != d->driver_version || r->memclk != d->mem_clock_khz) return;
  if (r->when > f->now + 60 || f->now - r->when > KG_ROOFCACHE_MAX_AGE_S) return; /* from the future, or stale */
  if (d->peak_gbps > 0 && r->gbps > d->peak_gbps) return;                         /* above the theoretical peak */
  *f->gbps = r->gbps, f->hit = 1;
}

int kg_roofcache_get(const char *path, const kg_device_info *d, double now, double *gbps) {
  finder f = {d, now, gbps, 0};
  if (!d->uuid[0] || each_line(path, find_one, &f)) return 0;
  return f.hit;
}

typedef struct writer {
  const kg_device_info *d;
  double gbps, now;
  char *kept; /* the other cards' lines */
  size_t len, cap;
} writer;

static void keep_other(const rline *r, const char *text, void *ctx) {
  writer *w = ctx;
  size_t n = strlen(text);
  if (!strcmp(r->uuid, w->d->uuid) || w->len + n + 2 > w->cap) return;
  memcpy(w->kept + w->len, text, n);
  w->len += n;
  w->kept[w->len++] = '\n';
  w->kept[w->len] = '\0';
}

static void fill(FILE *f, const void *ctx) {
  const writer *w = ctx;
  fputs(w->kept, f);
  fprintf(f, "kgate-roofline 1 %s %d %d %.1f %.0f\n", w->d->uuid, w->d->driver_version, w->d->mem_clock_khz, w->gbps,
          w->now);
}

int kg_roofcache_put(const char *path, const kg_device_info *d, double gbps, double now, char *err, size_t errlen) {
  if (kg_why_bad_uuid(d->uuid) || !(gbps > 0) || !isfinite(gbps))
    return snprintf(err, errlen, "no card identity or no roofline to keep"), -1;
  writer w = {d, gbps, now, calloc(KG_ROOFCACHE_LIMIT, 1), 0, KG_ROOFCACHE_LIMIT};
  if (!w.kept) return snprintf(err, errlen, "out of memory"), -1;
  each_line(path, keep_other, &w); /* no file yet: nothing to keep */
  int rc = kg_make_parent(path, err, errlen) || kg_out_write(path, fill, &w, err, errlen) ? -1 : 0;
  free(w.kept);
  return rc;
}
