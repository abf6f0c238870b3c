/*
 * sim/link.h: what a link does to a message: latency and loss models.
 *
 * Specs are `model:key=value,...`; times in milliseconds:
 *   constant:ms=10            every message takes 10 ms
 *   uniform:min=1,max=20      uniform on [1, 20] ms
 *   lognormal:mu=2,sigma=0.5  ln(latency in ms) ~ N(mu, sigma^2)
 * Measured models (latency_data.c) give each directed link its own delay,
 * fixed for the run:
 *   links:file=PATH,unit=ms   the third column of an edge list "u v latency"
 *                             (unit ms or s); a direction the file omits
 *                             takes its reverse's latency
 *   country:rtt=PATH,seed=S[,intra=PATH]
 *                             nodes drawn into countries, each link's delay
 *                             drawn from its pair's round-trip statistics
 *                             (RIPE Atlas tables, data/README.md), halved
 *   geo:nodes=PATH[,base=MS,per_km=MS,jitter=S,max=MS,seed=S]
 *                             nodes at the longitude and latitude of a node
 *                             file, each link's delay (base + per_km x the
 *                             great-circle km) times a log-normal factor of
 *                             mean 1, at most max (latency_geo.c; defaults
 *                             fitted to the pseudo-mainnet overlay,
 *                             data/README.md)
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
  SIM_LATENCY_LINKS,
  SIM_LATENCY_COUNTRY,
  SIM_LATENCY_GEO,
} SimLatencyKind;

/** A latency model; only the fields of its kind are read. */
typedef struct {
  SimLatencyKind kind;
  double ms;             /* constant */
  double min_ms, max_ms; /* uniform; max_ms also geo */
  double mu, sigma;      /* lognormal, of ln(ms) */
  /* links: the edge list and ms per unit of its latency column; country:
   * the pair table, the same-AS table (NULL: none) and the seed; geo: the
   * node file, the seed and the delay's constants below. Paths are interned
   * (g_intern_string), so a SimLatency is copied by value. */
  const char *file, *intra;
  double unit_ms;
  guint64 seed;
  double base_ms, per_km_ms, jitter; /* geo */
} SimLatency;

/** Whether @latency reads measured data (a file) to give each link its delay. */
#define SIM_LATENCY_IS_MEASURED(latency)                                                   \
  ((latency)->kind == SIM_LATENCY_LINKS || (latency)->kind == SIM_LATENCY_COUNTRY ||          \
   (latency)->kind == SIM_LATENCY_GEO)

/** The latency models a spec names, for the front ends' help (one text). */
#define SIM_LATENCY_GRAMMAR                                                                   \
  "constant:ms=X (default 0), uniform:min=A,max=B, lognormal:mu=M,sigma=S, "                 \
  "links:file=PATH,unit=ms|s, country:rtt=PATH,seed=S[,intra=PATH], "                        \
  "geo:nodes=PATH[,base=MS,per_km=MS,jitter=S,max=MS,seed=S]"

/** Latencies are clamped to this (about 146 years) so arrival times never wrap. */
#define SIM_LATENCY_MAX ((SimTime)1 << 62)

/**
 * sim_latency_parse: reads a latency spec (see above) into @out.
 * Errors: SIM_ERROR_PARSE naming the unknown model, the missing, unknown or
 * repeated key, or the value that is not a number or out of range (negative
 * or non-finite times, min > max, sigma < 0); SIM_ERROR_IO for a file a
 * measured model names that is missing, a folder or a device (the run's
 * failure, as a missing graph file). @out is untouched on error.
 */
gboolean sim_latency_parse(const char *spec, SimLatency *out, GError **error);

/**
 * sim_latency_spec_rebase: @spec with the relative paths of a measured
 * model's file, rtt and intra keys resolved against @dir (canonical), so a
 * scenario file's latency names files beside it; any other spec, and what
 * is not key=value, is returned as given (sim_latency_parse then says what
 * is wrong). (transfer full) O(length of @spec).
 */
char *sim_latency_spec_rebase(const char *spec, const char *dir);

/** sim_latency_check: SIM_ERROR_INVALID_ARGUMENT unless @latency is valid. */
gboolean sim_latency_check(const SimLatency *latency, GError **error);

/** sim_latency_to_string: @latency as a spec sim_latency_parse reads back. */
char *sim_latency_to_string(const SimLatency *latency);

/** sim_latency_mean_ms: the model's mean: ms, (min+max)/2, exp(mu + sigma^2/2);
 * NaN for a measured model (its mean depends on the graph's links). */
double sim_latency_mean_ms(const SimLatency *latency);

/**
 * sim_latency_sample: one latency in nanoseconds (rounded to nearest, clamped
 * to SIM_LATENCY_MAX). Constant draws nothing from @rng; uniform and
 * lognormal draw one gsl_rng_uniform / gsl_ran_lognormal. A measured model
 * has no delay without its link: 0 (the engine asks SimLatencyData). O(1).
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

/* How a graph names its nodes: the id of the node labelled @label, FALSE
 * when none is (topo_graph_node_find's signature; SpecNodeFind's). */
typedef gboolean (*SimNodeFind)(gconstpointer graph, const char *label, guint *id);

/*
 * Measured latency data (latency_data.c): the table a links: or country:
 * model reads, loaded once per engine and shared by reference.
 */
typedef struct SimLatencyData SimLatencyData;

/**
 * sim_latency_data_load: reads the file(s) of the measured model @latency
 * (plain or gzip). links: one directed link per line "u v latency" (blanks
 * or commas, '#' comments, an optional header line), latencies finite and
 * >= 0, no link twice, a first line whose latency is no number a header;
 * labels 0..n-1 are kept, any other labelling is numbered by first
 * appearance (sim_latency_data_load_named looks them up in the graph).
 * country: the RIPE Atlas tables (data/README.md); countries whose pairs are
 * all measured are kept, heaviest first (see latency_data.c). geo: a CSV node
 * file whose header names a longitude and a latitude column (long, lon or
 * longitude; lat or latitude) and optionally an id column (index, id or
 * node: ids 0..n-1, each once; without it row k is node k), in degrees.
 * Errors: SIM_ERROR_INVALID_ARGUMENT for a model that is not measured,
 * SIM_ERROR_FILE with FILE:LINE for a bad line or for text that does not
 * read (a cut or corrupt gzip, a line or table too long), SIM_ERROR_IO for
 * a file that cannot be read. O(file size + L log L) for L links.
 */
SimLatencyData *sim_latency_data_load(const SimLatency *latency, GError **error);

/**
 * sim_latency_data_load_named: sim_latency_data_load for a graph whose
 * nodes @find names (topo_graph_node_find's signature; @graph is its
 * first argument): a links file's two node columns and a geo file's id
 * column are the graph's labels, each looked up by @find (digits in
 * decimal, leading zeros dropped; quotes around a name dropped), so a file
 * written with the graph file's labels matches its nodes whatever their
 * order. A label the graph lacks is SIM_ERROR_FILE "FILE:LINE: node 'X' is
 * not in the graph". @find NULL is sim_latency_data_load. Cost: the
 * load's, plus one @find per label read.
 */
SimLatencyData *sim_latency_data_load_named(const SimLatency *latency, SimNodeFind find,
                                            gconstpointer graph, GError **error);
SimLatencyData *sim_latency_data_ref(SimLatencyData *data);
void sim_latency_data_unref(SimLatencyData *data);

/**
 * sim_latency_data_delay: the one-way delay of @from -> @to in *@ns. links:
 * the file's latency of the link, else of @to -> @from; FALSE when neither
 * is listed. country: RTT / 2 with the RTT drawn once per unordered pair
 * from its countries' statistics, a function of the seed and the two ids
 * alone (no random stream: the same in every run, thread and rank). geo:
 * min(max, (base + per_km x sim_great_circle_km) x exp(jitter z - jitter^2 /
 * 2)), z a standard normal drawn once per unordered pair in the same way;
 * FALSE for a node the file does not place.
 * O(log degree) for links, O(log countries) for country, O(1) for geo.
 */
gboolean sim_latency_data_delay(const SimLatencyData *data, guint32 from, guint32 to,
                                SimTime *ns);

/** sim_latency_data_describe: one line saying what was loaded (g_free). */
char *sim_latency_data_describe(const SimLatencyData *data);

/** The mean Earth radius (IUGG) of the geo model's distances, in km. */
#define SIM_EARTH_RADIUS_KM 6371.0088

/**
 * sim_great_circle_km: the great-circle distance in km between two points
 * given as longitude and latitude in degrees, on a sphere of radius
 * SIM_EARTH_RADIUS_KM (the haversine formula: accurate at every distance,
 * 0 included). O(1).
 */
double sim_great_circle_km(double lon1, double lat1, double lon2, double lat2);

/**
 * sim_latency_data_position: the longitude and latitude (degrees) of @node
 * under a geo model into *@lon and *@lat; FALSE for another model or a node
 * the file does not place. O(1).
 */
gboolean sim_latency_data_position(const SimLatencyData *data, guint32 node, double *lon,
                                   double *lat);

/** The round-trip statistics of one pair of countries, in ms. */
typedef struct {
  guint64 count;
  double mean, std, min, max; /* std 0 for a single ping */
  double mu, sigma;           /* the log-normal matched to mean and std */
  double p_lo, p_hi;          /* its CDF at min and max: the draw's range */
} SimRttStat;

/**
 * sim_latency_data_country: the country of @node (an index into the kept
 * countries) under a country model, its two-letter code in *@code (may be
 * NULL); -1 for a links model. O(log countries).
 */
gint sim_latency_data_country(const SimLatencyData *data, guint32 node, const char **code);

/**
 * sim_latency_data_pair: the statistics a link between countries @a and @b
 * (indices of sim_latency_data_country) is drawn from: their row of the
 * table, or for a = b the country's own row or else the same-AS row.
 * FALSE for a links model or an index out of range. O(1).
 */
gboolean sim_latency_data_pair(const SimLatencyData *data, guint a, guint b, SimRttStat *out);

G_END_DECLS

#endif /* DPG_SIM_LINK_H */
