/* kgate selftest: the planted bugs through the checks that must catch them
 * (gate.c, selftest.c). */
#include "gate.h"
#include "options.h"

#define KG_SETTINGS kg_selftest_opts
static const kg_opt k_rows[] = {
#define KG_GATE_OPTION(check, run, selftest, list, ...) KG_IF(selftest, __VA_ARGS__)
#include "gate_options.def"
#undef KG_GATE_OPTION
};

static void init(void *settings) {
  kg_selftest_opts *o = settings;
  o->paired.pair.quads = 32;
  o->paired.sequential = 1; /* the sequential decision, as the pull-request gate makes it */
}

static int run(void *settings, const kg_cmd_call *call) {
  (void)call;
  return kg_gate_selftest(settings);
}

const kg_cmd cmd_selftest = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_selftest_opts), .init = init, .run = run};
