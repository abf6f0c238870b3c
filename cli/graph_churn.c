/*
 * cli/graph_churn.c: `dpgossip graph --schedule SPEC --rounds T`: how many
 * nodes the schedule keeps online over time and how long their sessions
 * last, to check a churn trace or file before running on it.
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/graph_churn.h"

gboolean cli_graph_churn_stats(const TopoGraph *g, const char *spec, TopoGossipKind kind,
                               guint64 seed, guint rounds, TopoChurnStats *st, GError **error) {
  TopoSchedule *s = topo_schedule_new(spec, g, kind, seed, error);
  if (s == NULL)
    return FALSE;
  gboolean ok = topo_schedule_churn_stats(s, rounds, st, error);
  topo_schedule_free(s);
  return ok;
}

void cli_graph_churn_table(const TopoChurnStats *st, const char *spec) {
  printf("schedule       %s, rounds 0..%u\n", spec, st->rounds - 1);
  printf("online         mean %.4f  min %.4f (round %u)  max %.4f (round %u)\n", st->online_mean,
         st->online[st->online_min_round], st->online_min_round, st->online[st->online_max_round],
         st->online_max_round);
  printf("online by round");
  guint step = MAX(1u, st->rounds / 10);
  for (guint t = 0; t < st->rounds; t += step)
    printf("  %u: %.3f", t, st->online[t]);
  printf("\n");
  printf("sessions       online %" G_GUINT64_FORMAT " (rounds: mean %.2f, median %u, max %u), "
         "offline %" G_GUINT64_FORMAT " (mean %.2f rounds); cut at round 0 and %u\n",
         st->online_sessions, st->online_mean_rounds, st->online_median_rounds,
         st->online_max_rounds, st->offline_sessions, st->offline_mean_rounds, st->rounds);
  printf("nodes          never online %u, always online %u\n", st->never_online, st->always_online);
}

void cli_graph_churn_json(JsonBuilder *b, const TopoChurnStats *st, const char *spec) {
  cli_json_begin_object(b, "churn");
  cli_json_string(b, "schedule", spec);
  cli_json_int(b, "rounds", st->rounds);
  cli_json_number(b, "online_mean", st->online_mean);
  cli_json_begin_array(b, "online");
  for (guint t = 0; t < st->rounds; t++)
    cli_json_number(b, NULL, st->online[t]);
  json_builder_end_array(b);
  cli_json_begin_object(b, "online_sessions");
  cli_json_int(b, "count", (gint64)st->online_sessions);
  cli_json_number(b, "mean_rounds", st->online_mean_rounds);
  cli_json_int(b, "median_rounds", st->online_median_rounds);
  cli_json_int(b, "max_rounds", st->online_max_rounds);
  json_builder_end_object(b);
  cli_json_begin_object(b, "offline_sessions");
  cli_json_int(b, "count", (gint64)st->offline_sessions);
  cli_json_number(b, "mean_rounds", st->offline_mean_rounds);
  json_builder_end_object(b);
  cli_json_int(b, "never_online", st->never_online);
  cli_json_int(b, "always_online", st->always_online);
  json_builder_end_object(b);
}
