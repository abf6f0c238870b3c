/*
 * cli/account_csv.c: `dpgossip account --format csv`: the tidy privacy
 * table, with the scenario runner's columns and writer
 * (SCEN_PRIVACY_CSV_COLUMNS), a set being named by its members.
 */
#include <stdio.h>

#include "cli/account_output.h"
#include "scenarios/scenarios.h"

void cli_account_print_csv(const CliAccountOutput *c) {
  const ProtoAccountJob *j = c->job;
  GString *s = g_string_new(SCEN_PRIVACY_CSV_COLUMNS "\n");
  /* Local bounds: the path column says so, with the radius. */
  char *path = j->radius ? g_strdup_printf("local:radius=%u", j->radius)
                         : g_strdup(proto_account_job_path_name(j));
  for (guint a = 0; a < j->n_acs; a++) {
    const ProtoAccounting *ac = &j->acs[a];
    char *label = topo_graph_attackers_label(j->graph, &j->sets, ac->set);
    ScenPrivacyCsvSet set = {.collusion = label,
                             .attackers = label,
                             .trust = ac->trust,
                             .path = path,
                             .seed = j->seed,
                             .job = j};
    scen_privacy_csv_rows(s, &set, ac->report, ac->muff);
    g_free(label);
  }
  g_free(path);
  fputs(s->str, stdout);
  g_string_free(s, TRUE);
}
