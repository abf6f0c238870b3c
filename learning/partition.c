/*
 * learning/partition.c: training records dealt to nodes (uniform, Dirichlet
 * label skew or a few classes per node) and cut into per-node batches.
 */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

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

LearnPartition *learn_partition_copy(const LearnPartition *p) {
  g_return_val_if_fail(p != NULL, NULL);
  LearnPartition *c = g_new(LearnPartition, 1);
  *c = *p;
  c->offsets = g_memdup2(p->offsets, (p->n_nodes + 1) * sizeof *p->offsets);
  c->records = g_memdup2(p->records, p->n_records * sizeof *p->records);
  return c;
}

LearnPartition *learn_partition_uniform(gsize n_records, guint n_nodes, guint n_batches,
                                        guint64 seed, GError **error) {
  LearnPartition *p = partition_alloc(n_records, n_nodes, n_batches, error);
  if (p == NULL)
    return NULL;
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_PARTITION);
  gsize *perm = learn_permutation(rng, n_records);
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

LearnPartition *learn_partition_classes(const LearnDataset *train, guint n_nodes, guint n_batches,
                                        guint k, guint64 seed, GError **error) {
  g_return_val_if_fail(train != NULL, NULL);
  if (train->n_classes < 2 || k == 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "a classes:k=K partition needs a classification dataset and K >= 1 (got %u "
                "classes, K = %u)",
                train->n_classes, k);
    return NULL;
  }
  LearnPartition *p = partition_alloc(train->n, n_nodes, n_batches, error);
  if (p == NULL)
    return NULL;
  gsize n = train->n, pieces = (gsize)n_nodes * k;
  /* The records sorted by label, in random order within a label. */
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_PARTITION);
  gsize *perm = learn_permutation(rng, n), *sorted = g_new(gsize, n),
        *start = g_new0(gsize, train->n_classes + 1);
  for (gsize i = 0; i < n; i++)
    start[learn_dataset_label(train, i) + 1]++;
  for (guint c = 0; c < train->n_classes; c++)
    start[c + 1] += start[c];
  for (gsize i = 0; i < n; i++)
    sorted[start[learn_dataset_label(train, perm[i])]++] = perm[i];
  /* Node u's share is cut into k pieces (sizes differing by at most 1); the
   * n k pieces are laid along the sorted records in random order, so each
   * piece is a run of (mostly) one label. */
  gsize *order = learn_permutation(rng, pieces);
  gsize pos = 0;
  for (gsize j = 0; j < pieces; j++) {
    guint u = (guint)(order[j] / k);
    gsize piece = order[j] % k, m = p->offsets[u + 1] - p->offsets[u];
    gsize lo = piece * m / k, hi = (piece + 1) * m / k;
    memcpy(p->records + p->offsets[u] + lo, sorted + pos, (hi - lo) * sizeof(gsize));
    pos += hi - lo;
  }
  /* Batches are contiguous: shuffle each share so a batch mixes its labels. */
  for (guint u = 0; u < n_nodes; u++)
    learn_shuffle(rng, p->records + p->offsets[u], p->offsets[u + 1] - p->offsets[u]);
  gsl_rng_free(rng);
  g_free(order);
  g_free(perm);
  g_free(sorted);
  g_free(start);
  return p;
}

LearnPartition *learn_partition_users(const LearnDataset *train, guint n_nodes, guint n_batches,
                                      guint k, guint64 seed, GError **error) {
  g_return_val_if_fail(train != NULL, NULL);
  if (train->users == NULL || k == 0 || n_nodes == 0 || n_batches == 0 ||
      (guint64)n_nodes * k > train->n_users) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "a users:k=K partition needs a dataset of users (LEAF) with K >= 1 users for "
                "each of the %u nodes, %u batches >= 1 (got %u users, K = %u)",
                n_nodes, n_batches, train->users != NULL ? train->n_users : 0, k);
    return NULL;
  }
  guint U = train->n_users;
  gsl_rng *rng = learn_rng_new(seed, LEARN_PURPOSE_PARTITION);
  gsize *perm = learn_permutation(rng, U);
  /* node of each user: the first n_nodes k of the shuffle, k each; the
   * other users' records are left out */
  guint *node_of = g_new(guint, U);
  for (guint i = 0; i < U; i++)
    node_of[perm[i]] = i < (guint64)n_nodes * k ? (guint)(i / k) : G_MAXUINT;
  LearnPartition *p = g_new0(LearnPartition, 1);
  p->n_nodes = n_nodes;
  p->n_batches = n_batches;
  p->offsets = g_new0(gsize, (gsize)n_nodes + 1);
  for (gsize i = 0; i < train->n; i++)
    if (node_of[train->users[i]] != G_MAXUINT)
      p->offsets[node_of[train->users[i]] + 1]++;
  for (guint u = 0; u < n_nodes; u++) {
    if (p->offsets[u + 1] < n_batches) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                  "%u batches per node but node %u's %u users hold only %" G_GSIZE_FORMAT
                  " records; use fewer batches or more users per node",
                  n_batches, u, k, p->offsets[u + 1]);
      learn_partition_free(p);
      p = NULL;
      goto out;
    }
    p->offsets[u + 1] += p->offsets[u];
  }
  p->n_records = p->offsets[n_nodes];
  p->records = g_new(gsize, MAX(p->n_records, 1));
  gsize *fill = g_memdup2(p->offsets, (gsize)n_nodes * sizeof(gsize));
  for (gsize i = 0; i < train->n; i++)
    if (node_of[train->users[i]] != G_MAXUINT)
      p->records[fill[node_of[train->users[i]]]++] = i;
  g_free(fill);
  for (guint u = 0; u < n_nodes; u++)
    learn_shuffle(rng, p->records + p->offsets[u], p->offsets[u + 1] - p->offsets[u]);
out:
  gsl_rng_free(rng);
  g_free(perm);
  g_free(node_of);
  return p;
}

LearnPartition *learn_partition_lists(gsize n_available, guint n_nodes, guint n_batches,
                                      const gsize *offsets, const gsize *records, GError **error) {
  g_return_val_if_fail(offsets != NULL && (records != NULL || offsets[n_nodes] == 0), NULL);
  if (n_nodes == 0 || n_batches == 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "a partition needs at least one node and one batch (got %u nodes, %u batches)",
                n_nodes, n_batches);
    return NULL;
  }
  if (offsets[0] != 0) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                "partition lists: the first node's list must start at 0 (got %" G_GSIZE_FORMAT ")",
                offsets[0]);
    return NULL;
  }
  /* Every check before anything is kept: a node's count, then its records
   * (in range, none twice in one node: a record repeated in a batch would be
   * counted twice against the clip the accountant assumes one record moves
   * the sum by). Across nodes a record may repeat: each node's guarantee is
   * about its own list. */
  guint8 *seen = g_new0(guint8, MAX(n_available, 1));
  gboolean ok = TRUE;
  for (guint u = 0; ok && u < n_nodes; u++) {
    if (offsets[u + 1] < offsets[u]) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                  "partition lists: node %u's list ends (%" G_GSIZE_FORMAT
                  ") before it starts (%" G_GSIZE_FORMAT "): offsets must not decrease",
                  u, offsets[u + 1], offsets[u]);
      ok = FALSE;
    } else if (offsets[u + 1] - offsets[u] < n_batches) {
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                  "partition lists: node %u holds %" G_GSIZE_FORMAT " records but every node "
                  "needs at least one per batch (%u batches)",
                  u, offsets[u + 1] - offsets[u], n_batches);
      ok = FALSE;
    }
    if (!ok)
      break;
    for (gsize i = offsets[u]; ok && i < offsets[u + 1]; i++) {
      gsize r = records[i];
      if (r >= n_available) {
        g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                    "partition lists: node %u's record %" G_GSIZE_FORMAT
                    " (position %" G_GSIZE_FORMAT
                    " of its list) is not a training record: indices go from 0 to %" G_GSIZE_FORMAT,
                    u, r, i - offsets[u], n_available - 1);
        ok = FALSE;
      } else if (seen[r]) {
        g_set_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT,
                    "partition lists: node %u lists record %" G_GSIZE_FORMAT
                    " twice (position %" G_GSIZE_FORMAT
                    " of its list): a record can be held once by a node",
                    u, r, i - offsets[u]);
        ok = FALSE;
      } else {
        seen[r] = 1;
      }
    }
    for (gsize i = offsets[u]; ok && i < offsets[u + 1]; i++)
      seen[records[i]] = 0; /* the next node starts from none seen */
  }
  g_free(seen);
  if (!ok)
    return NULL;
  LearnPartition *p = g_new0(LearnPartition, 1);
  p->n_nodes = n_nodes;
  p->n_batches = n_batches;
  p->n_records = offsets[n_nodes];
  p->offsets = g_memdup2(offsets, ((gsize)n_nodes + 1) * sizeof(gsize));
  p->records = g_memdup2(records, MAX(p->n_records, 1) * sizeof(gsize));
  return p;
}

/* The parsed options of a partition spec. */
typedef struct {
  enum { PART_UNIFORM, PART_DIRICHLET, PART_CLASSES, PART_USERS } kind;
  double alpha;
  guint64 k;
} PartSpec;

static gboolean partition_spec(const char *text, PartSpec *ps, GError **error) {
  Spec *spec = spec_parse(text, "partition", FALSE, LEARN_ERROR, LEARN_ERROR_PARSE,
                          LEARN_ERROR_INVALID_ARGUMENT, error);
  if (spec == NULL)
    return FALSE;
  static const char *const alpha[] = {"alpha", NULL}, *const k[] = {"k", NULL};
  gboolean ok;
  if (strcmp(spec->name, "uniform") == 0) {
    ps->kind = PART_UNIFORM;
    ok = spec_check(spec, "partition uniform", NULL, NULL, error);
  } else if (strcmp(spec->name, "dirichlet") == 0) {
    ps->kind = PART_DIRICHLET;
    ok = spec_check(spec, "partition dirichlet", alpha, alpha, error) &&
         spec_double(spec, "alpha", 1.0, G_MINDOUBLE, G_MAXDOUBLE, &ps->alpha, error);
  } else if (strcmp(spec->name, "classes") == 0) {
    ps->kind = PART_CLASSES;
    ok = spec_check(spec, "partition classes", k, k, error) &&
         spec_uint(spec, "k", 2, 1, G_MAXUINT32, &ps->k, error);
  } else if (strcmp(spec->name, "users") == 0) {
    ps->kind = PART_USERS;
    ok = spec_check(spec, "partition users", k, k, error) &&
         spec_uint(spec, "k", 10, 1, G_MAXUINT32, &ps->k, error);
  } else {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_PARSE,
                "unknown partition '%s' (valid: uniform, dirichlet:alpha=A, classes:k=K, "
                "users:k=K)",
                spec->name);
    ok = FALSE;
  }
  spec_free(spec);
  return ok;
}

gboolean learn_partition_spec_check(const char *spec, GError **error) {
  g_return_val_if_fail(spec != NULL, FALSE);
  PartSpec ps;
  return partition_spec(spec, &ps, error);
}

LearnPartition *learn_partition_new(const char *spec, const LearnDataset *train, guint n_nodes,
                                    guint n_batches, guint64 seed, GError **error) {
  g_return_val_if_fail(train != NULL, NULL);
  PartSpec ps;
  if (!partition_spec(spec != NULL ? spec : "uniform", &ps, error))
    return NULL;
  switch (ps.kind) {
  case PART_DIRICHLET:
    return learn_partition_dirichlet(train, n_nodes, n_batches, ps.alpha, seed, error);
  case PART_CLASSES:
    return learn_partition_classes(train, n_nodes, n_batches, (guint)ps.k, seed, error);
  case PART_USERS:
    return learn_partition_users(train, n_nodes, n_batches, (guint)ps.k, seed, error);
  default:
    return learn_partition_uniform(train->n, n_nodes, n_batches, seed, error);
  }
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
