/* Red for failure, amber for a regression, blue-grey for the environment,
 * grey for a notice, green for good: hues a reader ranks without a legend,
 * and the amber still tells from red for most colour-blind readers. */
#include "severity.h"

#include "detect.h"

static const kg_severity_info k_severity[KG_NSEVERITIES] = {
    [KG_SEV_FAILURE] = {"failure", 0xc62828, 0xfde0dd, 0xe08080},
    [KG_SEV_REGRESSION] = {"regression", 0xe07000, 0xffefd5, 0xf0a848},
    [KG_SEV_ENVIRONMENT] = {"environment", 0x4f6d7a, 0xe6eef2, 0x9fb3bd},
    [KG_SEV_NOTICE] = {"notice", 0x757575, 0xf3f3f3, 0xc9c9c9},
    [KG_SEV_GOOD] = {"good", 0x2e8b3a, 0xe5f5e0, 0x74c476},
};

kg_severity kg_find_severity(int kind) {
  switch (kind) {
  case KG_FIND_REGRESSION: return KG_SEV_REGRESSION;
  case KG_FIND_ENVIRONMENT:
  case KG_FIND_HEALTH: return KG_SEV_ENVIRONMENT;
  default: return KG_SEV_GOOD;
  }
}

const kg_severity_info *kg_severity_get(kg_severity s) {
  return (unsigned)s < KG_NSEVERITIES ? &k_severity[s] : 0;
}
