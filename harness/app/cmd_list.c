/* kgate list: the variants, kgate's own and the --kernels modules' (gate.c). */
#include "gate.h"
#include "options.h"

typedef struct list_opts {
  kg_modules mods;
  const char *json; /* --json FILE ("-" for stdout) */
} list_opts;

#define KG_SETTINGS list_opts
static const kg_opt k_rows[] = {
#define KG_GATE_OPTION(check, run, selftest, list, ...) KG_IF(list, __VA_ARGS__)
#include "gate_options.def"
#undef KG_GATE_OPTION
};

static int run(void *settings, const kg_cmd_call *call) {
  (void)call;
  const list_opts *o = settings;
  return kg_gate_list(&o->mods, o->json);
}

const kg_cmd cmd_list = {KG_CMD_ROWS(k_rows), .size = sizeof(list_opts), .run = run};
