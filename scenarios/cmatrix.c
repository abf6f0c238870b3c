/*
 * scenarios/cmatrix.c: the local noise correlation C_local of the MF-D-SGD
 * family for a scenario point, computed once per sweep rather than once per
 * run (Mafalda's optimizer takes seconds on the Facebook-ego graph), and the
 * calibration of sigma from a target mu.
 *
 * The protocol's own recipe (proto_c_local): the families by formula, a CSV
 * file, or Mafalda's optimum for the post-average workload of the run's
 * gossip (static or time-varying); the run is then given the matrix as a
 * file, so both use the very same numbers.
 */
#include <math.h>
#include <string.h>

#include "mf/sensitivity.h"
#include "scenarios/internal.h"
#include "spec/spec.h"

/* The (k, b) the run's noise is calibrated for. */
static void run_kb(const ScenConfig *c, guint *k, guint *b) {
  if (c->has_task) {
    *k = c->epochs;
    *b = c->batches;
  } else {
    *b = c->b;
    *k = c->rounds / c->b;
  }
}

static gboolean has_records(const ScenConfig *c) {
  return c->mode != NULL && c->mode_parsed.kind != PROTO_MODE_SYNC &&
         g_str_equal(c->shape.C, "mafalda");
}

char *scen_cmatrix_key(const ScenConfig *c) {
  if (c->shape.kind != PRIV_PROTOCOL_MFDSGD || c->nonprivate)
    return NULL;
  guint k, b;
  run_kb(c, &k, &b);
  const char *C = c->shape.C;
  gboolean depends_on_graph = g_str_equal(C, "mafalda") || g_str_equal(C, "toeplitz") ||
                              g_str_equal(C, "blt");
  gboolean random_schedule = !c->schedule_static;
  char *key = g_strdup_printf(
      "%s|band=%u|buffers=%u|T=%u|k=%u|b=%u|%s|%s|lcc=%d|%s|%s|seed=%" G_GUINT64_FORMAT, C,
      c->shape.band, c->shape.buffers, c->rounds, k, b,
      depends_on_graph ? (c->graph ? c->graph : c->generate) : "",
      depends_on_graph ? topo_gossip_kind_name(c->gossip) : "", depends_on_graph ? c->lcc : 0,
      depends_on_graph ? c->schedule : "", c->graph ? "file" : "gen",
      depends_on_graph && random_schedule ? c->seed : 0);
  if (!has_records(c))
    return key;
  /* Deadline or stale mode: the delivery records of the seed. */
  char *full = g_strdup_printf("%s|records=%" G_GUINT64_FORMAT "|%s|%s|%s|samples=%u", key,
                               c->seed, c->mode, c->latency ? c->latency : "",
                               c->loss ? c->loss : "", c->shape.samples);
  g_free(key);
  return full;
}

double *scen_cmatrix_build(const ScenConfig *c, GError **error) {
  ProtoCRecipe r = {.spec = c->shape.C,
                    .T = c->rounds,
                    .band = c->shape.band,
                    .buffers = c->shape.buffers,
                    .graph = c->g,
                    .gossip = c->gossip};
  run_kb(c, &r.k, &r.b);
  if (has_records(c)) { /* deadline or stale mode: the delivery records of the point's seed */
    r.mode = c->mode;
    r.latency = c->latency;
    r.loss = c->loss;
    r.seed = c->seed;
    r.samples = c->shape.samples;
  }
  /* Only Mafalda reads the gossip, and only then a schedule is worth building. */
  if (!c->schedule_static && g_str_equal(c->shape.C, "mafalda") &&
      (r.schedule = topo_schedule_new(c->schedule, c->g, c->gossip, c->seed, error)) == NULL)
    return NULL;
  double *C = proto_c_local(&r, error);
  topo_schedule_free(r.schedule);
  return C;
}

gboolean scen_cmatrix_is_cset(const ScenConfig *c) {
  return c->shape.kind == PRIV_PROTOCOL_MFDSGD && proto_c_spec_is_cset(c->shape.C);
}

gboolean scen_cmatrix_check_cset(const ScenConfig *c, GError **error) {
  guint n = c->g ? topo_graph_n_nodes(c->g) : 0;
  MfCSet set;
  GError *sub = NULL;
  if (!proto_cmatrix_load_cset(c->shape.C, c->rounds, n, &set, &sub)) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_INVALID,
                "protocol %s: the C-set does not fit this run (a graph of %u nodes, T = %u "
                "rounds; fit it with `dpgossip mafalda --classes` on this graph and T): %s",
                c->protocol, n, c->rounds, sub->message);
    g_error_free(sub);
    return FALSE;
  }
  mf_cset_clear(&set);
  return TRUE;
}

/* The LDP mu at sigma = 1 of every node of a static run, in closed form
 * (each node's every release seen): sqrt(sens^2(X)) with X = C^T C /
 * sens_run(C)^2 for MF-D-SGD, X = I for D-SGD and Muffliato. */
static gboolean ldp_closed_form(const ScenConfig *c, const double *C, double *mu1, GError **error) {
  guint T = c->rounds, k, b;
  run_kb(c, &k, &b);
  gsize TT = (gsize)T * T;
  double *X = g_new0(double, TT);
  if (c->shape.kind == PRIV_PROTOCOL_MFDSGD) {
    /* LDP: every message seen, X_u = C^T C / (sigma sens_run(C))^2. */
    double s2 = mf_sensitivity2(C, T, k, b);
    for (guint i = 0; i < T; i++)
      for (guint j = 0; j < T; j++) {
        double acc = 0.0;
        for (guint r = MAX(i, j); r < T; r++)
          acc += C[(gsize)r * T + i] * C[(gsize)r * T + j];
        X[(gsize)i * T + j] = acc / s2;
      }
  } else {
    /* D-SGD, Muffliato: independent noise of std sigma Delta, X_u = I / sigma^2. */
    for (guint i = 0; i < T; i++)
      X[(gsize)i * T + i] = 1.0;
  }
  double sens2 = NAN;
  gboolean ok = mf_gram_sensitivity2(X, T, c->b, c->sensitivity, &sens2, error);
  g_free(X);
  if (!ok)
    return FALSE;
  *mu1 = sqrt(sens2);
  return TRUE;
}

gboolean scen_calibrate_check(const ScenConfig *c, GError **error) {
  if (!c->schedule_static && topo_graph_n_nodes(c->g) >= 2)
    return TRUE; /* the accounting of the schedule checks its own sizes */
  /* ldp_closed_form's T x T matrix X, and as much again for the
   * sensitivity's work on it. */
  gsize bytes = spec_size_mul(spec_size_mul(spec_size_mul(c->rounds, c->rounds), sizeof(double)),
                              2);
  char *what = g_strdup_printf("protocol.mu = %g: calibrating sigma over T = %u rounds", c->mu,
                               c->rounds);
  gboolean ok = spec_check_memory(bytes, what, "use fewer rounds (epochs x batches)", SCEN_ERROR,
                                  SCEN_ERROR_INVALID, error);
  g_free(what);
  return ok;
}

gboolean scen_calibrate_sigma(const ScenConfig *c, const double *C, double *sigma, GError **error) {
  if (!scen_calibrate_check(c, error))
    return FALSE;
  double mu1 = NAN; /* the worst node's mu at sigma = 1 */
  if ((!c->schedule_static && topo_graph_n_nodes(c->g) >= 2) || scen_cmatrix_is_cset(c)) {
    /* A time-varying schedule changes who releases what and when (a node
     * that leaves and rejoins shifts its participations against C): only
     * the accounting of the actual schedule knows its worst node. So does
     * a C-set's (@C NULL): each class has its own C, which the accounting
     * reads from the run's own file. */
    if (!scen_account_ldp_worst_mu(c, C, &mu1, error))
      return FALSE;
  } else if (!ldp_closed_form(c, C, &mu1, error)) {
    return FALSE;
  }
  if (isinf(mu1)) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_INVALID,
                "protocol.mu = %g: a node of this run is unprotected under LDP whatever the "
                "noise; give protocol.sigma",
                c->mu);
    return FALSE;
  }
  /* mu scales as 1/sigma: mu(sigma) = mu1 / sigma. The accounting of the
   * run recomputes mu through other roundings (relative 1e-14 seen), so the
   * noise carries a 1e-12 margin: the mu reported is never above the one
   * asked. A sigma that overflows (mu = 1e-308) or underflows to 0 (no
   * noise: no protection at all) is no calibration for the mu asked for. */
  *sigma = mu1 / c->mu * (1.0 + 1e-12);
  if (!(*sigma > 0) || !isfinite(*sigma)) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_INVALID,
                "protocol.mu = %g: the noise multiplier it needs, sigma = %g / mu, is not a "
                "positive finite number",
                c->mu, mu1);
    return FALSE;
  }
  return TRUE;
}
