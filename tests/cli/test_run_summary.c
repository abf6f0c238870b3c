/*
 * tests/cli/test_run_summary.c: what `dpgossip run` prints after a sweep,
 * checked against the files it wrote: the default scenario's methods at the
 * same mu under LDP and its privacy by hop distance; a protocol spec with a
 * comma kept whole; the CSV reader the summary uses.
 */
#include <math.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"
#include "scenarios/scenarios.h"

/* The whitespace-separated words of the line of @out that starts with
 * @prefix after @after (the first such line), NULL when there is none. */
static char **words_of(const char *out, const char *after, const char *prefix) {
  const char *p = after ? strstr(out, after) : out;
  if (p == NULL)
    return NULL;
  char **lines = g_strsplit(p, "\n", -1), **w = NULL;
  for (char **l = lines; *l != NULL && w == NULL; l++)
    if (g_str_has_prefix(*l, prefix))
      w = g_strsplit_set(g_strstrip(*l), " ", -1);
  g_strfreev(lines);
  if (w == NULL)
    return NULL;
  /* Drop the empty words between runs of spaces. */
  char **packed = g_new0(char *, g_strv_length(w) + 1);
  guint n = 0;
  for (char **x = w; *x != NULL; x++)
    if (**x != '\0')
      packed[n++] = g_strdup(*x);
  g_strfreev(w);
  return packed;
}

static int word_index(char **words, const char *name) {
  for (int i = 0; words[i] != NULL; i++)
    if (strcmp(words[i], name) == 0)
      return i;
  return -1;
}

/* Mean (@mean) or max of privacy.csv's @col over the rows of @protocol,
 * @trust and, when @distance >= 0, that distance. */
static double privacy_stat(GPtrArray *rows, const char *protocol, const char *trust, int distance,
                           const char *col, gboolean mean) {
  char **h = g_ptr_array_index(rows, 0);
  int cp = scen_csv_column(h, "protocol.name"), ct = scen_csv_column(h, "trust"),
      cd = scen_csv_column(h, "distance"), cv = scen_csv_column(h, col);
  g_assert_true(cp >= 0 && ct >= 0 && cd >= 0 && cv >= 0);
  double sum = 0, max = -INFINITY;
  guint n = 0;
  for (guint r = 1; r < rows->len; r++) {
    char **row = g_ptr_array_index(rows, r);
    if (strcmp(row[cp], protocol) != 0 || strcmp(row[ct], trust) != 0 ||
        (distance >= 0 && atoi(row[cd]) != distance))
      continue;
    double x = g_ascii_strtod(row[cv], NULL);
    sum += x;
    max = MAX(max, x);
    n++;
  }
  g_assert_cmpuint(n, >, 0);
  return mean ? sum / n : max;
}

/* A printed 4-significant-digit number against the value it rounds. */
static void assert_printed(const char *printed, double value) {
  double x = g_ascii_strtod(printed, NULL);
  if (fabs(x - value) > 5e-4 * fabs(value))
    g_error("printed %s, expected %.6g", printed, value);
}

/* A printed privacy number: rounded up to 4 significant digits, never
 * below the value (a guarantee is never printed smaller than computed). */
static void assert_printed_up(const char *printed, double value) {
  double x = g_ascii_strtod(printed, NULL);
  double unit = pow(10, floor(log10(fabs(value))) - 3);
  if (x < value * (1 - 1e-12) || x - value > unit * (1 + 1e-9))
    g_error("printed %s for %.10g: not its 4-digit ceiling", printed, value);
}

static void test_default_story(void) {
  char *dir = test_tmpdir("summary");
  char *ini = g_build_filename(g_getenv("DPG_SOURCE_DIR"), "scenarios", "default.ini", NULL);
  char *out = g_build_filename(dir, "out", NULL);
  CliRun r = cli_run("run", ini, "--out", out);
  if (r.status != 0)
    g_error("run failed: %s", r.err);
  GPtrArray *priv = scen_csv_read(out, "privacy.csv"), *groups = scen_csv_read(out, "groups.csv");
  g_assert_nonnull(priv);
  g_assert_nonnull(groups);
  g_assert_nonnull(strstr(r.out, "means over 4 seeds (groups.csv); privacy of the worst victim at "
                                 "delta = 1e-06:\n"));
  /* T = 160: a last-50-rounds window would reach back to the first third. */
  g_assert_null(strstr(r.out, "last50"));
  char **head = words_of(r.out, "means over", "  method");
  g_assert_nonnull(head);
  int cmu = word_index(head, "mu_ldp"), cldp = word_index(head, "eps_ldp"),
      cpndp = word_index(head, "eps_pndp"), closs = word_index(head, "test_loss");
  g_assert_true(cmu > 0 && cldp > 0 && cpndp > 0 && closs > 0);
  const char *methods[] = {"dsgd", "mafalda"};
  double pndp[2][5];
  for (guint m = 0; m < 2; m++) {
    char *prefix = g_strdup_printf("  %s ", methods[m]);
    char **row = words_of(r.out, "means over", prefix);
    g_assert_nonnull(row);
    g_assert_cmpuint(g_strv_length(row), ==, g_strv_length(head));
    /* The same privacy for both: mu = 0.3 under LDP, as asked, in the
     * summary and in every victim's row of privacy.csv. */
    g_assert_cmpfloat(fabs(g_ascii_strtod(row[cmu], NULL) - 0.3), <=, 1e-6);
    g_assert_cmpfloat(fabs(privacy_stat(priv, methods[m], "ldp", -1, "mu", FALSE) - 0.3), <=, 1e-6);
    assert_printed_up(row[cldp], privacy_stat(priv, methods[m], "ldp", -1, "epsilon", FALSE));
    assert_printed_up(row[cpndp], privacy_stat(priv, methods[m], "pndp", -1, "epsilon", FALSE));
    char **g = g_ptr_array_index(groups, m + 1);
    g_assert_cmpstr(g[1], ==, methods[m]);
    assert_printed(
        row[closs],
        g_ascii_strtod(g[scen_csv_column(g_ptr_array_index(groups, 0), "final_test_loss_mean")],
                       NULL));
    /* By distance: LDP the same everywhere, PNDP decreasing from 1 to 4 hops
     * (Florentine from node 0: 1, 5, 5 and 3 victims). */
    /* The table pads its columns: match the words, not the spacing. */
    char **dl = NULL, **dp = NULL;
    const char *tab = strstr(r.out, "privacy by hop distance d from attacker node 0 "
                                    "([collusion.attacker]) (privacy.csv):\n");
    g_assert_nonnull(tab);
    char **lines = g_strsplit(tab, "\n", -1);
    for (char **l = lines; *l != NULL; l++) {
      char **w = words_of(*l, NULL, "  ");
      if (w && w[0] && w[1] && strcmp(w[0], methods[m]) == 0 && strcmp(w[1], "ldp") == 0)
        dl = g_strdupv(w);
      if (w && w[0] && w[1] && strcmp(w[0], methods[m]) == 0 && strcmp(w[1], "pndp") == 0)
        dp = g_strdupv(w);
      g_strfreev(w);
    }
    g_strfreev(lines);
    g_assert_nonnull(dl);
    g_assert_nonnull(dp);
    g_assert_cmpuint(g_strv_length(dl), ==, 6);
    g_assert_cmpuint(g_strv_length(dp), ==, 6);
    for (int d = 1; d <= 4; d++) {
      g_assert_cmpstr(dl[1 + d], ==, row[cldp]);
      pndp[m][d] = g_ascii_strtod(dp[1 + d], NULL);
      assert_printed_up(dp[1 + d], privacy_stat(priv, methods[m], "pndp", d, "epsilon", TRUE));
      if (d > 1)
        g_assert_cmpfloat(pndp[m][d], <, pndp[m][d - 1]);
    }
    g_strfreev(dl);
    g_strfreev(dp);
    g_strfreev(row);
    g_free(prefix);
  }
  char **victims = words_of(r.out, "privacy by hop distance", "  victims");
  g_assert_nonnull(victims);
  const char *want[] = {"victims", "1", "5", "5", "3", NULL};
  g_assert_true(g_strv_equal((const char *const *)victims, want));
  g_strfreev(victims);
  g_assert_nonnull(strstr(r.out, "\nldp: every message is public, the attackers know no noise\n"));
  g_strfreev(head);
  g_ptr_array_unref(priv);
  g_ptr_array_unref(groups);
  cli_run_clear(&r);
  test_rmtree(dir);
  g_free(out);
  g_free(ini);
  g_free(dir);
}

/* A swept protocol spec with a comma is one quoted CSV field: its row keeps
 * every column, the tail window shows on a run long enough for it, and the
 * header says which delta. */
static void test_comma_spec(void) {
  char *dir = test_tmpdir("summary");
  char *ini = g_build_filename(g_getenv("DPG_SOURCE_DIR"), "scenarios", "default.ini", NULL);
  char *out = g_build_filename(dir, "out", NULL);
  CliRun r = cli_run(
      "run", ini, "--out", out, "--set", "sweep.protocol.name=muffliato:K=2;mfdsgd:C=bsr,band=4",
      "--set", "sweep.simulation.seed=1", "--set", "task.epochs=25", "--set", "task.batches=8");
  if (r.status != 0)
    g_error("run failed: %s", r.err);
  g_assert_nonnull(strstr(r.out, "privacy of the worst victim at delta = 1e-06:\n"));
  char **head = words_of(r.out, "means over", "  method");
  g_assert_nonnull(head);
  int ctail = word_index(head, "last50_loss");
  g_assert_cmpint(ctail, >, 0); /* T = 200 */
  GPtrArray *groups = scen_csv_read(out, "groups.csv");
  g_assert_nonnull(groups);
  int gtail = scen_csv_column(g_ptr_array_index(groups, 0), "test_loss_last50_mean");
  const char *specs[] = {"muffliato:K=2", "mfdsgd:C=bsr,band=4"};
  for (guint i = 0; i < 2; i++) {
    char *prefix = g_strdup_printf("  %s ", specs[i]);
    char **row = words_of(r.out, "means over", prefix);
    g_assert_nonnull(row);
    g_assert_cmpstr(row[0], ==, specs[i]);
    g_assert_cmpuint(g_strv_length(row), ==, g_strv_length(head));
    char **g = g_ptr_array_index(groups, i + 1);
    g_assert_cmpstr(g[1], ==, specs[i]);
    assert_printed(row[ctail], g_ascii_strtod(g[gtail], NULL));
    g_strfreev(row);
    g_free(prefix);
  }
  g_ptr_array_unref(groups);
  g_strfreev(head);
  cli_run_clear(&r);
  test_rmtree(dir);
  g_free(out);
  g_free(ini);
  g_free(dir);
}

#define LOCAL_NOTE                                                                                 \
  "  (local: certified upper bounds; privacy.csv holds each victim's mu_lower too)\n"

/* A single point: privacy by distance (mean RDP and epsilon over the
 * victims at each distance), each rounded up from privacy.csv's values. */
static void test_point_rounded_up(void) {
  char *dir = test_tmpdir("summary");
  char *ini = g_build_filename(dir, "p.ini", NULL);
  g_assert_true(g_file_set_contents(ini,
                                    "[simulation]\nrounds = 10\n[topology]\ngenerate = florentine\n"
                                    "[privacy]\ntrust = pndp\n[collusion.a0]\nnodes = 0\n"
                                    "[output]\ndir = out\nplots = false\n",
                                    -1, NULL));
  CliRun r = cli_run("run", ini);
  if (r.status != 0)
    g_error("run failed: %s", r.err);
  char *out = g_build_filename(dir, "out", NULL);
  GPtrArray *priv = scen_csv_read(out, "privacy.csv");
  g_assert_nonnull(priv);
  char **h = g_ptr_array_index(priv, 0);
  int cd = scen_csv_column(h, "distance"), cr = scen_csv_column(h, "rdp"),
      ce = scen_csv_column(h, "epsilon");
  for (int d = 1; d <= 4; d++) {
    double rdp = 0, eps = 0;
    guint n = 0;
    for (guint i = 1; i < priv->len; i++) {
      char **row = g_ptr_array_index(priv, i);
      if (atoi(row[cd]) == d) {
        rdp += g_ascii_strtod(row[cr], NULL);
        eps += g_ascii_strtod(row[ce], NULL);
        n++;
      }
    }
    char **w = NULL;
    char **lines = g_strsplit(r.out, "\n", -1);
    for (char **l = lines; *l && w == NULL; l++) {
      char **x = words_of(*l, NULL, "  a0 ");
      if (x && g_strv_length(x) == 6 && atoi(x[2]) == d)
        w = x;
      else
        g_strfreev(x);
    }
    g_strfreev(lines);
    g_assert_nonnull(w);
    g_assert_cmpuint((guint)atoi(w[3]), ==, n);
    assert_printed_up(w[4], rdp / n);
    assert_printed_up(w[5], eps / n);
    g_strfreev(w);
  }
  /* Exact values: no note that they are bounds. */
  g_assert_null(strstr(r.out, LOCAL_NOTE));
  g_ptr_array_unref(priv);
  cli_run_clear(&r);
  test_rmtree(dir);
  g_free(out);
  g_free(ini);
  g_free(dir);
}

/* privacy.path = local: the table says its values are upper bounds. */
static void test_local_note(void) {
  char *dir = test_tmpdir("summary");
  char *ini = g_build_filename(dir, "l.ini", NULL);
  g_assert_true(g_file_set_contents(
      ini,
      "[simulation]\nrounds = 4\n[topology]\ngenerate = florentine\n"
      "[privacy]\ntrust = pndp\npath = local\nradius = 1\n[collusion.a0]\nnodes = 0\n"
      "[output]\ndir = out\nplots = false\n",
      -1, NULL));
  CliRun r = cli_run("run", ini);
  if (r.status != 0)
    g_error("run failed: %s", r.err);
  const char *tab = strstr(r.out, "privacy by hop distance (privacy.csv; means over victims):\n");
  g_assert_nonnull(tab);
  g_assert_nonnull(strstr(tab, LOCAL_NOTE));
  cli_run_clear(&r);
  test_rmtree(dir);
  g_free(ini);
  g_free(dir);
}

static void test_csv_parse(void) {
  GPtrArray *rows = scen_csv_parse("a,\"b,c\",\"d\"\"e\"\r\n\n1,,\"x\ny\"\nlast,");
  g_assert_nonnull(rows);
  g_assert_cmpuint(rows->len, ==, 3);
  const char *r0[] = {"a", "b,c", "d\"e", NULL}, *r1[] = {"1", "", "x\ny", NULL},
             *r2[] = {"last", "", NULL};
  g_assert_true(g_strv_equal(g_ptr_array_index(rows, 0), r0));
  g_assert_true(g_strv_equal(g_ptr_array_index(rows, 1), r1));
  g_assert_true(g_strv_equal(g_ptr_array_index(rows, 2), r2));
  g_assert_cmpstr(scen_csv_cell(g_ptr_array_index(rows, 2), 5), ==, "");
  g_assert_cmpint(scen_csv_column(g_ptr_array_index(rows, 0), "b,c"), ==, 1);
  g_ptr_array_unref(rows);
  g_assert_null(scen_csv_parse("a,\"b\n"));
  g_assert_null(scen_csv_parse("\n\n"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/run-summary/csv-parse", test_csv_parse);
  g_test_add_func("/run-summary/default-story", test_default_story);
  g_test_add_func("/run-summary/comma-spec", test_comma_spec);
  g_test_add_func("/run-summary/point-rounded-up", test_point_rounded_up);
  g_test_add_func("/run-summary/local-note", test_local_note);
  return g_test_run();
}
