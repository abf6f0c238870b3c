/*
 * api/run.c: dpg_run, `dpgossip run SCENARIO --set ...`: the results land in
 * a folder that the Python side reads back (dpgossip.load).
 */
#include "api/internal.h"
#include "scenarios/scenarios.h"

/* dpg_run once the plugins are loaded. */
static char *run(const char *scenario, const char *const *sets, const char *out_dir,
                 unsigned threads, int allow_plugins, guint *points, DpgError *err) {
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
  gboolean ok = scen_scenario_run(sc, &opt, &report, &error);
  *points = report.points;
  if (ok) {
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
              int allow_plugins, const char *const *plugins, char **warnings, DpgError *err) {
  dpg_enter();
  if (warnings != NULL)
    *warnings = NULL;
  DpgPlugins loaded;
  if (!dpg_plugins_begin(&loaded, plugins, err))
    return NULL;
  /* The points' learning warnings (a dataset's), each said once however
   * many points said it: a sweep of 40 points loads its data 40 times. */
  guint points = 0;
  dpg_run_warnings_begin();
  char *dir = run(scenario, sets, out_dir, threads, allow_plugins, &points, err);
  char *said = dpg_run_warnings_end(points);
  if (warnings != NULL && dir != NULL && *said != '\0')
    *warnings = g_steal_pointer(&said);
  g_free(said);
  dpg_plugins_end(&loaded);
  return dir;
}
