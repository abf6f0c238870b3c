/*
 * learning/partition.c: training records dealt to nodes (uniform or
 * Dirichlet label skew) and cut into per-node batches.
 */
#include <gsl/gsl_randist.h>
#include <math.h>

#include "learning/internal.h"

/* Node sizes of the round-robin deal: the first n_records mod n_nodes nodes
 * get one more. Checks the shared argument errors. */
static LearnPartition *partition_alloc(gsize n_records, guint n_nodes, guint n_batches,
                                       GError **error) {
  if (n_nodes == 0 || n_batches == 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "a partition needs at least one node and one batch (got %u nodes, %u batches)",
                n_nodes, n_batches);
    return NULL;
  }
  if (n_records < n_nodes) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "more nodes (%u) than training records (%" G_GSIZE_FORMAT
                "): every node needs at least one record",
                n_nodes, n_records);
    return NULL;
  }
  gsize small = n_records / n_nodes;
  if (n_batches > small) {
    guint node = (guint)(n_records % n_nodes); /* the first node of the smaller size */
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "%u batches per node but node %u holds only %" G_GSIZE_FORMAT
                " records (%" G_GSIZE_FORMAT " records over %u nodes); use at most %" G_GSIZE_FORMAT
                " batches or fewer nodes",
                n_batches, node, small, n_records, n_nodes, small);
    return NULL;
  }
  LearnPartition *p = g_new0(LearnPartition, 1);
  p->n_nodes = n_nodes;
  p->n_batches = n_batches;
  p->n_records = n_records;
  p->offsets = g_new(gsize, (gsize)n_nodes + 1);
  p->records = g_new(gsize, n_records);
  gsize extra = n_records % n_nodes;
  p->offsets[0] = 0;
  for (guint u = 0; u < n_nodes; u++)
    p->offsets[u + 1] = p->offsets[u] + small + (u < extra ? 1 : 0);
  return p;
}

void learn_partition_free(LearnPartition *p) {
  if (p == NULL)
    return;
  g_free(p->offsets);
  g_free(p->records);
  g_free(p);
}

LearnPartition *learn_partition_uniform(gsize n_records, guint n_nodes, guint n_batches,
                                        guint64 seed, GError **error) {
  LearnPartition *p = partition_alloc(n_records, n_nodes, n_batches, error);
  if (p == NULL)
    return NULL;
  gsize *perm = g_new(gsize, n_records);
  for (gsize i = 0; i < n_records; i++)
    perm[i] = i;
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_PARTITION);
  learn_shuffle(rng, perm, n_records);
  gsl_rng_free(rng);
  /* Position i of the shuffle goes to node i mod n, as its (i / n)-th record. */
  for (gsize i = 0; i < n_records; i++)
    p->records[p->offsets[i % n_nodes] + i / n_nodes] = perm[i];
  g_free(perm);
  return p;
}

LearnPartition *learn_partition_dirichlet(const LearnDataset *train, guint n_nodes, guint n_batches,
                                          double alpha, guint64 seed, GError **error) {
  g_return_val_if_fail(train != NULL, NULL);
  if (train->n_classes < 2) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "a Dirichlet label-skew partition needs a classification dataset");
    return NULL;
  }
  if (!(alpha > 0.0 && isfinite(alpha))) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "Dirichlet alpha %g is not a finite number > 0", alpha);
    return NULL;
  }
  LearnPartition *p = partition_alloc(train->n, n_nodes, n_batches, error);
  if (p == NULL)
    return NULL;
  guint C = train->n_classes;
  gsize n = train->n;

  /* Per-class pools of record indices, shuffled; a pool is consumed from its
   * end, so taking the last element is taking a random remaining record. */
  gsize *pool_start = g_new0(gsize, (gsize)C + 1), *left = g_new0(gsize, C);
  for (gsize i = 0; i < n; i++)
    left[learn_dataset_label(train, i)]++;
  for (guint c = 0; c < C; c++)
    pool_start[c + 1] = pool_start[c] + left[c];
  gsize *pool = g_new(gsize, n), *fill = g_new(gsize, C);
  for (guint c = 0; c < C; c++)
    fill[c] = pool_start[c];
  for (gsize i = 0; i < n; i++)
    pool[fill[learn_dataset_label(train, i)]++] = i;
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_PARTITION);
  for (guint c = 0; c < C; c++)
    learn_shuffle(rng, pool + pool_start[c], left[c]);

  gsl_rng *drng = learn_rng_new(seed, LEARN_PURPOSE_DIRICHLET);
  double *q = g_new(double, (gsize)n_nodes *C), *alphas = g_new(double, C);
  for (guint c = 0; c < C; c++)
    alphas[c] = alpha;
  for (guint u = 0; u < n_nodes; u++)
    gsl_ran_dirichlet(drng, C, alphas, q + (gsize)u * C);
  gsl_rng_free(drng);

  gsize *taken = g_new0(gsize, n_nodes);
  gsize rounds = p->offsets[1] - p->offsets[0]; /* node 0 is a largest node */
  for (gsize r = 0; r < rounds; r++) {
    for (guint u = 0; u < n_nodes; u++) {
      if (taken[u] == p->offsets[u + 1] - p->offsets[u])
        continue;
      const double *qu = q + (gsize)u * C;
      double mass = 0.0;
      for (guint c = 0; c < C; c++)
        if (left[c] > 0)
          mass += qu[c];
      guint pick = C;
      if (mass > 0.0) {
        double x = gsl_rng_uniform(rng) * mass, acc = 0.0;
        for (guint c = 0; c < C && pick == C; c++)
          if (left[c] > 0 && x < (acc += qu[c]))
            pick = c;
      }
      if (pick == C) {
        /* q_u has no mass on the classes left (or rounding ran past the last
         * one): fall back to a uniformly random remaining record. */
        gsize total = 0;
        for (guint c = 0; c < C; c++)
          total += left[c];
        gsize x = (gsize)gsl_rng_uniform_int(rng, (unsigned long)total);
        for (pick = 0; x >= left[pick]; pick++)
          x -= left[pick];
      }
      left[pick]--;
      p->records[p->offsets[u] + taken[u]++] = pool[pool_start[pick] + left[pick]];
    }
  }
  gsl_rng_free(rng);
  g_free(taken);
  g_free(q);
  g_free(alphas);
  g_free(pool);
  g_free(fill);
  g_free(pool_start);
  g_free(left);
  return p;
}

const gsize *learn_partition_node(const LearnPartition *p, guint node, gsize *count) {
  g_return_val_if_fail(p != NULL && node < p->n_nodes && count != NULL, NULL);
  *count = p->offsets[node + 1] - p->offsets[node];
  return p->records + p->offsets[node];
}

const gsize *learn_partition_batch(const LearnPartition *p, guint node, guint64 step,
                                   gsize *count) {
  g_return_val_if_fail(p != NULL && node < p->n_nodes && count != NULL, NULL);
  gsize m = p->offsets[node + 1] - p->offsets[node];
  guint64 j = step % p->n_batches, b = p->n_batches;
  gsize lo = (gsize)(j * m / b), hi = (gsize)((j + 1) * m / b);
  *count = hi - lo;
  return p->records + p->offsets[node] + lo;
}
