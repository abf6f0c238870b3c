/*
 * audit/audit.c: the audits of one (attacker set, victim) (audit/audit.h):
 * the view, the Neyman-Pearson and learned attacks on shared trials.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <gsl/gsl_cdf.h>

#include "audit/internal.h"
#include "protocols/protocols.h"
#include "sim/link.h"
#include "spec/spec.h"

/* The learned attack keeps at most this many received values of its
 * fitting trials in memory (64 MB). */
#define FIT_VALUES_MAX ((gsize)1 << 23)

const char *audit_status_name(AuditStatus s) {
  switch (s) {
  case AUDIT_CONSISTENT:
    return "consistent";
  case AUDIT_OVERSTATED:
    return "overstated";
  case AUDIT_EXPOSED:
    return "exposed";
  case AUDIT_REFUSED:
    return "refused";
  case AUDIT_PARTIAL:
    return "partial";
  }
  return "?";
}

const char *audit_attack_name(AuditAttack a) {
  switch (a) {
  case AUDIT_ATTACK_NP:
    return "np";
  case AUDIT_ATTACK_LEARNED:
    return "learned";
  case AUDIT_ATTACK_RECONSTRUCTION:
    return "reconstruction";
  }
  return "?";
}

gboolean audit_attack_parse(const char *text, guint *mask, GError **error) {
  g_return_val_if_fail(mask != NULL, FALSE);
  static const struct {
    const char *name;
    guint mask;
  } names[] = {{"np", AUDIT_ATTACK_NP},
               {"learned", AUDIT_ATTACK_LEARNED},
               {"reconstruction", AUDIT_ATTACK_RECONSTRUCTION},
               {"all", AUDIT_ATTACK_ALL}};
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS(names); i++)
    if (g_str_equal(text, names[i].name)) {
      *mask = names[i].mask;
      return TRUE;
    }
  g_set_error(error, PROTO_ERROR, PROTO_ERROR_PARSE,
              "--attack: '%s' is not np, learned, reconstruction or all",
              text != NULL ? text : "(null)");
  return FALSE;
}

gboolean audit_overstated(const AuditResult *r, guint family) {
  if (r == NULL || !isfinite(r->mu_emp) || !isfinite(r->mu_emp_se) || !isfinite(r->mu))
    return FALSE;
  double z = gsl_cdf_ugaussian_Qinv(0.025 / MAX(family, 1));
  return r->mu_emp - z * r->mu_emp_se > r->mu;
}

guint audit_decide(AuditResult *const *rows, guint n) {
  guint family = 0, overstated = 0;
  for (guint i = 0; i < n; i++)
    family += !isnan(rows[i]->mu_emp);
  for (guint i = 0; i < n; i++) {
    if (isnan(rows[i]->mu_emp))
      continue;
    gboolean over = audit_overstated(rows[i], family);
    rows[i]->status = over ? AUDIT_OVERSTATED : AUDIT_CONSISTENT;
    overstated += over;
  }
  return overstated;
}

void audit_report_clear(AuditReport *r) {
  if (r == NULL)
    return;
  g_free(r->scores);
  g_free(r->note);
  memset(r, 0, sizeof *r);
}

gboolean audit_check_memory(const AuditConfig *a, gsize bytes, const char *what, GError **error) {
  char *w = g_strdup_printf("the audit (T = %u, %u trials): %s", a->T, a->trials, what);
  gboolean ok = spec_check_memory(bytes, w,
                                  "use fewer rounds (-T), trials (--trials) or "
                                  "parameters (--dim)",
                                  PRIV_ERROR, PRIV_ERROR_MEMORY, error);
  g_free(w);
  return ok;
}

static gboolean check(const AuditConfig *a, GError **error) {
  guint n = a->graph ? topo_graph_n_nodes(a->graph) : 0;
  if (a->graph == NULL || a->protocol == NULL || a->T == 0 || a->threads == 0 ||
      !(a->sigma >= 0.0) || !isfinite(a->sigma) || a->victim >= n || a->n_attackers == 0 ||
      a->attackers == NULL || a->trials < 20) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: needs a graph, a protocol, T >= 1, threads >= 1, sigma >= 0, a victim "
                "below %u, attackers and at least 20 trials (got %u)",
                n, a->trials);
    return FALSE;
  }
  guint q = audit_canary_width(a->T);
  if (a->T % audit_interval(a) != 0) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: the participation interval b = %u does not divide T = %u", a->b, a->T);
    return FALSE;
  }
  if (a->dim > 0 && (gsize)a->dim + 1 < q) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: the canary needs models of %u parameters at T = %u: --dim %u or more", q,
                a->T, q - 1);
    return FALSE;
  }
  SimLatency lat;
  double loss;
  if ((a->latency != NULL && !sim_latency_parse(a->latency, &lat, error)) ||
      (a->loss != NULL && !sim_loss_parse(a->loss, &loss, error)))
    return FALSE;
  for (guint i = 0; i < a->n_attackers; i++)
    if (a->attackers[i] >= n || a->attackers[i] == a->victim) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "audit: attacker %u is not a node other than the victim %u", a->attackers[i],
                  a->victim);
      return FALSE;
    }
  /* Before any run (the view's simulation alone takes minutes at large T):
   * the victim's T x T Gram block, held by the accountant and copied into
   * the view, the canary's T x p pattern, and the trials' scores (np and
   * learned in both worlds: 4 doubles per trial). The rest, which depends
   * on what the attackers receive, is checked once the view is known. */
  gsize dim = a->dim > 0 ? a->dim : audit_default_dim(a->T);
  gsize bytes = spec_size_mul(spec_size_mul(a->T, a->T), 2);
  bytes = spec_size_add(bytes, spec_size_mul(a->T, dim));
  bytes = spec_size_add(bytes, spec_size_mul(a->trials, 4));
  return audit_check_memory(a, spec_size_mul(bytes, sizeof(double)), "the Gram block and scores",
                            error);
}

static AuditResult result_new(AuditAttack attack, double mu, AuditStatus status) {
  return (AuditResult){.attack = attack,
                       .mu = mu,
                       .mu_canary = NAN,
                       .mu_test = NAN,
                       .mu_emp = NAN,
                       .mu_emp_se = NAN,
                       .mu_emp_low = NAN,
                       .mu_emp_high = NAN,
                       .mu_cp_low = NAN,
                       .reconstruction_error = NAN,
                       .status = status};
}

/* ---- the distinguishing attacks on shared trials ---- */

typedef struct {
  gsize rp;          /* received values per trial */
  guint N, F;        /* trials per world; the first F fit the learned attack */
  guint lo, stride;  /* trial i of world w is score w stride + i - lo below */
  const double *W;   /* rp: the np statistic's weights (B B^T)^+ A_v Delta */
  double *np;        /* 2 stride */
  double *X;         /* 2 F rp: the fitting trials' values, or NULL */
  const guint *cols; /* the learned attack's D columns of a trial's values */
  gsize D;
  const double *wl; /* D: its direction, or NULL before the fit */
  double *learned;  /* 2 stride, written only in a block's sink */
} Sink;

static void on_trial(guint world, guint i, const double *y, gpointer data) {
  Sink *s = data;
  s->np[(gsize)world * s->stride + (i - s->lo)] = cblas_ddot((int)s->rp, s->W, 1, y, 1);
  if (s->X != NULL && i < s->F)
    memcpy(s->X + ((gsize)world * s->F + i) * s->rp, y, s->rp * sizeof(double));
  if (s->wl != NULL && i >= s->F) {
    double sc = 0.0;
    for (gsize c = 0; c < s->D; c++)
      sc += s->wl[c] * y[s->cols[c]];
    s->learned[(gsize)world * s->stride + (i - s->lo)] = sc;
  }
}

/* The columns of the fitting values that vary and are not an exact copy of
 * an earlier column (a message received twice): the learned attack's
 * features, found from the data alone. O(rows x cols). */
static guint *distinct_columns(const double *X, guint rows, gsize cols, gsize *n_out) {
  guint *keep = g_new(guint, MAX(cols, 1));
  GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
  gint64 *keys = g_new(gint64, MAX(cols, 1));
  gsize n = 0;
  for (gsize c = 0; c < cols; c++) {
    guint64 h = 1469598103934665603ull;
    gboolean varies = FALSE;
    for (guint i = 0; i < rows; i++) {
      double x = X[(gsize)i * cols + c];
      guint64 bits;
      memcpy(&bits, &x, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
      varies |= x != X[c];
    }
    keys[c] = (gint64)h;
    gboolean copy = FALSE;
    for (GSList *l = g_hash_table_lookup(seen, &keys[c]); l != NULL && !copy; l = l->next) {
      gsize e = GPOINTER_TO_SIZE(l->data);
      copy = TRUE;
      for (guint i = 0; i < rows && copy; i++)
        copy = X[(gsize)i * cols + c] == X[(gsize)i * cols + e];
    }
    if (!varies || copy)
      continue;
    GSList *l = g_hash_table_lookup(seen, &keys[c]);
    g_hash_table_insert(seen, &keys[c], g_slist_prepend(l, GSIZE_TO_POINTER(c)));
    keep[n++] = (guint)c;
  }
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, seen);
  while (g_hash_table_iter_next(&it, NULL, &v))
    g_slist_free(v);
  g_hash_table_unref(seen);
  g_free(keys);
  *n_out = n;
  return keep;
}

/* The learned direction from the F fitting trials of each world. */
static gboolean fit_learned(Sink *s, guint **cols, double **wl, GError **error) {
  gsize D = 0;
  *cols = distinct_columns(s->X, 2 * s->F, s->rp, &D);
  double *X0 = g_new(double, (gsize)s->F *MAX(D, 1)), *X1 = g_new(double, (gsize)s->F *MAX(D, 1));
  for (guint i = 0; i < s->F; i++)
    for (gsize c = 0; c < D; c++) {
      X0[(gsize)i * D + c] = s->X[(gsize)i * s->rp + (*cols)[c]];
      X1[(gsize)i * D + c] = s->X[((gsize)s->F + i) * s->rp + (*cols)[c]];
    }
  *wl = D > 0 ? audit_lda(X0, s->F, X1, s->F, D, error) : g_new0(double, 1);
  g_free(X0);
  g_free(X1);
  s->D = D;
  s->cols = *cols;
  return *wl != NULL;
}

/* W = (B B^T)^+ A_v Delta = Q diag(1/lam) Q^T M; its mu = sqrt(M^T W). */
static double *np_weights(const AuditView *v, const double *delta, double *mu_test) {
  gsize p = v->p;
  double *M = g_new(double, (gsize)v->r *p), *QtM = g_new0(double, (gsize)MAX(v->k, 1) * p);
  double *W = g_new0(double, (gsize)v->r *p);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)v->r, (int)p, (int)v->T, 1.0, v->Av,
              (int)v->T, delta, (int)p, 0.0, M, (int)p);
  if (v->k > 0) {
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)v->k, (int)p, (int)v->r, 1.0, v->Q,
                (int)v->k, M, (int)p, 0.0, QtM, (int)p);
    for (guint j = 0; j < v->k; j++)
      cblas_dscal((int)p, 1.0 / v->lam[j], QtM + (gsize)j * p, 1);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)v->r, (int)p, (int)v->k, 1.0, v->Q,
                (int)v->k, QtM, (int)p, 0.0, W, (int)p);
  }
  *mu_test = sqrt(MAX(0.0, cblas_ddot((int)(v->r * p), M, 1, W, 1)));
  g_free(M);
  g_free(QtM);
  return W;
}

/* <X_v, Delta Delta^T>^(1/2): what the canary attains under the accountant. */
static double canary_mu(const AuditView *v, const double *delta) {
  double c2 = 0.0;
  for (guint s = 0; s < v->T; s++)
    for (guint t = 0; t < v->T; t++)
      c2 += v->Xv[(gsize)s * v->T + t] *
            cblas_ddot((int)v->p, delta + (gsize)s * v->p, 1, delta + (gsize)t * v->p, 1);
  return sqrt(MAX(c2, 0.0)) / v->xscale;
}

/* Scored trials per world in one work item: fixed, so that the items and
 * their results do not depend on the number of ranks. */
#define BLOCK 2048

typedef struct {
  const AuditConfig *a;
  const AuditView *v;
  const gboolean *is_member;
  const double *delta;
  const Sink *sink; /* the weights; its arrays are not written */
  guint64 *done, total;
} Blocks;

/* Item i: trials [F + i BLOCK, ...) of both worlds: their np and learned
 * scores, packed as np world 0, np world 1, learned world 0, learned world 1. */
static GBytes *block_scores(guint i, gpointer data, GError **error) {
  const Blocks *b = data;
  guint lo = b->sink->F + i * BLOCK, hi = MIN(b->sink->N, lo + BLOCK), len = hi - lo;
  Sink s = *b->sink;
  double *buf = g_new0(double, 4 * (gsize)len);
  /* The block's trials are written straight into @buf (not into arrays of
   * the whole run's size, which cost 32 N bytes and their zeroing per
   * block). */
  s.np = buf;
  s.learned = buf + 2 * (gsize)len;
  s.lo = lo;
  s.stride = len;
  s.X = NULL;
  gboolean ok = audit_trials(b->a, b->v, b->is_member, b->delta, lo, hi, on_trial, &s, b->done,
                             b->total, error);
  if (!ok) {
    g_free(buf);
    return NULL;
  }
  return g_bytes_new_take(buf, 4 * (gsize)len * sizeof(double));
}

/* The scored trials [F, N) in blocks, over the ranks of @a->map (or here);
 * FALSE with *@elsewhere set on a rank that does not receive the results. */
static gboolean score_blocks(const AuditConfig *a, const Blocks *b, Sink *s, gboolean *elsewhere,
                             GError **error) {
  guint n = (s->N - s->F + BLOCK - 1) / BLOCK;
  GBytes **res = NULL;
  gboolean ok;
  if (a->map != NULL) {
    ok = a->map(n, block_scores, (gpointer)b, &res, a->map_data, error);
  } else {
    res = g_new0(GBytes *, MAX(n, 1));
    ok = TRUE;
    for (guint i = 0; ok && i < n; i++)
      ok = (res[i] = block_scores(i, (gpointer)b, error)) != NULL;
  }
  *elsewhere = ok && res == NULL;
  for (guint i = 0; res != NULL && i < n; i++) {
    if (ok) {
      guint lo = s->F + i * BLOCK, len = MIN(s->N, lo + BLOCK) - lo;
      const double *buf = g_bytes_get_data(res[i], NULL);
      for (guint w = 0; w < 2; w++) {
        memcpy(s->np + (gsize)w * s->N + lo, buf + (gsize)w * len, len * sizeof(double));
        if (s->learned != NULL)
          memcpy(s->learned + (gsize)w * (s->N - s->F) + (lo - s->F), buf + (gsize)(2 + w) * len,
                 len * sizeof(double));
      }
    }
    if (res[i] != NULL)
      g_bytes_unref(res[i]);
  }
  g_free(res);
  return ok;
}

static gboolean distinguish(const AuditConfig *a, const AuditView *v, const gboolean *is_member,
                            guint attacks, AuditReport *out, GError **error) {
  gboolean learned = (attacks & AUDIT_ATTACK_LEARNED) != 0;
  double *delta = audit_canary_pattern(v, v->p);
  AuditResult np = result_new(AUDIT_ATTACK_NP, v->mu, AUDIT_CONSISTENT);
  np.mu_canary = canary_mu(v, delta);
  Sink s = {.rp = (gsize)v->r * v->p, .N = a->trials, .stride = a->trials};
  s.F = learned ? (guint)MIN(a->trials / 2, MAX(FIT_VALUES_MAX / (2 * s.rp), 10)) : 0;
  /* Now that the received values per trial are known: the fitting trials'
   * values, one trial's values per thread, the np weights and their two
   * temporaries, the canary pattern (T x p) and the scores (4 N). */
  gsize bytes = spec_size_mul(spec_size_add(2 * (gsize)s.F + a->threads + 3, 0), s.rp);
  bytes = spec_size_add(bytes, spec_size_mul(v->T, v->p));
  bytes = spec_size_mul(spec_size_add(bytes, 4 * (gsize)a->trials), sizeof(double));
  if (!audit_check_memory(a, bytes, "its trials' received values", error)) {
    g_free(delta);
    return FALSE;
  }
  double *W = np_weights(v, delta, &np.mu_test);
  s.W = W;
  s.np = g_new0(double, 2 * (gsize)s.N);
  s.X = learned ? g_new(double, 2 * (gsize)s.F * s.rp) : NULL;
  s.learned = learned ? g_new(double, 2 * (gsize)(s.N - s.F)) : NULL;
  guint *cols = NULL;
  double *wl = NULL;
  guint64 done = 0, total = 2 * (guint64)a->trials;
  gboolean ok = audit_trials(a, v, is_member, delta, 0, s.F, on_trial, &s, &done, total, error) &&
                (!learned || fit_learned(&s, &cols, &wl, error));
  g_clear_pointer(&s.X, g_free);
  s.wl = wl;
  Blocks b = {a, v, is_member, delta, &s, &done, total};
  ok = ok && score_blocks(a, &b, &s, &out->elsewhere, error);
  if (ok && !out->elsewhere) {
    audit_estimate(s.np, s.np + s.N, s.N, &np);
    out->rows[out->n_rows++] = np;
    out->scores = g_steal_pointer(&s.np);
    out->n_scores = s.N;
  }
  if (ok && !out->elsewhere && learned) {
    AuditResult l = result_new(AUDIT_ATTACK_LEARNED, v->mu, AUDIT_CONSISTENT);
    l.mu_canary = np.mu_canary;
    guint M = s.N - s.F;
    audit_estimate(s.learned, s.learned + M, M, &l);
    out->rows[out->n_rows++] = l;
  }
  for (guint i = 0; i < out->n_rows; i++)
    if (out->rows[i].attack != AUDIT_ATTACK_RECONSTRUCTION)
      out->rows[i].status = audit_overstated(&out->rows[i], 1) ? AUDIT_OVERSTATED
                                                               : AUDIT_CONSISTENT;
  g_free(s.np);
  g_free(s.learned);
  g_free(cols);
  g_free(wl);
  g_free(W);
  g_free(delta);
  return ok;
}

gboolean audit_run(const AuditConfig *cfg, guint attacks, AuditReport *out, GError **error) {
  g_return_val_if_fail(cfg != NULL && out != NULL, FALSE);
  memset(out, 0, sizeof *out);
  out->mu = NAN;
  if (!check(cfg, error))
    return FALSE;
  if ((attacks & AUDIT_ATTACK_ALL) == 0 || (attacks & ~(guint)AUDIT_ATTACK_ALL) != 0) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "audit: attack mask %#x is not a non-empty set of AuditAttack bits", attacks);
    return FALSE;
  }
  AuditConfig a = *cfg;
  if (a.dim == 0)
    a.dim = audit_default_dim(a.T);
  a.c_cache = proto_c_cache_new();
  gboolean every = attacks == AUDIT_ATTACK_ALL;
  gboolean *is_member = g_new0(gboolean, topo_graph_n_nodes(a.graph));
  for (guint i = 0; i < a.n_attackers; i++)
    is_member[a.attackers[i]] = TRUE;
  AuditView v = {0};
  TopoSchedule *sched = NULL;
  gboolean ok = audit_schedule_new(&a, &sched, error) && audit_view_new(&a, sched, is_member, &v, error);
  if (ok) {
    out->victim_status = v.status;
    out->mu = v.mu;
  }
  guint distinguishing = attacks & (AUDIT_ATTACK_NP | AUDIT_ATTACK_LEARNED);
  gboolean unresolved = ok && v.status == PRIV_NODE_UNRESOLVED;
  if (unresolved)
    out->note = g_strdup_printf("victim %u: no protection: mu > %g or not resolvable in double "
                                "precision (status unresolved, as `account` says); the "
                                "distinguishing attacks are refused",
                                a.victim, PRIV_MU_RESOLVABLE_MAX);
  if (ok && v.silent) {
    /* What `account` says: mu = 0. The rows of the attacks asked, with no
     * trial: every test of an empty view has the power of its size. */
    out->note = g_strdup_printf("victim %u: the attacker set receives no message: mu = 0 (as "
                                "`account` reports); nothing to attack",
                                a.victim);
    for (guint bit = AUDIT_ATTACK_NP; bit <= AUDIT_ATTACK_LEARNED; bit <<= 1)
      if (attacks & bit) {
        AuditResult r = result_new((AuditAttack)bit, 0.0, AUDIT_CONSISTENT);
        r.mu_canary = r.mu_test = 0.0;
        out->rows[out->n_rows++] = r;
      }
    if (!every && (attacks & AUDIT_ATTACK_RECONSTRUCTION))
      out->rows[out->n_rows++] = result_new(AUDIT_ATTACK_RECONSTRUCTION, 0.0, AUDIT_REFUSED);
    attacks = distinguishing = 0; /* nothing more to run */
  }
  if (ok && v.status == PRIV_NODE_PROTECTED && !v.silent && !audit_view_attackable(&v)) {
    /* The accounted mu stands (scale-free), but the trials' values and the
     * noise's eigenvalues leave the double range: no attack to run. */
    out->note = g_strdup_printf(
        "victim %u: accounted mu = %.4g; the noise's scale (largest singular value %.3g) is "
        "outside [1e-100, 1e100], where the trials' arithmetic in double precision fails: the "
        "distinguishing attacks are refused",
        a.victim, v.mu, v.smax);
    unresolved = TRUE;
  }
  if (ok && distinguishing != 0 && v.status == PRIV_NODE_PROTECTED && !unresolved) {
    ok = distinguish(&a, &v, is_member, attacks, out, error);
    if (ok && !out->elsewhere && !(attacks & AUDIT_ATTACK_NP)) /* the np row came for free */
      out->rows[0] = out->rows[--out->n_rows];
  } else if (ok && distinguishing != 0 && (!every || unresolved)) {
    /* No finite mu to audit: unprotected (reconstruction applies), or
     * unresolved (the accountant gives no number). */
    AuditStatus st = v.status == PRIV_NODE_UNPROTECTED ? AUDIT_EXPOSED : AUDIT_REFUSED;
    for (guint bit = AUDIT_ATTACK_NP; bit <= AUDIT_ATTACK_LEARNED; bit <<= 1)
      if (attacks & bit)
        out->rows[out->n_rows++] = result_new((AuditAttack)bit, v.mu, st);
  }
  if (ok && !out->elsewhere && (attacks & AUDIT_ATTACK_RECONSTRUCTION) &&
      (v.status == PRIV_NODE_UNPROTECTED || !every)) {
    AuditResult r = result_new(AUDIT_ATTACK_RECONSTRUCTION, v.mu, AUDIT_REFUSED);
    ok = v.status != PRIV_NODE_UNPROTECTED || audit_reconstruct(&a, sched, &v, is_member, &r, error);
    if (ok)
      out->rows[out->n_rows++] = r;
  }
  audit_view_clear(&v);
  topo_schedule_free(sched);
  proto_c_cache_free(a.c_cache);
  g_free(is_member);
  return ok;
}
