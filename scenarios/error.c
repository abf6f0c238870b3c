/* scenarios/error.c: the SCEN_ERROR domain. */
#include "scenarios/scenarios.h"

G_DEFINE_QUARK(dpgossip-scenarios-error-quark, scen_error)
