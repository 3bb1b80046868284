/* check_gpu_gen: inputs made on the GPU (kg_dev_fill) are the CPU's
 * (kg_pattern_fill) bit for bit, and kg_dev_fingerprint equals
 * kg_gen_fingerprint, for every default (dtype, pattern, n) group with seed 1
 * and another seed; seed 1 is also held to the fingerprints of the shipped
 * references (kgate-refs.txt beside kgate in the build folder, or
 * $KG_REFS_TABLE). Nothing is written
 * past n elements, and the fill and the fingerprint of 2^25 elements each
 * take under a millisecond.
 *
 * It calls CUDA itself, so it is a runner of its own: check_gpu's process
 * must never touch CUDA (it forks workers). Exits 77 when there is no device;
 * runs without fork whatever CK_FORK says.
 *   build-gpu/tests/check_gpu_gen
 *   KG_GPU_SIZES="1,33,2^22" narrows the size list;
 *   KG_GPU_NO_SPEED=1 prints the timings without asserting them (e.g. under
 *   compute-sanitizer). */
#include <check.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "kernels.h"
#include "pattern.h"
#include "refcache.h"
#include "sizes.h"


static const uint64_t k_seeds[] = {1, 0x9e3779b97f4a7c15ull};
enum { GUARD = 64 }; /* bytes past the input, poisoned and checked untouched */

static const size_t *g_sizes;
static size_t g_nsizes, g_cap; /* g_cap: bytes of the largest input */
static unsigned char *g_cpu, *g_gpu, *g_dev;
static unsigned long long *g_dfp;
static cudaStream_t g_stream;

/* ---- the CPU fill, on every core (Release: about 2 s for all the data) ---- */

typedef struct {
  kg_dtype dt;
  kg_pattern p;
  uint64_t seed;
  size_t n;
  void *buf;
  atomic_size_t next;
} fill_job;

#define CHUNK ((size_t)1 << 20)

static void *fill_work(void *arg) {
  fill_job *j = arg;
  for (size_t k; (k = atomic_fetch_add(&j->next, 1)) * CHUNK < j->n;) {
    size_t lo = k * CHUNK, hi = lo + CHUNK < j->n ? lo + CHUNK : j->n;
    kg_pattern_fill_range(j->dt, j->p, j->seed, j->n, j->buf, lo, hi);
  }
  return NULL;
}

static void cpu_fill(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, void *buf) {
  fill_job j = {dt, p, seed, n, buf, 0};
  pthread_t tid[64];
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int want = (int)(cpus < 1 ? 1 : cpus > 64 ? 64 : cpus), started = 0;
  if ((size_t)want > n / CHUNK + 1) want = (int)(n / CHUNK + 1);
  while (started < want - 1 && pthread_create(&tid[started], NULL, fill_work, &j) == 0) started++;
  fill_work(&j);
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
}

/* ---- one input, GPU against CPU ---- */

#define CUDA_OR_SAY(expr)                                                                          \
  do {                                                                                           \
    cudaError_t e_ = (cudaError_t)(expr);                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      snprintf(msg, len, "CUDA error at %s:%d: %s (%d) / %s", __FILE__, __LINE__,                \
               cudaGetErrorName(e_), (int)e_, #expr);                                            \
      return -1;                                                                                 \
    }                                                                                            \
  } while (0)

static const char *label(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n) {
  static char s[96];
  snprintf(s, sizeof s, "%s %s seed %llu n=%zu", kg_dtype_get(dt)->name, kg_pattern_name(p),
           (unsigned long long)seed, n);
  return s;
}

static void hex(const unsigned char *b, size_t sz, char *out) {
  for (size_t k = sz; k-- > 0;) out += sprintf(out, "%02x", b[k]); /* little-endian: most significant first */
}

/* The first differing element, with both encodings, and how many differ. */
static void say_first_diff(kg_dtype dt, size_t n, char *msg, size_t len, const char *what) {
  size_t sz = kg_dtype_get(dt)->size, first = n, count = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp(g_cpu + i * sz, g_gpu + i * sz, sz) != 0) count++, first = first < n ? first : i;
  char c[20], g[20];
  hex(g_cpu + first * sz, sz, c), hex(g_gpu + first * sz, sz, g);
  snprintf(msg, len, "%s: %zu of %zu elements differ, first [%zu]: CPU 0x%s (%g), GPU 0x%s (%g)", what, count, n,
           first, c, kg_dtype_load(dt, g_cpu, first), g, kg_dtype_load(dt, g_gpu, first));
}

/* The shipped references (data/kgate-refs.txt): every default input of seed
 * 1 with the fingerprint the GPU's input must have. */
static kg_refcache g_table;
static int g_table_default; /* the default sizes are tested: each must be in the table */

static const uint64_t *golden_of(kg_dtype dt, kg_pattern p, size_t n) {
  const kg_refcache_entry *e = kg_refcache_find(&g_table, dt, n, p, 1, KG_GEN_VERSION);
  return e ? &e->fingerprint : NULL;
}

/* 0 when the GPU's input and fingerprint are the CPU's; else -1 and why. */
static int check_one(kg_dtype dt, kg_pattern p, uint64_t seed, size_t n, char *msg, size_t len) {
  size_t bytes = n * kg_dtype_get(dt)->size;
  unsigned long long fp_gpu = 0;
  cpu_fill(dt, p, seed, n, g_cpu);
  uint64_t fp_cpu = kg_gen_fingerprint(g_cpu, bytes);
  CUDA_OR_SAY(cudaMemsetAsync(g_dev, 0xa5, bytes + GUARD, g_stream));
  CUDA_OR_SAY(kg_dev_fill(dt, (int)p, seed, n, g_dev, g_stream));
  CUDA_OR_SAY(kg_dev_fingerprint(g_dev, bytes, g_dfp, g_stream));
  CUDA_OR_SAY(cudaMemcpyAsync(g_gpu, g_dev, bytes + GUARD, cudaMemcpyDeviceToHost, g_stream));
  CUDA_OR_SAY(cudaMemcpyAsync(&fp_gpu, g_dfp, sizeof fp_gpu, cudaMemcpyDeviceToHost, g_stream));
  CUDA_OR_SAY(cudaStreamSynchronize(g_stream));
  const char *what = label(dt, p, seed, n);
  if (memcmp(g_cpu, g_gpu, bytes) != 0) return say_first_diff(dt, n, msg, len, what), -1;
  for (size_t k = 0; k < GUARD; k++)
    if (g_gpu[bytes + k] != 0xa5) return snprintf(msg, len, "%s: byte %zu past the input written", what, k), -1;
  if (fp_gpu != fp_cpu)
    return snprintf(msg, len, "%s: same bytes, GPU fingerprint 0x%016llx, CPU 0x%016llx", what, fp_gpu,
                    (unsigned long long)fp_cpu), -1;
  const uint64_t *gold = seed == 1 ? golden_of(dt, p, n) : NULL;
  if (seed == 1 && !gold && g_table_default)
    return snprintf(msg, len, "%s: not in the shipped references", what), -1;
  if (gold && *gold != fp_cpu)
    return snprintf(msg, len, "%s: fingerprint 0x%016llx, shipped table 0x%016llx (the data changed)", what,
                    (unsigned long long)fp_cpu, (unsigned long long)*gold), -1;
  return 0;
}

/* Loop index: dtype * KG_NPATTERNS + pattern. Every size, both seeds. */
START_TEST(test_gpu_gen_fill_matches_cpu) {
  kg_dtype dt = (kg_dtype)(_i / KG_NPATTERNS);
  kg_pattern p = (kg_pattern)(_i % KG_NPATTERNS);
  if (!kg_pattern_applies(p, dt)) return;
  char msg[512], first[512] = "";
  size_t bad = 0, runs = 0;
  for (size_t s = 0; s < sizeof k_seeds / sizeof k_seeds[0]; s++)
    for (size_t k = 0; k < g_nsizes; k++, runs++)
      if (check_one(dt, p, k_seeds[s], g_sizes[k], msg, sizeof msg) && bad++ == 0) memcpy(first, msg, sizeof msg);
  printf("check_gpu_gen: %s %s: %zu of %zu inputs bit-identical\n", kg_dtype_get(dt)->name, kg_pattern_name(p),
         runs - bad, runs);
  fflush(stdout);
  ck_assert_msg(bad == 0, "%zu of %zu inputs differ; %s", bad, runs, first);
}
END_TEST

/* ---- the fingerprint on its own: every alignment and tail ---- */

START_TEST(test_gpu_gen_fingerprint_alignments) {
  enum { MAX = 4096 + 64 };
  unsigned char h[MAX];
  uint32_t x = 12345;
  for (size_t i = 0; i < MAX; i++) x = x * 1664525u + 1013904223u, h[i] = (unsigned char)(x >> 24);
  ck_assert_int_eq(cudaMemcpy(g_dev, h, MAX, cudaMemcpyHostToDevice), 0);
  const size_t offs[] = {0, 1, 3, 8, 15, 16}, lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 255, 4095, 4096};
  for (size_t a = 0; a < sizeof offs / sizeof offs[0]; a++)
    for (size_t b = 0; b < sizeof lens / sizeof lens[0]; b++) {
      unsigned long long got = 0;
      ck_assert_int_eq(kg_dev_fingerprint(g_dev + offs[a], lens[b], g_dfp, g_stream), 0);
      ck_assert_int_eq(cudaMemcpyAsync(&got, g_dfp, sizeof got, cudaMemcpyDeviceToHost, g_stream), 0);
      ck_assert_int_eq(cudaStreamSynchronize(g_stream), 0);
      uint64_t want = kg_gen_fingerprint(h + offs[a], lens[b]);
      ck_assert_msg(got == want, "offset %zu, %zu bytes: GPU 0x%016llx, CPU 0x%016llx", offs[a], lens[b], got,
                    (unsigned long long)want);
    }
}
END_TEST

/* A large input read 8-byte but not 16-byte aligned (the byte-load path),
 * and twice in a row (the result is reset, not accumulated). */
START_TEST(test_gpu_gen_fingerprint_large_unaligned) {
  size_t n = g_cap / 8 - 1, bytes = n * 8;
  cpu_fill(KG_F64, KG_PAT_UNIFORM, 3, n + 1, g_cpu);
  ck_assert_int_eq(cudaMemcpy(g_dev, g_cpu, bytes + 8, cudaMemcpyHostToDevice), 0);
  uint64_t want = kg_gen_fingerprint(g_cpu + 8, bytes);
  for (int round = 0; round < 2; round++) {
    unsigned long long got = 0;
    ck_assert_int_eq(kg_dev_fingerprint(g_dev + 8, bytes, g_dfp, g_stream), 0);
    ck_assert_int_eq(cudaMemcpyAsync(&got, g_dfp, sizeof got, cudaMemcpyDeviceToHost, g_stream), 0);
    ck_assert_int_eq(cudaStreamSynchronize(g_stream), 0);
    ck_assert_msg(got == want, "round %d: GPU 0x%016llx, CPU 0x%016llx", round, got, (unsigned long long)want);
  }
}
END_TEST

/* ---- errors ---- */

START_TEST(test_gpu_gen_fill_rejects) {
  ck_assert_int_eq(kg_dev_fill(KG_NDTYPES, KG_PAT_EXACT, 1, 10, g_dev, g_stream), cudaErrorInvalidValue);
  ck_assert_int_eq(kg_dev_fill(KG_F32, -1, 1, 10, g_dev, g_stream), cudaErrorInvalidValue);
  ck_assert_int_eq(kg_dev_fill(KG_F32, KG_NPATTERNS, 1, 10, g_dev, g_stream), cudaErrorInvalidValue);
  /* n == 0 writes nothing */
  unsigned char h[GUARD];
  ck_assert_int_eq(cudaMemsetAsync(g_dev, 0xa5, GUARD, g_stream), 0);
  ck_assert_int_eq(kg_dev_fill(KG_F64, KG_PAT_UNIFORM, 1, 0, g_dev, g_stream), 0);
  ck_assert_int_eq(cudaMemcpyAsync(h, g_dev, GUARD, cudaMemcpyDeviceToHost, g_stream), 0);
  ck_assert_int_eq(cudaStreamSynchronize(g_stream), 0);
  for (size_t k = 0; k < GUARD; k++) ck_assert_uint_eq(h[k], 0xa5);
}
END_TEST

/* ---- speed: the point of making inputs on the GPU ---- */

/* Median of 9 timed calls of one launch (fill: 0, fingerprint: 1), in ms. */
static float median_ms(int what, kg_dtype dt, kg_pattern p, size_t n) {
  cudaEvent_t a, b;
  float t[9];
  ck_assert_int_eq(cudaEventCreate(&a), 0);
  ck_assert_int_eq(cudaEventCreate(&b), 0);
  size_t bytes = n * kg_dtype_get(dt)->size;
  for (int r = -1; r < 9; r++) { /* r == -1: warm-up */
    ck_assert_int_eq(cudaEventRecord(a, g_stream), 0);
    int e = what ? kg_dev_fingerprint(g_dev, bytes, g_dfp, g_stream) : kg_dev_fill(dt, p, 1, n, g_dev, g_stream);
    ck_assert_int_eq(e, 0);
    ck_assert_int_eq(cudaEventRecord(b, g_stream), 0);
    ck_assert_int_eq(cudaEventSynchronize(b), 0);
    if (r >= 0) ck_assert_int_eq(cudaEventElapsedTime(&t[r], a, b), 0);
  }
  cudaEventDestroy(a), cudaEventDestroy(b);
  for (int i = 1; i < 9; i++) /* insertion sort */
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      float s = t[j];
      t[j] = t[j - 1], t[j - 1] = s;
    }
  return t[4];
}

/* Loop index: the dtype. Fill (every pattern that applies) and fingerprint
 * of 2^25 elements, each under 1 ms. */
START_TEST(test_gpu_gen_speed) {
  kg_dtype dt = (kg_dtype)_i;
  size_t n = (size_t)1 << 25, bytes = n * kg_dtype_get(dt)->size;
  int assert_it = !getenv("KG_GPU_NO_SPEED");
  for (int p = 0; p < KG_NPATTERNS; p++) {
    if (!kg_pattern_applies((kg_pattern)p, dt)) continue;
    float ms = median_ms(0, dt, (kg_pattern)p, n);
    printf("check_gpu_gen: kg_dev_fill 2^25 %s %s: %.3f ms, %.0f GB/s\n", kg_dtype_get(dt)->name,
           kg_pattern_name((kg_pattern)p), ms, (double)bytes / ms * 1e-6);
    if (assert_it) ck_assert_msg(ms < 1.0f, "%s %s: fill took %.3f ms", kg_dtype_get(dt)->name, kg_pattern_name((kg_pattern)p), ms);
  }
  float ms = median_ms(1, dt, KG_PAT_EXACT, n);
  printf("check_gpu_gen: kg_dev_fingerprint 2^25 %s (%zu MiB): %.3f ms, %.0f GB/s\n", kg_dtype_get(dt)->name,
         bytes >> 20, ms, (double)bytes / ms * 1e-6);
  fflush(stdout);
  if (assert_it) ck_assert_msg(ms < 1.0f, "%s: fingerprint took %.3f ms", kg_dtype_get(dt)->name, ms);
}
END_TEST

/* ---- set-up ---- */

/* The shipped references: $KG_REFS_TABLE, else kgate-refs.txt in the build
 * folder above this test. */
static int load_table(int default_sizes) {
  char path[PATH_MAX], err[600];
  const char *env = getenv("KG_REFS_TABLE");
  if (env && *env) {
    snprintf(path, sizeof path, "%s", env);
  } else {
    ssize_t got = readlink("/proc/self/exe", path, sizeof path - 32);
    char *slash = got > 0 ? (path[got] = '\0', strrchr(path, '/')) : NULL;
    if (!slash) return fprintf(stderr, "check_gpu_gen: cannot find this test's folder\n"), EXIT_FAILURE;
    strcpy(slash, "/../" KG_REFCACHE_TABLE);
  }
  long dropped = kg_refcache_load(&g_table, path, NULL, err, sizeof err);
  if (dropped != 0 || g_table.n == 0) {
    fprintf(stderr, "check_gpu_gen: %s: %s\n", path, dropped ? err : "no references (missing or empty)");
    return EXIT_FAILURE;
  }
  g_table_default = default_sizes;
  return 0;
}

/* The size list and the buffers for its largest input (and 2^25 f64 for the
 * speed test); 77 when there is no device. */
static int setup(size_t **own_sizes) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    printf("check_gpu_gen: skipped: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorName(e) : "none found");
    return 77;
  }
  const char *env = getenv("KG_GPU_SIZES");
  char err[256];
  if (env && *env) {
    if (kg_sizes_parse(env, own_sizes, &g_nsizes, err, sizeof err)) {
      fprintf(stderr, "check_gpu_gen: KG_GPU_SIZES: %s\n", err);
      return EXIT_FAILURE;
    }
    g_sizes = *own_sizes;
  } else {
    g_sizes = kg_sizes_default(&g_nsizes);
  }
  g_cap = ((size_t)8 << 25);
  for (size_t k = 0; k < g_nsizes; k++)
    if (g_sizes[k] * 8 > g_cap) g_cap = g_sizes[k] * 8;
  g_cpu = malloc(g_cap + GUARD), g_gpu = malloc(g_cap + GUARD);
  if (!g_cpu || !g_gpu || cudaSetDevice(0) || cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking) ||
      cudaMalloc((void **)&g_dev, g_cap + GUARD) || cudaMalloc((void **)&g_dfp, sizeof *g_dfp)) {
    fprintf(stderr, "check_gpu_gen: out of host or device memory for %zu bytes\n", g_cap);
    return EXIT_FAILURE;
  }
  struct cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) printf("check_gpu_gen: device 0: %s\n", prop.name);
  return load_table(env == NULL || !*env);
}

int main(void) {
  size_t *own_sizes = NULL;
  int rc = setup(&own_sizes);
  if (rc) return rc;
  Suite *s = suite_create("gpu_gen");
  TCase *core = tcase_create("Core");
  tcase_add_loop_test(core, test_gpu_gen_fill_matches_cpu, 0, KG_NDTYPES * KG_NPATTERNS);
  tcase_add_test(core, test_gpu_gen_fingerprint_alignments);
  tcase_add_test(core, test_gpu_gen_fingerprint_large_unaligned);
  suite_add_tcase(s, core);
  TCase *errors = tcase_create("Errors");
  tcase_add_test(errors, test_gpu_gen_fill_rejects);
  suite_add_tcase(s, errors);
  TCase *speed = tcase_create("Speed");
  tcase_add_loop_test(speed, test_gpu_gen_speed, 0, KG_NDTYPES);
  suite_add_tcase(s, speed);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* no CUDA across fork */
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  cudaFree(g_dev), cudaFree(g_dfp), cudaStreamDestroy(g_stream);
  free(g_cpu), free(g_gpu), free(own_sizes);
  kg_refcache_free(&g_table);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
