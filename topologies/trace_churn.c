/*
 * topologies/trace_churn.c: a session trace replayed on the nodes of a run.
 *
 * Node u follows trace user user[u]; at round t its clock reads
 * start + offset[u] + t * scale trace seconds, and it is present when that
 * user is online then. Users are dealt to nodes by a seeded permutation, a
 * new one for every pass over the users, so that no user is used twice
 * before every user is used once; a node of a later pass starts its user's
 * trace at a random instant of it, so that nodes sharing a user do not churn
 * in lockstep. Node u's user and offset depend on (seed, u) alone, not on n.
 */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

#include "topologies/internal.h"

/* Stream purposes (the schedule's are in schedule.c). */
enum {
  PURPOSE_TRACE_MAP = 0x746d,
  PURPOSE_TRACE_OFFSET = 0x746f,
};

struct TopoTraceChurn {
  TopoTrace *trace;
  guint n;
  guint *user;    /* node -> trace user */
  double *offset; /* node -> seconds added to its clock */
  double scale;   /* trace seconds per round */
  double start;   /* trace seconds at round 0 */
};

void topo_trace_churn_free(TopoTraceChurn *tc) {
  if (tc == NULL)
    return;
  topo_trace_free(tc->trace);
  g_free(tc->user);
  g_free(tc->offset);
  g_free(tc);
}

/* One of @choices (NULL-terminated) for @key (default @dflt), its index
 * in *out. */
static gboolean spec_choice(const Spec *ps, const char *key, const char *const *choices, guint dflt,
                            guint *out, GError **error) {
  const char *v = spec_get(ps, key);
  *out = dflt;
  if (v == NULL)
    return TRUE;
  for (guint i = 0; choices[i] != NULL; i++)
    if (strcmp(v, choices[i]) == 0) {
      *out = i;
      return TRUE;
    }
  char *shown = spec_escape(v, -1);
  char *hint = spec_did_you_mean(v, choices, -1);
  char *valid = g_strjoinv(", ", (char **)choices);
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "churn:trace: unknown %s '%s' (valid: %s)%s",
              key, shown, valid, hint);
  g_free(valid);
  g_free(hint);
  g_free(shown);
  return FALSE;
}

/* Users dealt by seeded permutations, pass after pass, offsets from the
 * second pass on. O(n + users * passes). */
static void map_seeded(TopoTraceChurn *tc, guint64 seed) {
  guint L = topo_trace_n_users(tc->trace);
  guint *perm = g_new(guint, L);
  double *shift = g_new(double, L);
  for (guint pass = 0; (guint64)pass * L < tc->n; pass++) {
    for (guint i = 0; i < L; i++)
      perm[i] = i;
    gsl_rng *rng = topo_rng_new(seed, pass, PURPOSE_TRACE_MAP);
    gsl_ran_shuffle(rng, perm, L, sizeof(guint));
    gsl_rng_free(rng);
    rng = topo_rng_new(seed, pass, PURPOSE_TRACE_OFFSET);
    for (guint i = 0; i < L; i++) /* drawn whatever n: node u's offset never depends on n */
      shift[i] = pass == 0 ? 0.0 : gsl_rng_uniform(rng);
    gsl_rng_free(rng);
    for (guint i = 0; i < L && (guint64)pass * L + i < tc->n; i++) {
      guint u = pass * L + i;
      tc->user[u] = perm[i];
      tc->offset[u] = shift[i] * topo_trace_period(tc->trace, perm[i]);
    }
  }
  g_free(shift);
  g_free(perm);
}

/* A sessions trace on a graph with labels: node labelled L follows the
 * trace's node L, and every trace node is a node of the graph. */
static gboolean map_labels(TopoTraceChurn *tc, const TopoGraph *g, const char *path,
                           GError **error) {
  guint L = topo_trace_n_users(tc->trace);
  for (guint k = 0; k < L; k++) {
    gsize line;
    char label[24];
    guint id;
    g_snprintf(label, sizeof label, "%" G_GUINT64_FORMAT, topo_trace_user_id(tc->trace, k, &line));
    if (!topo_graph_node_find(g, label, &id))
      return spec_error_at(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, path, line,
                           "node '%s' is not in the graph (its nodes go by the labels of its "
                           "file, such as %s)",
                           label, topo_graph_node_label(g, 0));
  }
  for (guint u = 0; u < tc->n; u++) {
    const char *label = topo_graph_node_label(g, u);
    guint64 id;
    tc->user[u] = g_ascii_string_to_unsigned(label, 10, 0, G_MAXUINT64, &id, NULL)
                      ? topo_trace_user_of_id(tc->trace, id)
                      : G_MAXUINT;
    if (tc->user[u] == G_MAXUINT) {
      char *shown = spec_escape(label, -1);
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                  "churn:trace: map=identity: node '%s' has no session in %s (every node of "
                  "the graph needs one, by its label; map=seed deals the trace's users to the "
                  "nodes)",
                  shown, path);
      g_free(shown);
      return FALSE;
    }
  }
  return TRUE;
}

/* Node u follows the user of id u (STUNner: line u + 1), or of its label. */
static gboolean map_identity(TopoTraceChurn *tc, const TopoGraph *g, const char *path,
                             gboolean stunner, GError **error) {
  if (!stunner && topo_graph_has_labels(g))
    return map_labels(tc, g, path, error);
  guint L = topo_trace_n_users(tc->trace);
  if (stunner && L < tc->n) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "churn:trace: map=identity needs one user-week per node: %s has %u, the graph "
                "%u nodes (map=seed reuses users)",
                path, L, tc->n);
    return FALSE;
  }
  for (guint u = 0; u < tc->n; u++) {
    tc->user[u] = topo_trace_user_of_id(tc->trace, u);
    if (tc->user[u] == G_MAXUINT) {
      g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                  "churn:trace: map=identity: node %u has no session in %s (every node "
                  "0..%u needs one; map=seed deals the trace's users to the nodes)",
                  u, path, tc->n - 1);
      return FALSE;
    }
  }
  if (!stunner && L > tc->n) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "churn:trace: map=identity: %s names %u nodes, the graph has %u (nodes 0..%u)",
                path, L, tc->n, tc->n - 1);
    return FALSE;
  }
  return TRUE;
}

TopoTraceChurn *topo_trace_churn_new(const Spec *ps, const TopoGraph *g, guint64 seed,
                                     GError **error) {
  guint n = topo_graph_n_nodes(g);
  static const char *const formats[] = {"sessions", "stunner", NULL};
  static const char *const maps[] = {"seed", "identity", NULL};
  const char *path = spec_get(ps, "trace");
  guint format, map;
  guint64 map_seed;
  double scale, start;
  if (path == NULL || *path == '\0') {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "churn:trace needs a file: trace=FILE");
    return NULL;
  }
  if (!spec_choice(ps, "format", formats, 0, &format, error) ||
      !spec_choice(ps, "map", maps, 0, &map, error) ||
      !spec_double(ps, "scale", 1.0, 0.0, 1e12, &scale, error) ||
      !spec_double(ps, "start", 0.0, 0.0, 1e12, &start, error) ||
      !spec_uint(ps, "seed", seed, 0, G_MAXUINT64, &map_seed, error))
    return NULL;
  if (scale <= 0.0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_RANGE,
                "churn:trace: scale (trace seconds per round) must be positive");
    return NULL;
  }
  if (n == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "churn:trace: the graph is empty");
    return NULL;
  }
  TopoTraceChurn *tc = g_new0(TopoTraceChurn, 1);
  tc->n = n;
  tc->scale = scale;
  tc->start = start;
  tc->trace = topo_trace_load(path, format == 1, error);
  if (tc->trace == NULL) {
    topo_trace_churn_free(tc);
    return NULL;
  }
  tc->user = g_new(guint, n);
  tc->offset = g_new0(double, n);
  if (map == 0)
    map_seeded(tc, map_seed);
  else if (!map_identity(tc, g, path, format == 1, error)) {
    topo_trace_churn_free(tc);
    return NULL;
  }
  return tc;
}

gboolean topo_trace_churn_present(const TopoTraceChurn *tc, guint round, guint u) {
  double x = tc->start + tc->offset[u] + (double)round * tc->scale;
  return topo_trace_online(tc->trace, tc->user[u], x);
}
