/* scenarios/error.c: the SCEN_ERROR domain. */
#include "scenarios/scenarios.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-scenarios-error-quark, scen_error)
/* clang-format on */
