/*
 * mf/matrix_csv.h: matrices to and from CSV, and a user's C_local read back
 * and checked.
 */
#ifndef DPG_MF_MATRIX_CSV_H
#define DPG_MF_MATRIX_CSV_H

#include <glib.h>

#include "mf/base.h"

G_BEGIN_DECLS

/*
 * mf_matrix_write_csv: writes the @rows x @cols row-major @M to @path as CSV
 * (one row per line, values "%.17g" with a '.' decimal point, so they read
 * back exactly). The text goes to a temporary file renamed over @path: a
 * crash never leaves a half-written file. Errors: G_FILE_ERROR (the message
 * names the file). O(rows cols).
 */
gboolean mf_matrix_write_csv(const char *path, const double *M, guint rows, guint cols,
                             GError **error);

/*
 * mf_matrix_read_csv: reads a numeric CSV matrix (one row per line, values
 * separated by ',', as mf_matrix_write_csv writes; blank lines skipped) into
 * a g_malloc'd row-major array; *@rows, *@cols receive its size.
 * Errors: G_FILE_ERROR (unreadable), MF_ERROR_INVALID_ARGUMENT
 * ("FILE:LINE:COLUMN: ..." for a non-numeric or non-finite value,
 * "FILE:LINE: ..." for a ragged row or an empty file).
 */
double *mf_matrix_read_csv(const char *path, guint *rows, guint *cols, GError **error);

/*
 * mf_read_c: reads a noise correlation C_local for T steps from CSV
 * (mf_matrix_read_csv's format) and checks it is usable by MF-D-SGD:
 * T x T, lower triangular (entries above the diagonal at most 1e-12 times
 * the largest, then set to 0) with a nonzero diagonal (invertible, so each
 * node streams its noise from its past only). C is returned divided by its
 * largest |entry|: C and c C (c > 0) are the same mechanism (noise
 * nu C^-1 z, nu = sigma Delta sens(C)), so 1e154 C and 1e-300 C give every
 * reader exactly what C gives (when c C is exact) instead of overflowing
 * or underflowing C^T C.
 * Errors: G_FILE_ERROR (unreadable); MF_ERROR_INVALID_ARGUMENT with
 * FILE:LINE:COLUMN for a bad value or entry, FILE:LINE for a ragged row,
 * FILE for a wrong size.
 * Returns: the T x T row-major C (g_free), or NULL. O(T^2).
 */
double *mf_read_c(const char *path, guint T, GError **error);

/*
 * A C-set: one noise correlation C_local per class of nodes and each node's
 * class, so that nodes that behave differently (often offline, always on)
 * correlate their noise differently. The file (docs/design.md "Per-class
 * C"): blank lines and '#' comments skipped, then
 *     cset,CLASSES,T
 *     class,0            followed by T rows of class 0's T x T C
 *     ...
 *     node,NODE,CLASS    one line per node 0 .. n-1, any order
 */
typedef struct {
  guint n_classes, n_nodes, T;
  double *C;         /* n_classes T x T row-major matrices, class after class */
  guint *node_class; /* n_nodes entries, each < n_classes */
} MfCSet;

/* mf_cset_clear: frees @set's arrays and zeroes it (NULL allowed). */
void mf_cset_clear(MfCSet *set);

/*
 * mf_cset_is_file: TRUE when @path's first line that is neither blank nor a
 * comment starts with "cset" (a C-set, not a single C). Reads at most 4 KB;
 * FALSE for an unreadable file (the reader then says why). O(1).
 */
gboolean mf_cset_is_file(const char *path);

/*
 * mf_cset_read: reads the C-set @path for @T steps and a graph of @n_nodes
 * nodes into @set (zeroed first; mf_cset_clear frees it). Each class's C
 * passes mf_read_c's checks and is divided by its largest |entry| the same
 * way, so a one-class C-set gives exactly the C of the same rows read by
 * mf_read_c. Errors: G_FILE_ERROR (unreadable); MF_ERROR_INVALID_ARGUMENT
 * with FILE:LINE for a bad header, another T, a class out of range or given
 * twice, a row of the wrong length or a bad number (FILE:LINE:COLUMN), a
 * node out of range or given twice, a node whose class has no C; with FILE
 * for a class without its C and a node without a class.
 * Cost: O(CLASSES T^2 + n) time and memory.
 */
gboolean mf_cset_read(const char *path, guint T, guint n_nodes, MfCSet *set, GError **error);

/*
 * mf_cset_write: writes @set to @path in the format mf_cset_read reads
 * (values "%.17g", exact on reading back), through a temporary file renamed
 * over @path. Errors: G_FILE_ERROR. O(CLASSES T^2 + n).
 */
gboolean mf_cset_write(const char *path, const MfCSet *set, GError **error);

G_END_DECLS

#endif /* DPG_MF_MATRIX_CSV_H */
