/*
 * tests/cli/test_help_lists.c: what the help and the error messages list
 * is what the tables hold: every trust model of privacy/trust.c's table in
 * each command's --trust help, every protocol of the registry in
 * --list-protocols and in the unknown-protocol message, exactly the schedule
 * kinds of topologies/schedule.c's table in the unknown-schedule message,
 * each command's --schedule help and the scenario schema's help. A row
 * added to a table and missed by a help text fails here, naming both. The
 * Python package's help is held to the same lists by
 * tests/python/test_help_lists.py (python cannot load the sanitizer build's
 * library, which runs this test).
 */
#include <string.h>

#include "privacy/privacy.h"
#include "protocols/plugin.h"
#include "protocols/protocols.h"
#include "tests/common/run.h"

/* The line of @text that holds @needle (g_free), or NULL. */
static char *line_with(const char *text, const char *needle) {
  const char *at = strstr(text, needle);
  if (at == NULL)
    return NULL;
  const char *start = at;
  while (start > text && start[-1] != '\n')
    start--;
  return g_strndup(start, strcspn(start, "\n"));
}

/* `dpgossip CMD --help`'s line of the option @opt (e.g. "--trust="). */
static char *help_line(const char *cmd, const char *opt) {
  CliRun r = cli_run(cmd, "--help");
  g_assert_cmpint(r.status, ==, 0);
  char *line = line_with(r.out, opt);
  if (line == NULL)
    g_error("dpgossip %s --help has no %s", cmd, opt);
  cli_run_clear(&r);
  return line;
}

static void test_trust_models(void) {
  guint n;
  const PrivTrustModel *m = priv_trust_models(&n);
  g_assert_cmpuint(n, >=, 3);
  /* The lists as the help texts write them, built from the table. */
  char *prose = priv_trust_list(", ", " or ");
  char *bars = priv_trust_list("|", "|");
  char *account = help_line("account", "--trust=");
  char *want = g_strdup_printf("Trust model: %s,", prose);
  if (strstr(account, want) == NULL)
    g_error("account --help: '%s' lacks '%s'", account, want);
  char *audit = help_line("audit", "--trust=");
  if (strstr(audit, bars) == NULL)
    g_error("audit --help: '%s' lacks '%s'", audit, bars);
  char *train = help_line("train", "--trust=");
  for (guint i = 0; i < n; i++) {
    if (strstr(train, m[i].name) == NULL)
      g_error("train --help: '%s' lacks the trust model '%s'", train, m[i].name);
    /* Each row is whole: the front ends print these words. */
    g_assert_nonnull(m[i].meaning);
    g_assert_true(g_str_has_prefix(m[i].observer, "trust ") &&
                  strstr(m[i].observer, m[i].name) != NULL);
    g_assert_true(g_str_has_prefix(m[i].structured, "trust ") &&
                  strstr(m[i].structured, m[i].name) != NULL);
    g_assert_true(priv_trust_model(m[i].trust) == &m[i]);
    PrivTrust t;
    g_assert_true(priv_trust_parse(m[i].name, &t, NULL) && t == m[i].trust);
  }
  /* A name no row has is refused with the table's list, and so is a missing
   * one; a scenario's privacy.trust takes its names from the table too. */
  CliRun r = cli_run("account", "--generate", "florentine", "-T", "2", "-a", "0", "--trust",
                     "nosuch");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, prose));
  cli_run_clear(&r);
  r = cli_run("account", "--generate", "florentine", "-T", "2", "-a", "0");
  g_assert_cmpint(r.status, ==, 2);
  char *required = g_strdup_printf("--trust is required: %s\n", prose);
  if (strstr(r.err, required) == NULL)
    g_error("the missing --trust message lacks '%s': %s", prose, r.err);
  g_free(required);
  cli_run_clear(&r);
  char *commas = priv_trust_list(", ", ", ");
  char *scenario = g_build_filename(g_getenv("DPG_SOURCE_DIR"), "scenarios", "default.ini", NULL);
  r = cli_run("validate", scenario, "--set", "privacy.trust=nosuch");
  g_assert_cmpint(r.status, ==, 1);
  char *valid = g_strdup_printf("unknown value 'nosuch' (valid: %s)", commas);
  if (strstr(r.err, valid) == NULL)
    g_error("privacy.trust's message lacks '%s': %s", valid, r.err);
  cli_run_clear(&r);
  g_free(valid);
  g_free(scenario);
  g_free(commas);
  g_free(train);
  g_free(audit);
  g_free(want);
  g_free(account);
  g_free(bars);
  g_free(prose);
}

static void test_protocols(void) {
  guint n;
  const ProtoVTable **list = proto_registry_list(&n);
  g_assert_cmpuint(n, >=, 1);
  CliRun listed = cli_run("train", "--list-protocols");
  g_assert_cmpint(listed.status, ==, 0);
  CliRun unknown = cli_run("account", "--generate", "florentine", "-T", "2", "-a", "0", "--trust",
                           "pndp", "--protocol", "nosuch");
  g_assert_cmpint(unknown.status, ==, 2);
  char *valid = line_with(unknown.err, "(valid: ");
  g_assert_nonnull(valid);
  /* The --protocol help and the schema's protocol.name list the registry. */
  char *names = proto_registry_names();
  char *option = help_line("account", "--protocol=");
  if (strstr(option, names) == NULL)
    g_error("account --help: '%s' lacks the registry's '%s'", option, names);
  CliRun keys = cli_run("validate", "--keys");
  g_assert_cmpint(keys.status, ==, 0);
  char *want = g_strdup_printf("  name                     dsgd             %s; ", names);
  if (strstr(keys.out, want) == NULL)
    g_error("validate --keys: protocol.name lacks the registry's '%s':\n%s", names, keys.out);
  g_free(want);
  cli_run_clear(&keys);
  g_free(option);
  g_free(names);
  for (guint i = 0; i < n; i++) {
    if (!proto_registry_is_builtin(list[i]))
      continue;
    char *row = g_strdup_printf("\n%s", list[i]->name);
    if (strstr(listed.out, row) == NULL && !g_str_has_prefix(listed.out, row + 1))
      g_error("--list-protocols lacks '%s':\n%s", list[i]->name, listed.out);
    if (strstr(valid, list[i]->name) == NULL)
      g_error("the unknown-protocol message lacks '%s': %s", list[i]->name, valid);
    g_free(row);
  }
  g_free(valid);
  g_free(list);
  cli_run_clear(&unknown);
  cli_run_clear(&listed);
}

/* The distinct kind names of a list of schedule specs as the help texts
 * write it, "static, resample:GENSPEC, matching (a note, with commas), ...,
 * churn:FILE or churn:trace=FILE[,format=..]; a tail": notes in parentheses
 * and the tail after the list dropped, items split at ", " and " or ", each
 * name up to its first ':' or '['. A g_strv, in the list's order. */
static char **kind_names(const char *list) {
  GString *bare = g_string_new(NULL);
  int depth = 0;
  for (const char *p = list; *p != '\0'; p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    else if (depth == 0 && *p == ';')
      break;
    else if (depth == 0)
      g_string_append_c(bare, *p);
  }
  GPtrArray *names = g_ptr_array_new();
  char **items = g_strsplit(bare->str, ", ", -1);
  for (guint i = 0; items[i] != NULL; i++) {
    char **alt = g_strsplit(items[i], " or ", -1);
    for (guint j = 0; alt[j] != NULL; j++) {
      char *name = g_strstrip(g_strndup(alt[j], strcspn(alt[j], ":[")));
      gboolean seen = name[0] == '\0';
      for (guint k = 0; k < names->len && !seen; k++)
        seen = g_str_equal(g_ptr_array_index(names, k), name);
      if (seen)
        g_free(name);
      else
        g_ptr_array_add(names, name);
    }
    g_strfreev(alt);
  }
  g_strfreev(items);
  g_string_free(bare, TRUE);
  g_ptr_array_add(names, NULL);
  return (char **)g_ptr_array_free(names, FALSE);
}

static void expect_kinds(const char *where, const char *list, const char *const *table) {
  char **names = kind_names(list);
  char *got = g_strjoinv(" ", names), *want = g_strjoinv(" ", (char **)table);
  if (!g_str_equal(got, want))
    g_error("%s lists the schedule kinds '%s', the table has '%s' (in: %s)", where, got, want,
            list);
  g_free(got);
  g_free(want);
  g_strfreev(names);
}

/* Every schedule list the user reads names exactly the kinds of the
 * schedule table, in its order, and the parser takes each of them. */
static void test_schedules(void) {
  const char *const *table = topo_schedule_kind_names();
  /* The table itself, against the kinds topo_schedule_new documents. */
  const char *const documented[] = {"static",       "resample", "matching", "exponential",
                                    "edge-failure", "churn",    NULL};
  g_assert_cmpuint(g_strv_length((char **)table), ==, G_N_ELEMENTS(documented) - 1);
  for (guint i = 0; documented[i] != NULL; i++)
    g_assert_cmpstr(table[i], ==, documented[i]);
  CliRun bad = cli_run("account", "--generate", "florentine", "-T", "2", "-a", "0", "--trust",
                       "pndp", "--schedule", "nosuch");
  g_assert_cmpint(bad.status, ==, 2);
  const char *open = strstr(bad.err, "(valid: ");
  g_assert_nonnull(open);
  char *list = g_strndup(open + strlen("(valid: "), strcspn(open, "\n") - strlen("(valid: ") - 1);
  expect_kinds("the unknown-schedule message", list, table);
  g_free(list);
  cli_run_clear(&bad);
  const char *const cmds[] = {"account", "train", "audit"};
  for (guint c = 0; c < G_N_ELEMENTS(cmds); c++) {
    CliRun h = cli_run(cmds[c], "--help");
    g_assert_cmpint(h.status, ==, 0);
    char *line = line_with(h.out, "--schedule=SPEC");
    if (line == NULL)
      g_error("dpgossip %s --help has no --schedule", cmds[c]);
    const char *text = strstr(line, "(default static): ");
    g_assert_nonnull(text);
    expect_kinds(line, text + strlen("(default static): "), table);
    g_free(line);
    cli_run_clear(&h);
  }
  CliRun keys = cli_run("validate", "--keys");
  g_assert_cmpint(keys.status, ==, 0);
  char *schema = line_with(keys.out, "  schedule ");
  g_assert_nonnull(schema);
  const char *text = strstr(schema, "static ");
  g_assert_nonnull(text);
  expect_kinds("validate --keys", g_strchug((char *)text + strlen("static ")), table);
  g_free(schema);
  cli_run_clear(&keys);
  /* The parser takes every name the table lists (an argument may be missing). */
  for (guint i = 0; table[i] != NULL; i++) {
    CliRun r = cli_run("account", "--generate", "florentine", "-T", "2", "-a", "0", "--trust",
                       "pndp", "--schedule", table[i]);
    if (strstr(r.err, "unknown schedule") != NULL)
      g_error("--schedule %s: %s", table[i], r.err);
    cli_run_clear(&r);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/help_lists/trust", test_trust_models);
  g_test_add_func("/cli/help_lists/protocols", test_protocols);
  g_test_add_func("/cli/help_lists/schedules", test_schedules);
  return g_test_run();
}
