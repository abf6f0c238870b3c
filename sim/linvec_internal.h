/*
 * sim/linvec_internal.h: the representation of linvecs, shared by linvec.c
 * (the public API: checks, numeric data, dispatch) and the two provenance
 * storages linvec_dense.c and linvec_sparse.c. Internal to sim/.
 */
#ifndef DPG_SIM_LINVEC_INTERNAL_H
#define DPG_SIM_LINVEC_INTERNAL_H

#include "sim/linvec.h"

/*
 * One half of a provenance row (gradient slots or noise variables).
 * Dense: val[0 .. len) holds columns 0 .. len-1, columns >= len are zero;
 *   val[len .. cap) is scratch (zero-filled when len grows). idx is NULL.
 * Sparse: idx[0 .. len) strictly increasing columns, val[] their coefficients,
 *   none of them zero (exact cancellations are dropped).
 */
typedef struct {
  double *val;
  guint32 *idx;
  gsize len;
  gsize cap;
} LinRow;

struct SimLinSpace {
  gint ref_count;
  SimNoiseRegistry *noise;
  guint n_nodes;
  gsize dim;
  SimLinStorage storage;
  guint max_rounds;  /* 0 = unbounded */
  guint round_limit; /* effective bound on t + 1 (32-bit columns) */
  guint n_rounds;
  GPtrArray *live; /* every allocated linvec, for sim_lin_space_rebase */
  /* sim_lin_space_keep_nodes: the nodes whose gradient slots are columns,
   * t * n_kept + kept_index[u]; kept_index NULL (every node kept, n_kept =
   * n_nodes) or G_MAXUINT for a known node; kept_node its inverse. */
  guint n_kept;
  guint *kept_index;
  guint *kept_node;
  /* sim_lin_space_hear_nodes: by node id, the known nodes whose messages
   * keep their provenance (NULL: none). */
  gboolean *heard;
  /* sim_lin_space_nuisance_from: n_nodes flags (NULL: off), the senders whose
   * messages carry a fresh nuisance variable; nuisance_failed counts the
   * registrations that failed (the provenance is then unusable). */
  gboolean *nuisance_from;
  guint64 nuisance_failed;
};

struct SimLinvec {
  SimLinSpace *space;
  double *data;   /* dim values, NULL when dim == 0 */
  LinRow row[2];  /* [0] gradient slots, [1] noise variables */
  guint live_pos; /* index in space->live */
};

/*
 * The single update rule of both storages, so coefficients agree bit for bit.
 * A fused multiply-add in one storage and not the other would break that:
 * GCC contracts nothing in ISO C mode (-std=c17), clang needs the pragma.
 */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
static inline double lin_madd(double y, double a, double x) {
  return y + a * x;
}

void lin_row_free(LinRow *r);

/* sim_message_new_linvec's half of sim_lin_space_keep_nodes: a message
 * node @from sends carries no provenance when @from is known and not
 * heard (sim_lin_space_hear_nodes); with sim_lin_space_nuisance_from and
 * @from one of its senders, one fresh nuisance variable (of @round)
 * instead. */
void lin_forget_if_known(SimLinvec *v, guint from, guint round);

/* Dense storage. */
void lin_dense_add(LinRow *r, guint32 col, double c);
void lin_dense_axpy(LinRow *y, double a, const LinRow *x);
void lin_dense_scale(LinRow *r, double a);
void lin_dense_copy(LinRow *dst, const LinRow *src);
double lin_dense_get(const LinRow *r, guint32 col);
gsize lin_dense_nnz(const LinRow *r);
double lin_dense_dot(const LinRow *x, const LinRow *y);
gboolean lin_dense_next(const LinRow *r, gsize *pos, guint32 *col, double *c);

/* Sparse storage. */
void lin_sparse_add(LinRow *r, guint32 col, double c);
void lin_sparse_axpy(LinRow *y, double a, const LinRow *x);
void lin_sparse_scale(LinRow *r, double a);
void lin_sparse_copy(LinRow *dst, const LinRow *src);
double lin_sparse_get(const LinRow *r, guint32 col);
double lin_sparse_dot(const LinRow *x, const LinRow *y);
gboolean lin_sparse_next(const LinRow *r, gsize *pos, guint32 *col, double *c);

#endif /* DPG_SIM_LINVEC_INTERNAL_H */
