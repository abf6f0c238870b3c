/*
 * sim/sim.h: the public interface of dpgossip's simulation core.
 *
 * The core knows nothing of learning or privacy: it schedules events in
 * simulated time, delivers reference-counted messages over links with latency
 * and loss, hands out per-(node, purpose) random streams, publishes what
 * happens on an event bus, and keeps the linear provenance ("linvec") of every
 * vector a protocol builds.
 *
 * Conventions: public names carry the sim_ prefix (types Sim*); errors travel
 * as GError in the SIM_ERROR domain; library code never prints or exits.
 * Each function owns what it allocates unless its comment says otherwise.
 */
#ifndef DPG_SIM_H
#define DPG_SIM_H

#include <glib.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stddef.h>

G_BEGIN_DECLS

/* ===================================================================== */
/* Common                                                                 */
/* ===================================================================== */

/** Simulated time: an unsigned count of nanoseconds since the run began. */
typedef uint64_t SimTime;

#define SIM_TIME_NS ((SimTime)1)
#define SIM_TIME_US ((SimTime)1000)
#define SIM_TIME_MS ((SimTime)1000000)
#define SIM_TIME_S ((SimTime)1000000000)
#define SIM_TIME_NEVER UINT64_MAX

#define SIM_ERROR (sim_error_quark())
GQuark sim_error_quark(void);

typedef enum {
  SIM_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  SIM_ERROR_PARSE,            /* a textual spec that does not parse */
  SIM_ERROR_CAPACITY,         /* a size that cannot be represented or allocated */
} SimError;

/* ===================================================================== */
/* Event bus (owned by: engine)                                           */
/* ===================================================================== */

/* SECTION-ENGINE-BEGIN */
/* SECTION-ENGINE-END */

/* ===================================================================== */
/* Linear provenance: linvec (owned by: linvec)                           */
/* ===================================================================== */

/* SECTION-LINVEC-BEGIN */
/* SECTION-LINVEC-END */

G_END_DECLS

#endif /* DPG_SIM_H */
