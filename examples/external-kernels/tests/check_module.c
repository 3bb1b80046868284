/* Host-side test of the team's kernel module, no GPU needed: dlopen the built
 * module as kgate does and check what kgate will read from it: the ABI
 * version, the registry (names, ops, NaN policy, dtypes, flags), that every
 * function is there, that scratch and depth make sense, and that nothing but
 * the two entry points is exported (so the base's module and this one load
 * side by side in one kgate process).
 *
 *   check_module PATH/libteam_kernels.so     exit 0 when every check passed */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
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

/* What the registry (variants.def) must say, in its order. */
static const struct expect {
  const char *name;
  unsigned op, nan, dtypes, flags;
} want[] = {
    {"team_warp_sum", KG_OP_SUM, 0, KG_DT_ALL, 0},
    {"team_block_max", KG_OP_MAX, KG_NAN_PROPAGATE, KG_DT_ALL, 0},
};
enum { NWANT = sizeof want / sizeof want[0] };

static int valid_name(const char *s) {
  size_t n = strlen(s);
  if (n < 1 || n > 63) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: check_module MODULE.so\n");
    return 2;
  }
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
  CHECK(m->nvariants == NWANT, "%zu variants, want %d", m->nvariants, NWANT);

  for (size_t i = 0; i < m->nvariants && i < NWANT; i++) {
    const kg_module_variant *v = &m->variants[i];
    const struct expect *w = &want[i];
    CHECK(v->name && strcmp(v->name, w->name) == 0, "variant %zu is '%s', want '%s'", i,
          v->name ? v->name : "(null)", w->name);
    if (!v->name) continue;
    CHECK(valid_name(v->name), "'%s': a name is [a-z0-9_], 1..63", v->name);
    CHECK(v->seed && v->seed[0] && v->idea && v->idea[0], "%s: empty seed or idea", v->name);
    CHECK(v->op == w->op, "%s: op %u, want %u", v->name, v->op, w->op);
    CHECK(v->nan == w->nan, "%s: NaN policy %u, want %u", v->name, v->nan, w->nan);
    CHECK(v->dtypes == w->dtypes, "%s: dtypes 0x%x, want 0x%x", v->name, v->dtypes, w->dtypes);
    CHECK(v->flags == w->flags, "%s: flags 0x%x, want 0x%x", v->name, v->flags, w->flags);
    CHECK(v->run && v->scratch && v->depth, "%s: a function pointer is NULL", v->name);
    if (!v->scratch || !v->depth) continue;
    /* scratch: none for one block, one accumulator per block otherwise (at most 1024 blocks). */
    static const size_t sizes[] = {0, 1, 33, 256, 257, 1000003, (size_t)1 << 25, ((size_t)1 << 32) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      size_t n = sizes[k];
      for (int dt = KG_I32; dt < KG_NDTYPES; dt++) {
        size_t acc = (dt == KG_I64 || dt == KG_F64) ? 8 : 4;
        size_t s = v->scratch(dt, n);
        CHECK(n <= 256 ? s == 0 : (s >= 2 * acc && s <= 1024 * acc), "%s: scratch(%d, %zu) = %zu", v->name,
              dt, n, s);
      }
      double d = v->depth(n);
      CHECK(isfinite(d) && d >= 1 && d <= (double)n + 64, "%s: depth(%zu) = %g", v->name, n, d);
    }
    /* Over 2^32 elements a thread adds ceil(n / 2^18) of them: the depth must say so. */
    CHECK(v->depth(((size_t)1 << 32) + 3) >= 16384, "%s: depth(2^32+3) = %g is too small", v->name,
          v->depth(((size_t)1 << 32) + 3));
  }

  /* Only the two entry points are visible: the variants' functions are not. */
  static const char *hidden[] = {"kg_run_team_warp_sum", "kg_scratch_team_warp_sum", "kg_depth_team_block_max",
                                 "kg_run_team_block_max"};
  for (size_t k = 0; k < sizeof hidden / sizeof hidden[0]; k++)
    CHECK(dlsym(h, hidden[k]) == NULL, "%s is exported: two modules would clash", hidden[k]);

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
