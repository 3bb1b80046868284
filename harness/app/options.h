/* Option rows that commands in different files share, one macro each, so
 * that each command's file lists them with its own member (m) and the help
 * lists one line with every command that takes it. The rows of the commands
 * that run kernels are gate_options.def. */
#ifndef KG_OPTIONS_H
#define KG_OPTIONS_H

#include "command.h"

#define KG_ROW_SEED(m)                                                                                                 \
  KG_OPTION("--seed", NULL, OPT_U64(m, 0, UINT64_MAX, 1), "N",                                                         \
            "input seed (default 1; history calibrate: its replays')")
#define KG_ROW_TOLERANCE(m)                                                                                            \
  KG_OPTION("--tolerance", NULL, OPT_POS(m, 1000, 0), "PCT",                                                           \
            "slowdown tolerance for all sizes (default 20/15/3 % by size)")
#define KG_ROW_BASELINE_DIR(m)                                                                                         \
  KG_OPTION("--baseline-dir", NULL, OPT_STR(m, "baselines"), "DIR",                                                    \
            "where <gpu-slug>.json baselines live (default baselines)")
#define KG_ROW_OUTPUT(m, def)                                                                                          \
  KG_OPTION("--output", "-o", OPT_STR(m, def), "PATH",                                                                 \
            "where charts go (plot, history plot; default .); merge: the merged file")
#define KG_ROW_PLOTS(m)                                                                                                \
  KG_OPTION("--plots", NULL, OPT_STR(m, NULL), "DIR", "draw the run's charts (compare: the comparison chart) into DIR")
#define KG_ROW_BASELINE(m)                                                                                             \
  KG_OPTION("--baseline", NULL, OPT_STR(m, NULL), "FILE",                                                              \
            "compare with a baseline or results file (history plot: the band; default <baseline-dir>/<gpu-slug>.json)")
#define KG_ROW_ACK(m) KG_OPTION("--ack", NULL, OPT_STR(m, NULL), "FILE", "acknowledged findings (default: none)")

#endif
