/*
 * cli/output.c: option parsing and output helpers shared by subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "spec/spec.h"

static const char *const format_names[] = {"table", "json", "csv"};

gboolean cli_format_parse(const char *name, guint allowed, CliFormat *out, GError **error) {
  for (guint f = 0; f < G_N_ELEMENTS(format_names); f++) {
    if ((allowed & (1u << f)) && strcmp(name, format_names[f]) == 0) {
      *out = (CliFormat)f;
      return TRUE;
    }
  }
  GString *valid = g_string_new(NULL);
  const char *choices[G_N_ELEMENTS(format_names)] = {NULL};
  for (guint f = 0; f < G_N_ELEMENTS(format_names); f++)
    if (allowed & (1u << f)) {
      g_string_append_printf(valid, "%s%s", valid->len ? ", " : "", format_names[f]);
      choices[f] = format_names[f];
    }
  char *hint = spec_did_you_mean(name, choices, G_N_ELEMENTS(choices));
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
              "--format: unknown format '%s' (valid: %s)%s", name, valid->str, hint);
  g_free(hint);
  g_string_free(valid, TRUE);
  return FALSE;
}

guint cli_edit_distance(const char *a, const char *b) {
  return spec_edit_distance(a, b);
}

/* The long option of @ctx nearest to @given ("--grph" -> "--graph"), or NULL
 * when none is within two edits. GOptionContext does not list its entries,
 * so the names are read off its full help text (every group's "--name"). */
static char *nearest_option(GOptionContext *ctx, const char *given) {
  char *help = g_option_context_get_help(ctx, FALSE, NULL);
  char *best = NULL;
  guint best_d = 3;
  for (const char *p = strstr(help, "--"); p != NULL; p = strstr(p, "--")) {
    if (p > help && p[-1] != ' ') {
      p += 2;
      continue;
    }
    gsize len = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
    char *name = g_strndup(p, len);
    guint d = len > 2 ? cli_edit_distance(given, name) : G_MAXUINT;
    if (d < best_d) {
      best_d = d;
      g_free(best);
      best = name;
    } else {
      g_free(name);
    }
    p += len;
  }
  g_free(help);
  return best;
}

void cli_parse_error(GOptionContext *ctx, const char *cmd, const GError *error) {
  char *hint = NULL;
  const char *opt = strstr(error->message, "--");
  if (g_error_matches(error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION) && opt != NULL) {
    char *given = g_strndup(opt, strcspn(opt, "= "));
    hint = nearest_option(ctx, given);
    g_free(given);
  }
  if (hint != NULL)
    fprintf(stderr, "dpgossip %s: %s; did you mean '%s'?\n", cmd, error->message, hint);
  else
    fprintf(stderr, "dpgossip %s: %s\n", cmd, error->message);
  fprintf(stderr, "(run 'dpgossip %s --help' for the options)\n", cmd);
  g_free(hint);
}

gboolean cli_parse(GOptionContext *ctx, int *argc, char ***argv) {
  GError *error = NULL;
  if (!g_option_context_parse(ctx, argc, argv, &error)) {
    cli_parse_error(ctx, (*argv)[0], error);
    g_error_free(error);
    return FALSE;
  }
  if (*argc > 1) {
    fprintf(stderr, "dpgossip %s: unexpected argument '%s'\n", (*argv)[0], (*argv)[1]);
    return FALSE;
  }
  return TRUE;
}

/* The policy of cli.h, decided for the library too by proto_error_status. */
int cli_error_status(const GError *e) {
  return proto_error_status(e, PROTO_FAILED_INPUT);
}

/* access(@dir, W_OK | X_OK) as a GError naming @option and @path. */
static gboolean writable_dir(const char *option, const char *path, const char *dir,
                             GError **error) {
  if (access(dir, W_OK | X_OK) == 0)
    return TRUE;
  int e = errno;
  g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
              "%s %s: cannot write in folder %s: %s", option, path, dir, g_strerror(e));
  return FALSE;
}

gboolean cli_output_check(const char *option, const char *path, gboolean is_dir, GError **error) {
  if (path == NULL || *path == '\0') {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: give a %s name", option,
                is_dir ? "folder" : "file");
    return FALSE;
  }
  char *dir = NULL;
  gboolean ok = TRUE;
  if (is_dir) {
    /* Created with its parents: the nearest existing ancestor decides. */
    dir = g_strdup(path);
    while (!g_file_test(dir, G_FILE_TEST_EXISTS)) {
      char *up = g_path_get_dirname(dir);
      g_free(dir);
      dir = up;
    }
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, "%s %s: %s is not a folder", option,
                  path, dir);
      ok = FALSE;
    }
  } else if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "%s %s: is a folder, not a file", option,
                path);
    ok = FALSE;
  } else {
    dir = g_path_get_dirname(path);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s %s: folder %s does not exist",
                  option, path, dir);
      ok = FALSE;
    } else if (g_file_test(path, G_FILE_TEST_EXISTS) && access(path, W_OK) != 0) {
      int e = errno;
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s %s: cannot write: %s",
                  option, path, g_strerror(e));
      ok = FALSE;
    }
  }
  ok = ok && writable_dir(option, path, dir, error);
  g_free(dir);
  return ok;
}

int cli_fail(const char *cmd, GError *error, int status) {
  fprintf(stderr, "dpgossip %s: %s\n", cmd, error != NULL ? error->message : "failed");
  g_clear_error(&error);
  return status;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "dpgossip %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(run 'dpgossip %s --help' for the options)\n", cmd);
  va_end(ap);
  return CLI_EXIT_USAGE;
}

gboolean cli_number_option(const char *option, const char *text, double *out, GError **error) {
  g_return_val_if_fail(option != NULL && out != NULL, FALSE);
  *out = NAN;
  if (text == NULL)
    return TRUE;
  char *end = NULL;
  double v = g_ascii_strtod(text, &end);
  if (end == text || *end != '\0' || isnan(v)) {
    char *shown = spec_escape(text, -1);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' is not a number",
                option, shown);
    g_free(shown);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean cli_count_option(const char *option, const char *text, guint *out, GError **error) {
  g_return_val_if_fail(option != NULL && out != NULL, FALSE);
  *out = 0;
  if (text == NULL)
    return TRUE;
  guint64 v = 0;
  if (strcmp(text, "all") == 0) {
    *out = PROTO_EVAL_ALL;
    return TRUE;
  }
  if (!g_ascii_string_to_unsigned(text, 10, 1, PROTO_EVAL_ALL - 1, &v, NULL)) {
    char *shown = spec_escape(text, -1);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "%s: '%s' is neither a positive integer below 2^32 - 1 nor all", option, shown);
    g_free(shown);
    return FALSE;
  }
  *out = (guint)v;
  return TRUE;
}

char *cli_eval_sample_text(const ProtoEvalSample *s) {
  g_return_val_if_fail(s != NULL, NULL);
  if (!s->sampled)
    return NULL;
  return g_strdup_printf("evaluation: %u of %u nodes on %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                         " test rows, drawn with seed %" G_GUINT64_FORMAT
                         " (--eval-nodes, --eval-rows; the means are over these nodes)",
                         s->nodes, s->n_nodes, s->rows, s->n_rows, s->seed);
}

gboolean cli_is_nonprivate(const char *spec) {
  return spec != NULL && strcmp(spec, CLI_NONPRIVATE) == 0;
}
