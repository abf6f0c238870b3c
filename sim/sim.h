/*
 * sim/sim.h: the public interface of dpgossip's simulation core, one header
 * per topic (include this one, or only the topics a file uses).
 *
 * The core knows nothing of learning or privacy: it schedules events in
 * simulated time, delivers reference-counted messages over links with latency
 * and loss, hands out per-(node, purpose) random streams, publishes what
 * happens on an event bus, and keeps the linear provenance ("linvec") of every
 * vector a protocol builds.
 *
 *   sim/base.h      simulated time, the SIM_ERROR domain, SIM_NODE_NONE
 *   sim/queue.h     the (time, seq) event queue
 *   sim/rng.h       random streams per (node, purpose)
 *   sim/link.h      latency and loss models
 *   sim/message.h   reference-counted messages
 *   sim/topology.h  link up/down and graph changes
 *   sim/bus.h       the event bus: callbacks that see what the engine does
 *   sim/engine.h    the discrete-event engine
 *   sim/noise.h     the noise registry (columns of B)
 *   sim/linvec.h    linear provenance: vectors that know what they are made of
 *   sim/json.h      the JSON writer behind every JSON output
 *
 * The event stream and trace files that show a run to the outside world are
 * a module of their own above this one (stream/stream.h).
 *
 * Conventions: public names carry the sim_ prefix (types Sim*); errors travel
 * as GError in the SIM_ERROR domain; library code never prints or exits.
 * Each function owns what it allocates unless its comment says otherwise.
 */
#ifndef DPG_SIM_H
#define DPG_SIM_H

#include "sim/base.h"
#include "sim/bus.h"
#include "sim/engine.h"
#include "sim/json.h"
#include "sim/link.h"
#include "sim/linvec.h"
#include "sim/message.h"
#include "sim/noise.h"
#include "sim/queue.h"
#include "sim/rng.h"
#include "sim/topology.h"

#endif /* DPG_SIM_H */
