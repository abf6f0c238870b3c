/*
 * privacy/knowledge.h: attacker knowledge O = A G + B Z and the generic (dense)
 * accountant.
 */
#ifndef DPG_PRIVACY_KNOWLEDGE_H
#define DPG_PRIVACY_KNOWLEDGE_H

#include <glib.h>

#include "privacy/blocks.h"
#include "sim/linvec.h"

G_BEGIN_DECLS

/*
 * A PrivKnowledge collects an attacker set's knowledge O = A G + B Z (paper
 * Def. "Attacker knowledge") as sparse rows: one per observed message (its
 * provenance: gradient slot (u, t) at column t*n + u in units of the gradient
 * vector, noise variable k in units of standard normals, as linvecs store
 * them), plus what the attacker knows outright: gradient slots (removed from A
 * by the reduction lemma, paper appendix A) and noise variables.
 */
typedef struct PrivKnowledge PrivKnowledge;

/* priv_knowledge_new: empty knowledge over @n nodes (>= 1). */
PrivKnowledge *priv_knowledge_new(guint n, GError **error);
void priv_knowledge_free(PrivKnowledge *k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrivKnowledge, priv_knowledge_free)
/* Rows added so far (duplicates included). */
gsize priv_knowledge_n_rows(const PrivKnowledge *k);

/*
 * priv_knowledge_add_linvec: appends the provenance of @v (copied: @v may be
 * freed afterwards). Errors: PRIV_ERROR_INVALID_ARGUMENT when @v's space has
 * another number of nodes. O(nnz(v)).
 */
gboolean priv_knowledge_add_linvec(PrivKnowledge *k, const SimLinvec *v, GError **error);

/*
 * priv_knowledge_add_row: appends a row given as sparse arrays: gradient
 * columns @grad_cols (t*n + u) with coefficients @grad_vals, noise ids
 * @noise_ids with coefficients @noise_vals (repeated columns add up).
 * Errors: PRIV_ERROR_INVALID_ARGUMENT for a non-finite coefficient. O(nnz).
 */
gboolean priv_knowledge_add_row(PrivKnowledge *k, gsize n_grad, const guint32 *grad_cols,
                                const double *grad_vals, gsize n_noise, const guint32 *noise_ids,
                                const double *noise_vals, GError **error);

/* priv_knowledge_add_attacker: @u is in the attacker set: all its gradient
 * slots are known, and it is no victim. Errors: u >= n. */
gboolean priv_knowledge_add_attacker(PrivKnowledge *k, guint u, GError **error);
/* priv_knowledge_know_gradient: gradient slot (u, t) is known. Errors: u >= n. */
gboolean priv_knowledge_know_gradient(PrivKnowledge *k, guint u, guint t, GError **error);
/* priv_knowledge_know_noise: noise variable @id is known (its column is
 * removed from B: the same guarantee as a row [0 | e_id], see
 * priv_knowledge_blocks). Never fails. */
void priv_knowledge_know_noise(PrivKnowledge *k, guint32 id);

/*
 * priv_knowledge_check_memory: fails with PRIV_ERROR_MEMORY, saying how much
 * would be needed, when priv_knowledge_blocks on @rows observed rows over
 * @grad_cols gradient slots and @noise_cols noise variables cannot fit in
 * @max_bytes (0 = spec_memory_limit()). Lets a caller refuse a run before
 * simulating it (rows: at most T x the messages the attackers receive per
 * round; columns: at most n T each). O(1).
 */
gboolean priv_knowledge_check_memory(gsize rows, gsize grad_cols, gsize noise_cols, gsize max_bytes,
                                     GError **error);

/* Options of priv_knowledge_blocks; zeros select the defaults. */
typedef struct {
  guint T;          /* gradient steps; 0 = 1 + the largest step seen in a row */
  double clip;      /* Delta, > 0 (default 1) */
  double rank_tol;  /* relative rank tolerance of B (default 1e-10) */
  double range_tol; /* relative tolerance of A_u = B B^+ A_u (default 1e-8) */
  gsize max_bytes;  /* memory budget (0 = physical memory) */
} PrivKnowledgeOptions;

/*
 * priv_knowledge_blocks: the generic accountant. Removes known gradient slots
 * (zeroing columns of A: reduction lemma) and known noise columns, drops
 * all-zero columns and rows, then factors B by a QR with column pivoting of
 * B^T, which is the row selection and LQ factorization of the proof of the
 * paper's main theorem: B^T P = Q R, rank r = #{i : |R_ii| > rank_tol |R_00|}.
 * The pivoted rows P^T A = [A1; A2] give Y = R11^{-T} A1 (so B^+ A = Q1 Y,
 * never forming B^+) and X_u = Y_u^T Y_u with A in units of Delta (the
 * linvec coefficients times @opt->clip). If that rank cut drops a row
 * independent at its own scale, the factorization is redone with rows
 * scaled to unit noise norm. Each victim's verdict is priv_range_decide's
 * (privacy/knowledge_internal.h) on its residual ||A2_u - R12^T Y_u||_F
 * against range_tol ||A_u||_F: UNPROTECTED when the attacker clearly sees a
 * noise-free combination of its gradients (residual above 1e-5 of ||A_u||,
 * carried by dependencies exact to rounding), UNRESOLVED when double
 * precision cannot decide (a residual in between, a near-dependency, an
 * amplification ||Y_u|| / ||D^-1 A_u|| above 1e8,
 * D the rows' noise norms): X_u = 0 for both.
 * Nodes added with priv_knowledge_add_attacker are ATTACKER.
 * Complexity: O(m r min(m, r) + r^2 c) time, O((m + 2c) r) memory for r rows,
 * m noise and c gradient columns that appear.
 * Returns: (transfer full) the blocks, or NULL with @error set
 * (PRIV_ERROR_INVALID_ARGUMENT: a row reaches step T or beyond, clip <= 0;
 * PRIV_ERROR_MEMORY; PRIV_ERROR_NUMERICAL: LAPACK failure).
 */
PrivBlocks *priv_knowledge_blocks(const PrivKnowledge *k, const PrivKnowledgeOptions *opt,
                                  GError **error);

/*
 * priv_knowledge_blocks_scaled: priv_knowledge_blocks on the rows with the
 * gradient and the noise coefficients each multiplied by a power of two that
 * brings them near 1, when they are not already within 2^±200 and within
 * 2^100 of each other (then it is priv_knowledge_blocks, bit for bit): noise
 * of std 1e200 Delta made X = Y^T Y underflow to a zero block (mu = 0 for
 * every victim), std 1e-200 Delta overflow it, and clip = 1e-200 made the
 * range check square gradient coefficients to 0 (mu = 0 again). Every
 * decision of the accountant is relative, hence unchanged by that exact
 * scaling; X comes out 4^(eb - ea) times the truth and PrivBlocks.scale
 * records 2^(eb - ea) (folded back into X when it stays in range). More than
 * 2^1000 apart: PRIV_ERROR_NUMERICAL (mu itself would leave the doubles).
 * Parameters, other errors and complexity: those of priv_knowledge_blocks,
 * plus a copy of the coefficients when scaling (O(nnz) time and memory).
 */
PrivBlocks *priv_knowledge_blocks_scaled(const PrivKnowledge *k, const PrivKnowledgeOptions *opt,
                                         GError **error);

/* Whether noise variable @id is a nuisance: an unknown of arbitrary law
 * (sim/noise.h, SIM_NOISE_KIND_NUISANCE), not Gaussian noise. */
typedef gboolean (*PrivNuisanceFunc)(guint32 id, gpointer data);

/*
 * priv_knowledge_project_out: the knowledge of an attacker that ignores the
 * nuisance variables @is_nuisance selects (docs/local-bounds.md, "The
 * observer path's ball: the lower bound"). With the rows O = A g + B z +
 * N phi (known gradient slots and noise dropped), N's columns are scaled to
 * unit norm and factored by a QR with column pivoting, N P = Q R; every
 * direction with |R_ii| above 16 max(m, p) eps is nuisance, and the rows of
 * the result are the other rows of Q^T [A | B] (a row entirely below 64 m
 * eps of the largest entry is dropped): a function of O free of phi,
 * whatever phi's law, so priv_knowledge_blocks of the result is
 * Loewner-below that of O with phi known, and below the true O's whatever
 * phi is. The attackers are @k's; no known slot or noise is left.
 * @max_bytes: the budget (0: physical memory). @rank: (out) (optional) the
 * nuisance directions projected out.
 * Errors: PRIV_ERROR_MEMORY (8 m (p + c) bytes: m rows, p nuisance, c
 * gradient and noise columns, the sizes in the message),
 * PRIV_ERROR_NUMERICAL (LAPACK). Complexity: O(m p min(m, p) + m c min(m,
 * p)) time, O(m (p + c)) memory.
 */
PrivKnowledge *priv_knowledge_project_out(const PrivKnowledge *k, PrivNuisanceFunc is_nuisance,
                                          gpointer data, gsize max_bytes, guint *rank,
                                          GError **error);

G_END_DECLS

#endif /* DPG_PRIVACY_KNOWLEDGE_H */
