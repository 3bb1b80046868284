/* Host-side test of the team's kernel module, no GPU needed: dlopen the built
 * module as kgate does and check what kgate will read from it: the ABI
 * version, the registry (the variants of the .def file, in its order; ops,
 * NaN policy, dtypes and flags of those named below), that every function is
 * there, that scratch and depth make sense, and that nothing but the entry
 * points is exported (so the base's module and this one load side by side in
 * one kgate process). A variant added to the .def file is checked with no
 * edit here; give it a row of `want` to pin its op, dtypes and flags too.
 *
 *   check_module PATH/libteam_kernels.so PATH/variants.def
 *       exit 0 when every check passed, 1 when one failed, 2 on bad input */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kgate/module.h>

static int failures;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "check_module: FAIL %s: ", #cond);  \
      fprintf(stderr, __VA_ARGS__);                       \
      fputc('\n', stderr);                                \
      failures++;                                         \
    }                                                     \
  } while (0)

/* What the registry says of the variants named here (any others: the generic checks). */
static const struct expect {
  const char *name;
  unsigned op, nan, dtypes, flags;
  int one_acc_per_block; /* scratch: none for one block, one accumulator per block otherwise */
} want[] = {
    {"team_warp_sum", KG_OP_SUM, 0, KG_DT_ALL, 0, 1},
    {"team_block_max", KG_OP_MAX, KG_NAN_PROPAGATE, KG_DT_ALL, 0, 1},
};
enum { NWANT = sizeof want / sizeof want[0] };

static const struct expect *wanted(const char *name) {
  for (size_t i = 0; i < NWANT; i++)
    if (strcmp(want[i].name, name) == 0) return &want[i];
  return NULL;
}

/* The names of the .def file's KGATE_VARIANT( lines, in order (as kgate_add_tests reads them). */
enum { MAXDEF = 1024 };
static char defnames[MAXDEF][64];
static size_t read_def(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "check_module: cannot read %s\n", path);
    exit(2);
  }
  char line[4096];
  size_t n = 0;
  while (fgets(line, sizeof line, f)) {
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "KGATE_VARIANT(", 14) != 0) continue;
    p += 14;
    while (*p == ' ' || *p == '\t') p++;
    size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (k == 0 || k > 63 || n == MAXDEF) {
      fprintf(stderr, "check_module: %s: KGATE_VARIANT line %zu: %s\n", path, n + 1,
              n == MAXDEF ? "more than 1024 variants" : "no name of [a-z0-9_], 1..63");
      exit(2);
    }
    memcpy(defnames[n], p, k);
    defnames[n++][k] = '\0';
  }
  fclose(f);
  if (n == 0) {
    fprintf(stderr, "check_module: %s: no line starts with KGATE_VARIANT(\n", path);
    exit(2);
  }
  return n;
}

static int valid_name(const char *s) {
  size_t n = strlen(s);
  if (n < 1 || n > 63) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: check_module MODULE.so VARIANTS.def\n");
    return 2;
  }
  size_t ndef = read_def(argv[2]);
  /* RTLD_LOCAL, as kgate loads modules: nothing leaks into the global scope. */
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "check_module: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  kg_module_abi_fn abi = (kg_module_abi_fn)dlsym(h, "kgate_module_abi");
  kg_module_fn reg = (kg_module_fn)dlsym(h, "kgate_module");
  CHECK(abi && reg, "%s does not export kgate_module_abi and kgate_module", argv[1]);
  if (!abi || !reg) return 1;
  CHECK(abi() == KG_MODULE_ABI, "ABI %u, kgate's headers say %u", abi(), KG_MODULE_ABI);
  const kg_module *m = reg();
  CHECK(m != NULL, "kgate_module() returned NULL");
  if (!m) return 1;
  CHECK(m->abi == KG_MODULE_ABI, "registry ABI %u", m->abi);
  CHECK(m->variant_size == sizeof(kg_module_variant), "variant_size %u, want %zu", m->variant_size,
        sizeof(kg_module_variant));
  CHECK(m->name && strcmp(m->name, "team") == 0, "module name '%s', want 'team' (NAME in CMakeLists.txt)",
        m->name ? m->name : "(null)");
  CHECK(m->version && m->version[0], "empty module version");
  CHECK(m->nvariants == ndef, "%zu variants, %s has %zu", m->nvariants, argv[2], ndef);

  for (size_t i = 0; i < m->nvariants && i < ndef; i++) {
    const kg_module_variant *v = &m->variants[i];
    CHECK(v->name && strcmp(v->name, defnames[i]) == 0, "variant %zu is '%s', %s says '%s'", i,
          v->name ? v->name : "(null)", argv[2], defnames[i]);
    if (!v->name) continue;
    CHECK(valid_name(v->name), "'%s': a name is [a-z0-9_], 1..63", v->name);
    CHECK(v->seed && v->seed[0] && v->idea && v->idea[0], "%s: empty seed or idea", v->name);
    CHECK(v->op == KG_OP_SUM || v->op == KG_OP_MIN || v->op == KG_OP_MAX, "%s: op %u", v->name, v->op);
    CHECK(v->dtypes != 0 && (v->dtypes & ~(unsigned)KG_DT_ALL) == 0, "%s: dtypes 0x%x", v->name, v->dtypes);
    const struct expect *w = wanted(v->name);
    if (w) {
      CHECK(v->op == w->op, "%s: op %u, want %u", v->name, v->op, w->op);
      CHECK(v->nan == w->nan, "%s: NaN policy %u, want %u", v->name, v->nan, w->nan);
      CHECK(v->dtypes == w->dtypes, "%s: dtypes 0x%x, want 0x%x", v->name, v->dtypes, w->dtypes);
      CHECK(v->flags == w->flags, "%s: flags 0x%x, want 0x%x", v->name, v->flags, w->flags);
    }
    CHECK(v->run && v->scratch && v->depth, "%s: a function pointer is NULL", v->name);
    if (!v->scratch || !v->depth) continue;
    static const size_t sizes[] = {0, 1, 33, 256, 257, 1000003, (size_t)1 << 25, ((size_t)1 << 32) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      size_t n = sizes[k];
      for (int dt = KG_I32; dt < KG_NDTYPES; dt++) {
        if (!(v->dtypes & (1u << dt))) continue;
        size_t acc = (dt == KG_I64 || dt == KG_F64) ? 8 : 4;
        size_t s = v->scratch(dt, n);
        if (w && w->one_acc_per_block) /* at most 1024 blocks */
          CHECK(n <= 256 ? s == 0 : (s >= 2 * acc && s <= 1024 * acc), "%s: scratch(%d, %zu) = %zu", v->name,
                dt, n, s);
        else
          CHECK(s <= ((size_t)1 << 40), "%s: scratch(%d, %zu) = %zu bytes", v->name, dt, n, s);
      }
      double d = v->depth(n);
      CHECK(isfinite(d) && d >= 0 && d <= (double)n + 64, "%s: depth(%zu) = %g", v->name, n, d);
    }
    /* Over 2^32 elements a thread of a grid of at most 2^18 threads adds ceil(n / 2^18) of them. */
    if (w && w->one_acc_per_block)
      CHECK(v->depth(((size_t)1 << 32) + 3) >= 16384, "%s: depth(2^32+3) = %g is too small", v->name,
            v->depth(((size_t)1 << 32) + 3));

    /* Only the entry points are visible: the variant's own functions are not. */
    static const char *fn[] = {"kg_run_", "kg_scratch_", "kg_depth_"};
    for (size_t k = 0; k < sizeof fn / sizeof fn[0]; k++) {
      char sym[96];
      snprintf(sym, sizeof sym, "%s%s", fn[k], v->name);
      CHECK(dlsym(h, sym) == NULL, "%s is exported: two modules would clash", sym);
    }
  }
  for (size_t i = 0; i < NWANT; i++) {
    int found = 0;
    for (size_t j = 0; j < ndef; j++) found |= strcmp(want[i].name, defnames[j]) == 0;
    CHECK(found, "%s names no %s (a row of want that no variant has)", argv[2], want[i].name);
  }

  if (!failures)
    printf("check_module: %s: module '%s' (%s), %zu variants, ABI %u: all checks passed\n", argv[1], m->name,
           m->version, m->nvariants, KG_MODULE_ABI);
  dlclose(h); /* m points into the module: done with it first */
  if (failures) {
    fprintf(stderr, "check_module: %d check(s) failed\n", failures);
    return 1;
  }
  return 0;
}
