/* Names and report order of the verdicts (outcome.h). */
#include "outcome.h"

static const char *const k_verdict[KG_NVERDICTS] = {"SAME", "SLOWER", "FASTER", "NEW", "MISSING", "UNKNOWN"};

/* Report order: what may block a merge first, then what changed, then the rest. */
static const int k_rank[KG_NVERDICTS] = {
    [KG_V_SLOWER] = 0, [KG_V_UNKNOWN] = 1, [KG_V_MISSING] = 2,
    [KG_V_FASTER] = 3, [KG_V_NEW] = 4,     [KG_V_SAME] = 5,
};

const char *kg_verdict_name(kg_verdict v) { return (unsigned)v < KG_NVERDICTS ? k_verdict[v] : "?"; }

int kg_verdict_rank(kg_verdict v) { return (unsigned)v < KG_NVERDICTS ? k_rank[v] : KG_NVERDICTS; }

static const char *const k_pverdict[KG_NPVERDICTS] = {"SAME", "SLOWER",  "FASTER",  "UNDECIDED",
                                                      "NEW",  "MISSING", "UNKNOWN", "UNCHANGED"};

const kg_pverdict kg_pverdict_order[KG_NPVERDICTS] = {KG_PV_SLOWER, KG_PV_UNKNOWN, KG_PV_UNDECIDED, KG_PV_MISSING,
                                                      KG_PV_FASTER, KG_PV_NEW,     KG_PV_SAME,      KG_PV_UNCHANGED};

const char *kg_pverdict_name(kg_pverdict v) { return (unsigned)v < KG_NPVERDICTS ? k_pverdict[v] : "?"; }


int kg_pverdict_rank(kg_pverdict v) {
  for (int k = 0; k < KG_NPVERDICTS; k++)
    if (kg_pverdict_order[k] == v) return k;
  return KG_NPVERDICTS;
}
