/*
 * privacy/knowledge_internal.h: the layout of PrivKnowledge, shared by
 * knowledge.c (building it), reduce.c (the generic accountant) and
 * observer.c. Not public.
 */
#ifndef DPG_PRIVACY_KNOWLEDGE_INTERNAL_H
#define DPG_PRIVACY_KNOWLEDGE_INTERNAL_H

#include "privacy/internal.h"

/* Rows are stored CSR-like: row i has entries row_start[i] .. row_start[i+1]-1
 * of cols/vals, the first row_ngrad[i] of them gradient columns (t*n + u),
 * the rest noise ids. Repeated columns add up. */
struct PrivKnowledge {
  guint n;
  GArray *row_start;       /* gsize, n_rows + 1 */
  GArray *row_ngrad;       /* guint32, n_rows */
  GArray *cols;            /* guint32 */
  GArray *vals;            /* double */
  guint steps_seen;        /* 1 + the largest step of a gradient column */
  gboolean *attacker;      /* n */
  GHashTable *known_slots; /* column + 1 */
  GHashTable *known_noise; /* noise id + 1 */
};

/* Whether gradient column @col is known (an attacker's slot, or listed). */
gboolean priv_knowledge_slot_known(const PrivKnowledge *k, guint32 col);
/* Whether noise variable @id is known. */
gboolean priv_knowledge_noise_known(const PrivKnowledge *k, guint32 id);

#endif /* DPG_PRIVACY_KNOWLEDGE_INTERNAL_H */
