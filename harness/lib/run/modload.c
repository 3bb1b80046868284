/* Kernel modules: load, check, describe (modload.h). */
#include "modload.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "kernels.h"
#include "proc.h"
#include "varreg.h"
#include "escape.h"
#include "fields.h"
#include "waiver.h"

/* More variants than any registry will hold: a count past it is garbage. */
#define KG_MODULE_MAX_VARIANTS 4096

static int name_ok(const char *s) {
  size_t len = 0;
  for (; s[len]; len++) {
    char c = s[len];
    if (len >= 63 || !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return 0;
  }
  return len > 0;
}

/* Variant i of a module's own table, whatever its record size, as a whole
 * record (missing fields 0). The table must have passed kg_module_validate. */
static kg_module_variant variant_at(const kg_module *m, size_t i) {
  kg_module_variant v;
  memset(&v, 0, sizeof v);
  size_t size = m->variant_size < sizeof v ? m->variant_size : sizeof v;
  memcpy(&v, (const char *)m->variants + i * m->variant_size, size);
  return v;
}

int kg_module_validate(const kg_module *m, char *err, size_t errlen) {
  if (!m) return snprintf(err, errlen, "the module returned no registry"), -1;
  if (m->abi != KG_MODULE_ABI)
    return snprintf(err, errlen, "registry says kernel ABI %u, this kgate speaks %u", m->abi, KG_MODULE_ABI), -1;
  /* Records only grow: one that ends before `op` is a module built before
   * ops (a sum); one longer than this kgate's has fields it cannot know. */
  if (m->variant_size < KG_MODULE_VARIANT_MIN || m->variant_size > sizeof(kg_module_variant))
    return snprintf(err, errlen, "variant record of %u bytes, this kgate reads %zu to %zu", m->variant_size,
                    (size_t)KG_MODULE_VARIANT_MIN, sizeof(kg_module_variant)),
           -1;
  if (!m->name || !name_ok(m->name)) return snprintf(err, errlen, "module name missing or not [a-z0-9_]"), -1;
  /* Free text reaches terminals, CI logs and results files: one rule
   * (fields.h) with the registry and the results reader. */
  if (kg_module_text_check("version", m->version, KG_VERSION_MAX, err, errlen)) return -1;
  if (m->nvariants == 0 || m->nvariants > KG_MODULE_MAX_VARIANTS || !m->variants)
    return snprintf(err, errlen, "%zu variants (1..%d expected)", m->nvariants, KG_MODULE_MAX_VARIANTS), -1;
  for (size_t i = 0; i < m->nvariants; i++) {
    kg_module_variant v = variant_at(m, i);
    if (!v.name || !name_ok(v.name))
      return snprintf(err, errlen, "variant %zu: name missing or not [a-z0-9_], 1..63 characters", i), -1;
    if (kg_variant_text_check(v.name, v.seed, v.idea, err, errlen)) return -1;
    if (v.flags & ~(unsigned)(KG_CLOBBERS | KG_FLOAT_ATOMICS))
      return snprintf(err, errlen, "variant %s: unknown flags 0x%x", v.name, v.flags), -1;
    if (!v.dtypes || (v.dtypes & ~(unsigned)KG_DT_ALL))
      return snprintf(err, errlen, "variant %s: dtype mask 0x%x (bits 0..5, at least one)", v.name, v.dtypes), -1;
    if (!v.run || !v.scratch || !v.depth)
      return snprintf(err, errlen, "variant %s: a run, scratch or depth function is missing", v.name), -1;
    if (v.op > KG_OP_MAX)
      return snprintf(err, errlen, "variant %s: op %u (0 sum, 1 min, 2 max)", v.name, v.op), -1;
    if (v.nan > KG_NAN_IGNORE || (v.nan && v.op == KG_OP_SUM))
      return snprintf(err, errlen, "variant %s: NaN policy %u (0 propagate, 1 ignore: a min or max only)", v.name,
                      v.nan),
             -1;
    for (size_t j = 0; j < i; j++)
      if (!strcmp(variant_at(m, j).name, v.name))
        return snprintf(err, errlen, "variant %s: listed twice", v.name), -1;
  }
  return 0;
}

int kg_module_open(const char *path, kg_loaded_module *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (strlen(path) >= sizeof out->path) return snprintf(err, errlen, "kernel module path too long"), -1;
  snprintf(out->path, sizeof out->path, "%s", path);
  struct stat st;
  if (stat(path, &st) != 0) return snprintf(err, errlen, "kernel module %s: %s", path, strerror(errno)), -1;
  if (!S_ISREG(st.st_mode)) return snprintf(err, errlen, "kernel module %s: not a regular file", path), -1;
  /* dlopen searches the library path for a bare name: make it a path. Not
   * realpath: a sealed image's /proc/self/fd/N resolves to no file. */
  char given[PATH_MAX + 2];
  snprintf(given, sizeof given, "%s%s", strchr(path, '/') ? "" : "./", path);
  dlerror();
  out->handle = dlopen(given, RTLD_NOW | RTLD_LOCAL);
  if (!out->handle) {
    const char *why = dlerror();
    return snprintf(err, errlen, "kernel module %s: cannot load: %.300s", path, why ? why : "unknown error"), -1;
  }
  kg_module_abi_fn abi = NULL;
  kg_module_fn reg = NULL;
  kg_module_toolchain_fn tc = NULL; /* optional: a module without it is of an unknown toolchain */
  *(void **)&abi = dlsym(out->handle, "kgate_module_abi");
  *(void **)&reg = dlsym(out->handle, "kgate_module");
  *(void **)&tc = dlsym(out->handle, "kgate_module_toolchain");
  char why[900];
  kg_lint_waivers waivers = {0};
  if (!abi || !reg) {
    snprintf(err, errlen, "kernel module %s: not a kgate kernel module (no kgate_module_abi/kgate_module)", path);
  } else if (abi() != KG_MODULE_ABI) {
    snprintf(err, errlen, "kernel module %s: built for kernel ABI %u, this kgate speaks ABI %u: rebuild it with "
             "this kgate's headers", path, abi(), KG_MODULE_ABI);
  } else if (kg_module_validate(out->m = reg(), why, sizeof why)) {
    snprintf(err, errlen, "kernel module %s: %s", path, why);
  } else if (kg_module_toolchain_read(tc ? tc() : NULL, &out->tc, why, sizeof why)) {
    snprintf(err, errlen, "kernel module %s: %s", path, why);
  } else if (kg_lint_waivers_read(path, &waivers, why, sizeof why)) { /* data for the lint: refused here too */
    snprintf(err, errlen, "kernel module %.700s", why);
  } else if (!(out->vars = calloc(out->m->nvariants, sizeof *out->vars))) {
    snprintf(err, errlen, "kernel module %s: out of memory", path);
  } else {
    /* Whole records from here on, whatever size the module was built with. */
    for (size_t i = 0; i < out->m->nvariants; i++) out->vars[i] = variant_at(out->m, i);
    out->norm = *out->m;
    out->norm.variant_size = sizeof(kg_module_variant);
    out->norm.variants = out->vars;
    out->m = &out->norm;
    kg_lint_waivers_free(&waivers);
    return 0;
  }
  kg_lint_waivers_free(&waivers);
  kg_module_close(out);
  return -1;
}

int kg_module_toolchain_read(const kg_module_toolchain *t, kg_toolchain *out, char *err, size_t errlen) {
  out->nvcc[0] = out->cccl[0] = out->flags[0] = '\0';
  if (!t) return 0;
  if (t->size < KG_MODULE_TOOLCHAIN_MIN)
    return snprintf(err, errlen, "toolchain record of %u bytes, this kgate reads %zu or more", t->size,
                    (size_t)KG_MODULE_TOOLCHAIN_MIN),
           -1;
  kg_module_toolchain rec; /* the fields this kgate knows, whatever the module's record size */
  memset(&rec, 0, sizeof rec);
  memcpy(&rec, t, t->size < sizeof rec ? t->size : sizeof rec);
  t = &rec;
  /* Numbers any nvcc and CCCL have had, with room: more is not a version. */
  if (t->nvcc_major > 999 || t->nvcc_minor > 999 || t->nvcc_build > 999999 ||
      (!t->nvcc_major && (t->nvcc_minor || t->nvcc_build)))
    return snprintf(err, errlen, "toolchain: nvcc %u.%u.%u is not a version of nvcc", t->nvcc_major, t->nvcc_minor,
                    t->nvcc_build),
           -1;
  if (t->cccl >= 1000000000u) return snprintf(err, errlen, "toolchain: cccl %u is not a CCCL_VERSION", t->cccl), -1;
  const char *flags = t->flags ? t->flags : "";
  size_t n = strnlen(flags, 65);
  const char *bad = n > 64 ? "longer than 64 bytes" : kg_why_bad_toolchain_flags(flags);
  if (bad) {
    char head[65], shown[80];
    memcpy(head, flags, n < 64 ? n : 64), head[n < 64 ? n : 64] = '\0';
    return snprintf(err, errlen, "toolchain: flags '%s': %s", kg_esc_term(head, shown, sizeof shown), bad), -1;
  }
  if (t->nvcc_major)
    snprintf(out->nvcc, sizeof out->nvcc, "%u.%u.%u", t->nvcc_major, t->nvcc_minor, t->nvcc_build);
  if (t->cccl)
    snprintf(out->cccl, sizeof out->cccl, "%u.%u.%u", t->cccl / 1000000, t->cccl / 1000 % 1000, t->cccl % 1000);
  memcpy(out->flags, flags, n + 1);
  return 0;
}

/* Appends v to list ('+' between), once; an empty v adds nothing. The list
 * becomes "" (unknown) for good when it would not fit: *over marks it. */
static void join_once(char *list, size_t len, const char *v, int *over) {
  size_t have = strlen(list), n = strlen(v);
  if (*over || !n) return;
  for (const char *p = list; *p;) { /* already listed? */
    size_t k = strcspn(p, "+");
    if (k == n && !strncmp(p, v, n)) return;
    p += k + (p[k] == '+');
  }
  if (have + (have > 0) + n + 1 > len) {
    *over = 1, list[0] = '\0';
    return;
  }
  snprintf(list + have, len - have, "%s%s", have ? "+" : "", v);
}

void kg_module_set_toolchain(const kg_module_set *s, kg_toolchain *out) {
  kg_modrole under = KG_MOD_OWN;
  for (int k = 0; k < s->nmods; k++)
    if (s->role[k] == KG_MOD_KERNELS) under = KG_MOD_KERNELS;
  out->nvcc[0] = out->cccl[0] = out->flags[0] = '\0';
  int over_nvcc = 0, over_cccl = 0, nflags = 0, same = 1;
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  for (int k = 0; k < s->nmods; k++) {
    const kg_toolchain *t = &s->mod[k].tc;
    if (s->role[k] != under) continue;
    join_once(out->nvcc, sizeof out->nvcc, t->nvcc, &over_nvcc);
    join_once(out->cccl, sizeof out->cccl, t->cccl, &over_cccl);
    if (nflags++) sha256_update(&ctx, 1, (const uint8_t *)"+");
    sha256_update(&ctx, strlen(t->flags), (const uint8_t *)t->flags);
    if (nflags == 1) snprintf(out->flags, sizeof out->flags, "%s", t->flags);
    else same &= !strcmp(out->flags, t->flags);
  }
  if (!same) { /* modules of different flags: one digest of all, in load order */
    unsigned char d[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, sizeof d, d);
    for (size_t i = 0; i < sizeof d; i++) snprintf(out->flags + 2 * i, 3, "%02x", d[i]);
  }
}

void kg_module_close(kg_loaded_module *m) {
  if (m->handle) dlclose(m->handle);
  free(m->vars);
  m->vars = NULL;
  m->handle = NULL;
  m->m = NULL;
}

/* Copies fd's size bytes into the memory file to. 0, or -1 (errno). */
static int copy_all(int from, int to, size_t size) {
  enum { CHUNK = 1 << 20 };
  unsigned char *buf = malloc(CHUNK);
  if (!buf) return -1;
  size_t done = 0;
  int rc = 0;
  while (!rc && done < size) {
    ssize_t got = read(from, buf, CHUNK < size - done ? CHUNK : size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) { /* a read error, or a file that shrank meanwhile */
      if (!got) errno = EIO;
      rc = -1;
    }
    for (ssize_t put = 0, w; !rc && put < got; put += w)
      if ((w = write(to, buf + put, (size_t)(got - put))) < 0) rc = -1;
    done += got > 0 ? (size_t)got : 0;
  }
  free(buf);
  return rc;
}

/* The SHA-256 of fd's bytes from offset 0, in hex. 0, or -1 (errno). */
static int sha256_fd(int fd, char hex[65]) {
  struct sha256_ctx ctx;
  unsigned char buf[1 << 16], d[SHA256_DIGEST_SIZE];
  sha256_init(&ctx);
  ssize_t got;
  for (off_t at = 0; (got = pread(fd, buf, sizeof buf, at)) != 0; at += got) {
    if (got < 0 && errno == EINTR) got = 0;
    else if (got < 0) return -1;
    sha256_update(&ctx, (size_t)got, buf);
  }
  sha256_digest(&ctx, sizeof d, d);
  for (size_t i = 0; i < sizeof d; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
  return 0;
}

int kg_module_image_open(const char *path, kg_module_image *im, char *err, size_t errlen) {
  memset(im, 0, sizeof *im);
  im->fd = -1;
  int from = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), to = -1;
  struct stat st;
  const char *why = NULL;
  if (from < 0 || fstat(from, &st)) why = strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if ((unsigned long long)st.st_size > KG_MODULE_IMAGE_MAX) why = "larger than any kernel module (2 GiB)";
  else if ((to = memfd_create("kgate-module", MFD_CLOEXEC | MFD_ALLOW_SEALING)) < 0)
    why = strerror(errno);
  else if (copy_all(from, to, (size_t)st.st_size) ||
           fcntl(to, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) ||
           sha256_fd(to, im->sha256)) /* the sealed bytes, read back: what every load maps */
    why = strerror(errno);
  else if (fcntl(to, F_SETFD, 0)) /* the workers load it by the same number */
    why = strerror(errno);
  if (from >= 0) close(from);
  if (why) {
    if (to >= 0) close(to);
    memset(im->sha256, 0, sizeof im->sha256);
    return snprintf(err, errlen, "kernel module %s: cannot read it into sealed memory: %s", path, why), -1;
  }
  im->fd = to;
  snprintf(im->load_path, sizeof im->load_path, "/proc/self/fd/%d", to);
  return 0;
}

void kg_module_image_close(kg_module_image *im) {
  if (im->fd >= 0) close(im->fd);
  im->fd = -1;
}

void kg_module_image_names(const kg_module_image *im, const char *const *given, int n, const char *text, char *out,
                           size_t len) {
  size_t o = 0;
  while (*text && o + 1 < len) {
    int k = 0;
    for (size_t l; k < n; k++) /* "/proc/self/fd/1" is not the start of ".../fd/12" */
      if (!strncmp(text, im[k].load_path, l = strlen(im[k].load_path)) && !(text[l] >= '0' && text[l] <= '9')) break;
    if (k < n) {
      int w = snprintf(out + o, len - o, "%s", given[k]);
      o = w < 0 ? o : (size_t)w < len - o ? o + (size_t)w : len - 1;
      text += strlen(im[k].load_path);
    } else {
      out[o++] = *text++;
    }
  }
  if (len) out[o < len ? o : len - 1] = '\0';
}

int kg_module_find(const kg_module *m, const char *name) {
  for (size_t i = 0; m && i < m->nvariants; i++)
    if (!strcmp(m->variants[i].name, name)) return (int)i;
  return -1;
}

int kg_module_default_path_of(const char *file, char *buf, size_t len, char *err, size_t errlen) {
  char here[300], lib[300];
  snprintf(here, sizeof here, "/%s", file), snprintf(lib, sizeof lib, "/../lib/kgate/%s", file);
  const char *const rel[] = {here, lib};
  char exe[PATH_MAX];
  if (kg_beside_exe(rel, sizeof rel / sizeof rel[0], buf, len, exe, sizeof exe) == 0) return 0;
  if (!exe[0]) return snprintf(err, errlen, "cannot find kgate's own executable"), -1;
  snprintf(err, errlen, "kgate's kernel module %s is neither beside %s/kgate nor in %s/../lib/kgate", file, exe, exe);
  return -1;
}

int kg_module_default_path(char *buf, size_t len, char *err, size_t errlen) {
  return kg_module_default_path_of(KG_MODULE_FILE, buf, len, err, errlen);
}

void kg_modinfo_free(kg_modinfo *mi) {
  free(mi->v);
  mi->v = NULL;
  mi->n = 0;
}

int kg_modinfo_find(const kg_modinfo *mi, const char *name) {
  for (size_t i = 0; i < mi->n; i++)
    if (!strcmp(mi->v[i].name, name)) return (int)i;
  return -1;
}

static const char *const k_roles[] = {[KG_MOD_OWN] = "own", [KG_MOD_KERNELS] = "kernels", [KG_MOD_BASE] = "base"};

char *kg_module_describe(const kg_loaded_module *mods, const kg_modrole *roles, size_t n) {
  /* Every module and variant or nothing: a record left out would drop its
   * variants from the gate without a word (fail-open). */
  json_t *arr = json_array();
  int bad = !arr;
  for (size_t k = 0; !bad && k < n; k++) {
    const kg_module *m = mods[k].m;
    json_t *vs = json_array();
    bad = !vs;
    for (size_t i = 0; !bad && i < m->nvariants; i++) {
      kg_module_variant v = variant_at(m, i);
      bad = json_array_append_new(vs, json_pack("[s,i,i,i,i,s,s]", v.name, (json_int_t)v.flags, (json_int_t)v.dtypes,
                                                (json_int_t)v.op, (json_int_t)v.nan, v.seed ? v.seed : "",
                                                v.idea ? v.idea : "")) != 0;
    }
    if (bad) json_decref(vs);
    else
      bad = json_array_append_new(arr, json_pack("{s:s,s:s,s:s?,s:s,s:o}", "path", mods[k].path, "name", m->name,
                                                 "version", m->version, "role",
                                                 k_roles[roles ? roles[k] : KG_MOD_OWN], "variants", vs)) != 0;
  }
  if (bad) json_decref(arr), arr = NULL;
  json_t *doc = arr ? json_pack("{s:o}", "modules", arr) : NULL;
  char *line = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
  json_decref(doc);
  return line;
}

int kg_module_parse_describe(const char *line, kg_modinfo *out, size_t max, char *err, size_t errlen) {
  json_error_t je;
  json_t *doc = json_loads(line, 0, &je), *mods = json_object_get(doc, "modules");
  size_t count = 0;
  int bad = !json_is_array(mods) || json_array_size(mods) > max;
  for (size_t k = 0; !bad && k < json_array_size(mods); k++) {
    json_t *m = json_array_get(mods, k), *vs = json_object_get(m, "variants");
    const char *path = json_string_value(json_object_get(m, "path")),
               *name = json_string_value(json_object_get(m, "name")),
               *ver = json_string_value(json_object_get(m, "version")),
               *role = json_string_value(json_object_get(m, "role"));
    kg_modinfo *mi = &out[k];
    memset(mi, 0, sizeof *mi);
    int r = role ? -1 : KG_MOD_OWN;
    for (int i = 0; role && i < 3; i++)
      if (!strcmp(role, k_roles[i])) r = i;
    if (!path || !name || r < 0 || !json_is_array(vs) || json_array_size(vs) > KG_MODULE_MAX_VARIANTS ||
        kg_why_bad_module_text(ver, KG_VERSION_MAX)) {
      bad = 1;
      break;
    }
    mi->role = (kg_modrole)r;
    snprintf(mi->path, sizeof mi->path, "%s", path);
    snprintf(mi->name, sizeof mi->name, "%s", name);
    snprintf(mi->version, sizeof mi->version, "%s", ver ? ver : "");
    mi->v = calloc(json_array_size(vs) + 1, sizeof *mi->v);
    count = k + 1;
    for (size_t i = 0; mi->v && i < json_array_size(vs); i++) {
      json_t *e = json_array_get(vs, i);
      const char *vn = json_string_value(json_array_get(e, 0));
      json_t *fl = json_array_get(e, 1), *dt = json_array_get(e, 2), *op = json_array_get(e, 3),
             *nan = json_array_get(e, 4);
      const char *seed = json_string_value(json_array_get(e, 5)), *idea = json_string_value(json_array_get(e, 6));
      /* [name, flags, dtypes] or [name, flags, dtypes, op, nan, seed, idea] */
      size_t len = json_array_size(e);
      if (!vn || !name_ok(vn) || !json_is_integer(fl) || !json_is_integer(dt) || (len != 3 && len != 7) ||
          (len == 7 && (!json_is_integer(op) || !json_is_integer(nan) || !seed || !idea ||
                        json_integer_value(op) < 0 || json_integer_value(op) > KG_OP_MAX ||
                        json_integer_value(nan) < 0 || json_integer_value(nan) > KG_NAN_IGNORE ||
                        kg_why_bad_module_text(seed, KG_SEED_MAX) || kg_why_bad_module_text(idea, KG_IDEA_MAX)))) {
        bad = 1;
        break;
      }
      snprintf(mi->v[i].name, sizeof mi->v[i].name, "%s", vn);
      mi->v[i].flags = (unsigned)json_integer_value(fl);
      mi->v[i].dtypes = (unsigned)json_integer_value(dt);
      mi->v[i].op = (unsigned)json_integer_value(op); /* 0 (sum) when absent */
      mi->v[i].nan = (unsigned)json_integer_value(nan);
      snprintf(mi->v[i].seed, sizeof mi->v[i].seed, "%s", seed ? seed : "");
      snprintf(mi->v[i].idea, sizeof mi->v[i].idea, "%s", idea ? idea : "");
      mi->n = i + 1;
    }
    if (!mi->v) bad = 1;
  }
  json_decref(doc);
  if (!bad) return (int)count;
  for (size_t k = 0; k < count; k++) kg_modinfo_free(&out[k]);
  snprintf(err, errlen, "the worker's module description is malformed");
  return -1;
}

int kg_module_query(char *const *worker_argv, kg_modinfo *out, size_t max, char *err, size_t errlen) {
  /* One line, bounded: a variant's entry is at most about 300 bytes; loading
   * modules takes well under a minute. */
  char *buf;
  size_t len;
  if (kg_proc_capture(worker_argv, (size_t)16 << 20, 60000, &buf, &len, err, errlen)) return -1;
  char *nl = strchr(buf, '\n');
  if (nl) *nl = '\0';
  int n = -1;
  json_t *doc = json_loads(buf, 0, NULL);
  const char *fatal = json_string_value(json_object_get(doc, "fatal"));
  if (fatal) snprintf(err, errlen, "%s", fatal);
  else if (!nl) snprintf(err, errlen, "the worker described no module (%s)", len ? "no newline" : "no output");
  else n = kg_module_parse_describe(buf, out, max, err, errlen);
  json_decref(doc);
  free(buf);
  return n;
}

static int set_open(kg_module_set *s, const char *path, kg_modrole role, char *err, size_t errlen) {
  if (s->nmods >= (int)(sizeof s->mod / sizeof s->mod[0])) return snprintf(err, errlen, "too many kernel modules"), -1;
  if (kg_module_open(path, &s->mod[s->nmods], err, errlen)) return -1;
  s->role[s->nmods++] = role;
  return 0;
}

int kg_module_set_load(kg_module_set *s, const char *own, const char *const *kernels, int nkernels,
                       const char *const *base, int nbase, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  if (own && set_open(s, own, KG_MOD_OWN, err, errlen)) return -1;
  for (int k = 0; k < nkernels; k++) {
    if (set_open(s, kernels[k], KG_MOD_KERNELS, err, errlen)) return -1;
    const kg_loaded_module *lm = &s->mod[s->nmods - 1];
    int num = kg_registry_add_module(lm->path);
    if (num < 0) return snprintf(err, errlen, "too many kernel modules"), -1;
    for (size_t i = 0; i < lm->m->nvariants; i++) {
      const kg_module_variant *e = &lm->m->variants[i];
      kg_variant_info vi = {e->name, e->seed, e->idea, e->flags, e->dtypes, e->op, e->nan, num, 1};
      if (kg_registry_add(&vi, err, errlen) < 0) return -1;
    }
  }
  for (int k = 0; k < nbase; k++) {
    if (set_open(s, base[k], KG_MOD_BASE, err, errlen)) return -1;
    const kg_loaded_module *lm = &s->mod[s->nmods - 1];
    for (int j = 0; j < s->nmods - 1; j++) {
      if (s->role[j] != KG_MOD_BASE) continue;
      for (size_t i = 0; i < lm->m->nvariants; i++)
        if (kg_module_find(s->mod[j].m, lm->m->variants[i].name) >= 0)
          return snprintf(err, errlen, "variant %s is defined twice: in base modules %.300s and %.300s (rename one)",
                          lm->m->variants[i].name, s->mod[j].path, lm->path),
                 -1;
    }
  }
  return 0;
}

void kg_module_set_close(kg_module_set *s) {
  for (int k = (int)(sizeof s->mod / sizeof s->mod[0]) - 1; k >= 0; k--) kg_module_close(&s->mod[k]);
  s->nmods = 0;
}
