/*
 * privacy/knowledge.c: an attacker set's knowledge O = A G + B Z as sparse
 * rows plus what it knows outright (paper Def. "Attacker knowledge").
 */
#include "privacy/knowledge_internal.h"

#include <math.h>
#include <stdlib.h>

PrivKnowledge *priv_knowledge_new(guint n, GError **error) {
  if (n == 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "an attacker knowledge needs at least one node");
    return NULL;
  }
  PrivKnowledge *k = g_new0(PrivKnowledge, 1);
  k->n = n;
  priv_rows_init(&k->rows);
  k->attacker = g_new0(gboolean, n);
  k->known_slots = g_hash_table_new(g_direct_hash, g_direct_equal);
  k->known_noise = g_hash_table_new(g_direct_hash, g_direct_equal);
  return k;
}

void priv_knowledge_free(PrivKnowledge *k) {
  if (!k)
    return;
  priv_rows_clear(&k->rows);
  g_free(k->attacker);
  g_hash_table_unref(k->known_slots);
  g_hash_table_unref(k->known_noise);
  g_free(k);
}

gsize priv_knowledge_n_rows(const PrivKnowledge *k) {
  g_return_val_if_fail(k != NULL, 0);
  return k->rows.ngrad->len;
}

static void note_step(PrivKnowledge *k, guint32 col) {
  guint t = col / k->n;
  if (t + 1 > k->steps_seen)
    k->steps_seen = t + 1;
}

gboolean priv_knowledge_add_row(PrivKnowledge *k, gsize n_grad, const guint32 *grad_cols,
                                const double *grad_vals, gsize n_noise, const guint32 *noise_ids,
                                const double *noise_vals, GError **error) {
  g_return_val_if_fail(k != NULL, FALSE);
  g_return_val_if_fail(n_grad == 0 || (grad_cols && grad_vals), FALSE);
  g_return_val_if_fail(n_noise == 0 || (noise_ids && noise_vals), FALSE);
  for (gsize i = 0; i < n_grad; i++)
    if (!isfinite(grad_vals[i]))
      goto bad;
  for (gsize i = 0; i < n_noise; i++)
    if (!isfinite(noise_vals[i]))
      goto bad;
  if (n_grad > G_MAXUINT32)
    goto bad;
  for (gsize i = 0; i < n_grad; i++)
    note_step(k, grad_cols[i]);
  priv_rows_extend(&k->rows, grad_cols, grad_vals, n_grad);
  priv_rows_extend(&k->rows, noise_ids, noise_vals, n_noise);
  priv_rows_end(&k->rows, (guint32)n_grad);
  return TRUE;
bad:
  g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
              "an observed row has a non-finite coefficient (or too many entries)");
  return FALSE;
}

gboolean priv_knowledge_add_linvec(PrivKnowledge *k, const SimLinvec *v, GError **error) {
  g_return_val_if_fail(k != NULL && v != NULL, FALSE);
  guint vn = sim_lin_space_n_kept(sim_linvec_space(v)); /* its gradient columns' nodes */
  if (vn != k->n) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "a linvec of a %u-node space cannot join the knowledge of a %u-node network", vn,
                k->n);
    return FALSE;
  }
  GArray *cols = g_array_new(FALSE, FALSE, sizeof(guint32));
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  guint32 ng = priv_linvec_entries(v, cols, vals);
  const guint32 *c = (const guint32 *)cols->data;
  const double *x = (const double *)vals->data;
  gsize n_noise = cols->len - ng;
  gboolean ok = priv_knowledge_add_row(k, ng, c, x, n_noise, n_noise ? c + ng : NULL,
                                       n_noise ? x + ng : NULL, error);
  g_array_unref(cols);
  g_array_unref(vals);
  return ok;
}

gboolean priv_knowledge_add_attacker(PrivKnowledge *k, guint u, GError **error) {
  g_return_val_if_fail(k != NULL, FALSE);
  if (u >= k->n) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "attacker %u is out of range (the network has %u nodes)", u, k->n);
    return FALSE;
  }
  k->attacker[u] = TRUE;
  return TRUE;
}

gboolean priv_knowledge_know_gradient(PrivKnowledge *k, guint u, guint t, GError **error) {
  g_return_val_if_fail(k != NULL, FALSE);
  guint64 col = (guint64)t * k->n + u;
  if (u >= k->n || col > G_MAXUINT32) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "gradient slot (node %u, step %u) is out of range (%u nodes)", u, t, k->n);
    return FALSE;
  }
  g_hash_table_add(k->known_slots, GSIZE_TO_POINTER((gsize)col + 1));
  return TRUE;
}

void priv_knowledge_know_noise(PrivKnowledge *k, guint32 id) {
  g_return_if_fail(k != NULL);
  g_hash_table_add(k->known_noise, GSIZE_TO_POINTER((gsize)id + 1));
}

gboolean priv_knowledge_slot_known(const PrivKnowledge *k, guint32 col) {
  return k->attacker[col % k->n] ||
         g_hash_table_contains(k->known_slots, GSIZE_TO_POINTER((gsize)col + 1));
}

gboolean priv_knowledge_noise_known(const PrivKnowledge *k, guint32 id) {
  return g_hash_table_contains(k->known_noise, GSIZE_TO_POINTER((gsize)id + 1));
}

PrivBlocks *priv_knowledge_blocks_scaled(const PrivKnowledge *k, const PrivKnowledgeOptions *opt,
                                         GError **error) {
  g_return_val_if_fail(k != NULL, NULL);
  double clip = opt && opt->clip != 0 ? opt->clip : 1.0;
  if (!(clip > 0) || !isfinite(clip))
    return priv_knowledge_blocks(k, opt, error);
  /* The largest gradient coefficient (in units of Delta) and noise
   * coefficient of the rows. */
  const gsize *rs = (const gsize *)k->rows.start->data;
  const guint32 *ng = (const guint32 *)k->rows.ngrad->data;
  const double *vals = (const double *)k->rows.vals->data;
  gsize n_rows = k->rows.ngrad->len;
  double a = 0.0, b = 0.0;
  for (gsize i = 0; i < n_rows; i++)
    for (gsize e = rs[i]; e < rs[i + 1]; e++) {
      if (e < rs[i] + ng[i])
        a = MAX(a, fabs(vals[e]));
      else
        b = MAX(b, fabs(vals[e]));
    }
  a *= clip;
  int ea, eb;
  gboolean scale;
  if (!priv_scale_exponents(a, b, &scale, &ea, &eb, error))
    return NULL;
  /* Every ordinary run: exactly priv_knowledge_blocks. */
  if (!scale)
    return priv_knowledge_blocks(k, opt, error);
  /* A copy of the rows with the gradient coefficients times 2^-ea and the
   * noise coefficients times 2^-eb (exact), both near 1: the rank and range
   * decisions are relative, hence unchanged, and X' = 4^(eb - ea) X. */
  GArray *scaled = g_array_sized_new(FALSE, FALSE, sizeof(double), k->rows.vals->len);
  g_array_set_size(scaled, k->rows.vals->len);
  double *sv = (double *)scaled->data;
  for (gsize i = 0; i < n_rows; i++)
    for (gsize e = rs[i]; e < rs[i + 1]; e++)
      sv[e] = ldexp(vals[e], e < rs[i] + ng[i] ? -ea : -eb);
  PrivKnowledge view = *k; /* shares everything but the coefficients */
  view.rows.vals = scaled;
  PrivBlocks *blocks = priv_knowledge_blocks(&view, opt, error);
  g_array_unref(scaled);
  if (blocks)
    priv_blocks_set_scale(blocks, ldexp(1.0, eb - ea));
  return blocks;
}
