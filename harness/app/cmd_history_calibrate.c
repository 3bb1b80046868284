/* kgate history calibrate NIGHTS: the detector replayed on unchanged nights (nightly.c). */
#include "nightly.h"
#include "options.h"

typedef struct calibrate_opts {
  uint64_t seed; /* --seed: the replays' */
} calibrate_opts;

#define KG_SETTINGS calibrate_opts
static const kg_opt k_rows[] = {KG_ROW_SEED(seed)};

static int run(void *settings, const kg_cmd_call *call) {
  return kg_nightly_calibrate(call->args[0], ((const calibrate_opts *)settings)->seed);
}

const kg_cmd cmd_history_calibrate = {KG_CMD_ROWS(k_rows), .size = sizeof(calibrate_opts), .least = 1, .most = 1,
                                      .label = "history calibrate", .needs = "a history file", .run = run};
