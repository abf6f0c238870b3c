/*
 * privacy/knowledge_project.c: an attacker knowledge with nuisance columns
 * projected out (docs/local-bounds.md, "The observer path's ball: the lower
 * bound"). The rows are O = A g + B z + N phi, phi unknowns of arbitrary
 * law (the content of the messages entering the local path's ball); any Q
 * with Q^T N = 0 gives Q^T O = Q^T A g + Q^T B z, a function of O that
 * does not depend on phi, so its information is a lower bound of O's.
 */
#include "privacy/knowledge_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define UNUSED G_MAXUINT32

/* Compact index of @key in @map (key -> index + 1), added as @next when new. */
static guint32 index_of(GHashTable *map, guint32 key, guint32 *next) {
  gpointer v = g_hash_table_lookup(map, GUINT_TO_POINTER(key + 1));
  if (v != NULL)
    return GPOINTER_TO_UINT(v) - 1;
  g_hash_table_insert(map, GUINT_TO_POINTER(key + 1), GUINT_TO_POINTER(*next + 1));
  return (*next)++;
}

/* The original ids of a map's compact indices. */
static guint32 *ids_of(GHashTable *map, guint32 count) {
  guint32 *ids = g_new(guint32, MAX(count, 1));
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init(&it, map);
  while (g_hash_table_iter_next(&it, &key, &val))
    ids[GPOINTER_TO_UINT(val) - 1] = GPOINTER_TO_UINT(key) - 1;
  return ids;
}

PrivKnowledge *priv_knowledge_project_out(const PrivKnowledge *k, PrivNuisanceFunc is_nuisance,
                                          gpointer data, gsize max_bytes, guint *rank_out,
                                          GError **error) {
  g_return_val_if_fail(k != NULL && is_nuisance != NULL, NULL);
  const gsize *rs = (const gsize *)k->rows.start->data;
  const guint32 *ng = (const guint32 *)k->rows.ngrad->data;
  const guint32 *cols = (const guint32 *)k->rows.cols->data;
  const double *vals = (const double *)k->rows.vals->data;
  gsize m = k->rows.ngrad->len;
  /* The columns that matter: nuisance (whether "known" or not: nobody
   * knows a nuisance), unknown gradient slots, unknown noise. */
  GHashTable *nmap = g_hash_table_new(g_direct_hash, g_direct_equal);
  GHashTable *gmap = g_hash_table_new(g_direct_hash, g_direct_equal);
  GHashTable *zmap = g_hash_table_new(g_direct_hash, g_direct_equal);
  guint32 p = 0, cg = 0, cz = 0;
  for (gsize i = 0; i < m; i++)
    for (gsize e = rs[i]; e < rs[i + 1]; e++) {
      if (e < rs[i] + ng[i]) {
        if (!priv_knowledge_slot_known(k, cols[e]))
          index_of(gmap, cols[e], &cg);
      } else if (is_nuisance(cols[e], data)) {
        index_of(nmap, cols[e], &p);
      } else if (!priv_knowledge_noise_known(k, cols[e])) {
        index_of(zmap, cols[e], &cz);
      }
    }
  PrivKnowledge *out = NULL;
  double *N = NULL, *F = NULL, *tau = NULL;
  lapack_int *jpvt = NULL;
  guint32 *gid = ids_of(gmap, cg), *zid = ids_of(zmap, cz);
  gsize c = (gsize)cg + cz, rank = 0;
  /* N (m x p), F = [A | B] (m x c), column-major, and the QR's pivots and
   * reflectors. */
  gsize bytes = sizeof(double) * ((gsize)m * (p + c) + MIN(m, (gsize)p)) + sizeof(lapack_int) * p;
  if (m > 0 && (gsize)p + c > G_MAXSIZE / 8 / m)
    bytes = G_MAXSIZE;
  char *what = g_strdup_printf(
      "the lower bound's projection (%" G_GSIZE_FORMAT
      " observed messages x (%u unknowns entering the ball + %" G_GSIZE_FORMAT
      " gradient and noise columns))",
      m, p, c);
  gboolean fits = priv_check_budget(bytes, max_bytes, what, error);
  g_free(what);
  if (!fits)
    goto done;
  N = g_new0(double, MAX((gsize)m * p, 1));
  F = g_new0(double, MAX((gsize)m * c, 1));
  for (gsize i = 0; i < m; i++)
    for (gsize e = rs[i]; e < rs[i + 1]; e++) {
      gpointer v;
      if (e < rs[i] + ng[i]) {
        if ((v = g_hash_table_lookup(gmap, GUINT_TO_POINTER(cols[e] + 1))) != NULL)
          F[(GPOINTER_TO_UINT(v) - 1) * m + i] += vals[e];
      } else if ((v = g_hash_table_lookup(nmap, GUINT_TO_POINTER(cols[e] + 1))) != NULL) {
        N[(GPOINTER_TO_UINT(v) - 1) * m + i] += vals[e];
      } else if ((v = g_hash_table_lookup(zmap, GUINT_TO_POINTER(cols[e] + 1))) != NULL) {
        F[(cg + GPOINTER_TO_UINT(v) - 1) * m + i] += vals[e];
      }
    }
  if (p > 0 && m > 0) {
    /* Each column scaled to unit norm: range(N) is unchanged, and an
     * attenuated inflow (an early round's, far from the attackers) weighs
     * as much as a loud one in the rank decision. */
    for (guint32 j = 0; j < p; j++) {
      double s = cblas_dnrm2((int)m, N + (gsize)j * m, 1);
      if (s > 0)
        cblas_dscal((int)m, 1.0 / s, N + (gsize)j * m, 1);
    }
    jpvt = g_new0(lapack_int, p);
    tau = g_new0(double, MIN(m, (gsize)p));
    lapack_int info =
        LAPACKE_dgeqp3(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)p, N, (lapack_int)m, jpvt, tau);
    if (info == 0 && c > 0)
      info = LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'T', (lapack_int)m, (lapack_int)c,
                            (lapack_int)MIN(m, (gsize)p), N, (lapack_int)m, tau, F, (lapack_int)m);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the lower bound's projection: the QR factorization of the %" G_GSIZE_FORMAT
                  " x %u nuisance matrix failed (LAPACK info %d)",
                  m, p, (int)info);
      goto done;
    }
    /* Every direction of R above the rounding of the factorization (16
     * max(m, p) eps, the columns at unit norm) is taken as nuisance and
     * projected out. Projecting more out is still a function of the rows,
     * so the decision errs on the sound side; a direction kept carries
     * nuisance at the rounding level only. */
    double tol = 16.0 * (double)MAX(m, (gsize)p) * DBL_EPSILON;
    while (rank < MIN(m, (gsize)p) && fabs(N[rank * m + rank]) > tol)
      rank++;
  }
  /* Rows rank .. m - 1 of Q^T F: Q2^T [A | B], Q2 spanning null(N^T). A row
   * that is rounding only (every entry below 64 m eps of F's largest) is
   * dropped: dropping a row is a function of the rows too. */
  double fmax = 0.0;
  for (gsize e = 0; e < (gsize)m * c; e++)
    fmax = MAX(fmax, fabs(F[e]));
  double floor_ = 64.0 * (double)MAX(m, 1) * DBL_EPSILON * fmax;
  if ((out = priv_knowledge_new(k->n, error)) == NULL)
    goto done;
  memcpy(out->attacker, k->attacker, sizeof(gboolean) * k->n);
  guint32 *rc = g_new(guint32, MAX(c, 1));
  double *rv = g_new(double, MAX(c, 1));
  for (gsize i = rank; i < m; i++) {
    gsize na = 0, nb = 0;
    double big = 0.0;
    for (gsize j = 0; j < c; j++)
      big = MAX(big, fabs(F[j * m + i]));
    if (!(big > floor_))
      continue;
    for (gsize j = 0; j < cg; j++)
      if (F[j * m + i] != 0.0) {
        rc[na] = gid[j];
        rv[na++] = F[j * m + i];
      }
    for (gsize j = cg; j < c; j++)
      if (F[j * m + i] != 0.0) {
        rc[na + nb] = zid[j - cg];
        rv[na + nb++] = F[j * m + i];
      }
    if (!priv_knowledge_add_row(out, na, rc, rv, nb, rc + na, rv + na, error)) {
      priv_knowledge_free(out);
      out = NULL;
      break;
    }
  }
  g_free(rc);
  g_free(rv);
done:
  if (rank_out != NULL)
    *rank_out = (guint)rank;
  g_free(N);
  g_free(F);
  g_free(tau);
  g_free(jpvt);
  g_free(gid);
  g_free(zid);
  g_hash_table_unref(nmap);
  g_hash_table_unref(gmap);
  g_hash_table_unref(zmap);
  return out;
}
