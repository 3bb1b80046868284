/* kgate --version. */
#include <stdio.h>

#include "command.h"
#include "exitcode.h"

static int run(void *settings, const kg_cmd_call *call) {
  (void)settings, (void)call;
  printf("kgate %s (%s)\n", KG_VERSION, KG_GIT);
  return KG_EXIT_OK;
}

const kg_cmd cmd_version = {.run = run};
