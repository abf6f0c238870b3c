/*
 * audit/reconstruct.c: the reconstruction attack (audit/internal.h): where
 * the accountant says a victim is unprotected, its gradients are a linear
 * function of what the attackers receive, once the noise's range is
 * projected out.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "audit/internal.h"
#include "protocols/protocols.h"
#include "sim/rng.h"

/* @X (r x c) minus its part in range(Q) (r x k), in place. */
static void project_out(const AuditView *v, double *X, gsize c) {
  if (v->k == 0)
    return;
  double *tmp = g_new(double, (gsize)v->k *c);
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)v->k, (int)c, (int)v->r, 1.0, v->Q,
              (int)v->k, X, (int)c, 0.0, tmp, (int)c);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)v->r, (int)c, (int)v->k, -1.0, v->Q,
              (int)v->k, tmp, (int)c, 1.0, X, (int)c);
  g_free(tmp);
}

/* G = (P A_v)^+ P y by SVD least squares (the minimum-norm solution); the
 * rank of P A_v into @rank and, into @seen (T flags), the steps the view
 * determines: those whose unit vector lies in P A_v's row space, where the
 * minimum-norm solution is exact. */
static double *solve(const AuditView *v, double *y, lapack_int *rank, gboolean *seen,
                     GError **error) {
  guint r = v->r, T = v->T;
  gsize p = v->p;
  double *PA = g_memdup2(v->Av, sizeof(double) * r * T);
  project_out(v, y, p);
  project_out(v, PA, T);
  double *sv = g_new(double, MIN(r, T) + 1), *Yb = g_new0(double, (gsize)MAX(r, T) * p);
  memcpy(Yb, y, sizeof(double) * r * p);
  lapack_int info = LAPACKE_dgelss(LAPACK_ROW_MAJOR, (lapack_int)r, (lapack_int)T, (lapack_int)p,
                                   PA, (lapack_int)T, Yb, (lapack_int)p, sv, 1e-8, rank);
  /* dgelss leaves the right singular vectors in PA's first rows. */
  for (guint t = 0; info == 0 && t < T; t++) {
    double in_row_space = 0.0;
    for (lapack_int i = 0; i < *rank; i++)
      in_row_space += PA[(gsize)i * T + t] * PA[(gsize)i * T + t];
    seen[t] = in_row_space > 1.0 - 1e-8;
  }
  g_free(sv);
  g_free(PA);
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL, "audit: least squares failed (%d)",
                (int)info);
    g_free(Yb);
    return NULL;
  }
  return Yb;
}

gboolean audit_reconstruct(const AuditConfig *a, TopoSchedule *sched, const AuditView *v,
                           const gboolean *is_member, AuditResult *out, GError **error) {
  gsize p = v->p;
  guint T = a->T;
  double *G = g_new(double, (gsize)T *p);
  gsl_rng *rng = sim_rng_stream_new(a->seed, a->victim, AUDIT_SEED_RECONSTRUCT, NULL, NULL);
  sim_rng_normals(rng, G, (gsize)T * p);
  gsl_rng_free(rng);
  for (guint t = 0; t < T; t++)
    cblas_dscal((int)p, 1.0 / cblas_dnrm2((int)p, G + (gsize)t * p, 1), G + (gsize)t * p, 1);
  AuditGradients gr = {.victim = a->victim, .T = T, .p = p, .grads = G};
  AuditSeen seen;
  audit_seen_init(&seen, a, is_member, FALSE);
  double *init = g_new(double, p), *y = NULL;
  guint64 seed = sim_rng_stream_seed(a->seed, 0, AUDIT_SEED_RECONSTRUCT);
  gboolean ok = audit_run_once(a, sched, a->sigma, seed, FALSE, &gr, &seen, init, error);
  if (ok && seen.count != v->n_msg) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "audit: the reconstruction run saw %u messages, the provenance run %u", seen.count,
                v->n_msg);
    ok = FALSE;
  }
  if (ok) {
    y = g_new(double, (gsize)v->r *p);
    ok = audit_center(v, &seen, init, seed, y, error);
  }
  if (ok) {
    lapack_int rank = 0;
    gboolean *steps = g_new0(gboolean, T);
    double *X = solve(v, y, &rank, steps, error);
    ok = X != NULL;
    /* The error over the steps the view determines (all of them: exposed). */
    double err = 0.0, nrm = 0.0;
    for (guint t = 0; ok && t < T; t++)
      for (gsize j = 0; steps[t] && j < p; j++) {
        double d = X[(gsize)t * p + j] - G[(gsize)t * p + j];
        err += d * d;
        nrm += G[(gsize)t * p + j] * G[(gsize)t * p + j];
      }
    if (ok) {
      out->status = (guint)rank < T ? AUDIT_PARTIAL : AUDIT_EXPOSED;
      out->reconstruction_error = nrm > 0.0 ? sqrt(err / nrm) : NAN;
    }
    g_free(steps);
    g_free(X);
  }
  audit_seen_clear(&seen);
  g_free(y);
  g_free(init);
  g_free(G);
  return ok;
}
