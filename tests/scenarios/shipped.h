/*
 * tests/scenarios/shipped.h: running a shipped scenario (scenarios/NAME.ini)
 * shortened with --set overrides, and reading its outputs.
 */
#ifndef DPG_TESTS_SHIPPED_H
#define DPG_TESTS_SHIPPED_H

#include <math.h>
#include <stdlib.h>

#include "scen_test.h"
#include "tests/common/tolerance.h"

/* eps(mu = 1, delta = 1e-6) = 4.8865541..., compared with its 6 significant
 * digits 4.88655: a formatting tolerance of half a unit of the 6th digit;
 * the calibration's 1e-12 relative margin on mu moves eps by < 1e-10. */
#define SHIPPED_EPS_MU1 4.88655
#define SHIPPED_EPS_MU1_TOL (0.5e-5 + 1e-10)
#define SHIPPED_EPS_MU1_WHY "formatting: eps(1, 1e-6) to 6 significant digits"

/* Runs scenarios/@name.ini with @sets into @out; returns the report. */
static inline ScenRunReport shipped_run(const char *name, const char *const *sets,
                                        const char *out) {
  char *rel = g_strdup_printf("scenarios/%s.ini", name);
  char *path = scen_test_source(rel);
  GError *error = NULL;
  ScenScenario *sc = scen_scenario_load(path, &error);
  g_assert_no_error(error);
  for (guint i = 0; sets && sets[i]; i++) {
    scen_scenario_set(sc, sets[i], &error);
    g_assert_no_error(error);
  }
  char **problems = scen_scenario_validate(sc);
  if (problems[0] != NULL)
    g_error("%s: %s", name, problems[0]);
  g_strfreev(problems);
  ScenRunOptions opt = {.out_dir = out, .threads = 2};
  ScenRunReport rep = {0};
  if (!scen_scenario_run(sc, &opt, &rep, &error))
    g_error("%s: %s", name, error->message);
  scen_scenario_free(sc);
  g_free(path);
  g_free(rel);
  return rep;
}

static inline const char *shipped_cell(GPtrArray *rows, guint r, guint c) {
  return ((char **)g_ptr_array_index(rows, r))[c];
}

static inline double shipped_num(GPtrArray *rows, guint r, guint c) {
  const char *s = shipped_cell(rows, r, c);
  if (g_str_equal(s, "inf"))
    return INFINITY;
  return g_ascii_strtod(s, NULL);
}

static inline void shipped_assert_file(const char *dir, const char *name) {
  char *p = g_build_filename(dir, name, NULL);
  if (!g_file_test(p, G_FILE_TEST_IS_REGULAR))
    g_error("missing output %s", p);
  g_free(p);
}

/*
 * Checks a point's privacy.csv: the header, @rows data rows, and every value
 * consistent: mu = sensitivity, rdp = alpha mu^2 / 2, epsilon finite exactly
 * when mu is, distances >= 1 (empty only when unreachable).
 */
static inline void shipped_check_privacy(const char *dir, guint rows, double alpha) {
  GPtrArray *p = scen_test_csv(dir, "privacy.csv");
  char *header = g_strjoinv(",", g_ptr_array_index(p, 0));
  g_assert_cmpstr(header, ==, SCEN_PRIVACY_CSV_COLUMNS);
  g_free(header);
  g_assert_cmpuint(p->len, ==, rows + 1);
  for (guint r = 1; r < p->len; r++) {
    double sens = shipped_num(p, r, 4), mu = shipped_num(p, r, 5), rdp = shipped_num(p, r, 6),
           eps = shipped_num(p, r, 7);
    g_assert_cmpfloat(sens, ==, mu);
    g_assert_true(mu >= 0);
    if (isinf(mu)) {
      g_assert_true(isinf(rdp) && isinf(eps));
      g_assert_cmpstr(shipped_cell(p, r, 9), !=, "protected");
    } else {
      g_assert_cmpfloat_with_epsilon(rdp, alpha * mu * mu / 2, 1e-9 * MAX(1, rdp));
      g_assert_true(isfinite(eps) && eps >= 0);
      g_assert_cmpstr(shipped_cell(p, r, 9), ==, "protected");
    }
    const char *d = shipped_cell(p, r, 3);
    g_assert_true(d[0] == '\0' || atoi(d) >= 1);
  }
  g_ptr_array_unref(p);
}

#endif
