/*
 * cli/audit.c: the distinguishing and reconstruction audits (cli/audit.h).
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
#include <gsl/gsl_cdf.h>
#include <lapacke.h>

#include "cli/audit.h"
#include "cli/audit_internal.h"
#include "protocols/protocols.h"
#include "sim/rng.h"

/* Purposes of the audit's seeds (any distinct values). */
#define SEED_PROVENANCE 0xA0D1u
#define SEED_TRIAL 0xA0D2u
#define SEED_RECONSTRUCT 0xA0D3u
/* Relative eigenvalue cut of B B^T, as the accountant's rank cut of B. */
#define RANK_TOL 1e-10

const char *cli_audit_status_name(CliAuditStatus s) {
  switch (s) {
  case CLI_AUDIT_CONSISTENT:
    return "consistent";
  case CLI_AUDIT_OVERSTATED:
    return "overstated";
  case CLI_AUDIT_EXPOSED:
    return "exposed";
  case CLI_AUDIT_REFUSED:
    return "refused";
  case CLI_AUDIT_PARTIAL:
    return "partial";
  }
  return "?";
}

gboolean cli_audit_overstated(const CliAuditResult *r, guint family) {
  if (r == NULL || !isfinite(r->mu_emp) || !isfinite(r->mu_emp_se) || !isfinite(r->mu))
    return FALSE;
  double z = gsl_cdf_ugaussian_Qinv(0.025 / MAX(family, 1));
  return r->mu_emp - z * r->mu_emp_se > r->mu;
}

/* ---- one simulated run and what the attacker set receives ---- */

typedef struct {
  guint victim, T;
  gsize p;
  const double *victim_grads; /* T x p, or NULL: zero */
} Gradients;

static void fill_gradient(guint node, guint t, double *g, gsize d, gpointer data) {
  const Gradients *gr = data;
  if (node == gr->victim && gr->victim_grads != NULL && t < gr->T && d == gr->p)
    memcpy(g, gr->victim_grads + (gsize)t * d, d * sizeof(double));
  else
    memset(g, 0, d * sizeof(double));
}

typedef struct {
  PrivTrust trust;
  const gboolean *is_member;
  guint n;
  gsize p;
  GArray *values;     /* doubles, p per observed message */
  GPtrArray *rows;    /* SimLinvec copies (provenance runs), or NULL */
  guint count;
} Seen;

static void on_event(const SimBusEvent *ev, gpointer data) {
  Seen *s = data;
  if (ev->message == NULL)
    return;
  gboolean wants = s->trust == PRIV_TRUST_PNDP
                       ? ev->kind == SIM_BUS_MESSAGE_DELIVERED && ev->to < s->n && s->is_member[ev->to]
                       : ev->kind == SIM_BUS_MESSAGE_SENT;
  const SimLinvec *payload = sim_message_provenance(ev->message);
  if (!wants || payload == NULL || sim_linvec_dim(payload) != s->p)
    return;
  g_array_append_vals(s->values, sim_linvec_const_data(payload), s->p);
  if (s->rows != NULL)
    g_ptr_array_add(s->rows, sim_linvec_dup(payload));
  s->count++;
}

/* Runs @a's protocol once; fills @seen and @init (p doubles). @run_out
 * (optional) keeps the run for its noise registry. */
static gboolean run_once(const CliAudit *a, double sigma, guint64 seed, SimLinStorage storage,
                         const Gradients *gr, Seen *seen, double *init, ProtoRun **run_out,
                         GError **error) {
  guint n = topo_graph_n_nodes(a->graph);
  char *dataset = g_strdup_printf("synthetic:linear,n=%u,d=%u,noise=0.1,seed=1", 40 * n, a->dim);
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  cfg.graph = a->graph;
  cfg.gossip = a->gossip;
  cfg.protocol = a->protocol;
  cfg.mode = a->mode;
  cfg.sigma = sigma;
  cfg.clip = 1.0;
  cfg.lr = 0.1;
  cfg.epochs = a->T;
  cfg.batches = 1;
  cfg.dataset = dataset;
  cfg.model = "linear";
  cfg.storage = storage;
  cfg.seed = seed;
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

static void seen_init(Seen *s, const CliAudit *a, const gboolean *is_member, gboolean rows) {
  memset(s, 0, sizeof *s);
  s->trust = a->trust;
  s->is_member = is_member;
  s->n = topo_graph_n_nodes(a->graph);
  s->p = (gsize)a->dim + 1;
  s->values = g_array_new(FALSE, FALSE, sizeof(double));
  if (rows)
    s->rows = g_ptr_array_new_with_free_func((GDestroyNotify)sim_linvec_free);
}

static void seen_clear(Seen *s) {
  if (s->values)
    g_array_unref(s->values);
  if (s->rows)
    g_ptr_array_unref(s->rows);
  memset(s, 0, sizeof *s);
}

/* ---- the attacker's view from one provenance run ---- */

typedef struct {
  guint r, T, m;     /* observed messages, steps, noise variables */
  gsize p;           /* model parameters */
  double *Av;        /* r x T: the victim's gradient coefficients */
  double *Q;         /* r x k: orthonormal basis of range(B) */
  double *lam;       /* k eigenvalues of B B^T on it */
  guint k;
  double *pub;       /* r: weight of the initial model in each message */
  PrivNodeStatus status;
  double mu;         /* accounted, exact sensitivity */
  double *Xv;        /* T x T, the accountant's block */
} View;

static void view_clear(View *v) {
  g_free(v->Av);
  g_free(v->Q);
  g_free(v->lam);
  g_free(v->pub);
  g_free(v->Xv);
  memset(v, 0, sizeof *v);
}

/* The accountant on the provenance of @rows, with the trust model's
 * knowledge (the observer path's rules). */
static gboolean account(const CliAudit *a, GPtrArray *rows, SimNoiseRegistry *reg,
                        const gboolean *is_member, View *v, GError **error) {
  guint n = topo_graph_n_nodes(a->graph);
  g_autoptr(PrivKnowledge) k = priv_knowledge_new(n, error);
  if (k == NULL)
    return FALSE;
  for (guint i = 0; i < rows->len; i++)
    if (!priv_knowledge_add_linvec(k, g_ptr_array_index(rows, i), error))
      return FALSE;
  for (guint i = 0; i < a->n_attackers; i++)
    if (!priv_knowledge_add_attacker(k, a->attackers[i], error))
      return FALSE;
  if (a->trust != PRIV_TRUST_LDP)
    for (SimNoiseId id = 0; id < sim_noise_registry_count(reg); id++)
      for (guint j = 0; j < sim_noise_n_owners(reg, id); j++) {
        guint owner = sim_noise_owner(reg, id, j);
        if (owner < n && is_member[owner])
          priv_knowledge_know_noise(k, id);
      }
  PrivKnowledgeOptions opt = {.T = a->T, .clip = 1.0};
  g_autoptr(PrivBlocks) blocks = priv_knowledge_blocks(k, &opt, error);
  if (blocks == NULL)
    return FALSE;
  v->status = blocks->status[a->victim];
  v->Xv = g_memdup2(priv_blocks_get(blocks, a->victim), sizeof(double) * a->T * a->T);
  for (guint i = 0; i < a->T * a->T; i++)
    v->Xv[i] /= blocks->scale * blocks->scale;
  if (v->status != PRIV_NODE_PROTECTED) {
    v->mu = INFINITY;
    return TRUE;
  }
  double s2 = 0.0;
  if (!mf_gram_sensitivity2(v->Xv, a->T, 1, MF_SENSITIVITY_EXACT, &s2, error))
    return FALSE;
  v->mu = sqrt(s2);
  return TRUE;
}

/* A_v, an orthonormal basis of range(B) with B B^T's eigenvalues there, and
 * the initial model's weight per message (from @pub_values: the same
 * schedule without noise and gradients). */
static gboolean view_matrices(const CliAudit *a, GPtrArray *rows, guint m,
                              const double *pub_values, const double *init, View *v,
                              GError **error) {
  guint r = rows->len, n = topo_graph_n_nodes(a->graph);
  v->r = r;
  v->T = a->T;
  v->m = m;
  v->p = (gsize)a->dim + 1;
  v->Av = g_new0(double, (gsize)r * a->T);
  double *B = g_new0(double, (gsize)r * MAX(m, 1));
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
  double *K = g_new0(double, (gsize)r * r), *w = g_new(double, r);
  if (m > 0)
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)r, (int)m, 1.0, B, (int)m, 0.0, K,
                (int)r);
  g_free(B);
  lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)r, K, (lapack_int)r, w);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL, "audit: eigensolver failed (%d)",
                (int)info);
    g_free(K);
    g_free(w);
    return FALSE;
  }
  double top = r > 0 ? w[r - 1] : 0.0;
  v->k = 0;
  for (guint i = 0; i < r; i++)
    if (top > 0.0 && w[i] > RANK_TOL * top)
      v->k++;
  v->Q = g_new(double, (gsize)r * MAX(v->k, 1));
  v->lam = g_new(double, MAX(v->k, 1));
  for (guint j = 0; j < v->k; j++) {
    guint src = r - v->k + j;
    v->lam[j] = w[src];
    for (guint i = 0; i < r; i++)
      v->Q[(gsize)i * v->k + j] = K[(gsize)i * r + src];
  }
  g_free(K);
  g_free(w);
  /* The public weight of each message: its noise-free value over init. */
  double ii = cblas_ddot((int)v->p, init, 1, init, 1);
  v->pub = g_new(double, r);
  for (guint i = 0; i < r; i++) {
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

static gboolean provenance_view(const CliAudit *a, const gboolean *is_member, View *v,
                                GError **error) {
  guint64 seed = sim_rng_stream_seed(a->seed, 0, SEED_PROVENANCE);
  Gradients zero = {.victim = a->victim, .T = a->T, .p = (gsize)a->dim + 1};
  Seen prov, pub;
  seen_init(&prov, a, is_member, TRUE);
  seen_init(&pub, a, is_member, FALSE);
  double *init = g_new(double, prov.p), *init_pub = g_new(double, prov.p);
  ProtoRun *run = NULL;
  gboolean ok = run_once(a, a->sigma, seed, SIM_LIN_DENSE, &zero, &prov, init, &run, error) &&
                run_once(a, 0.0, seed, SIM_LIN_NONE, &zero, &pub, init_pub, NULL, error);
  if (ok && pub.count != prov.count) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "audit: the attacker set receives %u messages without noise but %u with it",
                pub.count, prov.count);
    ok = FALSE;
  }
  if (ok && prov.count == 0) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "audit: the attacker set receives no message");
    ok = FALSE;
  }
  SimNoiseRegistry *reg = run ? proto_context_noise(proto_run_context(run)) : NULL;
  ok = ok && account(a, prov.rows, reg, is_member, v, error) &&
       view_matrices(a, prov.rows, sim_noise_registry_count(reg), (double *)pub.values->data,
                     init_pub, v, error);
  proto_run_free(run);
  seen_clear(&prov);
  seen_clear(&pub);
  g_free(init);
  g_free(init_pub);
  return ok;
}

/* ---- trials ---- */

typedef struct {
  const CliAudit *a;
  const View *v;
  const gboolean *is_member;
  const double *delta; /* T x p canary */
  const double *w;     /* r x p: (B B^T)^+ A_v Delta */
  double *scores;      /* 2 x trials: world 0 then world 1 */
  guint first, last;   /* trial indices of this worker (over both worlds) */
  GError *error;
} Worker;

static gpointer work(gpointer data) {
  Worker *k = data;
  const CliAudit *a = k->a;
  gsize p = k->v->p;
  double *init = g_new(double, p);
  for (guint idx = k->first; idx < k->last && k->error == NULL; idx++) {
    guint world = idx / a->trials, i = idx % a->trials;
    Gradients gr = {.victim = a->victim, .T = a->T, .p = p,
                    .victim_grads = world == 1 ? k->delta : NULL};
    Seen seen;
    seen_init(&seen, a, k->is_member, FALSE);
    guint64 seed = sim_rng_stream_seed(sim_rng_stream_seed(a->seed, world, SEED_TRIAL), i, 0);
    if (run_once(a, a->sigma, seed, SIM_LIN_NONE, &gr, &seen, init, NULL, &k->error)) {
      if (seen.count != k->v->r) {
        g_set_error(&k->error, PROTO_ERROR, PROTO_ERROR_FAILED,
                    "audit: trial %u saw %u messages, the provenance run %u: the protocol's "
                    "message pattern depends on its noise, which this audit cannot handle",
                    i, seen.count, k->v->r);
      } else {
        double s = 0.0;
        const double *o = (const double *)seen.values->data;
        for (guint r = 0; r < k->v->r; r++)
          for (gsize j = 0; j < p; j++)
            s += k->w[(gsize)r * p + j] * (o[(gsize)r * p + j] - k->v->pub[r] * init[j]);
        k->scores[idx] = s;
      }
    }
    seen_clear(&seen);
  }
  g_free(init);
  return NULL;
}

static gboolean check(const CliAudit *a, GError **error) {
  guint n = a->graph ? topo_graph_n_nodes(a->graph) : 0;
  if (a->graph == NULL || a->protocol == NULL || a->T == 0 || a->dim == 0 || a->threads == 0 ||
      !(a->sigma >= 0.0) || !isfinite(a->sigma) || a->victim >= n || a->n_attackers == 0) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: needs a graph, a protocol, T >= 1, dim >= 1, threads >= 1, "
                "sigma >= 0, a victim below %u and attackers",
                n);
    return FALSE;
  }
  for (guint i = 0; i < a->n_attackers; i++)
    if (a->attackers[i] >= n || a->attackers[i] == a->victim) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "audit: attacker %u is not a node other than the victim %u", a->attackers[i],
                  a->victim);
      return FALSE;
    }
  return TRUE;
}

static gboolean *members(const CliAudit *a) {
  gboolean *m = g_new0(gboolean, topo_graph_n_nodes(a->graph));
  for (guint i = 0; i < a->n_attackers; i++)
    m[a->attackers[i]] = TRUE;
  return m;
}

static void result_init(CliAuditResult *out) {
  *out = (CliAuditResult){.mu = NAN, .mu_canary = NAN, .mu_test = NAN, .mu_emp = NAN,
                          .mu_emp_se = NAN,
                          .mu_emp_low = NAN, .mu_emp_high = NAN, .mu_cp_low = NAN,
                          .reconstruction_error = NAN};
}

gboolean cli_audit_np(const CliAudit *a, CliAuditResult *out, GError **error) {
  g_return_val_if_fail(a != NULL && out != NULL, FALSE);
  result_init(out);
  if (!check(a, error))
    return FALSE;
  if (a->trials < 20) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: --trials must be at least 20 (got %u)", a->trials);
    return FALSE;
  }
  guint q = MIN(a->T, (guint)ceil(sqrt(2.0 * a->T)) + 1);
  if ((gsize)a->dim + 1 < q) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: the canary needs models of %u parameters at T = %u: --dim %u or more", q,
                a->T, q - 1);
    return FALSE;
  }
  gboolean *is_member = members(a);
  View v = {0};
  if (!provenance_view(a, is_member, &v, error)) {
    g_free(is_member);
    view_clear(&v);
    return FALSE;
  }
  out->victim_status = v.status;
  out->mu = v.mu;
  if (v.status != PRIV_NODE_PROTECTED) {
    /* No finite mu to audit: unprotected (reconstruction applies), or
     * unresolved (the accountant gives no number). */
    out->status = v.status == PRIV_NODE_UNPROTECTED ? CLI_AUDIT_EXPOSED : CLI_AUDIT_REFUSED;
    g_free(is_member);
    view_clear(&v);
    return TRUE;
  }
  gsize p = v.p;
  double *delta = cli_audit_canary(v.Xv, a->T, q, p);
  /* <X_v, Delta Delta^T>: what this canary attains under the accountant. */
  double c2 = 0.0;
  for (guint s = 0; s < a->T; s++)
    for (guint t = 0; t < a->T; t++)
      c2 += v.Xv[(gsize)s * a->T + t] *
            cblas_ddot((int)p, delta + (gsize)s * p, 1, delta + (gsize)t * p, 1);
  out->mu_canary = sqrt(MAX(c2, 0.0));
  /* M = A_v Delta, W = (B B^T)^+ M = Q diag(1/lam) Q^T M. */
  double *M = g_new(double, (gsize)v.r * p), *QtM = g_new0(double, (gsize)MAX(v.k, 1) * p);
  double *W = g_new0(double, (gsize)v.r * p);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)v.r, (int)p, (int)a->T, 1.0, v.Av,
              (int)a->T, delta, (int)p, 0.0, M, (int)p);
  if (v.k > 0) {
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)v.k, (int)p, (int)v.r, 1.0, v.Q,
                (int)v.k, M, (int)p, 0.0, QtM, (int)p);
    for (guint j = 0; j < v.k; j++)
      cblas_dscal((int)p, 1.0 / v.lam[j], QtM + (gsize)j * p, 1);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)v.r, (int)p, (int)v.k, 1.0, v.Q,
                (int)v.k, QtM, (int)p, 0.0, W, (int)p);
  }
  out->mu_test = sqrt(MAX(0.0, cblas_ddot((int)(v.r * p), M, 1, W, 1)));
  g_free(M);
  g_free(QtM);

  guint N = a->trials;
  double *scores = g_new0(double, 2 * (gsize)N);
  guint nt = MIN(a->threads, 2 * N);
  Worker *workers = g_new0(Worker, nt);
  GThread **threads = g_new0(GThread *, nt);
  for (guint i = 0; i < nt; i++) {
    workers[i] = (Worker){.a = a, .v = &v, .is_member = is_member, .delta = delta, .w = W,
                          .scores = scores, .first = (guint)((guint64)2 * N * i / nt),
                          .last = (guint)((guint64)2 * N * (i + 1) / nt)};
    if (nt > 1)
      threads[i] = g_thread_new("audit", work, &workers[i]);
    else
      work(&workers[i]);
  }
  gboolean ok = TRUE;
  for (guint i = 0; i < nt; i++) {
    if (threads[i] != NULL)
      g_thread_join(threads[i]);
    if (workers[i].error != NULL) {
      if (ok)
        g_propagate_error(error, workers[i].error);
      else
        g_error_free(workers[i].error);
      ok = FALSE;
    }
  }
  g_free(threads);
  g_free(workers);
  if (ok) {
    const double *s0 = scores, *s1 = scores + N;
    double m0 = 0.0, m1 = 0.0, v0 = 0.0, v1 = 0.0;
    for (guint i = 0; i < N; i++) {
      m0 += s0[i] / N;
      m1 += s1[i] / N;
    }
    for (guint i = 0; i < N; i++) {
      v0 += (s0[i] - m0) * (s0[i] - m0) / (N - 1);
      v1 += (s1[i] - m1) * (s1[i] - m1) / (N - 1);
    }
    /* Both worlds' scores are Gaussian with one variance (s is linear in
     * the Gaussian noise; only the mean moves), so the standardized shift
     * is the mu of this test; its standard error is the two-sample
     * effect size's, sqrt(2/N + mu^2/(4N)), and the interval a 95% normal one. */
    double mu = (m1 - m0) / sqrt((v0 + v1) / 2.0);
    double se = sqrt(2.0 / N + mu * mu / (4.0 * N));
    out->mu_emp = mu;
    out->mu_emp_se = se;
    out->mu_emp_low = mu - 1.959963984540054 * se;
    out->mu_emp_high = mu + 1.959963984540054 * se;
    out->mu_cp_low = cli_audit_cp_mu_low(s0, s1, N);
    out->trials = N;
    out->status = cli_audit_overstated(out, 1) ? CLI_AUDIT_OVERSTATED : CLI_AUDIT_CONSISTENT;
  }
  g_free(scores);
  g_free(W);
  g_free(delta);
  g_free(is_member);
  view_clear(&v);
  return ok;
}

gboolean cli_audit_reconstruct(const CliAudit *a, CliAuditResult *out, GError **error) {
  g_return_val_if_fail(a != NULL && out != NULL, FALSE);
  result_init(out);
  if (!check(a, error))
    return FALSE;
  gboolean *is_member = members(a);
  View v = {0};
  if (!provenance_view(a, is_member, &v, error)) {
    g_free(is_member);
    view_clear(&v);
    return FALSE;
  }
  out->victim_status = v.status;
  out->mu = v.mu;
  if (v.status != PRIV_NODE_UNPROTECTED) {
    out->status = CLI_AUDIT_REFUSED;
    g_free(is_member);
    view_clear(&v);
    return TRUE;
  }
  gsize p = v.p;
  guint r = v.r, T = a->T;
  /* The victim's gradients: random, of norm Delta = 1. */
  double *G = g_new(double, (gsize)T * p);
  gsl_rng *rng = sim_rng_stream_new(a->seed, a->victim, SEED_RECONSTRUCT, NULL, NULL);
  sim_rng_normals(rng, G, (gsize)T * p);
  gsl_rng_free(rng);
  for (guint t = 0; t < T; t++)
    cblas_dscal((int)p, 1.0 / cblas_dnrm2((int)p, G + (gsize)t * p, 1), G + (gsize)t * p, 1);
  Gradients gr = {.victim = a->victim, .T = T, .p = p, .victim_grads = G};
  Seen seen;
  seen_init(&seen, a, is_member, FALSE);
  double *init = g_new(double, p);
  guint64 seed = sim_rng_stream_seed(a->seed, 0, SEED_RECONSTRUCT);
  gboolean ok = run_once(a, a->sigma, seed, SIM_LIN_NONE, &gr, &seen, init, NULL, error);
  if (ok && seen.count != r) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "audit: the reconstruction run saw %u messages, the provenance run %u",
                seen.count, r);
    ok = FALSE;
  }
  if (ok) {
    /* Project out range(B): P = I - Q Q^T, then G = (P A_v)^+ P (o - pub init). */
    double *Y = g_new(double, (gsize)r * p), *PA = g_memdup2(v.Av, sizeof(double) * r * T);
    const double *o = (const double *)seen.values->data;
    for (guint i = 0; i < r; i++)
      for (gsize j = 0; j < p; j++)
        Y[(gsize)i * p + j] = o[(gsize)i * p + j] - v.pub[i] * init[j];
    if (v.k > 0) {
      double *tmp = g_new(double, (gsize)v.k * MAX(p, T));
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)v.k, (int)p, (int)r, 1.0, v.Q,
                  (int)v.k, Y, (int)p, 0.0, tmp, (int)p);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)p, (int)v.k, -1.0, v.Q,
                  (int)v.k, tmp, (int)p, 1.0, Y, (int)p);
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)v.k, (int)T, (int)r, 1.0, v.Q,
                  (int)v.k, PA, (int)T, 0.0, tmp, (int)T);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)r, (int)T, (int)v.k, -1.0, v.Q,
                  (int)v.k, tmp, (int)T, 1.0, PA, (int)T);
      g_free(tmp);
    }
    /* Least squares by SVD; a rank below T leaves some gradient unseen. */
    double *sv = g_new(double, MIN(r, T) + 1), *Yb = g_new0(double, (gsize)MAX(r, T) * p);
    memcpy(Yb, Y, sizeof(double) * r * p);
    lapack_int rank = 0;
    lapack_int info = LAPACKE_dgelss(LAPACK_ROW_MAJOR, (lapack_int)r, (lapack_int)T,
                                     (lapack_int)p, PA, (lapack_int)T, Yb, (lapack_int)p, sv,
                                     1e-8, &rank);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL, "audit: least squares failed (%d)",
                  (int)info);
      ok = FALSE;
    } else if ((guint)rank < T) {
      out->status = CLI_AUDIT_PARTIAL;
    } else {
      double err = 0.0, nrm = 0.0;
      for (gsize i = 0; i < (gsize)T * p; i++) {
        err += (Yb[i] - G[i]) * (Yb[i] - G[i]);
        nrm += G[i] * G[i];
      }
      out->reconstruction_error = sqrt(err / nrm);
      out->status = CLI_AUDIT_EXPOSED;
    }
    g_free(sv);
    g_free(Yb);
    g_free(Y);
    g_free(PA);
  }
  seen_clear(&seen);
  g_free(init);
  g_free(G);
  g_free(is_member);
  view_clear(&v);
  return ok;
}
