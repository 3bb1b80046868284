/* kgate report RESULTS --html DIR: the static page (publish.c). */
#include "options.h"
#include "publish.h"

#define KG_SETTINGS kg_publish_opts
static const kg_opt k_rows[] = {
    KG_ROW_TOLERANCE(tolerance_pct),
    KG_ROW_BASELINE(baseline),
    KG_OPTION("--history", NULL, OPT_STR(history, NULL), "FILE",
              "add the trend charts and the nights' verdicts of a history"),
    KG_OPTION("--html", NULL, OPT_STR(html, NULL), "DIR", "the folder of the page"),
    KG_ROW_ACK(ack),
    KG_OPTION("--bisect", NULL, OPT_STR(bisect, NULL), "FILE",
              "with --history: kgate bisect --json's result, in its finding's box"),
};

static int run(void *settings, const kg_cmd_call *call) {
  kg_publish_opts *po = settings;
  po->input = call->args[0];
  return kg_publish_report(po);
}

const kg_cmd cmd_report = {KG_CMD_ROWS(k_rows), .size = sizeof(kg_publish_opts), .least = 1, .most = 1,
                           .label = "report", .needs = "a results file", .required = offsetof(kg_publish_opts, html),
                           .required_text = "--html DIR", .run = run};
