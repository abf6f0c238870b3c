/*
 * privacy/internal.h: helpers shared by the files of privacy/ (not public).
 */
#ifndef DPG_PRIVACY_INTERNAL_H
#define DPG_PRIVACY_INTERNAL_H

#include <cblas.h>
#include <lapacke.h>

#include "privacy/privacy.h"

/* *out = a * b; FALSE when it overflows gsize. */
gboolean priv_size_mul(gsize a, gsize b, gsize *out);

/* a1*b1 + a2*b2 + a3*b3, saturating at G_MAXSIZE (memory estimates of the
 * accounting, privacy/account.c). */
gsize priv_size_sum3(gsize a1, gsize b1, gsize a2, gsize b2, gsize a3, gsize b3);

/* Bytes of @count doubles (G_MAXSIZE on overflow). */
gsize priv_doubles_bytes(gsize count);

/*
 * Fails with PRIV_ERROR_MEMORY when @bytes exceeds @max_bytes (0 = physical
 * memory), naming @what and the amount needed so the user can shrink T or n.
 */
gboolean priv_check_budget(gsize bytes, gsize max_bytes, const char *what, GError **error);

/* g_try_malloc0 of rows*cols doubles; NULL with PRIV_ERROR_MEMORY on failure. */
double *priv_matrix_new(gsize rows, gsize cols, GError **error);

/* Copies the lower triangle of the n x n row-major @A onto its upper one. */
void priv_fill_upper_from_lower(double *A, guint n);

/* Human-readable size ("1.2 GB") for error messages (g_free). */
char *priv_format_bytes(gsize bytes);

#endif /* DPG_PRIVACY_INTERNAL_H */
