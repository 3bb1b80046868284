/* fake_worker: a stand-in for `kgate worker` that speaks the protocol but
 * misbehaves on chosen sizes, so the supervisor's recovery can be tested
 * without a GPU. Pass results carry the worker's pid in "got" and the case's
 * n in "expected", so a test can tell which worker answered which case.
 *
 *   fake_worker [worker ...]  hello, then answer every case (below)
 *   fake_worker fatal         {"fatal":"no CUDA device: test"} instead of hello
 *   fake_worker mute          exit 3 before any line
 *   fake_worker sleep         never say hello (fork a sleeping grandchild, then hang)
 *   fake_worker garbage       a first line that is not JSON
 * $FAKE_MEM_BYTES sets the hello's mem_bytes (default 0: unknown).
 *   fake_worker worker --device N   as a worker on device N: "device" in
 *                             each result, 2 ms per case (so that two of them
 *                             both get work in the multi-device tests)
 * For the phase times: $FAKE_HELLO_MS waits that long before the hello (a
 * worker's start-up); $FAKE_CASE_MS makes each case take that long instead
 * of 2 ms, a quarter of it reported as input_us and the rest as check_us.
 *
 * Sizes that misbehave:
 *   13 raise SIGSEGV          17 hang forever
 *   19 CUDA error, restart:true, exit 1
 *   23 a line that is not JSON   29 exit 0 without answering
 *   31 answer for another case   37 the answer in two writes, 100 ms apart
 * With $FAKE_SAN_LOG set it also plays compute-sanitizer (its --log-file):
 *   41 a memcheck report appended to the log, then a pass
 *   43 a pass; a report and exit status 86 only when stdin closes
 * Process groups ($FAKE_PID_FILE, when set, gets "<worker pid> <grandchild
 * pid>" once the grandchild exists, written whole through a rename):
 *   47 fork a grandchild that sleeps forever, then hang
 *   53 fork a grandchild that sleeps forever, then answer (it outlives us)
 * The protocol's rules (supervisor.h):
 *   59 the answer twice, in one write     61 the answer, then again 50 ms later
 *   67 the answer, a NUL and more bytes before the newline
 *   71 1 MiB without a newline, then hang
 *   73 bytes without a newline, forever
 *   79 the answer, then bytes with no newline
 * $FAKE_MODE, when set, replaces the mode (for `kgate check --worker`).
 * With $FAKE_PAIR, a paired case answers four blocks whose ratios lie
 * within 0.02 % of 1 ("tight") or 4 % ("wide"), or within 0.02 % of 1.105
 * ("slow"). The re-check after timing: "wrong_head" and "wrong_base" answer
 * that side's results wrong (fail wrong_after_timing, with a guard of 64
 * samples re-checked); "wrong_late" answers "wide" in round 1 and a wrong
 * head from round 2 (less work after N calls).
 * A paired probe (kg_pair_opts.probe) answers that head and base launch the
 * same kernel, named by $FAKE_PROBE_KERNEL, twice; without it, "not known". 
 * Kernel modules as `kgate worker` takes them (--own-kernels, --kernels,
 * --base-kernels; no own module unless given) are loaded with the real
 * loader (module.h), so their variants join this worker's registry; with
 * --describe it prints their description and exits, as the real one does. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "modload.h"
#include "proto.h"
#include "unchanged.h"

static const char k_memcheck[] =
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at void oob<int, unsigned int>(const T1 *, T2 *, unsigned long)+0x1d0 in "
    "/src/kernels/mutants/mut_oob_read.cu:19\n"
    "=========     by thread (33,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f0000000084 is out of bounds\n"
    "=========\n";

static void san_log(const char *text) {
  const char *path = getenv("FAKE_SAN_LOG");
  FILE *f = path ? fopen(path, "ab") : NULL;
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* A grandchild in the worker's process group that sleeps until killed. */
static void fork_sleeper(void) {
  pid_t child = fork();
  if (child == 0)
    for (;;) pause();
  const char *path = getenv("FAKE_PID_FILE");
  if (!path || child < 0) return;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  fprintf(f, "%ld %ld\n", (long)getpid(), (long)child);
  fclose(f);
  rename(tmp, path);
}

static void sleep_ms(double ms) {
  if (ms > 0) nanosleep(&(struct timespec){(time_t)(ms / 1000), (long)(ms * 1e6) % 1000000000L}, NULL);
}

static void emit(char *line) {
  if (!line) exit(4);
  printf("%s\n", line);
  fflush(stdout);
  free(line);
}

int main(int argc, char **argv) {
  const char *mode = getenv("FAKE_MODE") ? getenv("FAKE_MODE") : argc > 1 ? argv[1] : "worker";
  int device = argc > 3 && !strcmp(argv[2], "--device") ? atoi(argv[3]) : -1;
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core); /* the SIGSEGV case must not dump core */
  const char *own = NULL, *kernels[KG_MODULES_MAX], *base[KG_MODULES_MAX];
  int nk = 0, nb = 0, describe = 0;
  for (int i = 1; i < argc; i++) {
    describe |= !strcmp(argv[i], "--describe");
    if (i + 1 < argc && !strcmp(argv[i], "--own-kernels")) own = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--kernels") && nk < KG_MODULES_MAX) kernels[nk++] = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--base-kernels") && nb < KG_MODULES_MAX) base[nb++] = argv[++i];
  }
  static kg_module_set set; /* loaded for the life of the worker */
  if (own || nk || nb || describe) {
    char why[1024];
    if (kg_module_set_load(&set, own, kernels, nk, base, nb, why, sizeof why)) {
      emit(kg_proto_encode_fatal(why));
      return 2;
    }
    if (describe) {
      char *line = kg_module_describe(set.mod, set.role, (size_t)set.nmods);
      int described = line != NULL;
      emit(described ? line : kg_proto_encode_fatal("cannot describe the kernel modules"));
      return described ? 0 : 2;
    }
  }
  if (!strcmp(mode, "mute")) return 3;
  if (!strcmp(mode, "sleep")) { /* with a grandchild, as a wrapper that hangs would have */
    fork_sleeper();
    for (;;) pause();
  }
  if (!strcmp(mode, "garbage")) {
    puts("hello, supervisor");
    return 0;
  }
  if (!strcmp(mode, "fatal")) {
    emit(kg_proto_encode_fatal("no CUDA device: test"));
    return 3;
  }
  kg_device_info dev = {.name = "fake device", .cc_major = 9, .sms = 1};
  if (getenv("FAKE_MEM_BYTES")) dev.mem_bytes = atoll(getenv("FAKE_MEM_BYTES")); /* the memory check */
  double case_ms = getenv("FAKE_CASE_MS") ? atof(getenv("FAKE_CASE_MS")) : 0;
  sleep_ms(getenv("FAKE_HELLO_MS") ? atof(getenv("FAKE_HELLO_MS")) : 0);
  emit(kg_proto_encode_hello(&dev));

  char *line = NULL;
  size_t cap = 0;
  int late_report = 0;
  while (getline(&line, &cap, stdin) > 0) {
    size_t index;
    kg_case c;
    kg_run_params p;
    char err[200];
    if (kg_proto_decode_case(line, &index, &c, &p, err, sizeof err)) {
      fprintf(stderr, "fake_worker: %s\n", err);
      free(line);
      return 2;
    }
    kg_result r = {.status = KG_ST_PASS, .repeats = p.repeats, .depth = 1};
    snprintf(r.got, sizeof r.got, "%ld", (long)getpid());
    snprintf(r.expected, sizeof r.expected, "%zu", c.n);
    if (device >= 0) r.device = device;
    if (case_ms > 0) { /* its time, as a worker reports what a case cost */
      sleep_ms(case_ms);
      r.input_us = 250 * case_ms, r.check_us = 750 * case_ms;
    } else if (device >= 0) {
      sleep_ms(2);
    }
    if (p.pair.on && p.pair.probe) {
      const char *k = getenv("FAKE_PROBE_KERNEL");
      r.probed = 1, r.launch_same = k ? 1 : -1, r.nkernels = k ? 1 : 0, r.nlaunches = k ? 2 : 0;
      if (k) r.kernels[0] = kg_code_name_hash(k);
      else snprintf(r.message, sizeof r.message, "not proven: the fake worker captures nothing");
      emit(kg_proto_encode_result(index, &r, 0));
      continue;
    }
    if (p.pair.on && getenv("FAKE_PAIR")) { /* a paired case: four blocks, tight or wide apart, or slower */
      static const double k_tight[] = {1e-4, -1e-4, 2e-4, -2e-4}, k_wide[] = {0.02, -0.02, 0.04, -0.04};
      const char *how = getenv("FAKE_PAIR");
      if (!strcmp(how, "wrong_late")) how = p.pair.round >= 2 ? "wrong_head" : "wide";
      if (!strncmp(how, "wrong_", 6)) {
        r.status = KG_ST_FAIL, r.fail = KG_FK_WRONG_AFTER_TIMING;
        r.pair_wrong = strcmp(how, "wrong_base") ? KG_SIDE_HEAD : KG_SIDE_BASE;
        r.guard = (kg_guard){.on = 1, .recheck = KG_RECHECK_EXACT, .rechecked = 64};
        snprintf(r.message, sizeof r.message, "copy 2, after timing, sample 5 of 128 (input element 7 changed): got 1, "
                 "expected 3 (differs)");
        emit(kg_proto_encode_result(index, &r, 0));
        continue;
      }
      const double *v = strcmp(how, "wide") ? k_tight : k_wide;
      double shift = strcmp(how, "slow") ? 0 : 0.1;
      r.nblocks = 4;
      for (int k = 0; k < 4; k++) r.blocks[k] = (kg_pblock){shift + v[k], 16, 10.0, 10.0};
      emit(kg_proto_encode_result(index, &r, 0));
      continue;
    }
    switch (c.n) {
    case 13: raise(SIGSEGV); return 5;
    case 17: for (;;) pause();
    case 19:
      r.status = KG_ST_ERROR, r.fail = KG_FK_CRASH;
      snprintf(r.message, sizeof r.message, "CUDA error at fake.cu:19: cudaErrorIllegalAddress (700) / kernel");
      emit(kg_proto_encode_result(index, &r, 1));
      free(line); /* LeakSanitizer: the sanitizer build checks the fake worker too */
      return 1;
    case 23:
      puts("Segmentation fault (core dumped)");
      fflush(stdout);
      continue;
    case 29: free(line); return 0;
    case 41:
      san_log(k_memcheck);
      emit(kg_proto_encode_result(index, &r, 0));
      continue;
    case 43:
      late_report = 1;
      emit(kg_proto_encode_result(index, &r, 0));
      continue;
    case 31: emit(kg_proto_encode_result(index + 1, &r, 0)); continue;
    case 47: fork_sleeper(); for (;;) pause();
    case 53:
      fork_sleeper();
      emit(kg_proto_encode_result(index, &r, 0));
      continue;
    case 59:
    case 67:
    case 79: {
      char *ans = kg_proto_encode_result(index, &r, 0);
      if (!ans) return 4;
      if (c.n == 59) printf("%s\n%s\n", ans, ans);
      if (c.n == 67) printf("%s%c{\"case\":%zu}\n", ans, '\0', index + 1);
      if (c.n == 79) printf("%s\ngarbage", ans);
      fflush(stdout);
      free(ans);
      continue;
    }
    case 61:
      emit(kg_proto_encode_result(index, &r, 0));
      nanosleep(&(struct timespec){0, 50000000}, NULL);
      emit(kg_proto_encode_result(index, &r, 0));
      continue;
    case 71:
    case 73: {
      static char chunk[65536];
      memset(chunk, 'x', sizeof chunk);
      for (int k = 0; c.n == 73 || k < 16; k++)
        if (fwrite(chunk, 1, sizeof chunk, stdout) != sizeof chunk) return free(line), 6;
      fflush(stdout);
      for (;;) pause();
    }
    case 37: {
      char *s = kg_proto_encode_result(index, &r, 0);
      size_t half = strlen(s) / 2;
      fwrite(s, 1, half, stdout);
      fflush(stdout);
      nanosleep(&(struct timespec){0, 100000000}, NULL);
      emit(strdup(s + half));
      free(s);
      continue;
    }
    default: emit(kg_proto_encode_result(index, &r, 0));
    }
  }
  free(line);
  if (late_report) {
    san_log("========= Barrier error detected. Divergent thread(s) in warp\n"
            "=========     at void early<int, unsigned int>(...)+0x120 in /src/mut_early_return.cu:20\n"
            "========= ERROR SUMMARY: 1 error\n");
    return 86;
  }
  return 0;
}
