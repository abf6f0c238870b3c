/*
 * topologies/churn_stats.c: how many nodes a schedule has present over
 * time and how long they stay, the figures a user checks a churn trace or
 * file against before running on it.
 */
#include <string.h>

#include "topologies/internal.h"

void topo_churn_stats_clear(TopoChurnStats *st) {
  if (st == NULL)
    return;
  g_free(st->online);
  memset(st, 0, sizeof *st);
}

static gint cmp_guint(gconstpointer a, gconstpointer b) {
  guint x = *(const guint *)a, y = *(const guint *)b;
  return (x > y) - (x < y);
}

gboolean topo_schedule_churn_stats(TopoSchedule *s, guint rounds, TopoChurnStats *out,
                                   GError **error) {
  if (s == NULL || out == NULL || rounds == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "churn statistics need a schedule and at least one round");
    return FALSE;
  }
  guint n = topo_schedule_n(s);
  memset(out, 0, sizeof *out);
  out->rounds = rounds;
  out->online = g_new0(double, rounds);
  guint *present = g_new0(guint, rounds);
  GArray *on = g_array_new(FALSE, FALSE, sizeof(guint));
  guint64 off_total = 0;
  for (guint u = 0; u < n; u++) {
    guint run = 0, seen = 0;
    gboolean prev = FALSE;
    for (guint t = 0; t <= rounds; t++) {
      gboolean p = t < rounds && topo_schedule_node_present(s, t, u);
      if (t > 0 && (t == rounds || p != prev)) { /* a run ends at t */
        if (prev)
          g_array_append_val(on, run);
        else {
          out->offline_sessions++;
          off_total += run;
        }
        run = 0;
      }
      if (t < rounds) {
        present[t] += p;
        seen += p;
        run++;
        prev = p;
      }
    }
    out->never_online += seen == 0;
    out->always_online += seen == rounds;
  }
  double sum = 0;
  for (guint t = 0; t < rounds; t++) {
    out->online[t] = n > 0 ? (double)present[t] / n : 0.0;
    sum += out->online[t];
    if (present[t] < present[out->online_min_round])
      out->online_min_round = t;
    if (present[t] > present[out->online_max_round])
      out->online_max_round = t;
  }
  out->online_mean = sum / rounds;
  out->online_sessions = on->len;
  if (on->len > 0) {
    g_array_sort(on, cmp_guint);
    guint64 total = 0;
    for (guint i = 0; i < on->len; i++)
      total += g_array_index(on, guint, i);
    out->online_mean_rounds = (double)total / on->len;
    out->online_median_rounds = g_array_index(on, guint, (on->len - 1) / 2);
    out->online_max_rounds = g_array_index(on, guint, on->len - 1);
  }
  if (out->offline_sessions > 0)
    out->offline_mean_rounds = (double)off_total / (double)out->offline_sessions;
  g_array_unref(on);
  g_free(present);
  return TRUE;
}
