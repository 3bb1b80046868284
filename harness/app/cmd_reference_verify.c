/* kgate reference verify PINS MODULE: whether the module is a pinned reference (nightly.c). */
#include "nightly.h"
#include "options.h"

static int run(void *settings, const kg_cmd_call *call) {
  (void)settings;
  return kg_nightly_verify(call->args[0], call->args[1]);
}

const kg_cmd cmd_reference_verify = {.least = 2, .most = 2, .label = "reference verify",
                                     .needs = "a pin file and a module", .run = run};
