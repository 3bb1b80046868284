/* kgate run: the gate, the check and the timing against the baseline or a
 * base module (the session, session.h; its printer, gateout.c). */
#include "gateout.h"
#include "settings.h"
#include "options.h"

#define KG_SETTINGS kg_gate_opts
static const kg_opt k_rows[] = {
#define KG_GATE_OPTION(check, run, selftest, list, ...) KG_IF(run, __VA_ARGS__)
#include "gate_options.def"
#undef KG_GATE_OPTION
};

static void init(void *settings) {
  kg_gate_opts_init(settings);
  ((kg_gate_opts *)settings)->timing = 1;
}

static int run(void *settings, const kg_cmd_call *call) {
  (void)call;
  return kg_gate_command(settings);
}

const kg_cmd cmd_run = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_gate_opts), .init = init,
                        .formats = KG_FORMATS_ALL, .reports = offsetof(kg_gate_opts, reports), .run = run,
                        .gpu_free = kg_gate_opts_gpu_free, .free = kg_gate_opts_free};
