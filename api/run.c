/*
 * api/run.c: dpg_run, `dpgossip run SCENARIO --set ...`: the results land in
 * a folder that the Python side reads back (dpgossip.load).
 */
#include "api/internal.h"
#include "scenarios/scenarios.h"

/* dpg_run once the plugins are loaded. */
static char *run(const char *scenario, const char *const *sets, const char *out_dir,
                 unsigned threads, int allow_plugins, DpgError *err) {
  GError *error = NULL;
  if (!dpg_check_cancel(&error))
    return dpg_fail(err, error, 1);
  ScenScenario *sc = scen_scenario_load(scenario, &error);
  if (sc == NULL)
    return dpg_fail(err, error, 1);
  for (guint i = 0; sets != NULL && sets[i] != NULL; i++)
    if (!scen_scenario_set(sc, sets[i], &error)) {
      scen_scenario_free(sc);
      return dpg_fail(err, error, 2);
    }
  ScenRunOptions opt = {.out_dir = out_dir, .threads = threads, .allow_plugins = allow_plugins};
  ScenRunReport report = {0};
  char *dir = NULL;
  if (scen_scenario_run(sc, &opt, &report, &error)) {
    dir = g_strdup(report.out_dir);
  } else {
    /* An invalid scenario too: the command line exits with 1 after listing. */
    dpg_fail(err, error, 1);
  }
  scen_run_report_clear(&report);
  scen_scenario_free(sc);
  return dir;
}

char *dpg_run(const char *scenario, const char *const *sets, const char *out_dir, unsigned threads,
              int allow_plugins, const char *const *plugins, DpgError *err) {
  dpg_enter();
  DpgPlugins loaded;
  if (!dpg_plugins_begin(&loaded, plugins, err))
    return NULL;
  char *dir = run(scenario, sets, out_dir, threads, allow_plugins, err);
  dpg_plugins_end(&loaded);
  return dir;
}
