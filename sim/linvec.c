/*
 * sim/linvec.c: linear provenance (docs/design.md, "Linear provenance").
 *
 * The public face of linvecs: argument checks, the numeric data, and the
 * dispatch of provenance updates to the dense or sparse storage of the space.
 * Data and provenance change in the same call and only after every check has
 * passed, so a linvec is never left half-updated.
 */
#define G_LOG_DOMAIN "dpg-sim"

#include "sim/linvec_internal.h"

#include <math.h>
#include <string.h>

enum { ROW_GRAD = 0, ROW_NOISE = 1 };

/* ---------------------------------------------------------------- space */

SimLinSpace *sim_lin_space_new(SimNoiseRegistry *noise, gsize dim, SimLinStorage storage,
                               guint max_rounds, GError **error) {
  if (noise == NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec space: a noise registry is required");
    return NULL;
  }
  if (storage != SIM_LIN_DENSE && storage != SIM_LIN_SPARSE && storage != SIM_LIN_NONE) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec space: unknown storage %d (SIM_LIN_DENSE, SIM_LIN_SPARSE or "
                "SIM_LIN_NONE)",
                (int)storage);
    return NULL;
  }
  if (dim > G_MAXSIZE / sizeof(double)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                "linvec space: dimension %" G_GSIZE_FORMAT " too large", dim);
    return NULL;
  }
  SimLinSpace *s = g_new0(SimLinSpace, 1);
  s->ref_count = 1;
  s->noise = sim_noise_registry_ref(noise);
  s->n_nodes = sim_noise_registry_n_nodes(noise);
  s->dim = dim;
  s->storage = storage;
  s->max_rounds = max_rounds;
  /* Every column t * n + u of rounds t < round_limit fits in 32 bits. */
  s->round_limit = (guint)(G_MAXUINT32 / s->n_nodes);
  if (max_rounds > 0 && max_rounds < s->round_limit)
    s->round_limit = max_rounds;
  s->live = g_ptr_array_new();
  s->n_kept = s->n_nodes;
  return s;
}

SimLinSpace *sim_lin_space_ref(SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, NULL);
  g_atomic_int_inc(&space->ref_count);
  return space;
}

void sim_lin_space_unref(SimLinSpace *space) {
  if (space == NULL || !g_atomic_int_dec_and_test(&space->ref_count))
    return;
  sim_noise_registry_unref(space->noise);
  g_ptr_array_unref(space->live);
  g_free(space->kept_index);
  g_free(space->kept_node);
  g_free(space->heard);
  g_free(space->nuisance_from);
  g_free(space);
}

guint sim_lin_space_n_nodes(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, 0);
  return space->n_nodes;
}

gsize sim_lin_space_dim(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, 0);
  return space->dim;
}

SimLinStorage sim_lin_space_storage(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, SIM_LIN_DENSE);
  return space->storage;
}

SimNoiseRegistry *sim_lin_space_noise(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, NULL);
  return space->noise;
}

guint sim_lin_space_max_rounds(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, 0);
  return space->max_rounds;
}

guint sim_lin_space_n_rounds(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, 0);
  return space->n_rounds;
}

guint32 sim_lin_space_grad_column(const SimLinSpace *space, guint u, guint t) {
  guint i = space->kept_index ? space->kept_index[u] : u;
  return (guint32)((guint64)t * space->n_kept + i);
}

void sim_lin_space_grad_slot(const SimLinSpace *space, guint32 column, guint *u, guint *t) {
  guint i = column % space->n_kept;
  if (u != NULL)
    *u = space->kept_node ? space->kept_node[i] : i;
  if (t != NULL)
    *t = column / space->n_kept;
}

gboolean sim_lin_space_keep_nodes(SimLinSpace *space, const guint *keep, guint n_keep,
                                  GError **error) {
  g_return_val_if_fail(space != NULL, FALSE);
  const char *why = space->kept_index != NULL ? "the space keeps a set of nodes already"
                    : space->live->len > 0 || space->n_rounds > 0
                        ? "linvecs exist already (keep the nodes before the first one)"
                    : n_keep == 0 || keep == NULL ? "no node to keep"
                                                  : NULL;
  for (guint i = 0; why == NULL && i < n_keep; i++)
    if (keep[i] >= space->n_nodes || (i > 0 && keep[i] <= keep[i - 1]))
      why = "the kept nodes must be increasing node ids below the network size";
  if (why != NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec space: cannot keep %u of %u nodes: %s", n_keep, space->n_nodes, why);
    return FALSE;
  }
  space->kept_index = g_new(guint, space->n_nodes);
  memset(space->kept_index, 0xff, sizeof(guint) * space->n_nodes);
  space->kept_node = g_memdup2(keep, sizeof(guint) * n_keep);
  for (guint i = 0; i < n_keep; i++)
    space->kept_index[keep[i]] = i;
  space->n_kept = n_keep;
  /* Every column t * n_kept + i of rounds t < round_limit fits in 32 bits. */
  space->round_limit = (guint)(G_MAXUINT32 / n_keep);
  if (space->max_rounds > 0 && space->max_rounds < space->round_limit)
    space->round_limit = space->max_rounds;
  return TRUE;
}

gboolean sim_lin_space_hear_nodes(SimLinSpace *space, const guint *heard, guint n_heard,
                                  GError **error) {
  g_return_val_if_fail(space != NULL, FALSE);
  const char *why = space->kept_index == NULL ? "the space keeps every node (keep a set first)"
                    : space->heard != NULL    ? "the space hears a set of nodes already"
                    : space->live->len > 0
                        ? "linvecs exist already (hear the nodes before the first one)"
                    : n_heard == 0 || heard == NULL ? "no node to hear"
                                                    : NULL;
  for (guint i = 0; why == NULL && i < n_heard; i++)
    if (heard[i] >= space->n_nodes || (i > 0 && heard[i] <= heard[i - 1]))
      why = "the heard nodes must be increasing node ids below the network size";
    else if (space->kept_index[heard[i]] != G_MAXUINT)
      why = "a heard node is kept (only known nodes are heard through their messages)";
  if (why != NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec space: cannot hear %u of %u nodes: %s", n_heard, space->n_nodes, why);
    return FALSE;
  }
  space->heard = g_new0(gboolean, space->n_nodes);
  for (guint i = 0; i < n_heard; i++)
    space->heard[heard[i]] = TRUE;
  return TRUE;
}

guint sim_lin_space_n_kept(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, 0);
  return space->n_kept;
}

guint sim_lin_space_kept_index(const SimLinSpace *space, guint u) {
  g_return_val_if_fail(space != NULL && u < space->n_nodes, G_MAXUINT);
  return space->kept_index ? space->kept_index[u] : u;
}

gboolean sim_lin_space_nuisance_from(SimLinSpace *space, const guint *senders, guint n_senders,
                                     GError **error) {
  g_return_val_if_fail(space != NULL, FALSE);
  const char *why = space->kept_index == NULL ? "the space keeps every node (keep the ball first)"
                    : space->nuisance_from != NULL ? "the space has its senders already"
                    : space->live->len > 0
                        ? "linvecs exist already (set the senders before the first one)"
                    : n_senders > 0 && senders == NULL ? "no sender list"
                                                       : NULL;
  for (guint i = 0; why == NULL && i < n_senders; i++)
    if (senders[i] >= space->n_nodes || space->kept_index[senders[i]] != G_MAXUINT)
      why = "a sender is kept or beyond the network";
  if (why != NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec space: cannot take the messages of %u nodes as nuisance: %s", n_senders,
                why);
    return FALSE;
  }
  space->nuisance_from = g_new0(gboolean, space->n_nodes);
  for (guint i = 0; i < n_senders; i++)
    space->nuisance_from[senders[i]] = TRUE;
  return TRUE;
}

guint64 sim_lin_space_nuisance_failures(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, 0);
  return space->nuisance_failed;
}

/* Whether noise variable @k is known to the colluders of a space that keeps
 * a set of nodes: one of its owners is not kept. Under
 * sim_lin_space_nuisance_from (an attacker that knows less) only when none
 * of its owners is kept: a secret of an edge with one end in the ball stays
 * unknown noise, as it is to the original attackers. */
static gboolean noise_known(const SimLinSpace *s, SimNoiseId k) {
  if (s->kept_index == NULL)
    return FALSE;
  gboolean any_known = FALSE, all_known = TRUE;
  guint no = sim_noise_n_owners(s->noise, k);
  for (guint j = 0; j < no; j++) {
    guint owner = sim_noise_owner(s->noise, k, j);
    gboolean known = owner < s->n_nodes && s->kept_index[owner] == G_MAXUINT;
    any_known = any_known || known;
    all_known = all_known && known;
  }
  return s->nuisance_from != NULL ? all_known && no > 0 : any_known;
}

static void row_add(SimLinvec *v, int r, guint32 col, double c);
static gboolean none(const SimLinvec *v);

void lin_forget_if_known(SimLinvec *v, guint from, guint round) {
  SimLinSpace *s = v->space;
  if (s->kept_index == NULL || (from < s->n_nodes && s->kept_index[from] != G_MAXUINT) ||
      (s->heard != NULL && from < s->n_nodes && s->heard[from]))
    return;
  v->row[0].len = 0;
  v->row[1].len = 0;
  if (s->nuisance_from == NULL || from >= s->n_nodes || !s->nuisance_from[from] || none(v))
    return;
  /* A message entering the ball: its content depends on everything (the
   * victims' gradients included, out of the ball and back), so it is one
   * fresh unknown of its own, never a known value nor a Gaussian. */
  SimNoiseId k = sim_noise_register(s->noise, 1.0, &from, 1, from, round, SIM_NOISE_KIND_NUISANCE,
                                    NULL);
  if (k == SIM_NOISE_ID_INVALID)
    s->nuisance_failed++;
  else
    row_add(v, ROW_NOISE, k, 1.0);
}

guint sim_lin_space_n_live(const SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, 0);
  return space->live->len;
}

const SimLinvec *sim_lin_space_live(const SimLinSpace *space, guint i) {
  g_return_val_if_fail(space != NULL && i < space->live->len, NULL);
  return g_ptr_array_index(space->live, i);
}

gboolean sim_lin_space_rebase(SimLinSpace *space, SimLinRebaseFunc func, gpointer user_data,
                              GError **error) {
  return sim_lin_space_rebase_keeping(space, NULL, func, user_data, error);
}

gboolean sim_lin_space_rebase_keeping(SimLinSpace *space, SimLinKeepFunc keep,
                                      SimLinRebaseFunc func, gpointer user_data, GError **error) {
  g_return_val_if_fail(space != NULL && func != NULL, FALSE);
  if (space->storage != SIM_LIN_SPARSE) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec rebase: the space must keep sparse provenance (SIM_LIN_SPARSE)");
    return FALSE;
  }
  /* The kept terms of the linvec being rebased, put back after the state. */
  GArray *kidx = g_array_new(FALSE, FALSE, sizeof(guint32));
  GArray *kval = g_array_new(FALSE, FALSE, sizeof(double));
  gboolean ok = TRUE;
  for (guint i = 0; i < space->live->len && ok; i++) {
    SimLinvec *v = g_ptr_array_index(space->live, i);
    LinRow *nz = &v->row[ROW_NOISE];
    g_array_set_size(kidx, 0);
    g_array_set_size(kval, 0);
    if (keep != NULL) {
      gsize w = 0;
      for (gsize e = 0; e < nz->len; e++) {
        if (keep(nz->idx[e], user_data)) {
          g_array_append_val(kidx, nz->idx[e]);
          g_array_append_val(kval, nz->val[e]);
        } else {
          nz->idx[w] = nz->idx[e];
          nz->val[w++] = nz->val[e];
        }
      }
      nz->len = w;
    }
    if (v->row[ROW_GRAD].len > 0 || nz->len > 0) {
      SimNoiseId k = sim_noise_register_state(space->noise, error);
      ok = k != SIM_NOISE_ID_INVALID && func(k, v, user_data, error);
      v->row[ROW_GRAD].len = 0;
      nz->len = 0;
      /* Kept ids precede the new state id: the row stays increasing. */
      for (guint e = 0; e < kidx->len; e++)
        lin_sparse_add(nz, g_array_index(kidx, guint32, e), g_array_index(kval, double, e));
      if (ok)
        lin_sparse_add(nz, k, 1.0);
    } else {
      for (guint e = 0; e < kidx->len; e++)
        lin_sparse_add(nz, g_array_index(kidx, guint32, e), g_array_index(kval, double, e));
    }
  }
  g_array_unref(kidx);
  g_array_unref(kval);
  if (!ok)
    return FALSE;
  GArray *kept = sim_noise_retained(space->noise);
  for (guint i = 0; i < kept->len && ok; i++)
    ok = func(g_array_index(kept, SimNoiseId, i), NULL, user_data, error);
  g_array_unref(kept);
  return ok;
}

/* --------------------------------------------------------------- linvec */

/*
 * The numeric hot loop (gossip averages are d-long axpys), compiled twice,
 * for AVX2 and for baseline x86-64, the loader picking one (GCC function
 * multiversioning, as learning/kernels.c). Both perform the same IEEE
 * operations: ISO C mode contracts no multiply-add into an FMA.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
data_axpy(double *restrict y, double a, const double *restrict x, gsize n) {
  for (gsize i = 0; i < n; i++)
    y[i] += a * x[i];
}

static gboolean sparse(const SimLinvec *v) {
  return v->space->storage == SIM_LIN_SPARSE;
}

/* SIM_LIN_NONE: the rows stay empty forever, so every row operation below is
 * skipped and every query answers from the empty rows or says NAN. */
static gboolean none(const SimLinvec *v) {
  return v->space->storage == SIM_LIN_NONE;
}

SimLinvec *sim_linvec_new(SimLinSpace *space) {
  g_return_val_if_fail(space != NULL, NULL);
  SimLinvec *v = g_new0(SimLinvec, 1);
  v->space = sim_lin_space_ref(space);
  v->live_pos = space->live->len;
  g_ptr_array_add(space->live, v);
  if (space->dim > 0)
    v->data = g_new0(double, space->dim);
  return v;
}

SimLinvec *sim_linvec_dup(const SimLinvec *x) {
  g_return_val_if_fail(x != NULL, NULL);
  SimLinvec *v = sim_linvec_new(x->space);
  sim_linvec_copy(v, x, NULL); /* same space: cannot fail */
  return v;
}

void sim_linvec_free(SimLinvec *v) {
  if (v == NULL)
    return;
  lin_row_free(&v->row[ROW_GRAD]);
  lin_row_free(&v->row[ROW_NOISE]);
  /* O(1) unregister: the last linvec takes the freed place. */
  GPtrArray *live = v->space->live;
  SimLinvec *last = g_ptr_array_index(live, live->len - 1);
  live->pdata[v->live_pos] = last;
  last->live_pos = v->live_pos;
  g_ptr_array_set_size(live, live->len - 1);
  g_free(v->data);
  sim_lin_space_unref(v->space);
  g_free(v);
}

SimLinSpace *sim_linvec_space(const SimLinvec *v) {
  g_return_val_if_fail(v != NULL, NULL);
  return v->space;
}

static gboolean check_finite(double a, const char *what, GError **error) {
  if (isfinite(a))
    return TRUE;
  g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, "%s: coefficient %g is not finite",
              what, a);
  return FALSE;
}

static gboolean check_same_space(const SimLinvec *y, const SimLinvec *x, const char *what,
                                 GError **error) {
  if (y->space == x->space)
    return TRUE;
  g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
              "%s: the two linvecs belong to different spaces", what);
  return FALSE;
}

/* Numeric vectors are required exactly when the space has a dimension. */
static gboolean check_numeric(const SimLinvec *v, const double *p, const char *what,
                              GError **error) {
  if ((p != NULL) == (v->space->dim > 0))
    return TRUE;
  g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
              p == NULL ? "%s: a numeric vector of dimension %" G_GSIZE_FORMAT " is required"
                        : "%s: numeric vector given to an accounting-only space "
                          "(dimension %" G_GSIZE_FORMAT "); pass NULL",
              what, v->space->dim);
  return FALSE;
}

void sim_linvec_zero(SimLinvec *v) {
  g_return_if_fail(v != NULL);
  if (v->data != NULL)
    memset(v->data, 0, v->space->dim * sizeof(double));
  v->row[ROW_GRAD].len = 0;
  v->row[ROW_NOISE].len = 0;
}

gboolean sim_linvec_copy(SimLinvec *dst, const SimLinvec *src, GError **error) {
  g_return_val_if_fail(dst != NULL && src != NULL, FALSE);
  if (!check_same_space(dst, src, "linvec copy", error))
    return FALSE;
  if (dst == src)
    return TRUE;
  if (dst->data != NULL)
    memcpy(dst->data, src->data, dst->space->dim * sizeof(double));
  for (int r = 0; r < 2 && !none(dst); r++) {
    if (sparse(dst))
      lin_sparse_copy(&dst->row[r], &src->row[r]);
    else
      lin_dense_copy(&dst->row[r], &src->row[r]);
  }
  return TRUE;
}

gboolean sim_linvec_scale(SimLinvec *v, double a, GError **error) {
  g_return_val_if_fail(v != NULL, FALSE);
  if (!check_finite(a, "linvec scale", error))
    return FALSE;
  for (gsize i = 0; i < v->space->dim; i++)
    v->data[i] *= a;
  for (int r = 0; r < 2 && !none(v); r++) {
    if (sparse(v))
      lin_sparse_scale(&v->row[r], a);
    else
      lin_dense_scale(&v->row[r], a);
  }
  return TRUE;
}

gboolean sim_linvec_axpy(SimLinvec *y, double a, const SimLinvec *x, GError **error) {
  g_return_val_if_fail(y != NULL && x != NULL, FALSE);
  if (!check_finite(a, "linvec axpy", error) || !check_same_space(y, x, "linvec axpy", error))
    return FALSE;
  if (a == 0.0)
    return TRUE;
  if (x == y) {
    double *yd = y->data;
    for (gsize i = 0; i < y->space->dim; i++)
      yd[i] += a * yd[i];
  } else {
    data_axpy(y->data, a, x->data, y->space->dim);
  }
  for (int r = 0; r < 2 && !none(y); r++) {
    if (sparse(y))
      lin_sparse_axpy(&y->row[r], a, &x->row[r]);
    else
      lin_dense_axpy(&y->row[r], a, &x->row[r]);
  }
  return TRUE;
}

/* y += a[0] x[0] + ... + a[n-1] x[n-1], n <= 4, entry by entry in that
 * order: the same IEEE operations as n data_axpy calls, with one load and
 * store of y instead of n. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
data_axpy4(double *restrict y, guint n, const double *a, const double *const *x, gsize d) {
  const double *restrict x0 = x[0], *restrict x1 = x[n > 1 ? 1 : 0];
  const double *restrict x2 = x[n > 2 ? 2 : 0], *restrict x3 = x[n > 3 ? 3 : 0];
  double a0 = a[0], a1 = n > 1 ? a[1] : 0.0, a2 = n > 2 ? a[2] : 0.0, a3 = n > 3 ? a[3] : 0.0;
  switch (n) {
  case 4:
    for (gsize i = 0; i < d; i++) {
      double s = y[i];
      s += a0 * x0[i];
      s += a1 * x1[i];
      s += a2 * x2[i];
      s += a3 * x3[i];
      y[i] = s;
    }
    break;
  case 3:
    for (gsize i = 0; i < d; i++) {
      double s = y[i];
      s += a0 * x0[i];
      s += a1 * x1[i];
      s += a2 * x2[i];
      y[i] = s;
    }
    break;
  case 2:
    for (gsize i = 0; i < d; i++) {
      double s = y[i];
      s += a0 * x0[i];
      s += a1 * x1[i];
      y[i] = s;
    }
    break;
  default:
    data_axpy(y, a0, x0, d);
  }
}

gboolean sim_linvec_combine(SimLinvec *y, guint n, const double *a, const SimLinvec *const *x,
                            GError **error) {
  g_return_val_if_fail(y != NULL && (n == 0 || (a != NULL && x != NULL)), FALSE);
  for (guint i = 0; i < n; i++) {
    g_return_val_if_fail(x[i] != NULL, FALSE);
    if (!check_finite(a[i], "linvec combine", error) ||
        !check_same_space(y, x[i], "linvec combine", error))
      return FALSE;
    if (x[i] == y) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                  "linvec combine: the result is also input %u (combine into another linvec)", i);
      return FALSE;
    }
  }
  sim_linvec_zero(y);
  gsize d = y->space->dim;
  double w[4];
  const double *xs[4];
  guint k = 0;
  for (guint i = 0; i < n; i++) {
    if (a[i] == 0.0) /* as sim_linvec_axpy: a zero weight adds nothing, not 0 x */
      continue;
    if (d > 0) {
      w[k] = a[i];
      xs[k++] = x[i]->data;
      if (k == 4) {
        data_axpy4(y->data, k, w, xs, d);
        k = 0;
      }
    }
    for (int r = 0; r < 2 && !none(y); r++) {
      if (sparse(y))
        lin_sparse_axpy(&y->row[r], a[i], &x[i]->row[r]);
      else
        lin_dense_axpy(&y->row[r], a[i], &x[i]->row[r]);
    }
  }
  if (k > 0)
    data_axpy4(y->data, k, w, xs, d);
  return TRUE;
}

/* Adds c to column col of row r, in the storage of v. */
static void row_add(SimLinvec *v, int r, guint32 col, double c) {
  if (none(v))
    return;
  if (sparse(v))
    lin_sparse_add(&v->row[r], col, c);
  else
    lin_dense_add(&v->row[r], col, c);
}

gboolean sim_linvec_add_gradient(SimLinvec *v, double coeff, guint u, guint t, const double *g,
                                 GError **error) {
  g_return_val_if_fail(v != NULL, FALSE);
  SimLinSpace *s = v->space;
  if (!check_finite(coeff, "linvec add_gradient", error))
    return FALSE;
  if (u >= s->n_nodes) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec add_gradient: node %u out of range (the network has %u nodes)", u,
                s->n_nodes);
    return FALSE;
  }
  if (t >= s->round_limit) {
    if (s->max_rounds > 0 && t >= s->max_rounds)
      g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                  "linvec add_gradient: round %u exceeds the declared capacity of %u "
                  "rounds (create the space with a larger max_rounds, or 0 for unbounded)",
                  t, s->max_rounds);
    else
      g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                  "linvec add_gradient: round %u of a %u-node network does not fit in "
                  "32-bit gradient columns (at most %u rounds)",
                  t, s->n_nodes, s->round_limit);
    return FALSE;
  }
  if (!check_numeric(v, g, "linvec add_gradient", error))
    return FALSE;
  if (s->dim > 0)
    data_axpy(v->data, coeff, g, s->dim);
  if (s->kept_index == NULL || s->kept_index[u] != G_MAXUINT)
    row_add(v, ROW_GRAD, sim_lin_space_grad_column(s, u, t), coeff);
  if (t >= s->n_rounds)
    s->n_rounds = t + 1;
  return TRUE;
}

gboolean sim_linvec_add_noise(SimLinvec *v, double coeff, SimNoiseId k, const double *z,
                              GError **error) {
  g_return_val_if_fail(v != NULL, FALSE);
  SimLinSpace *s = v->space;
  if (!check_finite(coeff, "linvec add_noise", error))
    return FALSE;
  if (k >= sim_noise_registry_count(s->noise)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec add_noise: noise variable %u is not registered (%u registered)", k,
                sim_noise_registry_count(s->noise));
    return FALSE;
  }
  if (!check_numeric(v, z, "linvec add_noise", error))
    return FALSE;
  double c = coeff * sim_noise_std(s->noise, k);
  if (s->dim > 0)
    data_axpy(v->data, c, z, s->dim);
  if (!noise_known(s, k))
    row_add(v, ROW_NOISE, k, c);
  return TRUE;
}

gboolean sim_linvec_add_noise_sum(SimLinvec *v, guint count, const double *coeffs,
                                  const SimNoiseId *ids, double scale, const double *sum,
                                  GError **error) {
  g_return_val_if_fail(v != NULL, FALSE);
  g_return_val_if_fail(count == 0 || (coeffs != NULL && ids != NULL), FALSE);
  SimLinSpace *s = v->space;
  guint registered = sim_noise_registry_count(s->noise);
  if (!check_finite(scale, "linvec add_noise_sum", error))
    return FALSE;
  for (guint i = 0; i < count; i++) {
    if (!check_finite(coeffs[i], "linvec add_noise_sum", error))
      return FALSE;
    if (ids[i] >= registered) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                  "linvec add_noise_sum: noise variable %u is not registered (%u registered)",
                  ids[i], registered);
      return FALSE;
    }
  }
  if (!check_numeric(v, sum, "linvec add_noise_sum", error))
    return FALSE;
  if (s->dim > 0)
    data_axpy(v->data, scale, sum, s->dim);
  if (!none(v))
    for (guint i = 0; i < count; i++)
      if (!noise_known(s, ids[i]))
        row_add(v, ROW_NOISE, ids[i], coeffs[i] * sim_noise_std(s->noise, ids[i]));
  return TRUE;
}

gboolean sim_linvec_add_public(SimLinvec *v, double a, const double *c, GError **error) {
  g_return_val_if_fail(v != NULL, FALSE);
  if (!check_finite(a, "linvec add_public", error))
    return FALSE;
  if (v->space->dim == 0)
    return TRUE;
  if (c == NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec add_public: a numeric vector of dimension %" G_GSIZE_FORMAT " is required",
                v->space->dim);
    return FALSE;
  }
  for (gsize i = 0; i < v->space->dim; i++)
    v->data[i] += a * c[i];
  return TRUE;
}

/* ---------------------------------------------------------- read access */

double *sim_linvec_data(SimLinvec *v) {
  g_return_val_if_fail(v != NULL, NULL);
  return v->data;
}

const double *sim_linvec_const_data(const SimLinvec *v) {
  g_return_val_if_fail(v != NULL, NULL);
  return v->data;
}

gsize sim_linvec_dim(const SimLinvec *v) {
  g_return_val_if_fail(v != NULL, 0);
  return v->space->dim;
}

static double row_get(const SimLinvec *v, int r, guint32 col) {
  return sparse(v) ? lin_sparse_get(&v->row[r], col) : lin_dense_get(&v->row[r], col);
}

double sim_linvec_grad_coeff(const SimLinvec *v, guint u, guint t) {
  g_return_val_if_fail(v != NULL, 0.0);
  g_return_val_if_fail(u < v->space->n_nodes, 0.0);
  if (none(v))
    return NAN;
  if (t >= v->space->round_limit)
    return 0.0; /* no such column can hold a coefficient */
  if (v->space->kept_index != NULL && v->space->kept_index[u] == G_MAXUINT)
    return 0.0; /* a known node's slot is no column */
  return row_get(v, ROW_GRAD, sim_lin_space_grad_column(v->space, u, t));
}

double sim_linvec_noise_coeff(const SimLinvec *v, SimNoiseId k) {
  g_return_val_if_fail(v != NULL, 0.0);
  if (none(v))
    return NAN;
  return row_get(v, ROW_NOISE, k);
}

static gsize row_nnz(const SimLinvec *v, int r) {
  return sparse(v) ? v->row[r].len : lin_dense_nnz(&v->row[r]);
}

gsize sim_linvec_nnz(const SimLinvec *v, SimLinPart part) {
  g_return_val_if_fail(v != NULL, 0);
  gsize n = 0;
  if (part & SIM_LIN_GRAD)
    n += row_nnz(v, ROW_GRAD);
  if (part & SIM_LIN_NOISE)
    n += row_nnz(v, ROW_NOISE);
  return n;
}

double sim_linvec_dot(const SimLinvec *x, const SimLinvec *y, SimLinPart part) {
  g_return_val_if_fail(x != NULL && y != NULL, NAN);
  g_return_val_if_fail(x->space == y->space, NAN);
  if (none(x))
    return NAN;
  double s = 0.0;
  for (int r = 0; r < 2; r++) {
    if (!(part & (r == ROW_GRAD ? SIM_LIN_GRAD : SIM_LIN_NOISE)))
      continue;
    s += sparse(x) ? lin_sparse_dot(&x->row[r], &y->row[r]) : lin_dense_dot(&x->row[r], &y->row[r]);
  }
  return s;
}

static gboolean row_next(const SimLinvec *v, int r, gsize *pos, guint32 *col, double *c) {
  return sparse(v) ? lin_sparse_next(&v->row[r], pos, col, c)
                   : lin_dense_next(&v->row[r], pos, col, c);
}

gboolean sim_linvec_row(const SimLinvec *v, SimLinPart part, double *row, gsize n_cols,
                        GError **error) {
  g_return_val_if_fail(v != NULL, FALSE);
  g_return_val_if_fail(row != NULL || n_cols == 0, FALSE);
  if (part != SIM_LIN_GRAD && part != SIM_LIN_NOISE) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec row: part must be SIM_LIN_GRAD or SIM_LIN_NOISE, not %d", (int)part);
    return FALSE;
  }
  if (none(v)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "linvec row: this space keeps no provenance (storage SIM_LIN_NONE)");
    return FALSE;
  }
  int r = part == SIM_LIN_GRAD ? ROW_GRAD : ROW_NOISE;
  if (n_cols > 0)
    memset(row, 0, n_cols * sizeof(double));
  gsize pos = 0;
  guint32 col;
  double c;
  while (row_next(v, r, &pos, &col, &c)) {
    if (col >= n_cols) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_CAPACITY,
                  "linvec row: a nonzero %s coefficient lies at column %u, beyond the "
                  "%" G_GSIZE_FORMAT " columns given",
                  r == ROW_GRAD ? "gradient" : "noise", col, n_cols);
      return FALSE;
    }
    row[col] = c;
  }
  return TRUE;
}

void sim_linvec_iter_init(SimLinvecIter *it, const SimLinvec *v, SimLinPart parts) {
  g_return_if_fail(it != NULL && v != NULL);
  it->v = v;
  it->pos = 0;
  it->parts = parts & SIM_LIN_BOTH;
  it->part = (it->parts & SIM_LIN_GRAD) ? ROW_GRAD : ROW_NOISE;
}

gboolean sim_linvec_iter_next(SimLinvecIter *it, SimLinPart *part, guint32 *column, double *coeff) {
  g_return_val_if_fail(it != NULL, FALSE);
  while (it->part <= ROW_NOISE) {
    int r = it->part;
    SimLinPart p = r == ROW_GRAD ? SIM_LIN_GRAD : SIM_LIN_NOISE;
    guint32 col;
    double c;
    if ((it->parts & p) && row_next(it->v, r, &it->pos, &col, &c)) {
      if (part != NULL)
        *part = p;
      if (column != NULL)
        *column = col;
      if (coeff != NULL)
        *coeff = c;
      return TRUE;
    }
    it->part++;
    it->pos = 0;
  }
  return FALSE;
}
