/*
 * sim/link.h: what a link does to a message: latency and loss models.
 *
 * Specs are `model:key=value,...`; times in milliseconds:
 *   constant:ms=10            every message takes 10 ms
 *   uniform:min=1,max=20      uniform on [1, 20] ms
 *   lognormal:mu=2,sigma=0.5  ln(latency in ms) ~ N(mu, sigma^2)
 * Loss specs: `bernoulli:p=0.1` or a bare probability `0.1`.
 */
#ifndef DPG_SIM_LINK_H
#define DPG_SIM_LINK_H

#include <gsl/gsl_rng.h>

#include "sim/base.h"

G_BEGIN_DECLS

typedef enum {
  SIM_LATENCY_CONSTANT,
  SIM_LATENCY_UNIFORM,
  SIM_LATENCY_LOGNORMAL,
} SimLatencyKind;

/** A latency model; only the fields of its kind are read. */
typedef struct {
  SimLatencyKind kind;
  double ms;             /* constant */
  double min_ms, max_ms; /* uniform */
  double mu, sigma;      /* lognormal, of ln(ms) */
} SimLatency;

/** Latencies are clamped to this (about 146 years) so arrival times never wrap. */
#define SIM_LATENCY_MAX ((SimTime)1 << 62)

/**
 * sim_latency_parse: reads a latency spec (see above) into @out.
 * Errors: SIM_ERROR_PARSE naming the unknown model, the missing, unknown or
 * repeated key, or the value that is not a number or out of range (negative
 * or non-finite times, min > max, sigma < 0). @out is untouched on error.
 */
gboolean sim_latency_parse(const char *spec, SimLatency *out, GError **error);

/** sim_latency_check: SIM_ERROR_INVALID_ARGUMENT unless @latency is valid. */
gboolean sim_latency_check(const SimLatency *latency, GError **error);

/** sim_latency_to_string: @latency as a spec sim_latency_parse reads back. */
char *sim_latency_to_string(const SimLatency *latency);

/** sim_latency_mean_ms: the model's mean: ms, (min+max)/2, exp(mu + sigma^2/2). */
double sim_latency_mean_ms(const SimLatency *latency);

/**
 * sim_latency_sample: one latency in nanoseconds (rounded to nearest, clamped
 * to SIM_LATENCY_MAX). Constant draws nothing from @rng; uniform and
 * lognormal draw one gsl_rng_uniform / gsl_ran_lognormal. O(1).
 */
SimTime sim_latency_sample(const SimLatency *latency, gsl_rng *rng);

/**
 * sim_loss_parse: reads a loss spec into @p in [0, 1].
 * Errors: SIM_ERROR_PARSE as for sim_latency_parse.
 */
gboolean sim_loss_parse(const char *spec, double *p, GError **error);

/**
 * sim_loss_sample: TRUE when a message is lost. p <= 0 and p >= 1 draw
 * nothing; otherwise one gsl_rng_uniform(@rng) < p. O(1).
 */
gboolean sim_loss_sample(double p, gsl_rng *rng);

/** What one directed link does to a message. */
typedef struct {
  SimLatency latency;
  double loss; /* Bernoulli drop probability in [0, 1] */
} SimLinkParams;

G_END_DECLS

#endif /* DPG_SIM_LINK_H */
