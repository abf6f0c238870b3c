/*
 * tests/privacy/test_extremes.c: every place a privacy number is computed,
 * fed its extreme inputs (sigma = 1e-200 or 1e200, C_local scaled by 1e154
 * or 1e-300, mu from 1e-300 to 1e300, decaying gossip columns). The rule
 * (privacy/privacy.h): the output is the true value, or an error, or "no
 * protection" (+inf), never a smaller number, never 0 where the truth is
 * positive, never NaN. Each case failed before the fix it tests (noted).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "mf/mf.h"
#include "privacy/privacy.h"
#include "tests/common/files.h"

static double rel(double a, double b) {
  return fabs(a - b) / MAX(DBL_MIN, MAX(fabs(a), fabs(b)));
}

static TopoGossip *florentine(TopoGraph **graph_out) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  *graph_out = g;
  return w;
}

/* The per-victim mu of a structured accounting (attacker 0, T = 4). */
static PrivReport *structured_report(const TopoGossip *w, const TopoGraph *g, PrivProtocol protocol,
                                     guint K, const double *C, PrivTrust trust, PrivEngine engine,
                                     double sigma, MfSensitivity kind) {
  const TopoGossip *ws[] = {w};
  guint S[] = {0};
  PrivStructuredProblem p = {.protocol = protocol,
                             .K = K,
                             .C_local = C,
                             .T = 4,
                             .gossip = ws,
                             .n_gossip = 1,
                             .trust = trust,
                             .attackers = S,
                             .n_attackers = 1,
                             .sigma = sigma,
                             .engine = engine};
  GError *err = NULL;
  PrivBlocks *b = priv_structured_blocks(&p, &err);
  g_assert_no_error(err);
  PrivAccountOptions opt = {.sensitivity = kind};
  PrivReport *r = priv_account_report(b, g, &opt, &err);
  g_assert_no_error(err);
  priv_blocks_free(b);
  return r;
}

/* mu scales as 1/sigma: the report at sigma must be the one at sigma = 1
 * divided by sigma, for every protocol, engine and trust model. Before: at
 * sigma = 1e-200 every PNDP victim got mu = 0 (1/sigma^2 = inf, inf x 0 =
 * NaN, MAX(NaN, 0) = 0), at 1e200 too (1/sigma^2 = 0). */
static void test_structured_sigma(void) {
  TopoGraph *g;
  TopoGossip *w = florentine(&g);
  double *antipgd = mf_baseline(MF_BASELINE_ANTIPGD, 4, 0, NULL);
  const struct {
    PrivProtocol protocol;
    guint K;
    const double *C;
    PrivEngine engine;
  } cases[] = {{PRIV_PROTOCOL_DSGD, 1, NULL, PRIV_ENGINE_KALMAN},
               {PRIV_PROTOCOL_DSGD, 1, NULL, PRIV_ENGINE_DENSE},
               {PRIV_PROTOCOL_MUFFLIATO, 2, NULL, PRIV_ENGINE_KALMAN},
               {PRIV_PROTOCOL_MFDSGD, 1, antipgd, PRIV_ENGINE_DENSE}};
  const PrivTrust trusts[] = {PRIV_TRUST_PNDP, PRIV_TRUST_LDP};
  const double sigmas[] = {1e-200, 1e-160, 1e-100, 3e150, 1e200, 1e300};
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++)
    for (guint t = 0; t < G_N_ELEMENTS(trusts); t++)
      for (guint k = 0; k < 2; k++) {
        MfSensitivity kind = k ? MF_SENSITIVITY_EXACT : MF_SENSITIVITY_BOUND;
        PrivReport *one = structured_report(w, g, cases[c].protocol, cases[c].K, cases[c].C,
                                            trusts[t], cases[c].engine, 1.0, kind);
        for (guint s = 0; s < G_N_ELEMENTS(sigmas); s++) {
          PrivReport *r = structured_report(w, g, cases[c].protocol, cases[c].K, cases[c].C,
                                            trusts[t], cases[c].engine, sigmas[s], kind);
          g_assert_cmpuint(r->n_victims, ==, one->n_victims);
          for (guint v = 0; v < r->n_victims; v++) {
            const PrivVictim *a = &r->victims[v], *b = &one->victims[v];
            g_assert_false(a->unprotected);
            g_assert_cmpfloat(b->mu, >, 0.0); /* every victim reaches the attacker */
            g_assert_cmpfloat(a->mu, >, 0.0);
            if (b->mu / sigmas[s] > PRIV_MU_RESOLVABLE_MAX) {
              /* No protection, never the huge number (privacy/range.c). */
              g_assert_true(a->unresolved);
              g_assert_true(isinf(a->mu) && isinf(a->rdp) && isinf(a->epsilon));
              continue;
            }
            /* exact: the SDP stops within 1e-9 of its certificate */
            g_assert_cmpfloat(rel(a->mu, b->mu / sigmas[s]), <, k ? 1e-8 : 1e-13);
            g_assert_cmpfloat(a->sensitivity, ==, a->mu);
            g_assert_cmpfloat(a->rdp, >, 0.0);
            g_assert_false(isnan(a->rdp) || isnan(a->epsilon));
            if (sigmas[s] < 1e-150) {
              g_assert_true(isinf(a->rdp)); /* 1e400: beyond doubles, no protection */
              g_assert_true(isinf(a->epsilon));
            }
          }
          priv_report_free(r);
        }
        priv_report_free(one);
      }
  g_free(antipgd);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* A block the double range cannot hold: the report says no protection for
 * inf and NaN entries (before: NaN gave mu = 0), and divides by the scale. */
static void test_report_blocks(void) {
  GError *err = NULL;
  PrivBlocks *b = priv_blocks_new(4, 2, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(b->scale, ==, 1.0);
  b->status[0] = PRIV_NODE_ATTACKER;
  double *X1 = b->X + 4, *X2 = b->X + 8, *X3 = b->X + 12;
  X1[0] = INFINITY;
  X2[0] = NAN;
  X3[0] = X3[3] = 4.0; /* mu = sqrt(8) at scale 1 */
  for (guint k = 0; k < 2; k++) {
    PrivAccountOptions opt = {.sensitivity = k ? MF_SENSITIVITY_EXACT : MF_SENSITIVITY_BOUND};
    PrivReport *r = priv_account_report(b, NULL, &opt, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(r->n_victims, ==, 3);
    for (guint v = 0; v < 2; v++) {
      g_assert_true(isinf(r->victims[v].mu));
      g_assert_true(isinf(r->victims[v].rdp) && isinf(r->victims[v].epsilon));
    }
    g_assert_cmpfloat(rel(r->victims[2].mu, sqrt(8.0)), <, 1e-15);
    priv_report_free(r);
  }
  /* The true block is X / scale^2: mu = sqrt(8) / scale, even beyond 1e154. */
  const double scales[] = {1e-200, 1e200, 1e-300};
  for (guint i = 0; i < G_N_ELEMENTS(scales); i++) {
    b->scale = scales[i];
    PrivReport *r = priv_account_report(b, NULL, NULL, &err);
    g_assert_no_error(err);
    if (sqrt(8.0) / scales[i] > PRIV_MU_RESOLVABLE_MAX) {
      /* No protection, never the huge number (privacy/range.c). */
      g_assert_true(r->victims[2].unresolved && isinf(r->victims[2].mu));
    } else {
      g_assert_cmpfloat(rel(r->victims[2].mu, sqrt(8.0) / scales[i]), <, 1e-15);
    }
    g_assert_cmpfloat(r->victims[2].rdp, >, 0.0);
    priv_report_free(r);
  }
  b->scale = 0.0;
  g_assert_null(priv_account_report(b, NULL, NULL, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  priv_blocks_free(b);
}

/* Lower-triangular ones times c, as a CSV file. */
static char *write_c(const char *dir, const char *name, guint T, double c, gboolean diag) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++)
      g_string_append_printf(s, "%.17g%s", (diag ? i == j : j <= i) ? c : 0.0,
                             j + 1 < T ? "," : "\n");
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, s->str, -1, NULL));
  g_string_free(s, TRUE);
  return path;
}

/* C and c C are one mechanism: the same matrix from mf_read_c, the
 * same mu from the structured path (also given the unnormalized matrix
 * directly). Before: 1e154 C gave mu = 0 for every victim (sens(C)^2 =
 * inf), diag(1e-300) failed with "zero sensitivity". */
static void test_c_scale(void) {
  char *dir = test_tmpdir("extremes");
  g_assert_nonnull(dir);
  const guint T = 4;
  TopoGraph *g;
  TopoGossip *w = florentine(&g);
  GError *err = NULL;
  char *p1 = write_c(dir, "c1.csv", T, 1.0, FALSE);
  double *C1 = mf_read_c(p1, T, &err);
  g_assert_no_error(err);
  PrivReport *ref = structured_report(w, g, PRIV_PROTOCOL_MFDSGD, 1, C1, PRIV_TRUST_PNDP,
                                      PRIV_ENGINE_DENSE, 1.0, MF_SENSITIVITY_BOUND);
  /* The value: the distance-1 victim has mu = 0.91. */
  g_assert_cmpfloat(fabs(ref->victims[0].mu - 0.91009312903005868), <, 1e-12);
  const double scales[] = {1e154, 1e-300, 1e300, 0x1p-1000, 3.0};
  for (guint i = 0; i < G_N_ELEMENTS(scales); i++) {
    char *p = write_c(dir, "c.csv", T, scales[i], FALSE);
    double *C = mf_read_c(p, T, &err);
    g_assert_no_error(err);
    g_assert_cmpmem(C, sizeof(double) * T * T, C1, sizeof(double) * T * T);
    /* The raw matrix straight into the library: normalized there too. */
    double *raw = g_new(double, T *T);
    for (guint j = 0; j < T * T; j++)
      raw[j] = C1[j] * scales[i];
    PrivReport *r = structured_report(w, g, PRIV_PROTOCOL_MFDSGD, 1, raw, PRIV_TRUST_PNDP,
                                      PRIV_ENGINE_DENSE, 1.0, MF_SENSITIVITY_BOUND);
    for (guint v = 0; v < r->n_victims; v++)
      g_assert_cmpfloat(rel(r->victims[v].mu, ref->victims[v].mu), <, 1e-14);
    priv_report_free(r);
    g_free(raw);
    g_free(C);
    g_unlink(p);
    g_free(p);
  }
  /* diag(1e-300) is the identity: D-SGD's noise, calibrated to
   * nu = sigma sens(I) = 2 sigma (T = 4 steps, b = 1): half of D-SGD's mu. */
  char *pd = write_c(dir, "d.csv", T, 1e-300, TRUE);
  double *D = mf_read_c(pd, T, &err);
  g_assert_no_error(err);
  for (guint j = 0; j < T * T; j++)
    g_assert_cmpfloat(D[j], ==, j % (T + 1) == 0 ? 1.0 : 0.0);
  PrivReport *rd = structured_report(w, g, PRIV_PROTOCOL_MFDSGD, 1, D, PRIV_TRUST_PNDP,
                                     PRIV_ENGINE_DENSE, 1.0, MF_SENSITIVITY_BOUND);
  PrivReport *rs = structured_report(w, g, PRIV_PROTOCOL_DSGD, 1, NULL, PRIV_TRUST_PNDP,
                                     PRIV_ENGINE_DENSE, 1.0, MF_SENSITIVITY_BOUND);
  for (guint v = 0; v < rd->n_victims; v++)
    g_assert_cmpfloat(rel(rd->victims[v].mu, rs->victims[v].mu / 2.0), <, 1e-13);
  priv_report_free(rd);
  priv_report_free(rs);
  g_free(D);
  g_unlink(pd);
  g_free(pd);

  /* A diagonal entry 1e-330 times the largest is 0 once divided: singular
   * in doubles, refused by the reader itself (not a zero diagonal handed on
   * to be inverted). */
  char *ps = g_build_filename(dir, "s.csv", NULL);
  g_assert_true(g_file_set_contents(ps, "1e300,0\n1,1e-30\n", -1, NULL));
  g_assert_null(mf_read_c(ps, 2, &err));
  g_assert_error(err, MF_ERROR, MF_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "singular"));
  g_clear_error(&err);
  g_unlink(ps);
  g_free(ps);

  /* sens(C)^2 of 2^k C is 4^k sens(C)^2 exactly while it is a normal
   * double; +inf past the range; 0 below it (the callers refuse it). */
  double s1 = mf_sensitivity2(C1, T, T, 1);
  double *Ck = g_new(double, T *T);
  const int ks[] = {300, -500, 600, -530};
  for (guint i = 0; i < G_N_ELEMENTS(ks); i++) {
    for (guint j = 0; j < T * T; j++)
      Ck[j] = ldexp(C1[j], ks[i]);
    double s = mf_sensitivity2(Ck, T, T, 1);
    if (ks[i] == 600)
      g_assert_true(isinf(s));
    else if (ks[i] == -530)
      g_assert_cmpfloat(s, ==, 0.0);
    else
      g_assert_cmpfloat(s, ==, ldexp(s1, 2 * ks[i]));
  }
  g_free(Ck);
  priv_report_free(ref);
  g_free(C1);
  g_unlink(p1);
  g_free(p1);
  g_rmdir(dir);
  g_free(dir);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* mu -> eps(delta) over the whole double range: never NaN, never below the
 * 60-digit reference (mpmath; Phi and e^eps exact, bisection to 1e-30),
 * non-decreasing in mu, +inf once mu^2/2 overflows. Before: NaN for every
 * mu >= 1e9 and for delta = 1e-310, 0 for mu = 1e-300 at delta = 1e-310
 * (delta(0) = 4e-301 > delta), and roots up to 1.5e-7 (relative) below the
 * truth for mu = 1e-8. */
static void test_gdp_epsilon(void) {
  static const struct {
    double mu, delta, eps;
  } ref[] = {
      {1e-8, 1e-300, 3.6448370690463589702e-7},
      {1e-8, 1e-20, 6.7571594652270640511e-8},
      {5.6234132519034905e-08, 1e-100, 1.1431297571723289246e-6},
      {1e-6, 1e-300, 3.6574312514248887262e-5},
      {3e-5, 1e-6, 4.3289460726620798343e-5},
      {1e7, 1e-6, 50000047534242.088229},
      {1e9, 1e-6, 500000004753424307.82},
      {1e12, 1e-10, 5.000000000063613409e+23},
      {1e100, 1e-6, 5.000000000000000159e+199},
  };
  for (guint i = 0; i < G_N_ELEMENTS(ref); i++) {
    double e = priv_gdp_epsilon(ref[i].mu, ref[i].delta);
    g_assert_cmpfloat(e, >=, ref[i].eps);
    g_assert_cmpfloat(rel(e, ref[i].eps), <, 1e-5);
  }
  g_assert_cmpfloat(priv_gdp_epsilon(1e-300, 1e-310), >, 0.0);
  const double deltas[] = {1e-310, 1e-300, 1e-20, 1e-6, 0.5, 0.999};
  for (guint d = 0; d < G_N_ELEMENTS(deltas); d++) {
    double prev = 0.0;
    for (int l = -300; l <= 300; l += 4) {
      double mu = pow(10.0, l), e = priv_gdp_epsilon(mu, deltas[d]);
      g_assert_false(isnan(e));
      g_assert_cmpfloat(e, >=, prev);
      prev = e;
      if (mu >= 1e155)
        g_assert_true(isinf(e));
    }
  }
}

/* delta(eps) and the RDP: positive for every mu > 0 (before: delta and
 * rdp underflowed to 0, and delta(1e100, 0) was NaN). */
static void test_gdp_delta_rdp(void) {
  g_assert_cmpfloat(rel(priv_gdp_delta(1e-300, 0.0), 3.9894228040143268e-301), <, 1e-14);
  g_assert_cmpfloat(rel(priv_gdp_delta(1e-3, 1e-3), 8.3357132125208493548e-5), <, 1e-9);
  g_assert_cmpfloat(priv_gdp_delta(1e-8, 1e-7), >=, 7.4745606283174005979e-33 * (1 - 1e-6));
  const double mus[] = {1e-300, 1e-8, 1.0, 1e7, 1e100, 1e300};
  const double epss[] = {0.0, 1.0, 1e10, 1e300};
  for (guint i = 0; i < G_N_ELEMENTS(mus); i++) {
    for (guint j = 0; j < G_N_ELEMENTS(epss); j++) {
      double d = priv_gdp_delta(mus[i], epss[j]);
      g_assert_cmpfloat(d, >, 0.0);
      g_assert_cmpfloat(d, <=, 1.0);
    }
    g_assert_cmpfloat(priv_gdp_rdp(mus[i], 2.0), >, 0.0);
  }
  g_assert_cmpfloat(priv_gdp_delta(1e100, 0.0), ==, 1.0);
  g_assert_true(isinf(priv_gdp_rdp(1e200, 2.0)));
  /* Round trip beyond the root finder's range: delta(eps(delta)) <= delta. */
  g_assert_cmpfloat(priv_gdp_delta(1e7, priv_gdp_epsilon(1e7, 1e-6)), <=, 1e-6);
}

/* Muffliato's bound: sigma out of range and a gossip column that decays
 * below the square root of the smallest double. */
static void test_muffliato(void) {
  TopoGraph *g;
  TopoGossip *w = florentine(&g);
  guint S[] = {0};
  GError *err = NULL;
  double *one = priv_muffliato_rdp(w, 4, S, 1, 2.0, 1.0, &err);
  g_assert_no_error(err);
  const double sigmas[] = {1e200, 1e-200};
  for (guint s = 0; s < 2; s++) {
    double *r = priv_muffliato_rdp(w, 4, S, 1, 2.0, sigmas[s], &err);
    g_assert_no_error(err);
    for (guint u = 1; u < topo_gossip_n(w); u++) {
      if (!(one[u] > 0))
        continue;
      if (sigmas[s] > 1)
        g_assert_cmpfloat(r[u], >, 0.0); /* before: 0 (1/sigma^2 underflowed) */
      else
        g_assert_true(isinf(r[u]));
    }
    g_free(r);
  }
  g_free(one);
  topo_gossip_free(w);
  topo_graph_free(g);

  /* Rows 0 and 1 put c = 1e-170 on node 1, the attacker (node 2) too: column
   * 1 of W^s is (c, c, c) for s >= 1, its squared norm 3e-340 underflows, yet
   * victim 0's term c / (3 c^2) is huge: its loss is T. Before: 0. */
  const double c = 1e-170;
  guint rp[] = {0, 2, 4, 6}, cols[] = {0, 1, 0, 1, 1, 2};
  double vals[] = {1 - c, c, 1 - c, c, c, 1 - c};
  TopoGossip *wd = topo_gossip_new_csr(3, rp, cols, vals, &err);
  g_assert_no_error(err);
  guint A[] = {2};
  double *r = priv_muffliato_rdp(wd, 5, A, 1, 2.0, 1.0, &err);
  g_assert_no_error(err);
  g_assert_cmpfloat(r[0], ==, 5.0); /* alpha T / (2 sigma^2) */
  g_assert_cmpfloat(r[1], ==, 5.0);
  g_assert_true(isnan(r[2]));
  g_free(r);
  topo_gossip_free(wd);
}

/* The generic accountant (observer path): one message g + sigma z per step
 * about victim 0 (gradient coefficients 1, in units of clip), so mu =
 * sqrt(2) clip / sigma. Before (priv_knowledge_blocks, which the observer
 * path called): 0 at sigma = 1e200 (Y^T Y underflowed) and at clip = 1e-200
 * (the range check squared 1e-200 to 0), +inf at sigma = 1e-200. Scaling
 * must not change a thing at ordinary scales; beyond 2^1000 between the two
 * it is refused. */
static void test_knowledge_scale(void) {
  const struct {
    double clip, sigma;
  } cases[] = {{1, 1e200}, {1, 1e-200},     {1, 1e300},       {1, 1e-300},
               {1, 1.0},   {1, 3e-20},      {1e-200, 1e-200}, {1e-200, 1},
               {1e200, 1}, {1e-160, 1e150}, {1e-10, 1e300},   {1e10, 1e-300}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    double clip = cases[i].clip, sigma = cases[i].sigma;
    GError *err = NULL;
    PrivKnowledge *k = priv_knowledge_new(2, &err);
    g_assert_no_error(err);
    g_assert_true(priv_knowledge_add_attacker(k, 1, &err));
    guint32 gc[] = {0, 2}, nz[] = {0, 1};
    double gv[] = {1.0, 1.0}, nv[] = {sigma, sigma};
    /* Steps 0 and 1 of node 0 (columns t n + u), each with its own noise. */
    g_assert_true(priv_knowledge_add_row(k, 1, gc, gv, 1, nz, nv, &err));
    g_assert_true(priv_knowledge_add_row(k, 1, gc + 1, gv + 1, 1, nz + 1, nv + 1, &err));
    PrivKnowledgeOptions ko = {.T = 2, .clip = clip};
    PrivBlocks *b = priv_knowledge_blocks_scaled(k, &ko, &err);
    if (fabs(log10(sigma / clip)) > 302) {
      /* mu = 1e-310 or 1e310: refused, not an underflowed block. */
      g_assert_null(b);
      g_assert_error(err, PRIV_ERROR, PRIV_ERROR_NUMERICAL);
      g_clear_error(&err);
      priv_knowledge_free(k);
      continue;
    }
    g_assert_no_error(err);
    PrivReport *r = priv_account_report(b, NULL, NULL, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(r->n_victims, ==, 1);
    if (sqrt(2.0) * clip / sigma > PRIV_MU_RESOLVABLE_MAX)
      g_assert_true(r->victims[0].unresolved && isinf(r->victims[0].mu));
    else
      g_assert_cmpfloat(rel(r->victims[0].mu, sqrt(2.0) * clip / sigma), <, 1e-14);
    if (sigma > 1e-50 && sigma < 1e50 && clip == 1) {
      PrivBlocks *plain = priv_knowledge_blocks(k, &ko, &err);
      g_assert_no_error(err);
      g_assert_cmpfloat(b->scale, ==, 1.0);
      g_assert_cmpmem(b->X, sizeof(double) * 2 * 4, plain->X, sizeof(double) * 2 * 4);
      priv_blocks_free(plain);
    }
    priv_report_free(r);
    priv_blocks_free(b);
    priv_knowledge_free(k);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/extremes/structured-sigma", test_structured_sigma);
  g_test_add_func("/privacy/extremes/report-blocks", test_report_blocks);
  g_test_add_func("/privacy/extremes/c-scale", test_c_scale);
  g_test_add_func("/privacy/extremes/gdp-epsilon", test_gdp_epsilon);
  g_test_add_func("/privacy/extremes/gdp-delta-rdp", test_gdp_delta_rdp);
  g_test_add_func("/privacy/extremes/muffliato", test_muffliato);
  g_test_add_func("/privacy/extremes/knowledge-scale", test_knowledge_scale);
  return g_test_run();
}
