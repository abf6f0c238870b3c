/*
 * cli/run_summary.c: the few lines `dpgossip run` prints after a run, read
 * back from the files it wrote (so what is printed is what is on disk): for a
 * sweep, the groups over seeds; for a single point, privacy by distance.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "privacy/privacy.h"
#include "scenarios/scenarios.h"

/* Rows of a small CSV written by the scenario runner (no quoted commas in the
 * columns read here). NULL when the file is absent. */
static GPtrArray *read_csv(const char *dir, const char *name) {
  char *path = g_build_filename(dir, name, NULL);
  char *text = NULL;
  gboolean ok = g_file_get_contents(path, &text, NULL, NULL);
  g_free(path);
  if (!ok)
    return NULL;
  GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    if (**l != '\0')
      g_ptr_array_add(rows, g_strsplit(*l, ",", -1));
  g_strfreev(lines);
  g_free(text);
  if (rows->len == 0) {
    g_ptr_array_unref(rows);
    return NULL;
  }
  return rows;
}

static int column(char **header, const char *name) {
  for (int i = 0; header[i] != NULL; i++)
    if (strcmp(header[i], name) == 0)
      return i;
  return -1;
}

static gboolean is_number(const char *v, double *x) {
  char *end = NULL;
  *x = g_ascii_strtod(v, &end);
  return *v != '\0' && end != NULL && *end == '\0';
}

/* The groups, one epsilon column per accounting (the worst victim of each
 * collusion set under each trust model, named in a legend), and a note on
 * the accountings whose epsilon offers no meaningful protection. */
static void print_groups(GPtrArray *rows) {
  static const char *const wanted[][2] = {{"name", "method"},
                                          {"mu", "mu"},
                                          {"sigma", "sigma"},
                                          {"seeds", "seeds"},
                                          {"epsilon_", NULL},
                                          {"final_test_loss_mean", "test_loss"},
                                          {"test_loss_last50_mean", "last50_loss"},
                                          {"final_test_accuracy_mean", "accuracy"}};
  char **header = g_ptr_array_index(rows, 0);
  guint n_header = g_strv_length(header);
  int *cols = g_new(int, n_header + G_N_ELEMENTS(wanted));
  char **names = g_new0(char *, n_header + G_N_ELEMENTS(wanted) + 1);
  GPtrArray *eps = g_ptr_array_new(); /* header names of the epsilon columns */
  guint n = 0, n_eps = 0;
  for (guint h = 0; h < n_header; h++)
    n_eps += g_str_has_prefix(header[h], "epsilon_");
  for (guint i = 0; i < G_N_ELEMENTS(wanted); i++) {
    for (guint h = 0; h < n_header; h++) {
      gboolean is_eps = wanted[i][1] == NULL;
      if (is_eps ? !g_str_has_prefix(header[h], wanted[i][0])
                 : strcmp(header[h], wanted[i][0]) != 0)
        continue;
      gboolean any = FALSE; /* skip columns empty in every row (accuracy of regressions) */
      for (guint r = 1; r < rows->len && !any; r++) {
        char **row = g_ptr_array_index(rows, r);
        any = h < g_strv_length(row) && row[h][0] != '\0';
      }
      if (!any)
        continue;
      cols[n] = (int)h;
      if (is_eps) {
        g_ptr_array_add(eps, header[h]);
        /* One accounting: named in full when it fits; several: a legend. */
        names[n++] = n_eps == 1 && strlen(header[h]) <= 11 ? g_strdup(header[h])
                     : n_eps == 1                          ? g_strdup("epsilon")
                                                           : g_strdup_printf("epsilon%u", eps->len);
      } else {
        names[n++] = g_strdup(wanted[i][1]);
      }
    }
  }
  int cdelta = column(header, "delta");
  char **row1 = g_ptr_array_index(rows, 1);
  const char *delta = cdelta >= 0 && (guint)cdelta < g_strv_length(row1) ? row1[cdelta] : "?";
  printf("\nmeans over seeds (groups.csv):\n");
  for (guint c = 0; c < n; c++)
    printf(" %11s", names[c]);
  printf("\n");
  for (guint r = 1; r < rows->len && r <= 30; r++) {
    char **row = g_ptr_array_index(rows, r);
    for (guint c = 0; c < n; c++) {
      const char *v = row[cols[c]];
      double x;
      if (is_number(v, &x))
        printf(" %11.4g", x);
      else
        printf(" %11.11s", v);
    }
    printf("\n");
  }
  if (rows->len > 31)
    printf(" ... (%u groups)\n", rows->len - 1);
  /* What each epsilon is: the worst victim of one collusion set under one
   * trust model (groups.csv: epsilon_TRUST_COLLUSION). */
  for (guint e = 0; e < eps->len; e++) {
    const char *h = g_ptr_array_index(eps, e);
    const char *trust = h + strlen("epsilon_"), *us = strchr(trust, '_');
    int len = us ? (int)(us - trust) : (int)strlen(trust);
    char *shown = eps->len == 1 ? g_strdup(strlen(h) <= 11 ? h : "epsilon")
                                : g_strdup_printf("epsilon%u", e + 1);
    printf("%s%s = %s: the worst victim's epsilon at delta = %s, trust %.*s, collusion %s\n",
           e == 0 ? "\n" : "", shown, h, delta, len, trust, us ? us + 1 : "?");
    g_free(shown);
  }
  /* Two notes at most: the largest finite epsilon above the threshold, and
   * inf (some victim without any protection), each naming its columns. */
  double worst = -INFINITY;
  GString *loose = g_string_new(NULL), *open = g_string_new(NULL);
  for (guint e = 0; e < eps->len; e++) {
    const char *h = g_ptr_array_index(eps, e);
    int c = column(header, h);
    double m = -INFINITY, x;
    gboolean inf = FALSE;
    for (guint r = 1; r < rows->len; r++) {
      char **row = g_ptr_array_index(rows, r);
      if ((guint)c < g_strv_length(row) && is_number(row[c], &x)) {
        inf |= isinf(x);
        if (isfinite(x))
          m = MAX(m, x);
      }
    }
    worst = MAX(worst, m);
    if (m > SCEN_EPSILON_MEANINGFUL)
      g_string_append_printf(loose, "%s%s", loose->len ? ", " : "", h);
    if (inf)
      g_string_append_printf(open, "%s%s", open->len ? ", " : "", h);
  }
  double d = g_ascii_strtod(delta, NULL);
  char *note = scen_privacy_epsilon_note(worst, d);
  if (note != NULL)
    printf("note: %s above %d; %s\n", loose->str, SCEN_EPSILON_MEANINGFUL, note);
  g_free(note);
  note = open->len ? scen_privacy_epsilon_note(INFINITY, d) : NULL;
  if (note != NULL)
    printf("note: %s: %s\n", open->str, note);
  g_free(note);
  g_string_free(open, TRUE);
  g_string_free(loose, TRUE);
  g_ptr_array_unref(eps);
  g_strfreev(names);
  g_free(cols);
}

typedef struct {
  char *collusion, *trust;
  guint order; /* first appearance of (collusion, trust) */
  double distance, rdp, eps;
  guint k;
} PrivGroup;

static gint cmp_group(gconstpointer a, gconstpointer b) {
  const PrivGroup *x = a, *y = b;
  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  return (x->distance > y->distance) - (x->distance < y->distance);
}

/* Mean RDP and epsilon per (collusion, trust, distance). */
static void print_privacy(GPtrArray *rows) {
  char **header = g_ptr_array_index(rows, 0);
  int cc = column(header, "collusion"), ct = column(header, "trust"),
      cd = column(header, "distance"), cr = column(header, "rdp"), ce = column(header, "epsilon");
  if (cc < 0 || ct < 0 || cd < 0 || cr < 0 || ce < 0)
    return;
  GArray *groups = g_array_new(FALSE, TRUE, sizeof(PrivGroup));
  guint n_pairs = 0, unresolved = 0;
  int cs = column(header, "status"); /* only when some victim is unresolved */
  for (guint r = 1; r < rows->len; r++) {
    char **row = g_ptr_array_index(rows, r);
    if (cs >= 0 && g_strv_length(row) > (guint)cs && strcmp(row[cs], "unresolved") == 0)
      unresolved++;
    double d = g_ascii_strtod(row[cd], NULL);
    PrivGroup *g = NULL;
    guint order = G_MAXUINT;
    for (guint i = 0; i < groups->len; i++) {
      PrivGroup *h = &g_array_index(groups, PrivGroup, i);
      if (strcmp(h->collusion, row[cc]) == 0 && strcmp(h->trust, row[ct]) == 0) {
        order = h->order;
        if (h->distance == d)
          g = h;
      }
    }
    if (g == NULL) {
      PrivGroup fresh = {
          g_strdup(row[cc]), g_strdup(row[ct]), order != G_MAXUINT ? order : n_pairs++, d, 0, 0, 0};
      g_array_append_val(groups, fresh);
      g = &g_array_index(groups, PrivGroup, groups->len - 1);
    }
    g->rdp += g_ascii_strtod(row[cr], NULL); /* "inf" parses as infinity */
    g->eps += g_ascii_strtod(row[ce], NULL);
    g->k++;
  }
  g_array_sort(groups, cmp_group);
  if (unresolved)
    fprintf(stderr, "dpgossip run: warning: %u victim%s in privacy.csv: %s (status unresolved)\n",
            unresolved, unresolved == 1 ? "" : "s", PRIV_UNRESOLVED_NOTE);
  printf("\nprivacy by hop distance (privacy.csv; means over victims):\n");
  printf("  %-14s %-7s %8s %8s %12s %12s\n", "collusion", "trust", "distance", "victims", "rdp",
         "epsilon");
  for (guint i = 0; i < groups->len; i++) {
    PrivGroup *g = &g_array_index(groups, PrivGroup, i);
    printf("  %-14.14s %-7.7s %8.0f %8u %12.4g %12.4g\n", g->collusion, g->trust, g->distance, g->k,
           g->rdp / g->k, g->eps / g->k);
    g_free(g->collusion);
    g_free(g->trust);
  }
  g_array_unref(groups);
}

void cli_run_print_summary(const char *out_dir) {
  GPtrArray *groups = read_csv(out_dir, "groups.csv");
  if (groups != NULL) {
    print_groups(groups);
    g_ptr_array_unref(groups);
    return;
  }
  GPtrArray *privacy = read_csv(out_dir, "privacy.csv");
  if (privacy != NULL) {
    print_privacy(privacy);
    g_ptr_array_unref(privacy);
  }
}

/* The graph_load object of DIR/summary.json, or NULL (parser in *@parser). */
static JsonObject *graph_load_of(const char *dir, JsonParser **parser) {
  char *path = g_build_filename(dir, "summary.json", NULL);
  *parser = json_parser_new();
  gboolean ok = json_parser_load_from_file(*parser, path, NULL);
  g_free(path);
  JsonNode *root = ok ? json_parser_get_root(*parser) : NULL;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
    return NULL;
  JsonNode *n = json_object_get_member(json_node_get_object(root), "graph_load");
  return n != NULL && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

void cli_run_graph_notice(const char *out_dir) {
  JsonParser *parser = NULL;
  JsonObject *o = graph_load_of(out_dir, &parser);
  if (o == NULL) {
    /* A sweep: its first point's summary (points.csv, row 1, column dir). */
    GPtrArray *rows = read_csv(out_dir, "points.csv");
    if (rows != NULL && rows->len > 1 && g_strv_length(g_ptr_array_index(rows, 1)) > 1) {
      char *dir = g_build_filename(out_dir, ((char **)g_ptr_array_index(rows, 1))[1], NULL);
      g_object_unref(parser);
      o = graph_load_of(dir, &parser);
      g_free(dir);
    }
    if (rows != NULL)
      g_ptr_array_unref(rows);
  }
  if (o != NULL) {
    gint64 loops = json_object_get_int_member_with_default(o, "self_loops_dropped", 0);
    gint64 dups = json_object_get_int_member_with_default(o, "duplicate_edges_dropped", 0);
    gboolean renum = json_object_get_boolean_member_with_default(o, "renumbered", FALSE);
    if (loops > 0 || dups > 0 || renum)
      fprintf(
          stderr,
          "dpgossip run: the graph file had %" G_GINT64_FORMAT " self-loop%s and %" G_GINT64_FORMAT
          " duplicate edge%s (dropped)%s (summary.json: graph_load)\n",
          loops, loops == 1 ? "" : "s", dups, dups == 1 ? "" : "s",
          renum ? "; its node labels are not 0..n-1: renumbered in order of first appearance" : "");
  }
  g_object_unref(parser);
}
