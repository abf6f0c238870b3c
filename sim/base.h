/*
 * sim/base.h: what every header of the simulation core shares: simulated
 * time,
 * the SIM_ERROR domain and the "no node" id.
 *
 * Conventions of the core: public names carry the sim_ prefix (types Sim*);
 * errors travel as GError in the SIM_ERROR domain; library code never prints
 * or exits. Each function owns what it allocates unless its comment says
 * otherwise.
 */
#ifndef DPG_SIM_BASE_H
#define DPG_SIM_BASE_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

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
  SIM_ERROR_FILE,             /* a data file (links, country, geo) whose content does not
                                 parse: FILE:LINE; the run's failure (exit status 1), as
                                 TOPO_ERROR_FILE, in every front end */
  SIM_ERROR_IO,               /* a data file (links, country, geo) that cannot be read:
                                 missing, a folder, a device, unreadable; the run's failure
                                 (exit status 1), as TOPO_ERROR_IO for a graph or churn file */
} SimError;

/** "No node": the sender of a run event, the node of a global RNG stream, the
 * metadata node of a noise variable attached to no single node. */
#define SIM_NODE_NONE G_MAXUINT

/**
 * sim_sorted_search: the first position in [@lo, @hi) of the increasing
 * @a holding a value >= @v, or @hi when none: the search of a sparse row's
 * column ids (a CSR row, a neighbour list, a provenance row).
 * Complexity: O(log(hi - lo)).
 */
static inline gsize sim_sorted_search(const guint *a, gsize lo, gsize hi, guint v) {
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

G_END_DECLS

#endif /* DPG_SIM_BASE_H */
