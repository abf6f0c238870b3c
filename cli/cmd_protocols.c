/*
 * cli/cmd_protocols.c: `dpgossip protocols [NAME]`: every protocol found
 * (built-in, and the plugins of the search path or --protocol-plugin) with
 * its parameters (name, type, default, range, help), or one protocol.
 * Plugins of the search path that fail to load are reported on stderr
 * (table) or under "skipped" (json); they never make the listing fail.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "protocols/protocols.h"

static gboolean has_range(const ProtoParamSpec *p) {
  return (p->type == PROTO_PARAM_INT || p->type == PROTO_PARAM_DOUBLE) && p->min <= p->max;
}

/* A bound as text: integers without exponent, '.' decimal point. */
static char *bound_text(double x) {
  if (isinf(x))
    return g_strdup(x > 0 ? "inf" : "-inf");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.15g", x));
}

static char *range_text(const ProtoParamSpec *p) {
  if (!has_range(p))
    return g_strdup("-");
  char *a = bound_text(p->min), *b = bound_text(p->max);
  char *s = g_strdup_printf("[%s, %s]", a, b);
  g_free(a);
  g_free(b);
  return s;
}

/* nonprivate is no registered protocol (it is dsgd with sigma = 0) but a
 * name every command takes: listed like one, without parameters. */
static const ProtoVTable nonprivate_vt = {.name = CLI_NONPRIVATE,
                                          .summary = CLI_NONPRIVATE_SUMMARY};

static const char *origin_kind(const ProtoVTable *vt) {
  if (vt == &nonprivate_vt)
    return "built-in";
  if (proto_plugin_origin(vt) != NULL)
    return "plugin";
  return proto_registry_is_builtin(vt) ? "built-in" : "in-process";
}

static void print_table(const ProtoVTable *vt) {
  const char *path = proto_plugin_origin(vt);
  printf("%s (%s%s%s)\n", vt->name, origin_kind(vt), path ? ": " : "", path ? path : "");
  if (vt->summary != NULL && vt->summary[0] != '\0')
    printf("  %s\n", vt->summary);
  if (vt->n_params == 0) {
    printf("  no parameters\n");
    return;
  }
  /* Column widths from the content, so long names never break alignment. */
  int wn = (int)strlen("PARAMETER"), wt = (int)strlen("TYPE"), wd = (int)strlen("DEFAULT"),
      wr = (int)strlen("RANGE");
  char **ranges = g_new0(char *, vt->n_params);
  for (guint i = 0; i < vt->n_params; i++) {
    const ProtoParamSpec *p = &vt->params[i];
    ranges[i] = range_text(p);
    wn = MAX(wn, (int)strlen(p->name));
    wt = MAX(wt, (int)strlen(proto_param_type_name(p->type)));
    wd = MAX(wd, (int)strlen(p->default_value ? p->default_value : "(none)"));
    wr = MAX(wr, (int)strlen(ranges[i]));
  }
  printf("  %-*s  %-*s  %-*s  %-*s  %s\n", wn, "PARAMETER", wt, "TYPE", wd, "DEFAULT", wr, "RANGE",
         "HELP");
  for (guint i = 0; i < vt->n_params; i++) {
    const ProtoParamSpec *p = &vt->params[i];
    printf("  %-*s  %-*s  %-*s  %-*s  %s\n", wn, p->name, wt, proto_param_type_name(p->type), wd,
           p->default_value ? p->default_value : "(none)", wr, ranges[i], p->help ? p->help : "");
    g_free(ranges[i]);
  }
  g_free(ranges);
}

static void add_bound(JsonBuilder *b, const char *key, double x, gboolean integer) {
  if (isinf(x))
    cli_json_string(b, key, x > 0 ? "inf" : "-inf");
  else if (integer && fabs(x) < 9e15)
    cli_json_int(b, key, (gint64)x);
  else
    cli_json_number(b, key, x);
}

static void add_protocol_json(JsonBuilder *b, const ProtoVTable *vt) {
  const char *path = proto_plugin_origin(vt);
  json_builder_begin_object(b);
  cli_json_string(b, "name", vt->name);
  cli_json_string(b, "summary", vt->summary ? vt->summary : "");
  cli_json_string(b, "origin", origin_kind(vt));
  cli_json_string(b, "path", path);
  cli_json_int(b, "abi_version", vt->abi_version);
  cli_json_begin_array(b, "parameters");
  for (guint i = 0; i < vt->n_params; i++) {
    const ProtoParamSpec *p = &vt->params[i];
    json_builder_begin_object(b);
    cli_json_string(b, "name", p->name);
    cli_json_string(b, "type", proto_param_type_name(p->type));
    cli_json_string(b, "default", p->default_value);
    if (has_range(p)) {
      cli_json_begin_object(b, "range");
      add_bound(b, "min", p->min, p->type == PROTO_PARAM_INT);
      add_bound(b, "max", p->max, p->type == PROTO_PARAM_INT);
      json_builder_end_object(b);
    } else {
      cli_json_null(b, "range");
    }
    cli_json_string(b, "help", p->help ? p->help : "");
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
}

/* Protocol @name alone (nonprivate included). */
static int show_one(const char *name, CliFormat format) {
  GError *error = NULL;
  const ProtoVTable *vt = cli_is_nonprivate(name) ? &nonprivate_vt : proto_registry_lookup(name);
  if (vt == NULL) {
    /* All plugins are loaded: proto_spec_parse words the error. */
    ProtoParams *params = NULL;
    gboolean parsed = proto_spec_parse(name, &vt, &params, &error);
    proto_params_free(params);
    if (!parsed || strchr(name, ':') != NULL) {
      if (error == NULL)
        g_set_error(&error, PROTO_ERROR, PROTO_ERROR_UNKNOWN,
                    "'%s' is a protocol spec; give the name only", name);
      return cli_fail("protocols", error, CLI_EXIT_USAGE);
    }
  }
  if (format == CLI_FORMAT_JSON) {
    JsonBuilder *b = json_builder_new();
    add_protocol_json(b, vt);
    cli_json_print(b);
  } else {
    print_table(vt);
  }
  return CLI_EXIT_OK;
}

/* Every protocol in name order, nonprivate among them (g_free); @n_builtin:
 * how many ship with dpgossip. */
static const ProtoVTable **list_all(guint *n_all, guint *n_builtin) {
  guint n = 0;
  *n_builtin = 1; /* nonprivate */
  const ProtoVTable **registered = proto_registry_list(&n);
  const ProtoVTable **all = g_new(const ProtoVTable *, n + 1);
  guint k = 0;
  for (guint i = 0; i < n; i++) {
    *n_builtin += proto_registry_is_builtin(registered[i]);
    /* In name order, as the registry lists. */
    if (k == i && strcmp(registered[i]->name, CLI_NONPRIVATE) > 0)
      all[k++] = &nonprivate_vt;
    all[k++] = registered[i];
  }
  if (k == n)
    all[k++] = &nonprivate_vt;
  *n_all = k;
  g_free(registered);
  return all;
}

/* Every protocol, the plugin folders and the plugins skipped. */
static void show_all(CliFormat format, char **dirs, const GPtrArray *failures) {
  guint n, n_builtin;
  const ProtoVTable **all = list_all(&n, &n_builtin);
  if (format == CLI_FORMAT_JSON) {
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    cli_json_begin_array(b, "protocols");
    for (guint i = 0; i < n; i++)
      add_protocol_json(b, all[i]);
    json_builder_end_array(b);
    cli_json_begin_array(b, "search_path");
    for (guint i = 0; dirs[i] != NULL; i++)
      cli_json_string(b, NULL, dirs[i]);
    json_builder_end_array(b);
    cli_json_begin_array(b, "skipped");
    for (guint i = 0; i < failures->len; i++) {
      const ProtoPluginFailure *f = failures->pdata[i];
      json_builder_begin_object(b);
      cli_json_string(b, "path", f->path);
      cli_json_string(b, "error", f->error->message);
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    cli_json_print(b);
  } else {
    for (guint i = 0; i < n; i++) {
      print_table(all[i]);
      printf("\n");
    }
    char *path = g_strjoinv(G_SEARCHPATH_SEPARATOR_S, dirs);
    printf("%u protocols (%u built-in, %u others); plugin folders: %s\n", n, n_builtin,
           n - n_builtin, path);
    g_free(path);
  }
  g_free(all);
}

int cli_cmd_protocols(int argc, char **argv) {
  char *format_name = NULL;
  CliPluginOptions popt = {0};
  GOptionEntry entries[] = {{"format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
                             "Output format: table (default) or json", "FORMAT"},
                            G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "[NAME] - list the protocols and their parameters",
      .entries = entries,
      .plugins = &popt,
      .operands = TRUE,
      .description = "Lists the built-in protocols and every plugin found: the files given with\n"
                     "--protocol-plugin, then every *.so of the folders in $" PROTO_PLUGIN_PATH_ENV
                     " (':'-separated)\n"
                     "and of the installed plugin folder. With NAME, shows that protocol only.\n"
                     "A protocol is used as --protocol NAME[:key=value,...] (docs/plugins.md).\n"};

  int status = CLI_EXIT_USAGE;
  GError *error = NULL;
  CliFormat format = CLI_FORMAT_TABLE;
  if (!cli_options_parse(&spec, &argc, &argv)) {
    /* cli_options_parse said why: a usage error */
  } else if (argc > 2) {
    fprintf(stderr, "dpgossip protocols: unexpected argument '%s' (one NAME at most)\n", argv[2]);
  } else if (format_name != NULL &&
             !cli_format_parse(format_name, (1u << CLI_FORMAT_TABLE) | (1u << CLI_FORMAT_JSON),
                               &format, &error)) {
    status = cli_fail("protocols", error, CLI_EXIT_USAGE);
  } else if (!cli_plugin_options_load(&popt, &error)) {
    status = cli_fail("protocols", error, CLI_EXIT_USAGE);
  } else {
    GPtrArray *failures = proto_plugin_load_all();
    char **dirs = proto_plugin_search_path();
    if (format == CLI_FORMAT_TABLE)
      for (guint i = 0; i < failures->len; i++)
        fprintf(stderr, "dpgossip protocols: warning: skipped %s\n",
                ((ProtoPluginFailure *)failures->pdata[i])->error->message);
    if (argc == 2) {
      status = show_one(argv[1], format);
    } else {
      show_all(format, dirs, failures);
      status = CLI_EXIT_OK;
    }
    g_strfreev(dirs);
    g_ptr_array_unref(failures);
  }
  g_free(format_name);
  cli_plugin_options_clear(&popt);
  return status;
}
