#include "workers.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "refpin.h"
#include "varreg.h"

char *const *kg_worker_cmd_make(kg_worker_cmd *w, const char *worker, int device, int roofline, const kg_modules *mods,
                                int with_base, int describe) {
  int a = 0;
  w->argv[a++] = (char *)worker, w->argv[a++] = "worker";
  if (device >= 0) {
    snprintf(w->device, sizeof w->device, "%d", device);
    w->argv[a++] = "--device", w->argv[a++] = w->device;
  }
  if (roofline) w->argv[a++] = "--roofline";
  if (mods->own) w->argv[a++] = "--own-kernels", w->argv[a++] = (char *)mods->own;
  if (mods->mutants) w->argv[a++] = "--mutant-kernels", w->argv[a++] = (char *)mods->mutants;
  for (int k = 0; k < mods->nkernels; k++) w->argv[a++] = "--kernels", w->argv[a++] = (char *)mods->kernels[k];
  for (int k = 0; with_base && k < mods->nbase; k++)
    w->argv[a++] = "--base-kernels", w->argv[a++] = (char *)mods->base_kernels[k];
  if (describe) w->argv[a++] = "--describe";
  w->argv[a] = NULL;
  return w->argv;
}

const char *kg_worker_path(const kg_modules *mods, char *buf, size_t len, FILE *log) {
  if (mods->worker) return mods->worker;
  ssize_t got = readlink("/proc/self/exe", buf, len - 1);
  if (got <= 0) {
    fprintf(log, "kgate: cannot find its own executable to start workers\n");
    return NULL;
  }
  buf[got] = '\0';
  return buf;
}

/* Appends sep (when buf is not empty) and s to buf, cut at a character
 * boundary: a version cut inside a UTF-8 sequence could not be written. */
static void join(char *buf, size_t len, const char *sep, const char *s) {
  size_t n = strlen(buf) + strlen(sep) + strlen(s) + 1;
  char *t = malloc(n);
  if (!t) return; /* out of memory: the list stays as it was */
  snprintf(t, n, "%s%s%s", buf, *buf ? sep : "", s);
  kg_copy_text(buf, len, t);
  free(t);
}

/* The path given for a module path a worker was handed. */
static const char *given_path(const kg_sealed *s, const char *path) {
  for (int k = 0; s && k < s->n; k++)
    if (!strcmp(path, s->im[k].load_path)) return s->given[k];
  return path;
}

/* A worker's message with the paths given in place of the images'. */
static const char *given_text(const kg_sealed *s, const char *text, char *buf, size_t len) {
  if (s) kg_module_image_names(s->im, s->given, s->n, text, buf, len);
  else snprintf(buf, len, "%s", text);
  return buf;
}

void kg_unseal_bases(kg_sealed *s) {
  for (int k = 0; k < s->n; k++) kg_module_image_close(&s->im[k]);
  s->n = 0;
}

int kg_seal_bases(const kg_modules *m, kg_modules *out, kg_sealed *s, FILE *log) {
  char err[1024];
  kg_pins pins;
  *out = *m;
  if (m->pins && kg_pins_read(m->pins, &pins, err, sizeof err)) return fprintf(log, "kgate: %s\n", err), -1;
  for (int k = 0; k < m->nbase; k++) {
    kg_module_image *im = &s->im[s->n];
    if (kg_module_image_open(m->base_kernels[k], im, err, sizeof err) ||
        (m->pins && !kg_pin_by_sha(&pins, m->base_kernels[k], im->sha256, err, sizeof err))) {
      fprintf(log, "kgate: %s%s%s\n", m->pins && im->fd >= 0 ? m->pins : "", m->pins && im->fd >= 0 ? ": " : "", err);
      kg_module_image_close(im);
      return kg_unseal_bases(s), -1;
    }
    s->given[s->n++] = m->base_kernels[k];
    out->base_kernels[k] = im->load_path;
  }
  return 0;
}

/* A base module's identity in pm: its SHA-256 and, with pins (--reference),
 * the commit of its pin; a module that is not a pinned reference is refused
 * (refpin.h). 0, or -1 said. */
static int identify_base(const kg_modinfo *mi, const kg_pins *pins, const char *pins_path, kg_pair_meta *pm,
                         FILE *log) {
  char err[512], sha[65];
  const kg_pin *pin = NULL;
  if (kg_sha256_file(mi->path, sha, err, sizeof err) ||
      (pins && !(pin = kg_pin_match(pins, mi->name, sha, err, sizeof err)))) {
    fprintf(log, "kgate: %s%s%s\n", pins ? pins_path : "", pins ? ": " : "", err);
    return -1;
  }
  size_t s = strlen(pm->base_sha256), c = strlen(pm->base_commit);
  snprintf(pm->base_sha256 + s, sizeof pm->base_sha256 - s, "%s%s", s ? "+" : "", sha);
  if (pin) snprintf(pm->base_commit + c, sizeof pm->base_commit - c, "%s%s", c ? "+" : "", pin->commit);
  if (pin && kg_pin_has_ptx(pin))
    fprintf(log, "kgate: warning: %s: the pinned reference of '%s' carries PTX (architectures %s): on a newer GPU "
            "the driver would JIT it; re-pin a build with -real architectures (docs/nightly.md)\n", pins_path,
            pin->module, pin->architectures);
  return 0;
}

/* A --kernels module's variants into the registry. 0, or -1 said. */
static int register_module(const kg_modinfo *mi, FILE *log) {
  char err[1024];
  int num = kg_registry_add_module(mi->path);
  if (num < 0) return fprintf(log, "kgate: too many kernel modules\n"), -1;
  for (size_t i = 0; i < mi->n; i++) {
    const kg_modvariant *v = &mi->v[i];
    kg_variant_info vi = {v->name, v->seed, v->idea, v->flags, v->dtypes, v->op, v->nan, num, 1};
    if (kg_registry_add(&vi, err, sizeof err) < 0) return fprintf(log, "kgate: %s\n", err), -1;
  }
  return 0;
}

/* A base module joins the union in base (the worker refused a name two base modules define). */
static void add_base(kg_modinfo *base, const kg_modinfo *mi, const kg_sealed *sealed) {
  join(base->path, sizeof base->path, ",", given_path(sealed, mi->path));
  join(base->name, sizeof base->name, "+", mi->name);
  join(base->version, sizeof base->version, "+", mi->version);
  memcpy(base->v + base->n, mi->v, mi->n * sizeof *mi->v);
  base->n += mi->n;
}

int kg_load_modules(const kg_modules *m, const char *worker, kg_modinfo *base, kg_pair_meta *ident,
                    const kg_sealed *sealed, FILE *log) {
  char err[1024];
  if (base) memset(base, 0, sizeof *base);
  if (!m->nkernels && !(base && m->nbase)) return 0;
  kg_pins pins;
  if (ident && m->pins && kg_pins_read(m->pins, &pins, err, sizeof err)) return fprintf(log, "kgate: %s\n", err), -1;
  kg_worker_cmd cmd;
  kg_modinfo mods[1 + 2 * KG_MODULES_MAX];
  int n = kg_module_query(kg_worker_cmd_make(&cmd, worker, -1, 0, m, base != NULL, 1), mods,
                          sizeof mods / sizeof mods[0], err, sizeof err);
  if (n < 0) {
    char shown[2048];
    return fprintf(log, "kgate: %s\n", given_text(sealed, err, shown, sizeof shown)), -1;
  }
  int rc = 0;
  size_t nbase = 0;
  for (int k = 0; k < n; k++) nbase += mods[k].role == KG_MOD_BASE ? mods[k].n : 0;
  if (base && !(base->v = calloc(nbase + 1, sizeof *base->v))) rc = -1, fprintf(log, "kgate: out of memory\n");
  for (int k = 0; !rc && k < n; k++) {
    const kg_modinfo *mi = &mods[k];
    if (mi->role == KG_MOD_BASE && base) {
      add_base(base, mi, sealed);
      if (ident && identify_base(mi, m->pins ? &pins : NULL, m->pins, ident, log)) rc = -1;
    }
    if (mi->role == KG_MOD_KERNELS) rc = register_module(mi, log);
  }
  for (int k = 0; k < n; k++) kg_modinfo_free(&mods[k]);
  if (rc && base) kg_modinfo_free(base);
  return rc;
}
