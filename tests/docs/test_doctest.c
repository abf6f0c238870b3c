/*
 * tests/docs/test_doctest.c: the console blocks of README.md and docs/ (every .md)
 * print what the binary prints today.
 *
 * A ```console block must follow a marker line (an HTML comment, invisible
 * on the rendered page):
 *
 *   <!-- doctest -->                the block is run and compared
 *   <!-- doctest exit=1 -->         ... and its commands exit with status 1
 *   <!-- doctest $ COMMAND -->      the block is COMMAND's output alone
 *   <!-- doctest skip: REASON -->   shown, not run (the test lists it)
 *   <!-- doctest rel=R on WORD: REASON -->
 *                                   ... and on the lines whose first word is
 *                                   WORD, numbers also match within R of
 *                                   their value (relative): for a result
 *                                   that rounding moves by more than its
 *                                   printed digits, e.g. a non-convex fit
 *
 * In a run block, a line "$ COMMAND" (continued by trailing backslashes)
 * runs with /bin/sh in a fresh folder laid out as the repository root
 * (test_repository_root: build/dpgossip, and dpgossip on PATH, are the
 * built binary); the lines up to the next "$ " are its expected stdout
 * (stderr, the progress and warnings, is not compared). The comparison:
 * - whitespace runs count as one space, trailing blanks are ignored;
 * - a number matches any number that rounds to it: within half a unit of
 *   its last printed digit (6172.78 matches [6172.775, 6172.785]);
 * - a line "..." stands for any lines (none included), a word "..." for
 *   any words of a line, "..." inside a word for any characters: the
 *   explicit mask of what varies (timings, paths) or is left out;
 * - everything else is exact text.
 * A console block without a marker, a marker before another block, and a
 * text or untyped block that starts with "$ " (a console block in
 * disguise) are errors: no shown output escapes the check.
 */
#include <math.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

/* The documents checked; each must hold at least one run block (issue 36:
 * "the doc test covers ..."). Every other .md of docs/ is checked too. */
static const char *const covered[] = {"README.md", "docs/guide.md", "docs/audits.md",
                                      "docs/results.md", "docs/local-bounds.md"};

typedef struct {
  char *where;       /* FILE:LINE of the opening fence */
  char *skip;        /* the reason it is not run, or NULL */
  int exit_status;   /* every command's expected exit status */
  char *hidden;      /* the marker's command, or NULL */
  double rel;        /* rel=R: the relative slack of the lines below, or 0 */
  char *rel_word;    /* ... on the lines whose first word is this */
  GPtrArray *cmds;   /* char*: the commands */
  GPtrArray *expect; /* char*: the expected stdout of each command, '\n'-joined */
} DocBlock;

static void doc_block_free(gpointer p) {
  DocBlock *b = p;
  g_free(b->where);
  g_free(b->skip);
  g_free(b->hidden);
  g_free(b->rel_word);
  g_ptr_array_unref(b->cmds);
  g_ptr_array_unref(b->expect);
  g_free(b);
}

/* Parses a marker line into @b; FALSE when @line is not a doctest marker. */
static gboolean marker_parse(const char *line, DocBlock *b, GString *errors, const char *where) {
  char *s = g_strstrip(g_strdup(line));
  gboolean ok = g_str_has_prefix(s, "<!--") && g_str_has_suffix(s, "-->");
  if (ok) {
    s[strlen(s) - 3] = '\0';
    char *body = g_strstrip(s + 4);
    ok = g_str_has_prefix(body, "doctest") && (body[7] == '\0' || body[7] == ' ');
    if (ok) {
      const char *p = body + strlen("doctest");
      while (*p == ' ')
        p++;
      if (g_str_has_prefix(p, "exit=")) {
        char *end;
        b->exit_status = (int)strtol(p + 5, &end, 10);
        p = end;
        while (*p == ' ')
          p++;
      }
      if (g_str_has_prefix(p, "rel=")) {
        /* "rel=R on WORD: REASON": a reason is required, as for skip */
        char *end;
        b->rel = g_ascii_strtod(p + 4, &end);
        const char *colon = strchr(end, ':');
        char *word = g_str_has_prefix(end, " on ") && colon != NULL
                         ? g_strstrip(g_strndup(end + 4, (gsize)(colon - end - 4)))
                         : NULL;
        const char *reason = colon != NULL ? colon + 1 : "";
        while (*reason == ' ')
          reason++;
        if (!(b->rel > 0 && b->rel < 1) || word == NULL || word[0] == '\0' ||
            strchr(word, ' ') != NULL || *reason == '\0') {
          g_string_append_printf(errors,
                                 "%s: doctest marker's rel= must read 'rel=R on WORD: REASON' "
                                 "with 0 < R < 1: %s\n",
                                 where, line);
          g_free(word);
          word = NULL;
        }
        b->rel_word = word;
      } else if (g_str_has_prefix(p, "skip:") && p[5] != '\0') {
        b->skip = g_strstrip(g_strdup(p + 5));
      } else if (g_str_has_prefix(p, "$ ")) {
        b->hidden = g_strdup(p + 2);
      } else if (*p != '\0') {
        g_string_append_printf(errors, "%s: doctest marker not understood: %s\n", where, line);
      }
    }
  }
  g_free(s);
  return ok;
}

/* The console blocks of @text (file name @file) as DocBlock*; problems are
 * appended to @errors, one line each. */
static GPtrArray *doc_parse(const char *file, const char *text, GString *errors) {
  GPtrArray *blocks = g_ptr_array_new_with_free_func(doc_block_free);
  char **lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++) {
    if (strstr(lines[i], "<!-- doctest") != NULL &&
        (lines[i + 1] == NULL || !g_str_has_prefix(lines[i + 1], "```")))
      g_string_append_printf(errors, "%s:%u: a doctest marker not right before a block\n", file,
                             i + 1);
    if (!g_str_has_prefix(lines[i], "```"))
      continue;
    const char *info = lines[i] + 3;
    guint open = i, end = i + 1;
    while (lines[end] != NULL && !g_str_equal(lines[end], "```"))
      end++;
    char *where = g_strdup_printf("%s:%u", file, open + 1);
    DocBlock *b = g_new0(DocBlock, 1);
    b->cmds = g_ptr_array_new_with_free_func(g_free);
    b->expect = g_ptr_array_new_with_free_func(g_free);
    b->where = where;
    GPtrArray *outs = g_ptr_array_new(); /* GString*, one per command */
    gboolean marked = open > 0 && marker_parse(lines[open - 1], b, errors, where);
    if (b->hidden != NULL) {
      g_ptr_array_add(b->cmds, g_strdup(b->hidden));
      g_ptr_array_add(outs, g_string_new(NULL));
    }
    gboolean console = g_str_equal(info, "console");
    const char *first = lines[open + 1] != NULL && open + 1 < end ? lines[open + 1] : "";
    if (!console && (*info == '\0' || g_str_equal(info, "text")) && g_str_has_prefix(first, "$ "))
      g_string_append_printf(errors, "%s: a block of commands and output: fence it ```console\n",
                             where);
    if (console && !marked)
      g_string_append_printf(errors,
                             "%s: console block without a marker (<!-- doctest --> to run it, "
                             "<!-- doctest skip: REASON --> to show it only)\n",
                             where);
    if (!console && marked)
      g_string_append_printf(errors, "%s: doctest marker before a block that is not console\n",
                             where);
    GString *cmd = g_string_new(NULL);
    for (guint k = open + 1; k < end && console && marked && b->skip == NULL; k++) {
      const char *l = lines[k];
      gboolean continued = cmd->len > 0;
      if (b->hidden != NULL && g_str_has_prefix(l, "$ ")) {
        g_string_append_printf(
            errors, "%s: \"$ \" lines in a block whose marker gives the command\n", where);
        break;
      }
      if (!continued && !g_str_has_prefix(l, "$ ")) {
        if (outs->len == 0) {
          g_string_append_printf(errors, "%s: output before the first \"$ \" command\n", where);
          break;
        }
        GString *o = g_ptr_array_index(outs, outs->len - 1);
        g_string_append(g_string_append(o, l), "\n");
        continue;
      }
      gsize n = strlen(l);
      const char *piece = continued ? l : l + 2;
      gsize len = continued ? n : n - 2;
      if (n > 0 && l[n - 1] == '\\') {
        g_string_append_len(cmd, piece, (gssize)len - 1);
        continue;
      }
      g_string_append_len(cmd, piece, (gssize)len);
      g_ptr_array_add(b->cmds, g_string_free(cmd, FALSE));
      g_ptr_array_add(outs, g_string_new(NULL));
      cmd = g_string_new(NULL);
    }
    g_string_free(cmd, TRUE);
    for (guint k = 0; k < outs->len; k++)
      g_ptr_array_add(b->expect, g_string_free(g_ptr_array_index(outs, k), FALSE));
    g_ptr_array_free(outs, TRUE);
    if (console && marked && b->skip == NULL && b->cmds->len == 0)
      g_string_append_printf(errors, "%s: a run block without a command\n", where);
    if (console && marked)
      g_ptr_array_add(blocks, b);
    else
      doc_block_free(b);
    i = lines[end] == NULL ? end - 1 : end;
  }
  g_strfreev(lines);
  return blocks;
}

/* Scans a number at @s: an optional sign, digits with an optional
 * fraction, an optional exponent. Sets @end past it, @value, and @half to
 * half a unit of its last digit. FALSE when no number starts at @s. */
static gboolean number_scan(const char *s, const char **end, double *value, double *half) {
  const char *p = s;
  if (*p == '+' || *p == '-')
    p++;
  int before = 0, after = 0, exponent = 0;
  while (g_ascii_isdigit(*p))
    p++, before++;
  if (*p == '.' && g_ascii_isdigit(p[1])) {
    p++;
    while (g_ascii_isdigit(*p))
      p++, after++;
  }
  if (before + after == 0)
    return FALSE;
  if ((*p == 'e' || *p == 'E') &&
      (g_ascii_isdigit(p[1]) || ((p[1] == '-' || p[1] == '+') && g_ascii_isdigit(p[2])))) {
    char *e;
    exponent = (int)strtol(p + 1, &e, 10);
    p = e;
  }
  char *copy = g_strndup(s, (gsize)(p - s));
  *value = g_ascii_strtod(copy, NULL);
  g_free(copy);
  *half = 0.5 * pow(10.0, exponent - after);
  *end = p;
  return TRUE;
}

/* Whether the printed word @a matches the document's word @e (no "..."):
 * the same text, numbers within half a unit of @e's last digit, or
 * within @rel of @e's value (relative; 0 outside a rel= line). */
static gboolean word_match(const char *e, const char *a, double rel) {
  while (*e != '\0' && *a != '\0') {
    const char *ee, *ae;
    double ev, eh, av, ah;
    gboolean en = number_scan(e, &ee, &ev, &eh), an = number_scan(a, &ae, &av, &ah);
    if (en != an)
      return FALSE;
    if (en) {
      /* @e stands for every value that rounds to it; the slack covers the
       * decimal-to-double rounding of the three numbers (a few ulps). */
      if (!(fabs(av - ev) <= eh + 8 * DBL_EPSILON * (fabs(ev) + eh) + rel * fabs(ev)))
        return FALSE;
      e = ee, a = ae;
      continue;
    }
    if (*e++ != *a++)
      return FALSE;
  }
  return *e == '\0' && *a == '\0';
}

/* @e with "..." inside a word: the parts around the first "..." are a
 * prefix and a suffix of @a (exact text). */
static gboolean word_match_masked(const char *e, const char *a, double rel) {
  const char *dots = strstr(e, "...");
  if (dots == NULL)
    return word_match(e, a, rel);
  gsize pre = (gsize)(dots - e), post = strlen(dots + 3), n = strlen(a);
  return n >= pre + post && strncmp(e, a, pre) == 0 && strcmp(dots + 3, a + n - post) == 0;
}

static gboolean words_match(char **e, char **a, double rel) {
  if (*e == NULL)
    return *a == NULL;
  if (g_str_equal(*e, "...")) {
    for (char **k = a;; k++) {
      if (words_match(e + 1, k, rel))
        return TRUE;
      if (*k == NULL)
        return FALSE;
    }
  }
  return *a != NULL && word_match_masked(*e, *a, rel) && words_match(e + 1, a + 1, rel);
}

static char **words(const char *line) {
  char **w = g_strsplit_set(line, " \t", -1);
  guint j = 0;
  for (guint i = 0; w[i] != NULL; i++) {
    if (w[i][0] == '\0')
      g_free(w[i]);
    else
      w[j++] = w[i];
  }
  w[j] = NULL;
  return w;
}

/* The relative slack of a block's rel= marker, and the lines it covers. */
typedef struct {
  double rel;
  const char *first; /* the first word of the lines it covers, or NULL */
} Slack;

static gboolean line_match(const char *e, const char *a, const Slack *slack) {
  char **we = words(e), **wa = words(a);
  gboolean covered = slack->first != NULL && we[0] != NULL && g_str_equal(we[0], slack->first);
  gboolean ok = words_match(we, wa, covered ? slack->rel : 0.0);
  g_strfreev(we);
  g_strfreev(wa);
  return ok;
}

static gboolean lines_match(char **e, char **a, const Slack *slack) {
  if (*e == NULL)
    return *a == NULL;
  char *t = g_strstrip(g_strdup(*e));
  gboolean dots = g_str_equal(t, "...");
  g_free(t);
  if (dots) {
    for (char **k = a;; k++) {
      if (lines_match(e + 1, k, slack))
        return TRUE;
      if (*k == NULL)
        return FALSE;
    }
  }
  return *a != NULL && line_match(*e, *a, slack) && lines_match(e + 1, a + 1, slack);
}

/* @text's lines without trailing blanks or trailing empty lines. */
static char **text_lines(const char *text) {
  char **l = g_strsplit(text, "\n", -1);
  guint n = 0;
  for (guint i = 0; l[i] != NULL; i++, n++)
    g_strchomp(l[i]);
  while (n > 0 && l[n - 1][0] == '\0') {
    g_free(l[--n]);
    l[n] = NULL;
  }
  return l;
}

/* Whether the printed @actual matches the document's @expected, numbers
 * on @slack's lines within its relative slack too. */
static gboolean output_match_slack(const char *expected, const char *actual, const Slack *slack) {
  char **e = text_lines(expected), **a = text_lines(actual);
  gboolean ok = lines_match(e, a, slack);
  g_strfreev(e);
  g_strfreev(a);
  return ok;
}

static gboolean output_match(const char *expected, const char *actual) {
  const Slack none = {0.0, NULL};
  return output_match_slack(expected, actual, &none);
}

/* Runs @b's commands in @root; a mismatch is appended to @failures. */
static void block_run(const DocBlock *b, const char *root, const char *bin, GString *failures) {
  char *bindir = g_path_get_dirname(bin);
  char *path = g_strdup_printf("%s:%s", bindir,
                               g_getenv("PATH") ? g_getenv("PATH") : "/usr/bin:/bin");
  char **env = g_environ_setenv(g_get_environ(), "PATH", path, TRUE);
  for (guint i = 0; i < b->cmds->len; i++) {
    const char *cmd = g_ptr_array_index(b->cmds, i), *expect = g_ptr_array_index(b->expect, i);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    char *out = NULL, *err = NULL;
    int wait_status = 0;
    GError *error = NULL;
    gint64 t0 = g_get_monotonic_time();
    g_spawn_sync(root, (char **)argv, env, G_SPAWN_DEFAULT, cli_run_die_with_test, NULL, &out, &err, &wait_status,
                 &error);
    g_assert_no_error(error);
    g_print("# %s: %.1f s: %s\n", b->where, (g_get_monotonic_time() - t0) / 1e6, cmd);
    int status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    if (status != b->exit_status)
      g_string_append_printf(failures, "%s: `%s` exited with %d, not %d:\n%s\n", b->where, cmd,
                             status, b->exit_status, err);
    else if (!output_match_slack(expect, out, &(Slack){b->rel, b->rel_word}))
      g_string_append_printf(failures,
                             "%s: `%s` prints what the block does not show\n"
                             "--- the block\n%s--- printed\n%s---\n",
                             b->where, cmd, expect, out);
    g_free(out);
    g_free(err);
  }
  g_strfreev(env);
  g_free(path);
  g_free(bindir);
}

static void test_match(void) {
  g_assert_true(output_match("blt 6172.78 2.83231\n", "blt   6172.780831   2.83231  \n"));
  g_assert_true(output_match("x 6172.78\n", "x 6172.775\n"));
  g_assert_false(output_match("x 6172.78\n", "x 6172.7749\n"));
  g_assert_false(output_match("x 6172.78\n", "x 6172.79\n")); /* one digit changed */
  g_assert_false(output_match("x 6172.78\n", "x 6172.7\n"));  /* fewer digits printed */
  g_assert_true(output_match("x 8.17e-5 5.7e4\n", "x 8.17033e-05 5.682e+04\n"));
  g_assert_false(output_match("x 8.17e-5\n", "x 8.18e-05\n"));
  g_assert_true(output_match("n 10 -3\n", "n 10.2 -3\n"));
  g_assert_false(output_match("n 10\n", "n 11\n"));
  g_assert_false(output_match("regular:n=1000\n", "regular:n=1001\n"));
  g_assert_false(output_match("mu 2\n", "mu 2 overstated\n"));
  g_assert_false(output_match("status ok\n", "status bad\n"));
  /* the masks */
  g_assert_true(output_match("a\n...\nz\n", "a\nb\nc\nz\n"));
  g_assert_true(output_match("a\n...\nz\n", "a\nz\n"));
  g_assert_false(output_match("a\n...\nz\n", "a\nb\n"));
  g_assert_true(output_match("  ...\n", "anything\nat all\n"));
  g_assert_true(output_match("cpu ... wall\n", "cpu 0.3 s over 1.2 s wall\n"));
  g_assert_true(output_match("blt 6166.75 ...\n", "blt 6166.753477 0.386\n"));
  g_assert_true(output_match("results: /tmp/...\n", "results: /tmp/dpg-x1\n"));
  g_assert_false(output_match("results: /tmp/...\n", "results: /var/x\n"));
  g_assert_false(output_match("a\nb\n", "a\nb\nc\n"));
  /* rel=: relative slack on the lines of one first word, only there */
  const Slack blt = {2e-3, "blt"};
  g_assert_true(output_match_slack("blt 6166.75 2.82966\n", "blt 6172.78 2.83231\n", &blt));
  g_assert_false(output_match_slack("blt 6166.75\n", "blt 6180\n", &blt)); /* 2.2e-3 */
  g_assert_false(output_match_slack("bsr 6166.75\n", "bsr 6172.78\n", &blt));
  g_assert_false(output_match_slack("blt 6166.75 ok\n", "blt 6166.75 bad\n", &blt));
  g_assert_true(output_match("a\n\n", "a\n\n\n"));
}

static void test_parse(void) {
  GString *errors = g_string_new(NULL);
  GPtrArray *b = doc_parse("d.md",
                           "x\n<!-- doctest -->\n```console\n$ dpgossip a \\\n  --b\nout 1\n"
                           "\n$ dpgossip c\nout 2\n```\n<!-- doctest skip: too slow -->\n"
                           "```console\n$ dpgossip big\n```\n<!-- doctest exit=1 $ dpgossip h -->\n"
                           "```console\nhidden 3\n```\n```sh\n$ not checked\n```\n"
                           "<!-- doctest rel=2e-3 on blt: a fit -->\n```console\n$ x\nblt 1\n```\n",
                           errors);
  g_assert_cmpstr(errors->str, ==, "");
  g_assert_cmpuint(b->len, ==, 4);
  DocBlock *b0 = g_ptr_array_index(b, 0), *b1 = g_ptr_array_index(b, 1),
           *b2 = g_ptr_array_index(b, 2);
  g_assert_cmpstr(b0->where, ==, "d.md:3");
  g_assert_cmpuint(b0->cmds->len, ==, 2);
  g_assert_cmpstr(g_ptr_array_index(b0->cmds, 0), ==, "dpgossip a   --b");
  g_assert_cmpstr(g_ptr_array_index(b0->expect, 0), ==, "out 1\n\n");
  g_assert_cmpstr(g_ptr_array_index(b0->cmds, 1), ==, "dpgossip c");
  g_assert_cmpstr(g_ptr_array_index(b0->expect, 1), ==, "out 2\n");
  g_assert_cmpstr(b1->skip, ==, "too slow");
  g_assert_cmpint(b2->exit_status, ==, 1);
  g_assert_cmpstr(g_ptr_array_index(b2->cmds, 0), ==, "dpgossip h");
  g_assert_cmpstr(g_ptr_array_index(b2->expect, 0), ==, "hidden 3\n");
  DocBlock *b3 = g_ptr_array_index(b, 3);
  g_assert_cmpfloat(b3->rel, ==, 2e-3);
  g_assert_cmpstr(b3->rel_word, ==, "blt");
  g_ptr_array_unref(b);
  /* what no block may do */
  const char *bad[] = {
      "```console\n$ dpgossip x\n```\n",                      /* unmarked */
      "<!-- doctest -->\n```sh\ndpgossip x\n```\n",           /* marker on a sh block */
      "```text\n$ dpgossip x\nout\n```\n",                    /* console in disguise */
      "```\n$ dpgossip x\n```\n",                             /* untyped, the same */
      "<!-- doctest -->\n```console\nout\n```\n",             /* output, no command */
      "<!-- doctest fast -->\n```console\n$ dpgossip\n```\n", /* unknown option */
      "<!-- doctest -->\n\n```console\n$ dpgossip\n```\n",    /* marker apart */
      "<!-- doctest rel=2e-3 on blt -->\n```console\n$ x\n```\n",    /* no reason */
      "<!-- doctest rel=2 on blt: r -->\n```console\n$ x\n```\n",    /* not below 1 */
      "<!-- doctest rel=2e-3: r -->\n```console\n$ x\n```\n",        /* no word */
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_string_truncate(errors, 0);
    g_ptr_array_unref(doc_parse("d.md", bad[i], errors));
    g_assert_cmpuint(errors->len, >, 0);
  }
  g_string_free(errors, TRUE);
}

static gint path_cmp(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_docs(void) {
  const char *src = g_getenv("DPG_SOURCE_DIR"), *bin = g_getenv("DPGOSSIP");
  g_assert_nonnull(src);
  g_assert_nonnull(bin);
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(files, g_strdup("README.md"));
  char *docs = g_build_filename(src, "docs", NULL);
  GDir *d = g_dir_open(docs, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    if (g_str_has_suffix(name, ".md"))
      g_ptr_array_add(files, g_strconcat("docs/", name, NULL));
  g_dir_close(d);
  g_free(docs);
  g_ptr_array_sort(files, path_cmp);

  GString *errors = g_string_new(NULL), *failures = g_string_new(NULL);
  char *root = test_repository_root(src, bin);
  guint run = 0, skipped = 0;
  for (guint f = 0; f < files->len; f++) {
    const char *file = g_ptr_array_index(files, f);
    char *p = g_build_filename(src, file, NULL), *text = NULL;
    g_assert_true(g_file_get_contents(p, &text, NULL, NULL));
    GPtrArray *blocks = doc_parse(file, text, errors);
    guint file_run = 0;
    for (guint i = 0; i < blocks->len; i++) {
      const DocBlock *b = g_ptr_array_index(blocks, i);
      if (b->skip != NULL) {
        g_print("# %s: skipped: %s\n", b->where, b->skip);
        skipped++;
        continue;
      }
      block_run(b, root, bin, failures);
      file_run++;
    }
    for (guint c = 0; c < G_N_ELEMENTS(covered); c++)
      if (g_str_equal(covered[c], file) && file_run == 0)
        g_string_append_printf(errors, "%s: no console block is run\n", file);
    run += file_run;
    g_ptr_array_unref(blocks);
    g_free(text);
    g_free(p);
  }
  g_print("# %u blocks run, %u skipped\n", run, skipped);
  test_rmtree(root);
  g_free(root);
  g_ptr_array_unref(files);
  if (errors->len > 0 || failures->len > 0)
    g_error("the documents and the binary disagree (the block must show what the binary prints "
            "today: update the document, or the binary if it is wrong):\n%s%s",
            errors->str, failures->str);
  g_string_free(errors, TRUE);
  g_string_free(failures, TRUE);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/docs/doctest/match", test_match);
  g_test_add_func("/docs/doctest/parse", test_parse);
  g_test_add_func("/docs/doctest/run", test_docs);
  return g_test_run();
}
