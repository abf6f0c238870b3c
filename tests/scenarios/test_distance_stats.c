/*
 * tests/scenarios/test_distance_stats.c: the privacy-by-distance statistic
 * of the paper's Figure 2 (scen_dist_*) against values computed by hand:
 * finite and unbounded losses, an empty distance, unreachable victims, the
 * victim rows beside Muffliato's bound or a synchronous report (and their
 * refusal when the two reports list other victims), sums that keep their
 * bits when the attacker sets are computed by two ranks, malformed rows.
 */
#include <math.h>
#include <string.h>

#include "scenarios/scenarios.h"

/* Finite values: the mean is their sum over their count, the range theirs. */
static void test_stat_finite(void) {
  ScenDistStat s = {0};
  scen_dist_stat_add(&s, 0.5);
  scen_dist_stat_add(&s, 2.0);
  scen_dist_stat_add(&s, 0.25);
  g_assert_cmpuint(scen_dist_stat_total(&s), ==, 3);
  g_assert_cmpfloat(scen_dist_stat_mean(&s), ==, 2.75 / 3);
  g_assert_cmpfloat(scen_dist_stat_min(&s), ==, 0.25);
  g_assert_cmpfloat(scen_dist_stat_max(&s), ==, 2.0);
}

/* An unbounded loss makes the mean and the max +inf (no guarantee over a
 * set holding it); the min stays the finite minimum, +inf when every value
 * is unbounded; an empty statistic has no number at all. */
static void test_stat_infinite_and_empty(void) {
  ScenDistStat s = {0};
  scen_dist_stat_add(&s, 1.0);
  scen_dist_stat_add(&s, INFINITY);
  scen_dist_stat_add(&s, 3.0);
  g_assert_cmpuint(scen_dist_stat_total(&s), ==, 3);
  g_assert_cmpuint(s.n_inf, ==, 1);
  g_assert_cmpfloat(scen_dist_stat_mean(&s), ==, INFINITY);
  g_assert_cmpfloat(scen_dist_stat_max(&s), ==, INFINITY);
  g_assert_cmpfloat(scen_dist_stat_min(&s), ==, 1.0);
  ScenDistStat all_inf = {0};
  scen_dist_stat_add(&all_inf, INFINITY);
  scen_dist_stat_add(&all_inf, INFINITY);
  g_assert_cmpuint(scen_dist_stat_total(&all_inf), ==, 2);
  g_assert_cmpfloat(scen_dist_stat_mean(&all_inf), ==, INFINITY);
  g_assert_cmpfloat(scen_dist_stat_min(&all_inf), ==, INFINITY);
  g_assert_cmpfloat(scen_dist_stat_max(&all_inf), ==, INFINITY);
  ScenDistStat empty = {0};
  g_assert_cmpuint(scen_dist_stat_total(&empty), ==, 0);
  g_assert_true(isnan(scen_dist_stat_mean(&empty)));
  g_assert_true(isnan(scen_dist_stat_min(&empty)));
  g_assert_true(isnan(scen_dist_stat_max(&empty)));
}

/* A report of attacker node 0 on 5 nodes: node 1 at 1 hop, 2 at 2 hops,
 * 3 unreachable, 4 at 1 hop and unprotected. */
static PrivReport *report_new(const double rdp[4]) {
  static const gint dist[4] = {1, 2, -1, 1};
  PrivReport *r = g_new0(PrivReport, 1);
  r->n_victims = 4;
  r->victims = g_new0(PrivVictim, 4);
  for (guint v = 0; v < 4; v++)
    r->victims[v] = (PrivVictim){.node = v + 1, .distance = dist[v], .rdp = rdp[v]};
  r->victims[3].unprotected = TRUE;
  return r;
}

static const ScenDistRow *rows_of(GBytes *b, gsize *n) {
  gsize len;
  const ScenDistRow *rows = g_bytes_get_data(b, &len);
  g_assert_cmpuint(len % sizeof *rows, ==, 0);
  *n = len / sizeof *rows;
  return rows;
}

/* The rows beside Muffliato's bound (by node id) or beside a synchronous
 * report (by victim): an unprotected victim's loss is +inf whatever its
 * rdp field, an unreachable victim's second value 0. */
static void test_rows(void) {
  const double rdp[4] = {0.5, 0.125, 7, 9}, sync_rdp[4] = {0.25, 0.0625, 3, 1};
  PrivReport *ours = report_new(rdp), *sync = report_new(sync_rdp);
  const double muff[5] = {-1, 4, 2, 8, 16}; /* node 0 is the attacker */
  GError *error = NULL;
  GBytes *b = scen_dist_rows(ours, muff, NULL, &error);
  g_assert_no_error(error);
  gsize n;
  const ScenDistRow *r = rows_of(b, &n);
  g_assert_cmpuint(n, ==, 4);
  const ScenDistRow want_m[4] = {
      {1, 1, 0.5, 4}, {2, 2, 0.125, 2}, {-1, 3, 7, 0}, {1, 4, INFINITY, 16}};
  for (guint v = 0; v < 4; v++) {
    g_assert_cmpint(r[v].distance, ==, want_m[v].distance);
    g_assert_cmpuint(r[v].node, ==, want_m[v].node);
    g_assert_cmpfloat(r[v].ours, ==, want_m[v].ours);
    g_assert_cmpfloat(r[v].other, ==, want_m[v].other);
  }
  g_bytes_unref(b);
  b = scen_dist_rows(ours, NULL, sync, &error);
  g_assert_no_error(error);
  r = rows_of(b, &n);
  const double want_s[4] = {0.25, 0.0625, 0, INFINITY};
  for (guint v = 0; v < 4; v++)
    g_assert_cmpfloat(r[v].other, ==, want_s[v]);
  g_bytes_unref(b);
  priv_report_free(ours);
  priv_report_free(sync);
}

/* Two reports that list other victims are refused, by count or by node. */
static void test_rows_disagree(void) {
  const double rdp[4] = {1, 1, 1, 1};
  PrivReport *ours = report_new(rdp), *sync = report_new(rdp);
  GError *error = NULL;
  sync->n_victims = 3;
  g_assert_null(scen_dist_rows(ours, NULL, sync, &error));
  g_assert_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "disagree on the victims (3 against 4)"));
  g_clear_error(&error);
  sync->n_victims = 4;
  sync->victims[2].node = 0;
  g_assert_null(scen_dist_rows(ours, NULL, sync, &error));
  g_assert_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "victim 2 is node 0 against 3"));
  g_clear_error(&error);
  priv_report_free(ours);
  priv_report_free(sync);
}

static GBytes *rows_bytes(const ScenDistRow *rows, guint n) {
  return g_bytes_new(rows, n * sizeof *rows);
}

/* Three sets on 5 nodes: distance 2 holds nothing (an empty distance
 * between two full ones), one unreachable pair, one pair with a zero loss;
 * each distance's numbers by hand. */
static void test_pool(void) {
  const ScenDistRow s0[] = {{1, 1, 0.5, 1}, {3, 2, 2, 4}, {-1, 3, 1, 0}};
  const ScenDistRow s1[] = {{1, 0, 1.5, 3}, {3, 4, INFINITY, 8}};
  const ScenDistRow s2[] = {{1, 2, 0, 2}};
  GBytes *sets[3] = {rows_bytes(s0, 3), rows_bytes(s1, 2), rows_bytes(s2, 1)};
  ScenDistPool *p = scen_dist_pool_new(5);
  GError *error = NULL;
  g_assert_true(scen_dist_pool_add_sets(p, sets, 3, &error));
  g_assert_no_error(error);
  g_assert_cmpuint(p->max_distance, ==, 3);
  g_assert_cmpuint(p->n_unreachable, ==, 1);
  g_assert_cmpuint(p->n_zero, ==, 1);
  const ScenDistStat *o = p->stat[SCEN_DIST_OURS], *m = p->stat[SCEN_DIST_OTHER];
  g_assert_cmpuint(scen_dist_stat_total(&o[1]), ==, 3);
  g_assert_cmpfloat(scen_dist_stat_mean(&o[1]), ==, 2.0 / 3);
  g_assert_cmpfloat(scen_dist_stat_min(&o[1]), ==, 0);
  g_assert_cmpfloat(scen_dist_stat_max(&o[1]), ==, 1.5);
  g_assert_cmpfloat(scen_dist_stat_mean(&m[1]), ==, 2);
  g_assert_cmpuint(scen_dist_stat_total(&o[2]), ==, 0);
  g_assert_cmpuint(scen_dist_stat_total(&m[2]), ==, 0);
  g_assert_cmpfloat(scen_dist_stat_mean(&o[3]), ==, INFINITY);
  g_assert_cmpfloat(scen_dist_stat_min(&o[3]), ==, 2);
  g_assert_cmpfloat(scen_dist_stat_mean(&m[3]), ==, 6);
  g_assert_cmpfloat(scen_dist_stat_max(&m[3]), ==, 8);
  g_assert_cmpuint(scen_dist_stat_total(&o[0]) + scen_dist_stat_total(&o[4]), ==, 0);
  scen_dist_pool_free(p);
  for (guint i = 0; i < 3; i++)
    g_bytes_unref(sets[i]);
}

/* Sets computed by two ranks (rank 0: set 0, rank 1: sets 1 and 2) pool,
 * share by share in set order, to the bits of one process's pool: the sum
 * is (0.1 + 0.2) + 0.3. Pooled as the shares arrive (rank 1's first), it
 * would be (0.2 + 0.3) + 0.1, another double. */
static void test_pool_ranks(void) {
  const double v[3] = {0.1, 0.2, 0.3};
  GBytes *sets[3];
  for (guint i = 0; i < 3; i++) {
    ScenDistRow r = {1, i + 1, v[i], v[i]};
    sets[i] = rows_bytes(&r, 1);
  }
  ScenDistPool *one = scen_dist_pool_new(4), *two = scen_dist_pool_new(4);
  ScenDistPool *arrival = scen_dist_pool_new(4);
  g_assert_true(scen_dist_pool_add_sets(one, sets, 3, NULL));
  g_assert_true(scen_dist_pool_add_sets(two, sets, 1, NULL));
  g_assert_true(scen_dist_pool_add_sets(two, sets + 1, 2, NULL));
  g_assert_true(scen_dist_pool_add_sets(arrival, sets + 1, 2, NULL));
  g_assert_true(scen_dist_pool_add_sets(arrival, sets, 1, NULL));
  double left = (v[0] + v[1]) + v[2];
  g_assert_cmpfloat(one->stat[SCEN_DIST_OURS][1].sum, ==, left);
  g_assert_cmpfloat(scen_dist_stat_mean(&one->stat[SCEN_DIST_OTHER][1]), ==, left / 3);
  for (guint m = 0; m < SCEN_DIST_N_SERIES; m++)
    g_assert_cmpmem(one->stat[m], 4 * sizeof(ScenDistStat), two->stat[m], 4 * sizeof(ScenDistStat));
  g_assert_cmpfloat(arrival->stat[SCEN_DIST_OURS][1].sum, !=, left);
  scen_dist_pool_free(one);
  scen_dist_pool_free(two);
  scen_dist_pool_free(arrival);
  for (guint i = 0; i < 3; i++)
    g_bytes_unref(sets[i]);
}

/* Bytes that are not whole rows, or a distance the pool does not hold, are
 * refused with the set that holds them. */
static void test_pool_malformed(void) {
  ScenDistPool *p = scen_dist_pool_new(3);
  const ScenDistRow far = {3, 1, 1, 1};
  GBytes *sets[2] = {g_bytes_new("12345", 5), rows_bytes(&far, 1)};
  GError *error = NULL;
  g_assert_false(scen_dist_pool_add_sets(p, sets, 1, &error));
  g_assert_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "attacker set 0: 5 bytes are not whole victim rows"));
  g_clear_error(&error);
  g_assert_false(scen_dist_pool_add_sets(p, sets + 1, 1, &error));
  g_assert_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(error->message, "victim 1 at distance 3, beyond the 3 distances"));
  g_clear_error(&error);
  scen_dist_pool_free(p);
  g_bytes_unref(sets[0]);
  g_bytes_unref(sets[1]);
}

/* privacy.csv's victims pooled by (group, collusion, trust) and distance:
 * means are sums over the file's rows in order, an unreachable victim (no
 * distance) is counted apart, "inf" is pooled as an unbounded loss, and a
 * point filter keeps one point's rows. Values chosen exact in binary (1/4,
 * 3/4, ...), so the means are exact. */
static void test_csv(void) {
  GPtrArray *rows = scen_csv_parse(
      "point,collusion,trust,victim,distance,rdp,epsilon,status,attackers\n"
      "p1,a,pndp,1,1,0.25,1.5,protected,0\n"
      "p1,a,pndp,2,2,0.5,0.75,protected,0\n"
      "p1,a,pndp,3,1,0.75,2.5,protected,0\n"
      "p1,a,ldp,1,1,1,4,protected,0\n"
      "p1,a,pndp,4,,0,0,protected,0\n"
      "p2,a,pndp,1,1,inf,inf,unresolved,0\n"
      "p2,b,pndp,1,2,x,3,protected,0+5\n"
      "p3,a,pndp,1,1,0.125,0.5,protected,0\n");
  g_assert_nonnull(rows);
  /* p1 and p2 in group 1, p3 in group 2. */
  GHashTable *group_of = g_hash_table_new(g_str_hash, g_str_equal);
  g_hash_table_insert(group_of, "p1", GUINT_TO_POINTER(1));
  g_hash_table_insert(group_of, "p2", GUINT_TO_POINTER(1));
  g_hash_table_insert(group_of, "p3", GUINT_TO_POINTER(2));
  ScenDistCsv *p = scen_dist_csv_new();
  scen_dist_csv_add(p, rows, group_of, NULL);
  g_assert_cmpuint(p->accs->len, ==, 4);
  g_assert_cmpuint(p->n_unreachable, ==, 1);
  g_assert_cmpuint(p->n_unresolved, ==, 1);
  g_assert_cmpuint(p->max_distance, ==, 2);
  const ScenDistAcc *a = g_ptr_array_index(p->accs, 0);
  g_assert_cmpuint(a->group, ==, 1);
  g_assert_cmpstr(a->collusion, ==, "a");
  g_assert_cmpstr(a->trust, ==, "pndp");
  g_assert_null(scen_dist_csv_stat(a, 0, FALSE));
  /* Distance 1 of (1, a, pndp): 1.5, 2.5 and p2's inf. */
  const ScenDistStat *e1 = scen_dist_csv_stat(a, 1, FALSE), *r1 = scen_dist_csv_stat(a, 1, TRUE);
  g_assert_cmpuint(scen_dist_stat_total(e1), ==, 3);
  g_assert_true(isinf(scen_dist_stat_mean(e1)) && isinf(scen_dist_stat_mean(r1)));
  g_assert_cmpfloat(scen_dist_stat_min(e1), ==, 1.5);
  g_assert_cmpfloat(scen_dist_stat_mean(scen_dist_csv_stat(a, 2, TRUE)), ==, 0.5);
  const ScenDistAcc *ldp = g_ptr_array_index(p->accs, 1), *b = g_ptr_array_index(p->accs, 2),
                    *g2 = g_ptr_array_index(p->accs, 3);
  g_assert_cmpstr(ldp->trust, ==, "ldp");
  g_assert_cmpfloat(scen_dist_stat_mean(scen_dist_csv_stat(ldp, 1, FALSE)), ==, 4);
  /* An rdp that is no number is pooled as unbounded, never as 0. */
  g_assert_cmpstr(b->attackers, ==, "0+5");
  g_assert_cmpfloat(scen_dist_stat_mean(scen_dist_csv_stat(b, 2, FALSE)), ==, 3);
  g_assert_true(isinf(scen_dist_stat_mean(scen_dist_csv_stat(b, 2, TRUE))));
  g_assert_cmpuint(g2->group, ==, 2);
  g_assert_cmpfloat(scen_dist_stat_mean(scen_dist_csv_stat(g2, 1, TRUE)), ==, 0.125);
  scen_dist_csv_free(p);

  /* One point, without groups: p1's finite means, (0.25 + 0.75) / 2. */
  p = scen_dist_csv_new();
  scen_dist_csv_add(p, rows, NULL, "p1");
  g_assert_cmpuint(p->accs->len, ==, 2);
  a = g_ptr_array_index(p->accs, 0);
  g_assert_cmpuint(a->group, ==, 0);
  g_assert_cmpfloat(scen_dist_stat_mean(scen_dist_csv_stat(a, 1, TRUE)), ==, 0.5);
  g_assert_cmpfloat(scen_dist_stat_mean(scen_dist_csv_stat(a, 1, FALSE)), ==, 2);
  g_assert_cmpuint(p->n_unresolved, ==, 0);
  scen_dist_csv_free(p);

  /* A file without an rdp column adds nothing. */
  GPtrArray *bare = scen_csv_parse("collusion,trust,distance,epsilon\na,pndp,1,2\n");
  p = scen_dist_csv_new();
  scen_dist_csv_add(p, bare, NULL, NULL);
  g_assert_cmpuint(p->accs->len, ==, 0);
  scen_dist_csv_free(p);
  g_ptr_array_unref(bare);
  g_hash_table_unref(group_of);
  g_ptr_array_unref(rows);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/scenarios/distance-stats/finite", test_stat_finite);
  g_test_add_func("/scenarios/distance-stats/infinite-and-empty", test_stat_infinite_and_empty);
  g_test_add_func("/scenarios/distance-stats/rows", test_rows);
  g_test_add_func("/scenarios/distance-stats/rows-disagree", test_rows_disagree);
  g_test_add_func("/scenarios/distance-stats/pool", test_pool);
  g_test_add_func("/scenarios/distance-stats/pool-ranks", test_pool_ranks);
  g_test_add_func("/scenarios/distance-stats/pool-malformed", test_pool_malformed);
  g_test_add_func("/scenarios/distance-stats/csv", test_csv);
  return g_test_run();
}
