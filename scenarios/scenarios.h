/* scenarios/scenarios.h: scenario files: parse, validate, run, sweep. */
#ifndef DPG_SCENARIOS_H
#define DPG_SCENARIOS_H

#include "protocols/protocols.h"

G_BEGIN_DECLS

#define SCEN_ERROR (scen_error_quark())
GQuark scen_error_quark(void);

G_END_DECLS

#endif /* DPG_SCENARIOS_H */
