/*
 * audit/view.c: one simulated run and what the attacker set receives; the
 * attacker's view O = A G + B Z from the provenance run and the
 * accountant's verdict on it.
 *
 * Every run trains a linear model on a synthetic task only to give the
 * models d >= 1 numbers: the gradient hook of the runtime replaces every
 * gradient slot (the victim's canary, zero elsewhere), so the values the
 * attacker receives are the protocol's own noise, mixed by its own code.
 * Public constants (the initial model, drawn from each run's seed) enter
 * every message with one scalar weight per message, measured once in a
 * noise-free run of the same schedule.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "audit/internal.h"
#include "protocols/protocols.h"
#include "sim/rng.h"

/* Relative singular-value cut of B: the accountant's rank cut (|R_qq| of
 * B's pivoted QR against |R_00|), so that the test keeps every noise
 * direction the accountant's number rests on. */
#define RANK_TOL 1e-10

static void fill_gradient(guint node, guint t, double *g, gsize d, gpointer data) {
  const AuditGradients *gr = data;
  if (node == gr->victim && gr->grads != NULL && t < gr->T && d == gr->p)
    memcpy(g, gr->grads + (gsize)t * d, d * sizeof(double));
  else
    memset(g, 0, d * sizeof(double));
}

static void on_event(const SimBusEvent *ev, gpointer data) {
  AuditSeen *s = data;
  if (ev->message == NULL)
    return;
  gboolean own = ev->kind == SIM_BUS_MESSAGE_SENT && ev->from < s->n && s->is_member[ev->from];
  /* The observer's rule (privacy/trust.c's row), plus the attackers' own
   * messages for a model that sees only what it receives: they are marked
   * own below and enter no unknown. */
  gboolean received = s->model->sees == PRIV_SEES_RECEIVED;
  gboolean wants = received ? own || (ev->kind == SIM_BUS_MESSAGE_DELIVERED && ev->to < s->n &&
                                      s->is_member[ev->to])
                            : ev->kind == SIM_BUS_MESSAGE_SENT;
  const SimLinvec *payload = sim_message_provenance(ev->message);
  if (!wants || payload == NULL || sim_linvec_dim(payload) != s->p)
    return;
  g_array_append_vals(s->values, sim_linvec_const_data(payload), s->p);
  if (s->rows != NULL) {
    g_ptr_array_add(s->rows, sim_linvec_dup(payload));
    own = own && received;
    g_array_append_val(s->own, own);
  }
  s->count++;
}

guint audit_interval(const AuditConfig *a) {
  return MAX(a->b, 1);
}

gboolean audit_schedule_new(const AuditConfig *a, TopoSchedule **out, GError **error) {
  *out = NULL;
  if (a->schedule == NULL || g_str_equal(a->schedule, "static"))
    return TRUE;
  *out = topo_schedule_new(a->schedule, a->graph, a->gossip, a->seed, error);
  return *out != NULL;
}

gboolean audit_schedule_check(const char *spec, const TopoGraph *graph, TopoGossipKind gossip,
                              guint64 seed, gboolean *usage, GError **error) {
  AuditConfig a = {.graph = graph, .gossip = gossip, .schedule = spec, .seed = seed};
  TopoSchedule *s = NULL;
  *usage = FALSE;
  if (audit_schedule_new(&a, &s, error)) {
    topo_schedule_free(s);
    return TRUE;
  }
  /* The one rule of every front end (proto_error_is_usage): a spec that
   * does not parse or a value out of range is the user's; a file it names,
   * or a memory refusal, the run's. */
  *usage = proto_error_is_usage(*error);
  g_prefix_error(error, "--schedule %s: ", spec);
  return FALSE;
}

/* The run's horizon (k = T / b epochs of b batches: MF-D-SGD calibrates its
 * noise for that participation) and topology (@sched, else the graph). */
static void run_shape(const AuditConfig *a, TopoSchedule *sched, ProtoRunConfig *cfg) {
  cfg->epochs = a->T / audit_interval(a);
  cfg->batches = audit_interval(a);
  if (sched != NULL) {
    cfg->graph = NULL;
    cfg->schedule = sched;
  }
}

/* The run of @a; @run_out (optional) keeps it for its noise registry. */
static gboolean run_keep(const AuditConfig *a, TopoSchedule *sched, double sigma, guint64 seed,
                         SimLinStorage storage, const AuditGradients *gr, AuditSeen *seen,
                         double *init, ProtoRun **run_out, GError **error) {
  guint n = topo_graph_n_nodes(a->graph);
  /* Two records per node, or one per batch: the task only sizes the models
   * (the gradient hook replaces every gradient), and a larger set costs
   * time per run. */
  /* One record per node and batch: the step is then eta itself (the
   * runtime divides eta by the records per node and batch), as in the run
   * `account` accounts, which has no task. Two records per node made it
   * eta / 2: Zip-DL's noise, in units of the step, was audited at half the
   * accounted scale (issue 37). */
  char *dataset = g_strdup_printf("synthetic:linear,n=%u,d=%u,noise=0.1,seed=1",
                                  audit_interval(a) * n, a->dim);
  ProtoRunConfig cfg;
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = a->protocol;
  r.rounds = (gint)a->T;
  r.gossip = a->gossip;
  r.sigma = sigma;
  if (a->lr > 0)
    r.lr = a->lr;
  r.mode = a->mode;
  r.latency = a->latency;
  r.loss = a->loss;
  proto_account_request_run_config(&r, &cfg);
  cfg.graph = a->graph;
  cfg.dataset = dataset;
  cfg.test_fraction = 0.0;
  cfg.model = "linear";
  cfg.storage = storage;
  cfg.seed = seed;
  /* The deliveries of `account`'s run of seed a->seed in every run: only
   * the noise changes from run to run. */
  cfg.delivery_seed_set = TRUE;
  cfg.delivery_seed = a->seed;
  cfg.c_cache = a->c_cache;

  run_shape(a, sched, &cfg);
  ProtoRun *run = proto_run_new(&cfg, error);
  g_free(dataset);
  if (run == NULL)
    return FALSE;
  gboolean ok = learn_model_n_params(proto_run_learn_model(run)) == seen->p;
  if (!ok)
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "audit: unexpected model size");
  proto_run_set_gradient_func(run, fill_gradient, (gpointer)gr);
  ok = ok && sim_bus_subscribe_kinds(sim_engine_bus(proto_run_engine(run)),
                                     SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) |
                                         SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DELIVERED),
                                     on_event, seen, NULL, error) > 0;
  ok = ok && proto_run_run(run, error);
  if (ok)
    memcpy(init, proto_run_initial_params(run), seen->p * sizeof(double));
  if (ok && run_out != NULL)
    *run_out = run;
  else
    proto_run_free(run);
  return ok;
}

gboolean audit_run_once(const AuditConfig *a, TopoSchedule *sched, double sigma, guint64 seed,
                        gboolean provenance, const AuditGradients *gr, AuditSeen *seen,
                        double *init, GError **error) {
  return run_keep(a, sched, sigma, seed, provenance ? SIM_LIN_DENSE : SIM_LIN_NONE, gr, seen, init,
                  NULL, error);
}

void audit_seen_init(AuditSeen *s, const AuditConfig *a, const gboolean *is_member, gboolean rows) {
  memset(s, 0, sizeof *s);
  s->trust = a->trust;
  s->model = priv_trust_model(a->trust);
  s->is_member = is_member;
  s->n = topo_graph_n_nodes(a->graph);
  s->p = (gsize)a->dim + 1;
  s->values = g_array_new(FALSE, FALSE, sizeof(double));
  if (rows) {
    s->rows = g_ptr_array_new_with_free_func((GDestroyNotify)sim_linvec_free);
    s->own = g_array_new(FALSE, FALSE, sizeof(gboolean));
  }
}

void audit_seen_clear(AuditSeen *s) {
  if (s->values)
    g_array_unref(s->values);
  if (s->rows)
    g_ptr_array_unref(s->rows);
  if (s->own)
    g_array_unref(s->own);
  memset(s, 0, sizeof *s);
}

void audit_view_clear(AuditView *v) {
  g_free(v->Av);
  g_free(v->Q);
  g_free(v->lam);
  g_free(v->pub);
  g_free(v->Xv);
  g_free(v->known);
  memset(v, 0, sizeof *v);
}

gboolean audit_view_attackable(const AuditView *v) {
  for (guint j = 0; j < v->k; j++)
    if (!(v->lam[j] >= 1e-200 && v->lam[j] <= 1e200))
      return FALSE;
  return TRUE;
}

/* The participation pattern whose exact value is the sensitivity (the
 * first of the largest), by the accountant's own computation per pattern
 * (mf_gram_sensitivity2's). O(b k^3) per certificate. */
static gboolean best_offset(AuditView *v, guint T, GError **error) {
  guint b = v->b, k = T / b;
  double *sub = g_new(double, (gsize)k * k), best = -INFINITY;
  gboolean ok = TRUE;
  v->offset = 0;
  for (guint j = 0; j < b && ok && b > 1; j++) {
    for (guint i = 0; i < k; i++)
      for (guint c = 0; c < k; c++)
        sub[(gsize)i * k + c] = v->Xv[(gsize)(j + i * b) * T + (j + c * b)];
    double s2 = mf_sdp_max(sub, k, 1e-9, NULL, error);
    ok = !isnan(s2);
    if (ok && s2 > best) {
      best = s2;
      v->offset = j;
    }
  }
  g_free(sub);
  return ok;
}

/* The accountant on the provenance of the messages the set receives
 * (@rows but its own), with the trust model's knowledge (the observer
 * path's rules). */
static gboolean account(const AuditConfig *a, GPtrArray *rows, const GArray *own,
                        SimNoiseRegistry *reg, const gboolean *is_member, AuditView *v,
                        GError **error) {
  guint n = topo_graph_n_nodes(a->graph);
  g_autoptr(PrivKnowledge) k = priv_knowledge_new(n, error);
  if (k == NULL)
    return FALSE;
  for (guint i = 0; i < rows->len; i++)
    if (!g_array_index(own, gboolean, i) &&
        !priv_knowledge_add_linvec(k, g_ptr_array_index(rows, i), error))
      return FALSE;
  for (guint i = 0; i < a->n_attackers; i++)
    if (!priv_knowledge_add_attacker(k, a->attackers[i], error))
      return FALSE;
  if (priv_trust_model(a->trust)->knows_own_noise)
    for (SimNoiseId id = 0; id < sim_noise_registry_count(reg); id++)
      for (guint j = 0; j < sim_noise_n_owners(reg, id); j++) {
        guint owner = sim_noise_owner(reg, id, j);
        if (owner < n && is_member[owner])
          priv_knowledge_know_noise(k, id);
      }
  /* The observer path's scale-free blocks, as `account` computes them: at
   * sigma far from 1 (1e-300, 1e200) the plain blocks under- or overflow and
   * X / scale^2 gave mu = 0, a privacy number below the truth (issue 37). Xv
   * stays in the blocks' units; mu = sqrt(s2) / scale, as
   * priv_account_report's. */
  PrivKnowledgeOptions opt = {.T = a->T, .clip = 1.0};
  g_autoptr(PrivBlocks) blocks = priv_knowledge_blocks_scaled(k, &opt, error);
  if (blocks == NULL)
    return FALSE;
  v->status = blocks->status[a->victim];
  v->xscale = blocks->scale;
  v->Xv = g_memdup2(priv_blocks_get(blocks, a->victim), sizeof(double) * a->T * (gsize)a->T);
  gboolean finite = TRUE;
  for (gsize i = 0; i < a->T * (gsize)a->T && finite; i++)
    finite = isfinite(v->Xv[i]);
  if (v->status == PRIV_NODE_PROTECTED && !finite)
    v->status = PRIV_NODE_UNPROTECTED; /* priv_account_report's rule: mu = inf */
  if (v->status != PRIV_NODE_PROTECTED) {
    v->mu = v->status == PRIV_NODE_UNPROTECTED ? INFINITY : NAN;
    return TRUE;
  }
  double s2 = 0.0;
  v->b = audit_interval(a);
  if (!mf_gram_sensitivity2(v->Xv, a->T, v->b, MF_SENSITIVITY_EXACT, &s2, error))
    return FALSE;
  if (isnan(s2)) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "audit: the sensitivity of victim %u is not a number", a->victim);
    return FALSE;
  }
  double sens = sqrt(MAX(s2, 0.0));
  v->mu = sens / v->xscale;
  if (sens > 0 && v->mu == 0.0)
    v->mu = 4.9406564584124654e-324; /* never 0 for a positive truth (priv_no_zero) */
  if (!(v->mu <= PRIV_MU_RESOLVABLE_MAX)) {
    /* What `account` says: no number the conditioning can support. */
    v->status = PRIV_NODE_UNRESOLVED;
    v->mu = NAN;
    return TRUE;
  }
  return best_offset(v, a->T, error);
}

/* A_v and the noise matrix B (r x m) of the provenance rows. */
static double *split_rows(const AuditConfig *a, GPtrArray *rows, guint m, AuditView *v) {
  guint r = rows->len, n = topo_graph_n_nodes(a->graph);
  v->Av = g_new0(double, (gsize)r * a->T);
  double *B = g_new0(double, (gsize)r *MAX(m, 1));
  for (guint i = 0; i < r; i++) {
    SimLinvecIter it;
    sim_linvec_iter_init(&it, g_ptr_array_index(rows, i), SIM_LIN_BOTH);
    SimLinPart part;
    guint32 col;
    double c;
    while (sim_linvec_iter_next(&it, &part, &col, &c)) {
      if (part == SIM_LIN_GRAD && col % n == a->victim && col / n < a->T)
        v->Av[(gsize)i * a->T + col / n] += c;
      else if (part == SIM_LIN_NOISE && col < m)
        B[(gsize)i * m + col] += c;
    }
  }
  return B;
}

/* An orthonormal basis of range(B) with B B^T's eigenvalues there, from
 * the SVD of B (@B is overwritten): its left singular vectors and squared
 * singular values. B itself, not B B^T: an eigensolver on B B^T resolves
 * eigenvalues only down to about 1e-16 of the largest, i.e. singular values
 * down to 1e-8, while the accountant keeps directions down to 1e-10, and
 * they carry the guarantee when the noise nearly cancels (Zip-DL). */
static gboolean noise_range(double *B, guint r, guint m, AuditView *v, GError **error) {
  guint kmin = MIN(r, m);
  v->k = 0;
  double *U = g_new(double, (gsize)r *MAX(kmin, 1)), *s = g_new(double, MAX(kmin, 1));
  double *superb = g_new(double, MAX(kmin, 2));
  lapack_int info = 0;
  if (kmin > 0)
    info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'S', 'N', (lapack_int)r, (lapack_int)m, B,
                          (lapack_int)m, s, U, (lapack_int)kmin, NULL, 1, superb);
  g_free(superb);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL, "audit: the SVD of the noise failed (%d)",
                (int)info);
    g_free(U);
    g_free(s);
    return FALSE;
  }
  v->smax = kmin > 0 ? s[0] : 0.0;
  /* Singular values come in decreasing order. */
  while (v->k < kmin && s[0] > 0.0 && s[v->k] > RANK_TOL * s[0])
    v->k++;
  v->Q = g_new(double, (gsize)r *MAX(v->k, 1));
  v->lam = g_new(double, MAX(v->k, 1));
  for (guint j = 0; j < v->k; j++) {
    v->lam[j] = s[j] * s[j];
    for (guint i = 0; i < r; i++)
      v->Q[(gsize)i * v->k + j] = U[(gsize)i * kmin + j];
  }
  g_free(U);
  g_free(s);
  return TRUE;
}

/* The public weight of each message: its noise-free value over init (0 on
 * the rows of known secrets). */
static gboolean public_weights(const AuditConfig *a, const double *pub_values, const double *init,
                               AuditView *v, GError **error) {
  double ii = cblas_ddot((int)v->p, init, 1, init, 1);
  v->pub = g_new0(double, v->r);
  for (guint i = 0; i < v->n_msg; i++) {
    const double *o = pub_values + (gsize)i * v->p;
    v->pub[i] = ii > 0.0 ? cblas_ddot((int)v->p, o, 1, init, 1) / ii : 0.0;
    double res = 0.0;
    for (gsize j = 0; j < v->p; j++)
      res += (o[j] - v->pub[i] * init[j]) * (o[j] - v->pub[i] * init[j]);
    if (sqrt(res) > 1e-9 * (1.0 + sqrt(ii) * fabs(v->pub[i]))) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "audit: protocol %s adds public constants other than the initial model to its "
                  "messages; the audit cannot remove them",
                  a->protocol);
      return FALSE;
    }
  }
  return TRUE;
}

/* The edge secrets the set knows (an end in the set; not under LDP: the
 * accountant's knowledge) that enter what it observes, each a row of the
 * view with its value: B gains the row e_k, A_v a zero row. @B (r x m,
 * r the messages) is reallocated. O(m r + known m). */
static double *known_secrets(const AuditConfig *a, SimNoiseRegistry *reg, const gboolean *is_member,
                             double *B, AuditView *v) {
  guint n = topo_graph_n_nodes(a->graph), m = v->m, r = v->n_msg;
  GArray *known = g_array_new(FALSE, FALSE, sizeof(guint));
  gboolean knows = priv_trust_model(a->trust)->knows_own_noise;
  for (SimNoiseId id = 0; knows && id < m; id++) {
    if (sim_noise_kind(reg, id) != SIM_NOISE_KIND_EDGE_SECRET || sim_noise_n_owners(reg, id) != 2)
      continue;
    guint u = sim_noise_owner(reg, id, 0), w = sim_noise_owner(reg, id, 1);
    gboolean seen = FALSE;
    for (guint i = 0; i < r && !seen; i++)
      seen = B[(gsize)i * m + id] != 0.0;
    if (seen && ((u < n && is_member[u]) || (w < n && is_member[w])))
      g_array_append_val(known, id);
  }
  v->n_known = known->len;
  v->r = r + v->n_known;
  v->known = g_new(guint, 3 * (gsize)MAX(v->n_known, 1));
  B = g_realloc_n(B, (gsize)v->r * MAX(m, 1), sizeof(double));
  v->Av = g_realloc_n(v->Av, (gsize)v->r * v->T, sizeof(double));
  memset(B + (gsize)r * m, 0, (gsize)v->n_known * m * sizeof(double));
  memset(v->Av + (gsize)r * v->T, 0, (gsize)v->n_known * v->T * sizeof(double));
  for (guint j = 0; j < v->n_known; j++) {
    SimNoiseId id = g_array_index(known, guint, j);
    B[(gsize)(r + j) * m + id] = 1.0;
    v->known[3 * j] = sim_noise_owner(reg, id, 0);
    v->known[3 * j + 1] = sim_noise_owner(reg, id, 1);
    v->known[3 * j + 2] = sim_noise_round(reg, id);
  }
  g_array_unref(known);
  return B;
}

static gboolean view_matrices(const AuditConfig *a, GPtrArray *rows, SimNoiseRegistry *reg,
                              const gboolean *is_member, const double *pub_values,
                              const double *init, AuditView *v, GError **error) {
  guint m = sim_noise_registry_count(reg);
  v->n_msg = v->r = rows->len;
  v->T = a->T;
  v->m = m;
  v->p = (gsize)a->dim + 1;
  double *B = known_secrets(a, reg, is_member, split_rows(a, rows, m, v), v);
  gboolean ok = noise_range(B, v->r, m, v, error);
  g_free(B);
  return ok && public_weights(a, pub_values, init, v, error);
}

gboolean audit_view_new(const AuditConfig *a, TopoSchedule *sched, const gboolean *is_member,
                        AuditView *v, GError **error) {
  guint64 seed = sim_rng_stream_seed(a->seed, 0, AUDIT_SEED_PROVENANCE);
  AuditGradients zero = {.victim = a->victim, .T = a->T, .p = (gsize)a->dim + 1};
  AuditSeen prov, pub;
  audit_seen_init(&prov, a, is_member, TRUE);
  audit_seen_init(&pub, a, is_member, FALSE);
  double *init = g_new(double, prov.p), *init_pub = g_new(double, prov.p);
  ProtoRun *run = NULL;
  gboolean ok =
      run_keep(a, sched, a->sigma, seed, SIM_LIN_DENSE, &zero, &prov, init, &run, error) &&
      run_keep(a, sched, 0.0, seed, SIM_LIN_NONE, &zero, &pub, init_pub, NULL, error);
  if (ok && pub.count != prov.count) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "audit: the attacker set receives %u messages without noise but %u with it",
                pub.count, prov.count);
    ok = FALSE;
  }
  if (ok && prov.count == 0) {
    /* Nothing reaches the set: no information, mu = 0, what `account`
     * reports (it failed here, exit 1); nothing to attack. */
    v->silent = TRUE;
    v->status = PRIV_NODE_PROTECTED;
    v->mu = 0.0;
    v->T = a->T;
    v->p = (gsize)a->dim + 1;
    v->xscale = 1.0;
  }
  SimNoiseRegistry *reg = run ? proto_context_noise(proto_run_context(run)) : NULL;
  ok = ok && (v->silent || (account(a, prov.rows, prov.own, reg, is_member, v, error) &&
                            view_matrices(a, prov.rows, reg, is_member, (double *)pub.values->data,
                                          init_pub, v, error)));
  proto_run_free(run);
  audit_seen_clear(&prov);
  audit_seen_clear(&pub);
  g_free(init);
  g_free(init_pub);
  return ok;
}

gboolean audit_center(const AuditView *v, const AuditSeen *seen, const double *init, guint64 seed,
                      double *y, GError **error) {
  const double *o = (const double *)seen->values->data;
  for (guint i = 0; i < v->n_msg; i++)
    for (gsize j = 0; j < v->p; j++)
      y[(gsize)i * v->p + j] = o[(gsize)i * v->p + j] - v->pub[i] * init[j];
  for (guint i = 0; i < v->n_known; i++)
    if (!proto_edge_secret_sample(seed, v->known[3 * i], v->known[3 * i + 1], v->known[3 * i + 2],
                                  y + (gsize)(v->n_msg + i) * v->p, v->p, error))
      return FALSE;
  return TRUE;
}
