/*
 * tests/cli/test_help_lists.c: what the help and the error messages list
 * is what the tables hold: every trust model of privacy/trust.c's table in
 * each command's --trust help, every protocol of the registry in
 * --list-protocols and in the unknown-protocol message, every schedule kind
 * of the unknown-schedule message in the scenario schema's help. A row
 * added to a table and missed by a help text fails here, naming both.
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
  /* A name no row has is refused with the table's list. */
  CliRun r = cli_run("account", "--generate", "florentine", "-T", "2", "-a", "0", "--trust",
                     "nosuch");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, prose));
  cli_run_clear(&r);
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

/* The schedule kinds the parser names in its refusal are the ones the
 * scenario schema documents (`dpgossip validate --keys`). */
static void test_schedules(void) {
  CliRun bad = cli_run("account", "--generate", "florentine", "-T", "2", "-a", "0", "--trust",
                       "pndp", "--schedule", "nosuch");
  g_assert_cmpint(bad.status, ==, 2);
  const char *open = strstr(bad.err, "(valid: ");
  g_assert_nonnull(open);
  open += strlen("(valid: ");
  char *list = g_strndup(open, strcspn(open, ")"));
  CliRun keys = cli_run("validate", "--keys");
  g_assert_cmpint(keys.status, ==, 0);
  char *schema = line_with(keys.out, "  schedule ");
  g_assert_nonnull(schema);
  char **kinds = g_strsplit(list, ", ", -1);
  for (guint i = 0; kinds[i] != NULL; i++) {
    /* The kind's name: up to its first ':' or '['. */
    char *name = g_strndup(kinds[i], strcspn(kinds[i], ":["));
    if (strstr(schema, name) == NULL)
      g_error("validate --keys: the schedule key '%s' lacks the kind '%s'", schema, name);
    g_free(name);
  }
  g_strfreev(kinds);
  g_free(schema);
  g_free(list);
  cli_run_clear(&keys);
  cli_run_clear(&bad);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/help_lists/trust", test_trust_models);
  g_test_add_func("/cli/help_lists/protocols", test_protocols);
  g_test_add_func("/cli/help_lists/schedules", test_schedules);
  return g_test_run();
}
