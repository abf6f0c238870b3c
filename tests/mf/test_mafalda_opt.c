/*
 * tests/mf/test_mafalda_opt.c: the multi-epoch MF optimizer (Mafalda,
 * DMF), strategies, sensitivity and losses: reference values of
 * tests/data/reference/mafalda-florentine-*.json, closed forms (b = 1,
 * band 1), the KKT conditions checked with an independent inverse (LU), and
 * a plain projected gradient descent as a second method on a small case.
 * Every tolerance follows from the optimizer's stopping rule (gtol), the
 * convexity of the objective and the rounding of each evaluation
 * (kkt_eval): see assert_kkt, kkt_gap and compare_points.
 */
#include <json-glib/json-glib.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "mf/mf.h"
#include "tests/mf/mf_test.h"
#include "topologies/topologies.h"
#include "tests/common/checks.h"
#include "tests/common/tolerance.h"

static double trace(const double *H, guint T) {
  double t = 0.0;
  for (guint s = 0; s < T; s++)
    t += H[(gsize)s * T + s];
  return t;
}

static JsonObject *load_reference(const char *file, JsonParser **parser) {
  char *path = g_build_filename(g_getenv("DPG_TEST_DATA"), "reference", file, NULL);
  *parser = json_parser_new();
  GError *err = NULL;
  json_parser_load_from_file(*parser, path, &err);
  g_assert_no_error(err);
  g_free(path);
  return json_node_get_object(json_parser_get_root(*parser));
}

/* Inverse by LU (dgesv on the identity), independent of the optimizer's Cholesky. */
static double *lu_inverse(const double *X, guint T) {
  double *A = g_memdup2(X, (gsize)T * T * sizeof(double));
  double *Id = g_new0(double, (gsize)T *T);
  lapack_int *piv = g_new(lapack_int, T);
  for (guint i = 0; i < T; i++)
    Id[(gsize)i * T + i] = 1.0;
  g_assert_cmpint(LAPACKE_dgesv(LAPACK_ROW_MAJOR, T, T, A, T, piv, Id, T), ==, 0);
  g_free(A);
  g_free(piv);
  return Id;
}

/* The extreme eigenvalues of the symmetric T x T matrix @A (dsyev on a
 * copy): *lo, *hi. */
static void eig_range(const double *A, guint T, double *lo, double *hi) {
  double *a = g_memdup2(A, (gsize)T * T * sizeof(double)), *w = g_new(double, T);
  g_assert_cmpint(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', T, a, T, w), ==, 0);
  *lo = w[0];
  *hi = w[T - 1];
  g_free(a);
  g_free(w);
}

/*
 * The optimality conditions of min f(X) = tr(H X^{-1}) over the feasible set
 * (X symmetric positive definite, X[s,t] = 0 when |s - t| is a multiple of b
 * or, with a band, >= band; the diagonal of each class c = {c, c + b, ...}
 * sums to 1), evaluated at @X by the test itself: an LU inverse, independent
 * of the optimizer's Cholesky. With Gr = X^{-1} H X^{-1} (minus the gradient
 * in the Frobenius inner product):
 *   p_off  = max |Gr[s,t]| over the free off-diagonal entries,
 *   p_diag = max |Gr[s,s] - mean of Gr over s's class|,
 * both as computed plus err_G, so that the exact values are below them.
 * err_G bounds the rounding of one evaluation of an entry of Gr: the inverse
 * has a normwise relative error delta = eps x cond(X) x T (dpg_tol), and
 * Gr = Xi H Xi carries it twice plus the products' own rounding (<= T eps
 * <= delta), so |dGr| <= 3 delta ||H|| ||X^{-1}||^2 (2-norms from the
 * eigenvalues). err_f likewise bounds |df| <= T ||H|| ||dXi|| on
 * f = tr(H Xi) (and the trace's sum: 2 T delta ||H|| / lambda_min(X)).
 */
typedef struct {
  guint T, k, b, band;
  double f, err_f, err_G;
  double p_off, p_diag;
  double x_lo, x_hi, h_lo, h_hi;
  double *Gr;
} Kkt;

static gboolean free_entry(const Kkt *e, guint s, guint t) {
  guint d = s > t ? s - t : t - s;
  return d != 0 && d % e->b != 0 && (e->band == 0 || d < e->band);
}

static void kkt_eval(Kkt *e, const double *H, const double *X, guint k, guint b, guint band) {
  guint T = k * b;
  *e = (Kkt){.T = T, .k = k, .b = b, .band = band};
  double *Xi = lu_inverse(X, T);
  double *M = g_new0(double, (gsize)T *T);
  e->Gr = g_new0(double, (gsize)T *T);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++) {
      double v = 0.0;
      for (guint l = 0; l < T; l++)
        v += H[(gsize)i * T + l] * Xi[(gsize)l * T + j];
      M[(gsize)i * T + j] = v;
    }
  for (guint i = 0; i < T; i++)
    e->f += M[(gsize)i * T + i];
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++) {
      double v = 0.0;
      for (guint l = 0; l < T; l++)
        v += Xi[(gsize)i * T + l] * M[(gsize)l * T + j];
      e->Gr[(gsize)i * T + j] = v;
    }
  eig_range(X, T, &e->x_lo, &e->x_hi);
  eig_range(H, T, &e->h_lo, &e->h_hi);
  g_assert_cmpfloat(e->x_lo, >, 0.0);
  double delta = dpg_tol(e->x_hi / e->x_lo, T);
  e->err_G = 3.0 * delta * e->h_hi / (e->x_lo * e->x_lo);
  e->err_f = 2.0 * T * delta * e->h_hi / e->x_lo;
  for (guint s = 0; s < T; s++)
    for (guint t = 0; t < T; t++)
      if (free_entry(e, s, t))
        e->p_off = MAX(e->p_off, fabs(e->Gr[(gsize)s * T + t]));
  for (guint c = 0; c < b; c++) {
    double mean = 0.0;
    for (guint i = 0; i < k; i++)
      mean += e->Gr[(gsize)(c + i * b) * (T + 1)] / k;
    for (guint i = 0; i < k; i++)
      e->p_diag = MAX(e->p_diag, fabs(e->Gr[(gsize)(c + i * b) * (T + 1)] - mean));
  }
  e->p_off += e->err_G;
  e->p_diag += 2.0 * e->err_G; /* the entry and the mean */
  g_free(Xi);
  g_free(M);
}

/*
 * A proven bound on f(X) - min f from the optimality conditions at X: f is
 * convex, so f(X) - f(X*) <= <grad f(X), X - X*> = -<Gr, X - X*>. On a
 * feasible X, X - X* is zero on the constrained entries and sums to zero on
 * each class's diagonal, so the class means drop out: the inner product is
 * at most p_off sum_{s != t} |dX| + p_diag sum_s |dX_ss|. The optimum X* has
 * |X*[s,t]| <= sqrt(X*_ss X*_tt) and sum_s X*_ss = b, so
 * sum_{s,t} |X*[s,t]| <= (sum_s sqrt(X*_ss))^2 <= T b (Cauchy-Schwarz):
 * its off-diagonal part sums to at most T b - b, its diagonal to b; X's own
 * sums are measured. A point that is feasible only up to rounding (a
 * reference read from a file) adds what its constrained entries and class
 * sums contribute: sum |Gr[s,t] X[s,t]| and sum_c |mean_c| |sum_c - 1|.
 */
static double kkt_gap(const Kkt *e, const double *X) {
  guint T = e->T, b = e->b, k = e->k;
  double off = 0.0, diag = 0.0, infeasible = 0.0;
  for (guint s = 0; s < T; s++)
    for (guint t = 0; t < T; t++) {
      double x = fabs(X[(gsize)s * T + t]);
      if (s == t)
        diag += x;
      else if (free_entry(e, s, t))
        off += x;
      else
        infeasible += fabs(e->Gr[(gsize)s * T + t]) * x;
    }
  for (guint c = 0; c < b; c++) {
    double mean = 0.0, sum = 0.0;
    for (guint i = 0; i < k; i++) {
      mean += e->Gr[(gsize)(c + i * b) * (T + 1)] / k;
      sum += X[(gsize)(c + i * b) * (T + 1)];
    }
    infeasible += (fabs(mean) + e->err_G) * fabs(sum - 1.0);
  }
  double Tb = (double)T * b;
  return e->p_off * (off + Tb - b) + e->p_diag * (diag + b) + infeasible;
}

static void kkt_free(Kkt *e) {
  g_free(e->Gr);
}

/*
 * The optimizer's result @r satisfies what its stopping rule promises. It
 * stops when max |projected gradient| <= gtol f / T in its variables
 * (diagonal entries and one variable per free pair {s,t}, whose derivative
 * is -2 Gr[s,t]; the diagonal projected on each class's zero-sum plane), so
 * at r: |Gr[s,t]| <= gtol f / (2T) on free entries and |Gr[s,s] - class
 * mean| <= gtol f / T, each up to the rounding of the optimizer's evaluation
 * and of ours (err_G each, the mean twice). Hence Gr[s,s] is constant on
 * each class within twice that, and (Euler: <grad f, X> = -f) the sum of
 * the class multipliers is f within the gap bound of kkt_gap plus b class
 * errors. Also: feasibility, C lower triangular with C^T C = X (Cholesky's
 * backward error, Higham Thm 10.3: |C^T C - X| <= (T+1) eps |C^T| |C|, and
 * (|C^T| |C|)[s,t] <= sqrt(X_ss X_tt); our product's sum adds as much),
 * sensitivity 1, and mf_loss (through C) equal to f within both
 * evaluations' err_f.
 */
static void assert_kkt(const double *H, const MfResult *r, guint band) {
  guint T = r->T, k = r->k, b = r->b;
  MfOptions o;
  mf_options_init(&o);
  g_assert_cmpfloat(r->gradient, <=, o.gtol * r->objective / T);
  Kkt e;
  kkt_eval(&e, H, r->X, k, b, band);
  double f = e.f;
  dpg_test_assert_le(fabs(f - r->objective), 2.0 * e.err_f,
                     "both evaluations of tr(H X^-1): 2 T eps cond(X) T ||H|| / lambda_min(X)");
  double g_off = o.gtol * f / (2.0 * T) + 2.0 * e.err_G;
  double g_diag = o.gtol * f / T + 4.0 * e.err_G;
  double lambda_sum = 0.0, mean_err = 0.0, abs_off = 0.0;
  for (guint s = 0; s < T; s++)
    for (guint t = 0; t < T; t++) {
      double x = r->X[(gsize)s * T + t];
      if (s != t && !free_entry(&e, s, t))
        g_assert_cmpfloat(x, ==, 0.0);
      if (free_entry(&e, s, t)) {
        dpg_test_assert_le(fabs(e.Gr[(gsize)s * T + t]), g_off,
                           "stopping rule gtol f / 2T on a pair, plus both evaluations' err_G");
        abs_off += fabs(x);
      }
    }
  for (guint c = 0; c < b; c++) {
    double lambda = e.Gr[(gsize)c * T + c], sum = 0.0, mean = 0.0;
    for (guint i = 0; i < k; i++) {
      guint s = c + i * b;
      dpg_test_assert_le(fabs(e.Gr[(gsize)s * T + s] - lambda), 2.0 * g_diag,
                         "two diagonal entries each within gtol f / T of the class mean");
      sum += r->X[(gsize)s * T + s];
      mean += e.Gr[(gsize)s * T + s] / k;
    }
    /* The optimizer keeps each class's sum at 1 by projected steps: each
     * accepted step's update of k entries of sum 1 rounds by <= (k + 1)
     * eps (entries and the projection's mean). */
    dpg_test_assert_le(fabs(sum - 1.0), dpg_tol(1.0, (double)(k + 1) * (r->evaluations + 1)),
                       "(k + 1) eps per evaluated step");
    mean_err = MAX(mean_err, fabs(lambda - mean));
    lambda_sum += lambda;
  }
  /* f = <Gr, X> = sum_c mean_c + sum_s X_ss (Gr_ss - mean_c) + sum_free
   * X_st Gr_st, and sum_s X_ss = b. */
  dpg_test_assert_le(fabs(lambda_sum - f),
                     b * (mean_err + g_diag) + abs_off * g_off + b * e.err_G + e.err_f,
                     "Euler's identity within the stopping rule's gradient");
  /* C lower triangular, C^T C = X, sensitivity 1. */
  double chol = 2.0 * dpg_tol(1.0, T + 1);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++) {
      if (j > i)
        g_assert_cmpfloat(r->C[(gsize)i * T + j], ==, 0.0);
      double v = 0.0;
      for (guint l = 0; l < T; l++)
        v += r->C[(gsize)l * T + i] * r->C[(gsize)l * T + j];
      dpg_test_assert_le(fabs(v - r->X[(gsize)i * T + j]),
                         chol * sqrt(r->X[(gsize)i * T + i] * r->X[(gsize)j * T + j]),
                         "Cholesky's backward error (T+1) eps |C^T||C|, twice");
    }
  /* The sensitivity sums |C^T C| over a class's k^2 entries: the diagonal
   * sums to 1 (as above) and the rest is zero in X, so within
   * chol sum_{u,v} sqrt(X_uu X_vv) <= chol k sum_u X_uu = chol k. */
  dpg_test_assert_le(fabs(mf_sensitivity2(r->C, T, k, b) - 1.0),
                     chol * k + dpg_tol(1.0, (double)(k + 1) * (r->evaluations + 1)),
                     "Cholesky's backward error over a class's k^2 entries, plus the drift");
  GError *err = NULL;
  double loss = mf_loss(H, r->C, T, k, b, &err);
  g_assert_no_error(err);
  dpg_test_assert_le(fabs(loss - f), 2.0 * e.err_f + chol * k * f,
                     "both evaluations of tr(H X^-1), and the sensitivity's error");
  kkt_free(&e);
}

static MfResult *optimize(const double *H, guint k, guint b, guint band) {
  MfOptions o;
  mf_options_init(&o);
  o.band = band;
  MfResult *r = NULL;
  GError *err = NULL;
  gboolean ok = mf_optimize(H, k * b, k, b, &o, &r, &err);
  g_assert_no_error(err);
  g_assert_true(ok);
  g_assert_true(r->converged);
  return r;
}

/*
 * Two feasible points X1, X2 (the optimizer's and a second method's) against
 * each other, with bounds from the optimality conditions of both
 * (kkt_eval, by the test's own LU evaluation). Objectives: each point's gap
 * to the optimum is at most kkt_gap, so f1 - f2 <= gap(X1) and
 * f2 - f1 <= gap(X2), up to both evaluations' err_f.
 * Points: f is strongly convex on the segment between them. Its Hessian is
 * d^2 f[D] = 2 tr(D X^-1 D Gr) >= 2 lambda_min(X^-1) lambda_min(Gr) ||D||_F^2
 * and Gr = X^-1 H X^-1 >= lambda_min(H) X^-2, so the modulus is
 * mu >= 2 lambda_min(H) / lambda_max(X)^3, lambda_max on the segment being at
 * most the larger of the ends' (lambda_max is convex). Adding the two
 * strong-convexity inequalities, mu ||D||_F^2 <= <grad f(X2) - grad f(X1), D>
 * <= (p1 + p2) ||D||_1 <= (p1 + p2) T ||D||_F (D feasible, so the class
 * means drop out; p the larger of p_off and p_diag): every entry of D is at
 * most T (p1 + p2) / mu.
 */
static void compare_points(const double *H, guint k, guint b, const double *X1, const char *n1,
                           const double *X2, const char *n2) {
  guint T = k * b;
  Kkt e1, e2;
  kkt_eval(&e1, H, X1, k, b, 0);
  kkt_eval(&e2, H, X2, k, b, 0);
  double dx = 0.0;
  for (guint i = 0; i < T * T; i++)
    dx = MAX(dx, fabs(X1[i] - X2[i]));
  double err = e1.err_f + e2.err_f, gap1 = kkt_gap(&e1, X1), gap2 = kkt_gap(&e2, X2);
  double mu = 2.0 * e1.h_lo / pow(MAX(e1.x_hi, e2.x_hi), 3);
  double dx_bound = T * (MAX(e1.p_off, e1.p_diag) + MAX(e2.p_off, e2.p_diag)) / mu;
  g_test_message("%s %.15g (gap <= %.3g), %s %.15g (gap <= %.3g); max |dX| %.3g <= %.3g", n1, e1.f,
                 gap1, n2, e2.f, gap2, dx, dx_bound);
  dpg_test_assert_le(e1.f - e2.f, gap1 + err, "the first point's optimality gap (kkt_gap)");
  dpg_test_assert_le(e2.f - e1.f, gap2 + err, "the second point's optimality gap (kkt_gap)");
  dpg_test_assert_le(dx, dx_bound, "strong convexity: T (p1 + p2) / mu");
  kkt_free(&e1);
  kkt_free(&e2);
}

/* ---- reference values ---- */

/*
 * The reference C (tests/data/reference, computed in Python): its Gram
 * X_ref = C^T C, made exactly feasible (constrained entries, of rounding
 * size, set to 0; each class's diagonal scaled to sum 1; the change is
 * printed and bounded), is a second point to compare with the optimizer's by
 * compare_points: objectives within the proven gaps, X within the strong
 * convexity bound (X determines its Cholesky factor C, whose agreement with
 * X assert_kkt checks). The reference's printed loss is its own evaluation
 * of the same point: within both evaluations' err_f.
 */
static void test_florentine_k3_b4(void) {
  JsonParser *p;
  JsonObject *o = load_reference("mafalda-florentine-k3-b4.json", &p);
  guint k = 3, b = 4, T = 12;
  double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_POST_AVERAGE);
  MfResult *r = optimize(H, k, b, 0);
  JsonArray *rows = json_object_get_array_member(o, "C_mafalda");
  double C[144], X[144], moved = 0.0;
  for (guint s = 0; s < T; s++) {
    JsonArray *row = json_array_get_array_element(rows, s);
    for (guint t = 0; t < T; t++)
      C[s * T + t] = json_array_get_double_element(row, t);
  }
  for (guint s = 0; s < T; s++)
    for (guint t = 0; t < T; t++) {
      double v = 0.0;
      for (guint l = 0; l < T; l++)
        v += C[l * T + s] * C[l * T + t];
      guint d = s > t ? s - t : t - s;
      X[s * T + t] = d != 0 && d % b == 0 ? 0.0 : v;
      moved = MAX(moved, fabs(X[s * T + t] - v));
    }
  for (guint c = 0; c < b; c++) {
    double sum = 0.0;
    for (guint i = 0; i < k; i++)
      sum += X[(c + i * b) * (T + 1)];
    for (guint i = 0; i < k; i++)
      X[(c + i * b) * (T + 1)] /= sum;
    moved = MAX(moved, fabs(sum - 1.0));
  }
  /* The file's C has 17 digits: its Gram is feasible to rounding. */
  dpg_test_assert_le(moved, dpg_tol(1.0, T + k), "C^T C's rounding, T terms (and k per class)");
  compare_points(H, k, b, r->X, "optimizer", X, "reference");
  Kkt e;
  kkt_eval(&e, H, X, k, b, 0);
  double ref = json_object_get_double_member(json_object_get_object_member(o, "loss"),
                                             "mafalda (optimal)");
  dpg_test_assert_le(fabs(e.f - ref), 2.0 * e.err_f + e.f * moved * T,
                     "two evaluations of one point, and the feasibility fix");
  kkt_free(&e);
  assert_kkt(H, r, 0);
  mf_result_free(r);
  g_free(H);
  g_object_unref(p);
}

/* The error bound of mf_loss(H, C): 2 T eps cond(X) T ||H|| / lambda_min(X)
 * with X = C^T C (as err_f of kkt_eval), relative to the loss @f, plus the
 * sensitivity's sums of k^2 dot products of T terms. */
static double loss_rtol(const double *H, const double *C, guint T, guint k, double f) {
  double *X = g_new0(double, (gsize)T *T), x_lo, x_hi, h_lo, h_hi;
  for (guint s = 0; s < T; s++)
    for (guint t = 0; t < T; t++)
      for (guint l = 0; l < T; l++)
        X[s * T + t] += C[l * T + s] * C[l * T + t];
  eig_range(X, T, &x_lo, &x_hi);
  eig_range(H, T, &h_lo, &h_hi);
  g_free(X);
  return 2.0 * T * dpg_tol(x_hi / x_lo, T) * h_hi / x_lo / (k * k * f) +
         2.0 * dpg_tol(1.0, (double)T * k * k);
}

/*
 * k = 5, b = 16 (T = 80): the file has the losses only. The reference's
 * "optimal" value is a feasible point's loss, so ours (within kkt_gap of the
 * optimum) is at most it plus our gap; it is also at least the optimum, but
 * the reference solver's own gap is not in the file, so the other direction
 * is only printed. The baselines are closed forms evaluated by both
 * programs: within twice loss_rtol.
 */
static void test_florentine_k5_b16(void) {
  JsonParser *p;
  JsonObject *o = load_reference("mafalda-florentine-k5-b16.json", &p);
  JsonObject *ref = json_object_get_object_member(o, "loss");
  guint k = 5, b = 16, T = 80;
  double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_POST_AVERAGE);
  MfResult *r = optimize(H, k, b, 0);
  GError *err = NULL;
  double mafalda = mf_loss(H, r->C, T, k, b, &err);
  g_assert_no_error(err);
  Kkt e;
  kkt_eval(&e, H, r->X, k, b, 0);
  double want = json_object_get_double_member(ref, "mafalda (optimal)");
  g_test_message("optimizer %.15g (gap <= %.3g), reference %.15g", mafalda, kkt_gap(&e, r->X),
                 want);
  dpg_test_assert_le(mafalda - want, kkt_gap(&e, r->X) + 2.0 * e.err_f,
                     "our optimality gap (kkt_gap) and both evaluations");
  kkt_free(&e);
  /* The mismatched objective of the public reference scores worse: we beat it. */
  g_assert_cmpfloat(
      mafalda, <,
      json_object_get_double_member(ref, "reference implementation C (mismatched objective)"));
  double *C = mf_baseline(MF_BASELINE_IDENTITY, T, 0, &err);
  g_assert_no_error(err);
  double identity = mf_loss(H, C, T, k, b, &err);
  double rtol = 2.0 * loss_rtol(H, C, T, k, identity);
  dpg_test_assert_close(identity, json_object_get_double_member(ref, "dp-d-sgd (C=I)"), rtol,
                        "two evaluations of the loss (loss_rtol)");
  /* C = I: k^2 tr(H) / k... the loss is sens^2 tr(H) = k tr(H), a sum of T
   * terms. */
  dpg_test_assert_close(identity, k * trace(H, T), dpg_tol(1.0, 2.0 * T),
                        "two sums of T positive terms");
  g_free(C);
  C = mf_baseline(MF_BASELINE_ANTIPGD, T, 0, &err);
  double antipgd = mf_loss(H, C, T, k, b, &err);
  g_assert_no_error(err);
  rtol = 2.0 * loss_rtol(H, C, T, k, antipgd);
  dpg_test_assert_close(antipgd, json_object_get_double_member(ref, "antipgd (C=lower ones)"), rtol,
                        "two evaluations of the loss (loss_rtol)");
  g_free(C);
  assert_kkt(H, r, 0);
  mf_result_free(r);
  g_free(H);
  g_object_unref(p);
}

/* ---- closed forms ---- */

/*
 * The distance of a feasible X to the optimum X*, proven from X's optimality
 * conditions (kkt_eval): f is mu-strongly convex on the segment [X*, X]
 * with mu >= 2 lambda_min(H) / lambda_max^3 (see compare_points; lambda_max
 * the larger of X's and @x_hi_star, X*'s), and since X - X* is feasible and
 * X* optimal, mu ||X - X*||_F^2 <= <grad f(X), X - X*> <= p T ||X - X*||_F.
 */
static double dist_to_optimum(const Kkt *e, double x_hi_star) {
  double mu = 2.0 * e->h_lo / pow(MAX(e->x_hi, x_hi_star), 3);
  return e->T * MAX(e->p_off, e->p_diag) / mu;
}

/* A proven bound on |f(r) - min f| + evaluation error for a result @r of
 * the optimizer on @H (kkt_gap of its point, err_f of both evaluations). */
static double result_gap(const double *H, const MfResult *r, guint band) {
  Kkt e;
  kkt_eval(&e, H, r->X, r->k, r->b, band);
  double g = kkt_gap(&e, r->X) + 2.0 * e.err_f;
  kkt_free(&e);
  return g;
}

/*
 * Closed forms. b = 1 (every round is the same record's): X must be diagonal
 * with trace 1, so x_s ~ sqrt(H_ss) and f = (sum_s sqrt(H_ss))^2. Band 1 is
 * the same per class: f = sum_c (sum_{s in c} sqrt(H_ss))^2. The optimizer's
 * objective is at most the closed form plus its optimality gap (kkt_gap) and
 * at least the closed form (the optimum), each up to the rounding of the
 * evaluation (err_f) and of the closed form's sums of T terms; its X is
 * within dist_to_optimum of the closed form's (plus that one's rounding).
 */
static void check_diagonal(const double *H, const MfResult *r, guint k, guint b, guint band) {
  guint T = k * b;
  double want = 0.0, x_hi = 0.0, *xs = g_new(double, T);
  for (guint c = 0; c < b; c++) {
    double cs = 0.0;
    for (guint i = 0; i < k; i++)
      cs += sqrt(H[(gsize)(c + i * b) * (T + 1)]);
    for (guint i = 0; i < k; i++) {
      xs[c + i * b] = sqrt(H[(gsize)(c + i * b) * (T + 1)]) / cs;
      x_hi = MAX(x_hi, xs[c + i * b]);
    }
    want += cs * cs;
  }
  Kkt e;
  kkt_eval(&e, H, r->X, k, b, band);
  double round = want * dpg_tol(1.0, 2.0 * T); /* square roots and sums of T terms */
  dpg_test_assert_le(r->objective - want, kkt_gap(&e, r->X) + e.err_f + round,
                     "the optimizer's gap (kkt_gap)");
  dpg_test_assert_le(want - r->objective, e.err_f + round, "the closed form is the minimum");
  double dist = dist_to_optimum(&e, x_hi) + dpg_tol(1.0, k + 2.0);
  for (guint s = 0; s < T; s++)
    dpg_test_assert_le(fabs(r->X[(gsize)s * (T + 1)] - xs[s]), dist,
                       "strong convexity (dist_to_optimum), the closed form's k-term sum");
  kkt_free(&e);
  g_free(xs);
}

static void test_diagonal_closed_forms(void) {
  guint T = 12;
  double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_MESSAGES);
  MfResult *r = optimize(H, T, 1, 0);
  check_diagonal(H, r, T, 1, 0);
  mf_result_free(r);

  guint k = 3, b = 4;
  r = optimize(H, k, b, 1);
  check_diagonal(H, r, k, b, 1);
  for (guint i = 0; i < T * T; i++)
    if (i % (T + 1) != 0)
      g_assert_cmpfloat(r->C[i], ==, 0.0);
  mf_result_free(r);
  g_free(H);
}

/* ---- a second, independent method ---- */

/* Projected gradient descent on the full symmetric matrix with a fixed small
 * step and halving on failure: slow but obviously right. */
static double pgd(const double *H, guint T, guint k, guint b, double *X) {
  double *Xn = g_new(double, T *T), *G = g_new(double, T *T), *M = g_new(double, T *T);
  memset(X, 0, T * T * sizeof(double));
  for (guint s = 0; s < T; s++)
    X[s * T + s] = 1.0 / k;
  double step = 1e-4, f = INFINITY;
  int it;
  for (it = 0; it < 200000; it++) {
    double *Xi = lu_inverse(X, T);
    f = 0.0;
    for (guint i = 0; i < T; i++)
      for (guint j = 0; j < T; j++) {
        double v = 0.0;
        for (guint l = 0; l < T; l++)
          v += H[i * T + l] * Xi[l * T + j];
        M[i * T + j] = v;
      }
    for (guint i = 0; i < T; i++)
      f += M[i * T + i];
    for (guint i = 0; i < T; i++)
      for (guint j = 0; j < T; j++) {
        double v = 0.0;
        for (guint l = 0; l < T; l++)
          v += Xi[i * T + l] * M[l * T + j];
        G[i * T + j] = v; /* minus the gradient */
      }
    g_free(Xi);
    /* Project: zero the constrained entries, centre the diagonal per class. */
    for (guint s = 0; s < T; s++)
      for (guint t = 0; t < T; t++)
        if (s != t && (s > t ? s - t : t - s) % b == 0)
          G[s * T + t] = 0.0;
    for (guint c = 0; c < b; c++) {
      double mean = 0.0;
      for (guint i = 0; i < k; i++)
        mean += G[(c + i * b) * (T + 1)] / k;
      for (guint i = 0; i < k; i++)
        G[(c + i * b) * (T + 1)] -= mean;
    }
    for (guint i = 0; i < T * T; i++)
      Xn[i] = X[i] + step * G[i];
    double *Xni = lu_inverse(Xn, T);
    double fn = 0.0;
    for (guint i = 0; i < T * T; i++)
      fn += H[i] * Xni[i];
    g_free(Xni);
    double chol_ok = 1.0;
    double *tmp = g_memdup2(Xn, T * T * sizeof(double));
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', T, tmp, T) != 0)
      chol_ok = 0.0;
    g_free(tmp);
    if (chol_ok == 0.0 || fn > f) {
      step *= 0.5;
      continue;
    }
    memcpy(X, Xn, T * T * sizeof(double));
    step *= 1.05;
    if (f - fn < 1e-15 * f)
      break;
  }
  g_test_message("PGD stopped after %d iterations", it);
  g_free(Xn);
  g_free(G);
  g_free(M);
  return f;
}

static void test_against_projected_gradient(void) {
  guint k = 2, b = 3, T = 6;
  const char *graphs[] = {"ring:n=5", "star:n=6"};
  for (guint gi = 0; gi < G_N_ELEMENTS(graphs); gi++) {
    double *H = mf_test_gram(graphs[gi], FALSE, T, MF_WORKLOAD_POST_AVERAGE);
    MfResult *r = optimize(H, k, b, 0);
    double X[36];
    pgd(H, T, k, b, X);
    g_test_message("%s:", graphs[gi]);
    compare_points(H, k, b, r->X, "L-BFGS", X, "PGD");
    assert_kkt(H, r, 0); /* and the optimizer's point keeps its stopping rule's promise */
    mf_result_free(r);
    g_free(H);
  }
}

/* ---- unseen graphs and horizons: KKT ---- */

static void test_kkt_random_graphs(void) {
  struct {
    const char *spec;
    guint k, b, band;
    MfWorkload wl;
  } cases[] = {
      {"erdos:n=30,p=0.2,seed=3,connected=true", 4, 5, 0, MF_WORKLOAD_POST_AVERAGE},
      {"erdos:n=25,p=0.3,seed=9,connected=true", 3, 7, 0, MF_WORKLOAD_MESSAGES},
      {"barabasi:n=40,m=2,seed=1", 6, 3, 0, MF_WORKLOAD_POST_AVERAGE},
      {"watts:n=30,k=2,p=0.1,seed=2", 5, 6, 4, MF_WORKLOAD_POST_AVERAGE},
      {"karate", 2, 10, 3, MF_WORKLOAD_MESSAGES},
      {"karate", 1, 9, 0, MF_WORKLOAD_POST_AVERAGE},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    guint T = cases[i].k * cases[i].b;
    double *H = mf_test_gram(cases[i].spec, FALSE, T, cases[i].wl);
    MfResult *r = optimize(H, cases[i].k, cases[i].b, cases[i].band);
    assert_kkt(H, r, cases[i].band);
    if (cases[i].band) {
      for (guint s = 0; s < T; s++)
        for (guint t = 0; t + cases[i].band <= s; t++)
          g_assert_cmpfloat(r->C[s * T + t], ==, 0.0); /* the banded factor never writes there */
      /* The band costs something: the unbanded optimum is lower. */
      MfResult *u = optimize(H, cases[i].k, cases[i].b, 0);
      g_assert_cmpfloat(u->objective, <, r->objective);
      mf_result_free(u);
    }
    mf_result_free(r);
    g_free(H);
  }
}

/* DMF: the same optimizer on the centralized prefix-sum workload. */
static void test_dmf_prefix_sum(void) {
  guint k = 4, b = 8, T = 32;
  GError *err = NULL;
  double *A = mf_gram_prefix_sum(T, &err);
  g_assert_no_error(err);
  MfResult *r = optimize(A, k, b, 0);
  assert_kkt(A, r, 0);
  /* DMF beats the square root and the identity on its own workload. */
  for (int which = MF_BASELINE_IDENTITY; which <= MF_BASELINE_BSR; which++) {
    double *C = mf_baseline(which, T, b, &err);
    g_assert_no_error(err);
    g_assert_cmpfloat(r->objective, <, mf_loss(A, C, T, k, b, &err));
    g_free(C);
  }
  mf_result_free(r);
  g_free(A);
}

/* The optimizer's metric and starting point: the badly conditioned
 * prefix-sum Gram converges well within 200 iterations (plain L-BFGS from I/k
 * needed 584 and 762 on these two), to the KKT point. */
static void test_dmf_iterations(void) {
  const guint cases[][2] = {{10, 8}, {16, 4}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    guint k = cases[i][0], b = cases[i][1], T = k * b;
    GError *err = NULL;
    double *A = mf_gram_prefix_sum(T, &err);
    g_assert_no_error(err);
    MfOptions o;
    mf_options_init(&o);
    o.max_iterations = 200;
    MfResult *r = NULL;
    g_assert_true(mf_optimize(A, T, k, b, &o, &r, &err));
    g_assert_no_error(err);
    g_test_message("prefix sum k = %u, b = %u: %u iterations, %u evaluations", k, b, r->iterations,
                   r->evaluations);
    assert_kkt(A, r, 0);
    mf_result_free(r);
    g_free(A);
  }
}

/*
 * A result @r of the optimizer on @A, scored on another Gram @H:
 * returns a proven bound on ||X - X*||_F, X* = A's optimum
 * (dist_to_optimum; lambda_max(X*) <= tr X* = b), and sets *lip to a
 * Lipschitz constant of the loss on H near X in the Frobenius norm,
 * ||X^-1 H X^-1||_F (computed at X, times 2 for the way to X*: the loss
 * is convex, so |L(X) - L(X*)| <= max of the gradient norms at both ends;
 * at X* the bound doubles it, lambda_min(X*) being unknown, as an
 * estimate) plus the loss's evaluation error.
 */
static double loss_on_other(const double *A, const double *H, const MfResult *r, guint band,
                            double *lip) {
  Kkt ea, eh;
  kkt_eval(&ea, A, r->X, r->k, r->b, band);
  kkt_eval(&eh, H, r->X, r->k, r->b, band);
  double d = dist_to_optimum(&ea, r->b), g = 0.0;
  for (gsize i = 0; i < (gsize)r->T * r->T; i++)
    g += eh.Gr[i] * eh.Gr[i];
  *lip = 2.0 * sqrt(g) + 2.0 * eh.err_f / MAX(d, DBL_MIN);
  kkt_free(&ea);
  kkt_free(&eh);
  return d;
}

/* mf_dmf (warm started from k/2 epochs, recursively) against
 * mf_optimize on the prefix-sum Gram from its own start. Same problem:
 * with the full gradient tolerance or the report's ftol 1e-10 (objective
 * settled, gradient not), both objectives within their proven optimality
 * gaps (kkt_gap) of each other, and the losses on a graph's H within the
 * loss's Lipschitz bound times the points' distances to the optimum
 * (loss_on_other: larger with ftol, where the gradient is larger).
 * Also banded (band 40 < T/2 = 48: kept at k/2 epochs). Below 32 epochs no
 * warm start: byte-identical results. */
static void test_dmf_warm_start(void) {
  const guint cases[][3] = {{32, 2, 0}, {40, 2, 0}, {36, 3, 0}, {20, 4, 0}, {32, 3, 40}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    guint k = cases[i][0], b = cases[i][1], band = cases[i][2], T = k * b;
    GError *err = NULL;
    double *A = mf_gram_prefix_sum(T, &err);
    g_assert_no_error(err);
    double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_POST_AVERAGE);
    MfOptions o;
    mf_options_init(&o);
    o.band = band;
    double loss[2][2]; /* [default start, warm][converged, ftol] */
    MfResult *res[2][2];
    for (guint f = 0; f < 2; f++) {
      o.ftol = f ? 1e-10 : 0.0;
      g_assert_true(mf_optimize(A, T, k, b, &o, &res[0][f], &err));
      g_assert_no_error(err);
      g_assert_true(mf_dmf(k, b, &o, &res[1][f], &err));
      g_assert_no_error(err);
      for (guint w = 0; w < 2; w++) {
        loss[w][f] = mf_loss(H, res[w][f]->C, T, k, b, &err);
        g_assert_no_error(err);
      }
      g_test_message("DMF k = %u, b = %u, ftol %g: %u iterations warm, %u from the default "
                     "start; losses on H %.12g, %.12g",
                     k, b, o.ftol, res[1][f]->iterations, res[0][f]->iterations, loss[1][f],
                     loss[0][f]);
      /* Both are feasible points of one convex problem: each within its gap
       * of the minimum. */
      dpg_test_assert_le(fabs(res[1][f]->objective - res[0][f]->objective),
                         MAX(result_gap(A, res[0][f], band), result_gap(A, res[1][f], band)),
                         "both points' optimality gaps (kkt_gap)");
    }
    /* The losses on H of points near A's optimum: within the Lipschitz bound
     * of loss_on_other on their distance to it. */
    double lip[2][2], dist[2][2];
    for (guint w = 0; w < 2; w++)
      for (guint f = 0; f < 2; f++)
        dist[w][f] = loss_on_other(A, H, res[w][f], band, &lip[w][f]);
#define DPG_PAIR(w1, f1, w2, f2)                                                                   \
  dpg_test_assert_le(fabs(loss[w1][f1] - loss[w2][f2]),                                            \
                     MAX(lip[w1][f1], lip[w2][f2]) * (dist[w1][f1] + dist[w2][f2]),                \
                     "Lipschitz bound of the loss on H x the distances to A's optimum")
    DPG_PAIR(1, 0, 0, 0);
    DPG_PAIR(0, 1, 0, 0);
    DPG_PAIR(1, 1, 0, 0);
    DPG_PAIR(1, 1, 0, 1);
#undef DPG_PAIR
    assert_kkt(A, res[1][0], band);
    for (guint f = 0; f < 2; f++) {
      if (k < 32)
        g_assert_cmpmem(res[1][f]->X, (gsize)T * T * sizeof(double), res[0][f]->X,
                        (gsize)T * T * sizeof(double));
      mf_result_free(res[0][f]);
      mf_result_free(res[1][f]);
    }
    g_free(A);
    g_free(H);
  }
}

/* MfOptions.x0: the optimum itself as a start is (nearly) already
 * converged; an unusable one (negative diagonal) leaves the default start,
 * bit for bit; a non-finite one is an error. */
static void test_optimizer_x0(void) {
  guint k = 6, b = 4, T = k * b;
  GError *err = NULL;
  double *A = mf_gram_prefix_sum(T, &err);
  g_assert_no_error(err);
  MfResult *ref = optimize(A, k, b, 0), *r = NULL;
  MfOptions o;
  mf_options_init(&o);
  o.x0 = ref->X;
  g_assert_true(mf_optimize(A, T, k, b, &o, &r, &err));
  g_assert_no_error(err);
  g_assert_cmpuint(r->iterations, <=, 3);
  g_assert_cmpuint(r->iterations, <, ref->iterations);
  dpg_test_assert_le(fabs(r->objective - ref->objective),
                     MAX(result_gap(A, r, 0), result_gap(A, ref, 0)),
                     "both points' optimality gaps (kkt_gap)");
  mf_result_free(r);
  double *bad = g_new0(double, (gsize)T *T);
  for (guint s = 0; s < T; s++)
    bad[(gsize)s * T + s] = -1.0;
  o.x0 = bad;
  r = NULL;
  g_assert_true(mf_optimize(A, T, k, b, &o, &r, &err));
  g_assert_no_error(err);
  g_assert_cmpmem(r->X, (gsize)T * T * sizeof(double), ref->X, (gsize)T * T * sizeof(double));
  mf_result_free(r);
  bad[1] = NAN;
  r = NULL;
  g_assert_false(mf_optimize(A, T, k, b, &o, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_null(r);
  g_clear_error(&err);
  g_assert_false(mf_dmf(0, b, NULL, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_free(bad);
  mf_result_free(ref);
  g_free(A);
}

/* Per-node Mafalda: node i optimizes for its own H_i. Each per-node optimum
 * satisfies KKT, and since the common X is feasible for every node,
 * sum_i min tr(H_i X^-1) <= min tr(H X^-1), strictly unless the H_i are
 * proportional. */
static void test_per_node(void) {
  guint k = 3, b = 4, T = 12;
  GError *err = NULL;
  TopoGraph *g = test_graph_file("florentine.edges");
  guint n;
  double *W = test_gossip_dense(g, &n);
  topo_graph_free(g);
  double *H = mf_gram_static(W, n, T, MF_WORKLOAD_POST_AVERAGE, MF_GRAM_AUTO, 0, &err);
  g_assert_no_error(err);
  MfResult *common = optimize(H, k, b, 0);
  double sum = 0.0, common_check = 0.0, common_err = 0.0;
  for (guint i = 0; i < n; i++) {
    double *Hi = mf_gram_node(W, n, i, T, MF_WORKLOAD_POST_AVERAGE, 0, &err);
    g_assert_no_error(err);
    MfResult *r = optimize(Hi, k, b, 0);
    assert_kkt(Hi, r, 0);
    sum += r->objective;
    /* The common C scored on node i alone is no better than node i's optimum. */
    double li = mf_loss(Hi, common->C, T, k, b, &err);
    g_assert_no_error(err);
    dpg_test_assert_le(r->objective - li,
                       result_gap(Hi, r, 0) + li * loss_rtol(Hi, common->C, T, k, li),
                       "node i's optimality gap and the loss's evaluation error");
    common_check += li;
    common_err += li * loss_rtol(Hi, common->C, T, k, li);
    mf_result_free(r);
    g_free(Hi);
  }
  /* H = sum_i H_i and the loss is linear in H: the sum of the per-node
   * evaluations is the common one, within their errors. */
  dpg_test_assert_le(fabs(common_check - common->objective), common_err + result_gap(H, common, 0),
                     "n + 1 evaluations of the loss (loss_rtol, err_f)");
  /* Strictly lower: the H_i are not proportional. 1e-4 is not a tolerance but
   * the margin that makes "strictly" visible above every error above. */
  g_assert_cmpfloat(sum, <, common->objective * (1 - 1e-4));
  mf_result_free(common);
  g_free(H);
  g_free(W);
}

/* ---- strategies, sensitivity, loss ---- */

static void test_baselines_and_sensitivity(void) {
  guint T = 12, k = 3, b = 4;
  GError *err = NULL;
  double *Id = mf_baseline(MF_BASELINE_IDENTITY, T, 0, &err);
  g_assert_cmpfloat(mf_sensitivity2(Id, T, k, b), ==, k);
  /* AntiPGD: (C^T C)[s,t] = T - max(s,t) >= 0, worst offset j = 0:
   * sum_{u,v<k} (T - b max(u,v)) = k^2 T - b sum_m m (2m+1). */
  double *A = mf_baseline(MF_BASELINE_ANTIPGD, T, 0, &err);
  double want = (double)k * k * T;
  for (guint m = 0; m < k; m++)
    want -= (double)b * m * (2 * m + 1);
  g_assert_cmpfloat(mf_sensitivity2(A, T, k, b), ==, want);
  double *X = mf_gram_prefix_sum(T, &err);
  g_assert_cmpfloat(mf_sensitivity2_gram(X, T, k, b), ==, want);
  g_assert_true(isnan(mf_sensitivity2(A, T, 5, b)));
  /* SR squared is the prefix sum (lower ones); BSR is SR cut to the band. */
  double *S = mf_baseline(MF_BASELINE_SR, T, 0, &err);
  double *B = mf_baseline(MF_BASELINE_BSR, T, 5, &err);
  g_assert_no_error(err);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++) {
      double v = 0.0;
      for (guint l = 0; l < T; l++)
        v += S[i * T + l] * S[l * T + j];
      /* S's entries come from a recurrence of <= T steps (relative error
       * 2 T eps), all positive, so the product's T-term sum errs by at most
       * 3 T eps times (S S)[i,j] <= 1. */
      dpg_test_assert_le(fabs(v - (i >= j ? 1.0 : 0.0)), 3.0 * dpg_tol(1.0, T),
                         "recurrence and sum of T positive terms");
      g_assert_cmpfloat(B[i * T + j], ==, i >= j && i - j < 5 ? S[i * T + j] : 0.0);
    }
  g_assert_cmpfloat(S[1 * T + 0], ==, 0.5);
  g_assert_cmpfloat(S[3 * T + 1], ==, 0.375);
  /* The loss through the LU path (non-triangular C): a rotation Q has
   * Q^T Q = Id, so L(Q) = k tr(H) like the identity. */
  double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_POST_AVERAGE);
  double *Q = g_new0(double, T *T);
  for (guint i = 0; i < T; i++)
    Q[i * T + i] = 1.0;
  double c = cos(0.3), s = sin(0.3);
  /* Rotate rounds 1 and 6 (different classes, so the pattern sums stay k). */
  Q[1 * T + 1] = c;
  Q[1 * T + 6] = -s;
  Q[6 * T + 1] = s;
  Q[6 * T + 6] = c;
  double lq = mf_loss(H, Q, T, k, b, &err);
  g_assert_no_error(err);
  dpg_test_assert_close(lq, k * trace(H, T), loss_rtol(H, Q, T, k, lq) + dpg_tol(1.0, T),
                        "the loss's evaluation (loss_rtol) and the trace's sum");
  /* Errors: singular C, bad participation. */
  double *Z = g_new0(double, T *T);
  g_assert_true(isnan(mf_loss(H, Z, T, k, b, &err)));
  g_assert_error(err, MF_ERROR, MF_ERROR_NUMERICAL);
  g_clear_error(&err);
  g_assert_true(isnan(mf_loss(H, Id, T, 5, b, &err)));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_null(mf_baseline(MF_BASELINE_BSR, T, 0, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INFEASIBLE);
  g_clear_error(&err);
  /* The factor of a Gram matrix: lower triangular with C^T C = X. */
  double *C = mf_factor_from_gram(X, T, &err), x_lo, x_hi;
  g_assert_no_error(err);
  eig_range(X, T, &x_lo, &x_hi);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++)
      /* X = A^T A; Cholesky's forward error (Higham 10.1): the factor's
       * rows move by cond(X) (T+1) eps relative to ||A||_2 = sqrt(x_hi). */
      dpg_test_assert_le(fabs(C[i * T + j] - A[i * T + j]),
                         dpg_tol(x_hi / x_lo, T + 1) * sqrt(x_hi),
                         "Cholesky's forward error, eps cond(X) (T+1) ||C||");
  g_free(C);
  X[0] = -1.0;
  g_assert_null(mf_factor_from_gram(X, T, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_NUMERICAL);
  g_clear_error(&err);
  g_free(Id);
  g_free(A);
  g_free(X);
  g_free(S);
  g_free(B);
  g_free(H);
  g_free(Q);
  g_free(Z);
}

static void test_optimizer_errors(void) {
  guint T = 12;
  double *H = mf_test_gram("florentine.edges", TRUE, T, MF_WORKLOAD_POST_AVERAGE);
  MfOptions o;
  mf_options_init(&o);
  MfResult *r = NULL;
  GError *err = NULL;
  g_assert_false(mf_optimize(H, T, 0, 12, &o, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_null(r);
  g_clear_error(&err);
  g_assert_false(mf_optimize(H, T, 5, 2, &o, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  o.band = 13;
  g_assert_false(mf_optimize(H, T, 3, 4, &o, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INFEASIBLE);
  g_clear_error(&err);
  o.band = 0;
  o.max_bytes = 1000;
  g_assert_false(mf_optimize(H, T, 3, 4, &o, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_MEMORY);
  g_assert_nonnull(strstr(err->message, "kB"));
  g_clear_error(&err);
  /* Not converged: the best point is still there, better than the start. */
  o.max_bytes = 0;
  o.max_iterations = 3;
  g_assert_false(mf_optimize(H, T, 3, 4, &o, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_NOT_CONVERGED);
  g_assert_nonnull(strstr(err->message, "3 iterations"));
  g_clear_error(&err);
  g_assert_nonnull(r);
  g_assert_false(r->converged);
  g_assert_cmpuint(r->iterations, ==, 3);
  g_assert_cmpfloat(r->objective, <, 3 * trace(H, T));
  mf_result_free(r);
  r = NULL;
  /* A singular H: no strategy has a finite loss. */
  double *Z = g_new0(double, T *T);
  g_assert_false(mf_optimize(Z, T, 3, 4, NULL, &r, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_NUMERICAL);
  g_clear_error(&err);
  g_free(Z);
  g_free(H);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/mf/mf/florentine-k3-b4", test_florentine_k3_b4);
  g_test_add_func("/mf/mf/florentine-k5-b16", test_florentine_k5_b16);
  g_test_add_func("/mf/mf/diagonal-closed-forms", test_diagonal_closed_forms);
  g_test_add_func("/mf/mf/projected-gradient", test_against_projected_gradient);
  g_test_add_func("/mf/mf/kkt-random-graphs", test_kkt_random_graphs);
  g_test_add_func("/mf/mf/dmf-prefix-sum", test_dmf_prefix_sum);
  g_test_add_func("/mf/mf/dmf-iterations", test_dmf_iterations);
  g_test_add_func("/mf/mf/dmf-warm-start", test_dmf_warm_start);
  g_test_add_func("/mf/mf/x0", test_optimizer_x0);
  g_test_add_func("/mf/mf/per-node", test_per_node);
  g_test_add_func("/mf/mf/baselines-sensitivity", test_baselines_and_sensitivity);
  g_test_add_func("/mf/mf/errors", test_optimizer_errors);
  return g_test_run();
}
