/*
 * tests/learning/test_partition.c: uniform and Dirichlet partitions (sizes,
 * coverage, determinism, skew) and the cyclic batches of a node.
 */
#include <math.h>
#include <string.h>

#include "learning/learning.h"

/* Every record 0..n-1 is in exactly one node; sizes differ by at most 1 and
 * the larger nodes come first. */
static void check_cover(const LearnPartition *p, gsize n) {
  g_assert_cmpuint(p->n_records, ==, n);
  g_assert_cmpuint(p->offsets[0], ==, 0);
  g_assert_cmpuint(p->offsets[p->n_nodes], ==, n);
  guint8 *seen = g_new0(guint8, n);
  gsize small = n / p->n_nodes;
  for (guint u = 0; u < p->n_nodes; u++) {
    gsize m;
    const gsize *r = learn_partition_node(p, u, &m);
    g_assert_cmpuint(m, ==, small + (u < n % p->n_nodes ? 1 : 0));
    for (gsize i = 0; i < m; i++) {
      g_assert_cmpuint(r[i], <, n);
      seen[r[i]]++;
    }
  }
  for (gsize i = 0; i < n; i++)
    g_assert_cmpuint(seen[i], ==, 1);
  g_free(seen);
}

/* Batches of each node: sizes floor/ceil of m/b, concatenated in order they
 * are the node's records, batch(t) = batch(t mod b). */
static void check_batches(const LearnPartition *p) {
  guint b = p->n_batches;
  for (guint u = 0; u < p->n_nodes; u++) {
    gsize m;
    const gsize *r = learn_partition_node(p, u, &m);
    gsize pos = 0;
    for (guint64 t = 0; t < 3 * (guint64)b; t++) {
      gsize c;
      const gsize *batch = learn_partition_batch(p, u, t, &c);
      g_assert_cmpuint(c, >=, m / b);
      g_assert_cmpuint(c, <=, (m + b - 1) / b);
      if (t < b) {
        g_assert_true(batch == r + pos);
        pos += c;
      } else {
        gsize c0;
        const gsize *b0 = learn_partition_batch(p, u, t % b, &c0);
        g_assert_true(batch == b0);
        g_assert_cmpuint(c, ==, c0);
      }
    }
    g_assert_cmpuint(pos, ==, m);
  }
}

static void test_uniform(void) {
  GError *error = NULL;
  LearnPartition *p = learn_partition_uniform(103, 10, 3, 7, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(p->n_nodes, ==, 10);
  check_cover(p, 103);
  check_batches(p);
  /* 11 records on nodes 0..2, 10 on the others; 3 batches of 4,4,3 / 3,3,4. */
  gsize c;
  learn_partition_batch(p, 0, 0, &c);
  g_assert_cmpuint(c, ==, 3);
  learn_partition_batch(p, 0, 2, &c);
  g_assert_cmpuint(c, ==, 4);

  LearnPartition *same = learn_partition_uniform(103, 10, 3, 7, &error);
  g_assert_cmpmem(p->records, 103 * sizeof(gsize), same->records, 103 * sizeof(gsize));
  LearnPartition *other = learn_partition_uniform(103, 10, 3, 8, &error);
  g_assert_true(memcmp(p->records, other->records, 103 * sizeof(gsize)) != 0);
  learn_partition_free(p);
  learn_partition_free(same);
  learn_partition_free(other);

  /* Housing-sized: 16512 records over 148 nodes, b = 19. */
  p = learn_partition_uniform(16512, 148, 19, 1, &error);
  g_assert_no_error(error);
  check_cover(p, 16512);
  check_batches(p);
  learn_partition_free(p);

  /* One record per node, one batch each. */
  p = learn_partition_uniform(4, 4, 1, 1, &error);
  check_cover(p, 4);
  check_batches(p);
  learn_partition_free(p);
}

/* The shuffle is uniform: over many seeds, record 0 lands on each node about
 * equally often (chi-square-free check: every count within 5 sigma). */
static void test_uniform_is_random(void) {
  enum { NODES = 5, SEEDS = 2000 };
  gsize hits[NODES] = {0};
  for (guint64 s = 0; s < SEEDS; s++) {
    LearnPartition *p = learn_partition_uniform(20, NODES, 2, s, NULL);
    for (guint u = 0; u < NODES; u++) {
      gsize m;
      const gsize *r = learn_partition_node(p, u, &m);
      for (gsize i = 0; i < m; i++)
        hits[u] += r[i] == 0;
    }
    learn_partition_free(p);
  }
  double mean = SEEDS / (double)NODES, sd = sqrt(SEEDS * 0.2 * 0.8);
  for (guint u = 0; u < NODES; u++)
    g_assert_cmpfloat(fabs(hits[u] - mean), <, 5 * sd);
}

static void test_errors(void) {
  GError *error = NULL;
  g_assert_null(learn_partition_uniform(5, 6, 1, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "more nodes (6) than training records (5)"));
  g_clear_error(&error);
  /* 23 records over 4 nodes: 6,6,6,5 -> node 3 holds 5 < 6 batches. */
  g_assert_null(learn_partition_uniform(23, 4, 6, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "node 3 holds only 5 records"));
  g_clear_error(&error);
  LearnPartition *p = learn_partition_uniform(23, 4, 5, 1, &error);
  g_assert_no_error(error);
  learn_partition_free(p);
  g_assert_null(learn_partition_uniform(10, 0, 1, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  g_assert_null(learn_partition_uniform(10, 2, 0, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);

  LearnDataset *reg = learn_dataset_new(10, 1, 0);
  g_assert_null(learn_partition_dirichlet(reg, 2, 1, 1.0, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  learn_dataset_free(reg);
  LearnDataset *cls = learn_dataset_new(10, 1, 2);
  g_assert_null(learn_partition_dirichlet(cls, 2, 1, 0.0, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  g_assert_null(learn_partition_dirichlet(cls, 11, 1, 1.0, 1, &error));
  g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
  g_clear_error(&error);
  learn_dataset_free(cls);
}

/* Balanced 4-class data (label i mod 4), 2000 records, 20 nodes of 100. */
static LearnDataset *four_classes(void) {
  LearnDataset *ds = learn_dataset_new(2000, 1, 4);
  for (gsize i = 0; i < ds->n; i++) {
    ds->features[i] = (double)i;
    ds->targets[i] = (double)(i % 4);
  }
  return ds;
}

/* Mean over nodes of the total-variation distance between the node's label
 * histogram and the global one (uniform 1/4). */
static double mean_tv(const LearnPartition *p, const LearnDataset *ds) {
  double total = 0;
  for (guint u = 0; u < p->n_nodes; u++) {
    gsize m, h[4] = {0};
    const gsize *r = learn_partition_node(p, u, &m);
    for (gsize i = 0; i < m; i++)
      h[learn_dataset_label(ds, r[i])]++;
    double tv = 0;
    for (int c = 0; c < 4; c++)
      tv += fabs((double)h[c] / m - 0.25);
    total += tv / 2;
  }
  return total / p->n_nodes;
}

static void test_dirichlet(void) {
  LearnDataset *ds = four_classes();
  GError *error = NULL;
  LearnPartition *skew = learn_partition_dirichlet(ds, 20, 5, 0.05, 3, &error);
  g_assert_no_error(error);
  check_cover(skew, ds->n);
  check_batches(skew);
  LearnPartition *flat = learn_partition_dirichlet(ds, 20, 5, 1e4, 3, &error);
  check_cover(flat, ds->n);
  LearnPartition *unif = learn_partition_uniform(ds->n, 20, 5, 3, &error);
  double tv_skew = mean_tv(skew, ds), tv_flat = mean_tv(flat, ds), tv_unif = mean_tv(unif, ds);
  g_test_message("mean TV: alpha 0.05 %.3f, alpha 1e4 %.3f, uniform %.3f", tv_skew, tv_flat,
                 tv_unif);
  /* Sampling noise alone (m = 100, 4 classes) gives TV ~ 0.07. One-class
   * nodes would give 0.75. */
  g_assert_cmpfloat(tv_skew, >, 0.5);
  g_assert_cmpfloat(tv_flat, <, 0.12);
  g_assert_cmpfloat(tv_unif, <, 0.12);
  /* Same seed, same partition; another seed, another one. */
  LearnPartition *again = learn_partition_dirichlet(ds, 20, 5, 0.05, 3, &error);
  g_assert_cmpmem(skew->records, ds->n * sizeof(gsize), again->records, ds->n * sizeof(gsize));
  LearnPartition *other = learn_partition_dirichlet(ds, 20, 5, 0.05, 4, &error);
  g_assert_true(memcmp(skew->records, other->records, ds->n * sizeof(gsize)) != 0);
  learn_partition_free(skew);
  learn_partition_free(flat);
  learn_partition_free(unif);
  learn_partition_free(again);
  learn_partition_free(other);
  learn_dataset_free(ds);
}

/* The caller's lists: kept as given (batch j the j-th slice), a record
 * shared by two nodes, and each malformed list refused with its node. */
static void test_lists(void) {
  const gsize offsets[] = {0, 3, 5, 7}, records[] = {4, 0, 2, 1, 3, 1, 3};
  GError *error = NULL;
  LearnPartition *p = learn_partition_lists(5, 3, 2, offsets, records, &error);
  g_assert_no_error(error);
  g_assert_cmpuint(p->n_records, ==, 7);
  gsize count = 0;
  const gsize *b = learn_partition_batch(p, 0, 0, &count); /* [0, 3/2) of 4 0 2 */
  g_assert_cmpuint(count, ==, 1);
  g_assert_cmpuint(b[0], ==, 4);
  b = learn_partition_batch(p, 0, 3, &count); /* step 3: batch 1, [1, 3) */
  g_assert_cmpuint(count, ==, 2);
  g_assert_cmpuint(b[0], ==, 0);
  g_assert_cmpuint(b[1], ==, 2);
  b = learn_partition_node(p, 2, &count);
  g_assert_cmpuint(count, ==, 2);
  g_assert_cmpuint(b[0], ==, 1);
  learn_partition_free(p);
  static const struct {
    gsize offsets[4], records[7];
    const char *needle;
  } bad[] = {
      {{1, 3, 5, 7}, {4, 0, 2, 1, 3, 1, 3}, "must start at 0 (got 1)"},
      {{0, 3, 2, 7}, {4, 0, 2, 1, 3, 1, 3}, "node 1's list ends (2) before it starts (3)"},
      {{0, 3, 4, 7}, {4, 0, 2, 1, 3, 1, 3}, "node 1 holds 1 records"},
      {{0, 3, 5, 7}, {4, 0, 5, 1, 3, 1, 3}, "node 0's record 5 (position 2 of its list)"},
      {{0, 3, 5, 7}, {4, 0, 2, 1, 3, 3, 3}, "node 2 lists record 3 twice (position 1"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_null(learn_partition_lists(5, 3, 2, bad[i].offsets, bad[i].records, &error));
    g_assert_error(error, LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT);
    if (strstr(error->message, bad[i].needle) == NULL)
      g_error("case %" G_GSIZE_FORMAT ": '%s' lacks '%s'", i, error->message, bad[i].needle);
    g_clear_error(&error);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/learning/partition/uniform", test_uniform);
  g_test_add_func("/learning/partition/uniform-is-random", test_uniform_is_random);
  g_test_add_func("/learning/partition/errors", test_errors);
  g_test_add_func("/learning/partition/dirichlet", test_dirichlet);
  g_test_add_func("/learning/partition/lists", test_lists);
  return g_test_run();
}
