/*
 * topologies/generate.c: graphs from "name:key=value,..." specs.
 *
 * Random generators run igraph's games on a private igraph RNG seeded from
 * the spec alone, swapped in as igraph's default for the duration of the
 * call: the result never depends on what igraph drew before.
 */
#include <math.h>
#include <string.h>

#include "topologies/internal.h"

/* Largest n any generator accepts: keeps n*(n-1)/2 and 2^dim arithmetic far
 * from overflow; the dense ones (complete) have their own, smaller cap. */
#define MAX_NODES ((guint64)1 << 26)
#define MAX_COMPLETE 10000
#define PURPOSE_GENERATE 0x67656e /* "gen" */

typedef TopoGraph *(*GenFn)(const Spec *spec, GError **error);

typedef struct {
  const char *name;
  GenFn fn;
  gboolean random;
  const char *const *valid;
  const char *const *required;
} GenDef;

/* Run an igraph constructor's result through the guard and into a TopoGraph. */
static TopoGraph *wrap(igraph_error_t rc, igraph_t *ig, const char *what, GError **error) {
  if (rc != IGRAPH_SUCCESS) {
    topo_set_igraph_error(error, what, rc);
    return NULL;
  }
  return topo_graph_from_igraph(ig, error);
}

#define GET_UINT(key, dflt, lo, hi, var)                                                           \
  guint64 var;                                                                                     \
  if (!spec_uint(spec, key, dflt, lo, hi, &var, error))                                            \
  return NULL

#define GET_DOUBLE(key, lo, hi, var)                                                               \
  double var;                                                                                      \
  if (!spec_double(spec, key, 0.0, lo, hi, &var, error))                                           \
  return NULL

#define IGRAPH_CALL(call, what)                                                                    \
  igraph_t ig;                                                                                     \
  TopoIgraphGuard guard;                                                                           \
  topo_igraph_guard_begin(&guard);                                                                 \
  igraph_error_t rc = (call);                                                                      \
  topo_igraph_guard_end(&guard);                                                                   \
  return wrap(rc, &ig, what, error)

/* --- deterministic ------------------------------------------------------- */

static TopoGraph *gen_ring(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 3, MAX_NODES, n);
  IGRAPH_CALL(igraph_ring(&ig, (igraph_integer_t)n, IGRAPH_UNDIRECTED, 0, 1), "building a ring");
}

static TopoGraph *gen_path(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 2, MAX_NODES, n);
  IGRAPH_CALL(igraph_ring(&ig, (igraph_integer_t)n, IGRAPH_UNDIRECTED, 0, 0), "building a path");
}

static TopoGraph *gen_star(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 2, MAX_NODES, n);
  IGRAPH_CALL(igraph_star(&ig, (igraph_integer_t)n, IGRAPH_STAR_UNDIRECTED, 0), "building a star");
}

static TopoGraph *gen_complete(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 2, MAX_COMPLETE, n);
  IGRAPH_CALL(igraph_full(&ig, (igraph_integer_t)n, IGRAPH_UNDIRECTED, IGRAPH_NO_LOOPS),
              "building a complete graph");
}

static TopoGraph *gen_karate(const Spec *spec, GError **error) {
  (void)spec;
  IGRAPH_CALL(igraph_famous(&ig, "Zachary"), "building the karate club graph");
}

static TopoGraph *gen_grid(const Spec *spec, GError **error) {
  GET_UINT("rows", 0, 1, MAX_NODES, rows);
  GET_UINT("cols", 0, 1, MAX_NODES, cols);
  gboolean torus;
  if (!spec_bool(spec, "torus", FALSE, &torus, error))
    return NULL;
  if (rows * cols < 2 || rows * cols > MAX_NODES) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_RANGE,
                "grid: rows*cols=%" G_GUINT64_FORMAT " is out of range [2, %" G_GUINT64_FORMAT "]",
                rows * cols, MAX_NODES);
    return NULL;
  }
  /* Node r*cols + c; each node links right and down (wrapping on a torus);
   * loops and repeats from sides shorter than 3 vanish in topo_graph_build. */
  guint *e = g_new(guint, 4 * rows * cols);
  gsize m = 0;
  for (guint64 r = 0; r < rows; r++)
    for (guint64 c = 0; c < cols; c++) {
      guint u = (guint)(r * cols + c);
      if (c + 1 < cols || torus) {
        e[2 * m] = u;
        e[2 * m + 1] = (guint)(r * cols + (c + 1) % cols);
        m++;
      }
      if (r + 1 < rows || torus) {
        e[2 * m] = u;
        e[2 * m + 1] = (guint)(((r + 1) % rows) * cols + c);
        m++;
      }
    }
  TopoGraph *g = topo_graph_build((guint)(rows * cols), e, m, error);
  g_free(e);
  return g;
}

static TopoGraph *gen_hypercube(const Spec *spec, GError **error) {
  GET_UINT("dim", 0, 1, 20, dim);
  guint n = 1u << dim;
  guint *e = g_new(guint, (gsize)n * dim);
  gsize m = 0;
  for (guint u = 0; u < n; u++)
    for (guint b = 0; b < dim; b++)
      if (!(u & (1u << b))) {
        e[2 * m] = u;
        e[2 * m + 1] = u | (1u << b);
        m++;
      }
  TopoGraph *g = topo_graph_build(n, e, m, error);
  g_free(e);
  return g;
}

/* Padgett's Florentine families marriage network, in the node numbering of
 * data/graphs/florentine.edges (the paper's figures). Embedded so
 * that `make run` needs no data file. */
static const guint florentine_edges[20][2] = {
    {0, 1},  {1, 5}, {1, 6},  {1, 7}, {1, 8},  {1, 9},  {2, 3},  {2, 4},  {2, 5},   {3, 4},
    {3, 11}, {4, 6}, {4, 11}, {6, 7}, {7, 12}, {8, 12}, {8, 13}, {9, 10}, {11, 12}, {12, 14},
};

static TopoGraph *gen_florentine(const Spec *spec, GError **error) {
  (void)spec;
  return topo_graph_build(15, &florentine_edges[0][0], G_N_ELEMENTS(florentine_edges), error);
}

/* --- random (igraph's default RNG is the private one while these run) --- */

static TopoGraph *gen_erdos(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 1, MAX_NODES, n);
  GET_DOUBLE("p", 0.0, 1.0, p);
  IGRAPH_CALL(
      igraph_erdos_renyi_game_gnp(&ig, (igraph_integer_t)n, p, IGRAPH_UNDIRECTED, IGRAPH_NO_LOOPS),
      "sampling G(n,p)");
}

static TopoGraph *gen_gnm(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 1, MAX_NODES, n);
  GET_UINT("m", 0, 0, n * (n - 1) / 2, m);
  IGRAPH_CALL(igraph_erdos_renyi_game_gnm(&ig, (igraph_integer_t)n, (igraph_integer_t)m,
                                          IGRAPH_UNDIRECTED, IGRAPH_NO_LOOPS),
              "sampling G(n,m)");
}

static TopoGraph *gen_regular(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 1, MAX_NODES, n);
  GET_UINT("d", 0, 0, n - 1, d);
  if ((n * d) % 2 != 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "regular: n*d must be even (n=%" G_GUINT64_FORMAT ", d=%" G_GUINT64_FORMAT ")", n,
                d);
    return NULL;
  }
  IGRAPH_CALL(
      igraph_k_regular_game(&ig, (igraph_integer_t)n, (igraph_integer_t)d, IGRAPH_UNDIRECTED, 0),
      "sampling a random regular graph");
}

static TopoGraph *gen_barabasi(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 2, MAX_NODES, n);
  GET_UINT("m", 0, 1, n - 1, m);
  IGRAPH_CALL(igraph_barabasi_game(&ig, (igraph_integer_t)n, 1.0, (igraph_integer_t)m, NULL, 0, 1.0,
                                   IGRAPH_UNDIRECTED, IGRAPH_BARABASI_PSUMTREE, NULL),
              "sampling a Barabasi-Albert graph");
}

static TopoGraph *gen_watts(const Spec *spec, GError **error) {
  GET_UINT("n", 0, 3, MAX_NODES, n);
  GET_UINT("k", 0, 1, (n - 1) / 2, k);
  GET_DOUBLE("p", 0.0, 1.0, p);
  IGRAPH_CALL(igraph_watts_strogatz_game(&ig, 1, (igraph_integer_t)n, (igraph_integer_t)k, p, 0, 0),
              "sampling a Watts-Strogatz graph");
}

/* --- table ---------------------------------------------------------------- */

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define RANDOM_KEYS "seed", "connected", "tries"

static const GenDef generators[] = {
    {"erdos", gen_erdos, TRUE, KEYS("n", "p", RANDOM_KEYS), KEYS("n", "p")},
    {"gnm", gen_gnm, TRUE, KEYS("n", "m", RANDOM_KEYS), KEYS("n", "m")},
    {"regular", gen_regular, TRUE, KEYS("n", "d", RANDOM_KEYS), KEYS("n", "d")},
    {"barabasi", gen_barabasi, TRUE, KEYS("n", "m", RANDOM_KEYS), KEYS("n", "m")},
    {"watts", gen_watts, TRUE, KEYS("n", "k", "p", RANDOM_KEYS), KEYS("n", "k", "p")},
    {"ring", gen_ring, FALSE, KEYS("n"), KEYS("n")},
    {"path", gen_path, FALSE, KEYS("n"), KEYS("n")},
    {"star", gen_star, FALSE, KEYS("n"), KEYS("n")},
    {"complete", gen_complete, FALSE, KEYS("n"), KEYS("n")},
    {"grid", gen_grid, FALSE, KEYS("rows", "cols", "torus"), KEYS("rows", "cols")},
    {"hypercube", gen_hypercube, FALSE, KEYS("dim"), KEYS("dim")},
    {"karate", gen_karate, FALSE, NULL, NULL},
    {"florentine", gen_florentine, FALSE, NULL, NULL},
};

/* Before igraph allocates: the expected size of the graph against the
 * memory budget. A parameter that does not parse is left to the generator,
 * which reports it. */
static gboolean check_memory(const char *text, const Spec *spec, GError **error) {
  const char *name = spec->name;
  guint64 a = 0, b = 0;
  double p = 0.0, n = 0.0, m = 0.0;
  if (strcmp(name, "grid") == 0) {
    if (!spec_uint(spec, "rows", 0, 0, G_MAXUINT64, &a, NULL) ||
        !spec_uint(spec, "cols", 0, 0, G_MAXUINT64, &b, NULL))
      return TRUE;
    n = (double)a * (double)b;
    m = 2.0 * n;
  } else if (strcmp(name, "hypercube") == 0) {
    if (!spec_uint(spec, "dim", 0, 0, 20, &a, NULL))
      return TRUE;
    n = ldexp(1.0, (int)a);
    m = n * (double)a / 2.0;
  } else {
    if (!spec_uint(spec, "n", 0, 0, G_MAXUINT64, &a, NULL))
      return TRUE;
    n = (double)a;
    double pairs = n * (n - 1.0) / 2.0;
    if (strcmp(name, "ring") == 0 || strcmp(name, "path") == 0 || strcmp(name, "star") == 0)
      m = n;
    else if (strcmp(name, "complete") == 0)
      m = pairs;
    else if (strcmp(name, "erdos") == 0 && spec_double(spec, "p", 0.0, 0.0, 1.0, &p, NULL))
      m = p * pairs + 6.0 * sqrt(p * pairs); /* mean + 6 sd */
    else if (strcmp(name, "gnm") == 0 && spec_uint(spec, "m", 0, 0, G_MAXUINT64, &b, NULL))
      m = MIN((double)b, pairs);
    else if ((strcmp(name, "regular") == 0 && spec_uint(spec, "d", 0, 0, G_MAXUINT64, &b, NULL)))
      m = n * (double)b / 2.0;
    else if (strcmp(name, "barabasi") == 0 && spec_uint(spec, "m", 0, 0, G_MAXUINT64, &b, NULL))
      m = n * (double)b;
    else if (strcmp(name, "watts") == 0 && spec_uint(spec, "k", 0, 0, G_MAXUINT64, &b, NULL))
      m = n * (double)b;
  }
  double bytes = TOPO_BYTES_PER_EDGE * m + TOPO_BYTES_PER_NODE * n;
  char *what = g_strdup_printf("generator '%s': a graph of %.0f nodes and about %.3g edges", text,
                               n, m);
  gboolean ok = spec_check_memory(bytes >= (double)G_MAXSIZE ? G_MAXSIZE : (gsize)bytes, what,
                                  "use a smaller or sparser graph", TOPO_ERROR,
                                  TOPO_ERROR_INVALID_ARGUMENT, error);
  g_free(what);
  return ok;
}

static TopoGraph *generate_random(const GenDef *def, const Spec *spec, const char *text,
                                  gboolean use_extra, guint64 extra_seed, GError **error) {
  guint64 seed, tries;
  gboolean connected;
  if (!spec_uint(spec, "seed", 0, 0, G_MAXUINT64, &seed, error) ||
      !spec_bool(spec, "connected", FALSE, &connected, error) ||
      !spec_uint(spec, "tries", 100, 1, 1000000, &tries, error))
    return NULL;
  igraph_rng_t rng;
  TopoIgraphGuard guard;
  topo_igraph_guard_begin(&guard);
  igraph_error_t rc = igraph_rng_init(&rng, &igraph_rngtype_pcg64);
  if (rc == IGRAPH_SUCCESS) {
    rc = igraph_rng_seed(&rng, use_extra ? topo_hash3(seed, extra_seed, PURPOSE_GENERATE) : seed);
    if (rc != IGRAPH_SUCCESS)
      igraph_rng_destroy(&rng);
  }
  topo_igraph_guard_end(&guard);
  if (rc != IGRAPH_SUCCESS) {
    topo_set_igraph_error(error, "seeding its RNG", rc);
    return NULL;
  }
  /* set_default copies the struct: keep the caller's to put it back. The
   * guard's lock keeps other threads off igraph's default RNG meanwhile. */
  topo_igraph_guard_begin(&guard);
  igraph_rng_t saved = *igraph_rng_default();
  igraph_rng_set_default(&rng);
  TopoGraph *g = NULL;
  for (guint64 i = 0; i < tries; i++) {
    g = def->fn(spec, error);
    if (g == NULL || !connected || topo_graph_is_connected(g))
      break;
    topo_graph_free(g);
    g = NULL;
    if (i + 1 == tries)
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_DISCONNECTED,
                  "generator '%s': no connected sample in %" G_GUINT64_FORMAT
                  " tries; make the graph denser or raise tries=",
                  text, tries);
  }
  igraph_rng_set_default(&saved);
  igraph_rng_destroy(&rng);
  topo_igraph_guard_end(&guard);
  return g;
}

static TopoGraph *generate(const char *text, gboolean use_extra, guint64 extra_seed,
                           GError **error) {
  /* A value out of its range is the user's typing (TOPO_ERROR_RANGE, exit
   * 2), in --generate as in a resample:GENSPEC schedule (issue 37). */
  Spec *spec = spec_parse(text, "generator", FALSE, TOPO_ERROR, TOPO_ERROR_PARSE,
                          TOPO_ERROR_RANGE, error);
  if (spec == NULL)
    return NULL;
  const GenDef *def = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS(generators); i++)
    if (strcmp(generators[i].name, spec->name) == 0)
      def = &generators[i];
  TopoGraph *g = NULL;
  if (def == NULL) {
    GString *names = g_string_new(NULL);
    const char *choices[G_N_ELEMENTS(generators)];
    for (gsize i = 0; i < G_N_ELEMENTS(generators); i++) {
      g_string_append_printf(names, "%s%s", i ? ", " : "", generators[i].name);
      choices[i] = generators[i].name;
    }
    char *hint = spec_did_you_mean(spec->name, choices, G_N_ELEMENTS(choices));
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "unknown generator '%s' (valid: %s)%s",
                spec->name, names->str, hint);
    g_free(hint);
    g_string_free(names, TRUE);
  } else if (spec_check(spec, "generator", def->valid, def->required, error) &&
             check_memory(text, spec, error)) {
    g = def->random ? generate_random(def, spec, text, use_extra, extra_seed, error)
                    : def->fn(spec, error);
  }
  spec_free(spec);
  return g;
}

TopoGraph *topo_graph_generate(const char *spec, GError **error) {
  return generate(spec, FALSE, 0, error);
}

TopoGraph *topo_graph_generate_seeded(const char *spec, guint64 extra_seed, GError **error) {
  return generate(spec, TRUE, extra_seed, error);
}
