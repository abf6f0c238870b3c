/*
 * tests/cli/test_account_golden.c: `dpgossip account`'s outputs, byte for
 * byte, on the invocations of tests/data/account-golden/cases.txt (tables,
 * JSON and CSV; structured and observer paths; schedules, links, Muffliato,
 * MF-D-SGD, Zip-DL; and its usage and run errors with their statuses). The
 * files were written by the command before its main function was split into
 * parse -> validate -> plan -> execute -> print: the split must
 * not change a byte.
 *
 * cases.txt: one case a line, NAME|STATUS|ARGS (ARGS split on spaces);
 * NAME.out is the expected stdout, NAME.err the expected stderr (a missing
 * file: empty). After an intended change of the output, re-record them
 * from tests/data/account-golden (and review the diff):
 *   while IFS='|' read name st args; do build/dpgossip account $args >$name.out \
 *     2>$name.err; [ -s $name.err ] || rm $name.err; [ -s $name.out ] || rm $name.out; \
 *   done < cases.txt
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/run.h"

/* Numbers may differ from the recorded ones in their last bits: OpenBLAS picks
 * its kernels for the CPU it runs on, so a reduction's rounding follows the
 * machine (the files were recorded on one, CI may run on another). Everything
 * else, and every number to this relative precision, must be identical. */
#define NUMBER_RTOL 1e-11

static gboolean starts_number(const char *p) {
  if (*p == '-' || *p == '+')
    p++;
  return g_ascii_isdigit(*p) || (*p == '.' && g_ascii_isdigit(p[1]));
}

/* TRUE when @got and @want are the same text up to numbers that agree to
 * NUMBER_RTOL; a number is compared only where both texts have one at the
 * same place after an identical prefix, so a digit can never stand in for
 * a word. */
static gboolean same_output(const char *got, const char *want) {
  const char *a = got, *b = want;
  while (*a && *b) {
    gboolean boundary = a == got || !(g_ascii_isalnum(a[-1]) || a[-1] == '_');
    if (boundary && starts_number(a) && starts_number(b)) {
      char *ea, *eb;
      double x = g_ascii_strtod(a, &ea), y = g_ascii_strtod(b, &eb);
      if (ea == a || eb == b)
        return FALSE;
      double scale = MAX(fabs(x), fabs(y));
      if (!(x == y || fabs(x - y) <= NUMBER_RTOL * scale))
        return FALSE;
      a = ea;
      b = eb;
      continue;
    }
    if (*a++ != *b++)
      return FALSE;
  }
  return *a == *b;
}

static char *read_or_empty(const char *dir, const char *name, const char *ext) {
  char *file = g_strdup_printf("%s.%s", name, ext);
  char *path = g_build_filename(dir, file, NULL);
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    text = g_strdup("");
  g_free(path);
  g_free(file);
  return text;
}

static void test_golden(void) {
  char *dir = cli_test_data_path("account-golden");
  char *cases_path = g_build_filename(dir, "cases.txt", NULL);
  char *cases = NULL;
  g_assert_true(g_file_get_contents(cases_path, &cases, NULL, NULL));
  char **lines = g_strsplit(cases, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i] != NULL; i++) {
    if (lines[i][0] == '\0')
      continue;
    char **f = g_strsplit(lines[i], "|", 3);
    g_assert_cmpuint(g_strv_length(f), ==, 3);
    char **args = g_strsplit(f[2], " ", -1);
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, "account");
    for (guint k = 0; args[k] != NULL; k++)
      g_ptr_array_add(argv, args[k]);
    g_ptr_array_add(argv, NULL);
    CliRun r = cli_run_v((const char *const *)argv->pdata);
    char *want_out = read_or_empty(dir, f[0], "out"), *want_err = read_or_empty(dir, f[0], "err");
    if (r.status != atoi(f[1]) || !same_output(r.out, want_out) || !same_output(r.err, want_err))
      g_error("case %s: status %d (want %s)\n--- stdout:\n%s\n--- want:\n%s\n--- stderr:\n%s\n"
              "--- want:\n%s",
              f[0], r.status, f[1], r.out, want_out, r.err, want_err);
    g_free(want_out);
    g_free(want_err);
    cli_run_clear(&r);
    g_ptr_array_free(argv, TRUE);
    g_strfreev(args);
    g_strfreev(f);
    n++;
  }
  g_assert_cmpuint(n, >=, 30);
  /* The comparison itself: last bits pass, a digit or a word that moved does not. */
  g_assert_true(same_output("mu 1.6696276044550065, eps 8.8591678449656",
                            "mu 1.6696276044550062, eps 8.8591678449656"));
  g_assert_false(same_output("mu 1.6696276044, n 3", "mu 1.6696276045, n 3"));
  g_assert_false(same_output("x2 = 1", "x3 = 1"));
  g_assert_false(same_output("status ok", "status ok "));
  g_strfreev(lines);
  g_free(cases);
  g_free(cases_path);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/account/golden", test_golden);
  return g_test_run();
}
