/*
 * tests/cli/test_attackers.c: --attackers of `account` and `figure` speak
 * one grammar (spec/attackers.c, shared with scenario files): "all" is every
 * node in turn as a single attacker in both commands (account refused it
 * before), '+' joins a collusion set in any order, and every refusal is a
 * usage error (exit 2) that names the grammar.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run_json.h"

#define FLORENTINE "--generate", "florentine"
#define ACCOUNT "account", FLORENTINE, "-T", "4", "--trust", "pndp"
#define PVD "figure", "privacy-vs-distance"

/* "0,1,...,n-1" (g_free). */
static char *every_node(guint n) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(s, "%s%u", i ? "," : "", i);
  return g_string_free(s, FALSE);
}

/* account -a all: the 15 single-node sets, byte for byte the output of the
 * same nodes listed, on both paths and in every format. */
static void test_account_all(void) {
  char *list = every_node(15);
  const char *paths[] = {"structured", "observer"};
  const char *formats[] = {"csv", "json", "table"};
  for (guint p = 0; p < G_N_ELEMENTS(paths); p++)
    for (guint f = 0; f < G_N_ELEMENTS(formats); f++) {
      CliRun all = cli_run(ACCOUNT, "-a", "all", "--path", paths[p], "--format", formats[f]);
      if (all.status != 0)
        g_printerr("%s\n", all.err);
      g_assert_cmpint(all.status, ==, 0);
      CliRun listed = cli_run(ACCOUNT, "-a", list, "--path", paths[p], "--format", formats[f]);
      g_assert_cmpint(listed.status, ==, 0);
      g_assert_cmpstr(all.out, ==, listed.out);
      if (f == 0) {
        /* A header, then 15 attackers x 14 victims. */
        char **lines = g_strsplit(all.out, "\n", -1);
        g_assert_cmpuint(g_strv_length(lines), ==, 1 + 15 * 14 + 1);
        g_assert_true(g_str_has_prefix(lines[1], "0,pndp,1,1,"));
        g_assert_true(g_str_has_prefix(lines[15 * 14], "14,pndp,13,"));
        g_strfreev(lines);
      }
      cli_run_clear(&all);
      cli_run_clear(&listed);
    }
  g_free(list);
}

/* '+' joins one set whatever the order; the JSON lists the members sorted. */
static void test_account_collusion(void) {
  CliRun a = cli_run(ACCOUNT, "-a", "12+0+5", "--format", "json");
  CliRun b = cli_run(ACCOUNT, "-a", " 0 + 5 + 12 ", "--format", "json");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_cmpint(b.status, ==, 0);
  g_assert_cmpstr(a.out, ==, b.out);
  JsonParser *parser = NULL;
  JsonObject *o = cli_run_json(&a, &parser);
  JsonArray *att = json_object_get_array_member(o, "attackers");
  g_assert_cmpuint(json_array_get_length(att), ==, 3);
  g_assert_cmpint(json_array_get_int_element(att, 0), ==, 0);
  g_assert_cmpint(json_array_get_int_element(att, 1), ==, 5);
  g_assert_cmpint(json_array_get_int_element(att, 2), ==, 12);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "victims")), ==, 12);
  g_object_unref(parser);
  cli_run_clear(&a);
  cli_run_clear(&b);
}

static void expect_usage(const char *const *args, const char *needle) {
  CliRun r = cli_run_v(args);
  g_assert_cmpint(r.status, ==, 2);
  if (strstr(r.err, needle) == NULL)
    g_error("stderr '%s' lacks '%s'", r.err, needle);
  g_assert_cmpstr(r.out, ==, "");
  cli_run_clear(&r);
}

#define GRAMMAR                                                                                    \
  "(expected all (every node in turn, alone), or node ids joined by '+' into one collusion "       \
  "set, sets separated by ',': 0, 0+5 or 0+5,7)"

static void test_refused(void) {
  const char *acc[][2] = {
      {"0;8", "--attackers: '0;8' is not a node id " GRAMMAR},
      {"0+x", "--attackers: 'x' is not a node id " GRAMMAR},
      {"all,3", "--attackers: 'all' stands alone: it already takes every node in turn " GRAMMAR},
      {"0,", "--attackers: '' is not a node id " GRAMMAR},
      {"2+2", "--attackers: node 2 appears twice in the collusion set '2+2'"},
      {"0+20", "--attackers: node 20 is out of range: graph 'florentine' has 15 nodes (0 to 14)"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(acc); i++)
    expect_usage((const char *const[]){ACCOUNT, "-a", acc[i][0], NULL}, acc[i][1]);
  expect_usage((const char *const[]){ACCOUNT, "-a", "all", "-a", "3", NULL},
               "--attackers: 'all' stands alone");
  expect_usage((const char *const[]){ACCOUNT, "-a", "5+0", "-a", "0+5", NULL},
               "--attackers: the set '0+5' is given twice");
  char *dir = test_tmpdir("att");
  char *svg = g_build_filename(dir, "f.svg", NULL);
  expect_usage((const char *const[]){PVD, FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0;8",
                                     "--out", svg, NULL},
               "--attackers: '0;8' is not a node id " GRAMMAR);
  expect_usage((const char *const[]){PVD, FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "all,1",
                                     "--out", svg, NULL},
               "--attackers: 'all' stands alone");
  g_assert_false(g_file_test(svg, G_FILE_TEST_EXISTS));
  g_free(svg);
  g_rmdir(dir);
  g_free(dir);
}

/* figure: "all" and the nodes listed give the same data file; a '+' set
 * with its members in either order too (the sets keep their order: the
 * means are summed set after set). */
static void test_figure(void) {
  char *dir = test_tmpdir("att");
  char *list = every_node(15);
  const char *specs[][2] = {{"all", list}, {"3+11,0", "11 + 3, 0"}};
  for (guint i = 0; i < G_N_ELEMENTS(specs); i++) {
    char *text[2];
    for (guint k = 0; k < 2; k++) {
      char *svg = g_build_filename(dir, "f.svg", NULL), *csv = g_build_filename(dir, "f.csv", NULL);
      CliRun r = cli_run(PVD, FLORENTINE, "-T", "4", "--trust", "pndp", "-a", specs[i][k], "--out",
                         svg, "--data", csv);
      g_assert_cmpint(r.status, ==, 0);
      cli_run_clear(&r);
      g_assert_true(g_file_get_contents(csv, &text[k], NULL, NULL));
      g_unlink(svg);
      g_unlink(csv);
      g_free(svg);
      g_free(csv);
    }
    g_assert_cmpstr(text[0], ==, text[1]);
    g_free(text[0]);
    g_free(text[1]);
  }
  g_free(list);
  g_rmdir(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/attackers/account-all", test_account_all);
  g_test_add_func("/cli/attackers/account-collusion", test_account_collusion);
  g_test_add_func("/cli/attackers/refused", test_refused);
  g_test_add_func("/cli/attackers/figure", test_figure);
  return g_test_run();
}
