/*
 * tests/cli/test_figure.c: `dpgossip figure privacy-vs-distance` end to end:
 * the --data numbers of the paper's Figure 2 setting on the Florentine graph
 * against tests/data/reference/pndp-florentine-T10-attacker0.json grouped by
 * distance; pooling over several attackers against `dpgossip account` runs
 * (a second path through the CLI) and the pair counts of `--attackers all`
 * against the graph's distance distribution; a well-formed, non-trivial SVG
 * and a PNG; byte-identical reruns; every bad input. Under asynchrony (deadline
 * mode, log-normal latency: the observer path, one run for every attacker)
 * the numbers against per-attacker `dpgossip account --path observer` and
 * structured runs; the synchronous figure against the numbers and summary
 * the command printed before it learnt asynchrony
 * (tests/data/figure-florentine-T10-all.*); --path local's certified
 * bounds against the exact figure.
 */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/run.h"
#include "tests/common/checks.h"
#include "tests/common/files.h"

#define FLORENTINE "--generate", "florentine"
#define PVD "figure", "privacy-vs-distance"

/* Per (distance, method) statistics, as the --data CSV has them or as the
 * test recomputes them. Distances up to 31. */
enum { OURS, MUFF, N_METHODS };
typedef struct {
  guint count;
  double sum, min, max;
} Stat;
typedef struct {
  Stat s[32][N_METHODS];
} Stats;

static void stat_add(Stat *s, double v) {
  if (s->count == 0 || v < s->min)
    s->min = v;
  if (s->count == 0 || v > s->max)
    s->max = v;
  s->count++;
  s->sum += v;
}

/* Parses the --data CSV of one graph into mean (in sum, as the mean), min,
 * max, count; checks the header and the graph column. */
static void parse_data(const char *path, const char *graph, Stats *out) {
  char *text = NULL;
  GError *err = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, &err));
  g_assert_no_error(err);
  memset(out, 0, sizeof *out);
  char **lines = g_strsplit(text, "\n", -1);
  g_assert_cmpstr(lines[0], ==, "graph,distance,method,mean,min,max,count");
  guint rows = 0;
  for (guint i = 1; lines[i] && *lines[i]; i++, rows++) {
    char **f = g_strsplit(lines[i], ",", -1);
    g_assert_cmpuint(g_strv_length(f), ==, 7);
    g_assert_cmpstr(f[0], ==, graph);
    guint d = (guint)atoi(f[1]);
    g_assert_cmpuint(d, >=, 1);
    g_assert_cmpuint(d, <, 32);
    /* "sync": the second series of an asynchronous figure. */
    int m = g_str_equal(f[2], "ours")                                     ? OURS
            : g_str_equal(f[2], "muffliato") || g_str_equal(f[2], "sync") ? MUFF
                                                                          : -1;
    g_assert_cmpint(m, >=, 0);
    Stat *s = &out->s[d][m];
    g_assert_cmpuint(s->count, ==, 0); /* one row per (distance, method) */
    s->sum = g_ascii_strtod(f[3], NULL);
    s->min = g_ascii_strtod(f[4], NULL);
    s->max = g_ascii_strtod(f[5], NULL);
    s->count = (guint)atoi(f[6]);
    g_assert_cmpuint(s->count, >, 0);
    g_assert_cmpfloat(s->min, <=, s->sum * (1 + 1e-12));
    g_assert_cmpfloat(s->sum, <=, s->max * (1 + 1e-12));
    g_strfreev(f);
  }
  g_assert_cmpuint(rows, >, 0);
  g_strfreev(lines);
  g_free(text);
}

/* @want holds sums: compare means, extremes and counts to 1e-6 relative. */
static void assert_stats_equal(const Stats *got, const Stats *want) {
  for (guint d = 0; d < 32; d++)
    for (guint m = 0; m < N_METHODS; m++) {
      const Stat *g = &got->s[d][m], *w = &want->s[d][m];
      g_assert_cmpuint(g->count, ==, w->count);
      if (!w->count)
        continue;
      g_assert_cmpfloat(test_rel_diff(g->sum, w->sum / w->count), <, 1e-6);
      g_assert_cmpfloat(test_rel_diff(g->min, w->min), <, 1e-6);
      g_assert_cmpfloat(test_rel_diff(g->max, w->max), <, 1e-6);
    }
}

/* The paper's Figure 2 setting: the reference rows grouped by distance. */
static void test_florentine_reference(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL), *csv = g_build_filename(dir, "f.csv", NULL);
  CliRun r = cli_run(PVD, FLORENTINE, "--rounds", "10", "--trust", "pndp", "--attackers", "0",
                     "--out", svg, "--data", csv);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(strstr(r.out, "ratio") != NULL); /* the gap summary */

  Stats got, want;
  memset(&want, 0, sizeof want);
  parse_data(csv, "florentine", &got);
  char *path = cli_test_data_path("reference/pndp-florentine-T10-attacker0.json");
  GError *err = NULL;
  JsonParser *p = json_parser_new();
  json_parser_load_from_file(p, path, &err);
  g_assert_no_error(err);
  JsonArray *rows = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)),
                                                 "rows");
  g_assert_cmpuint(json_array_get_length(rows), ==, 14);
  for (guint i = 0; i < json_array_get_length(rows); i++) {
    JsonObject *o = json_array_get_object_element(rows, i);
    guint d = (guint)json_object_get_int_member(o, "distance");
    /* Thm 5.2 capped at the LDP RDP(2) = T / sigma^2 = 10 (docs/design.md). */
    stat_add(&want.s[d][OURS], fmin(json_object_get_double_member(o, "rdp_alpha2"), 10));
    stat_add(&want.s[d][MUFF], json_object_get_double_member(o, "muffliato_rdp_alpha2"));
  }
  assert_stats_equal(&got, &want);
  /* The reference has several victims at distances 2 to 4: the bars are real. */
  g_assert_cmpfloat(got.s[3][OURS].min, <, got.s[3][OURS].max);

  g_object_unref(p);
  g_free(path);
  cli_run_clear(&r);
  g_free(svg);
  g_free(csv);
  test_rmtree(dir);
  g_free(dir);
}

typedef struct {
  guint elements, paths, texts;
  gboolean root_svg;
} SvgCount;

static void on_start(GMarkupParseContext *ctx, const char *name, const char **an, const char **av,
                     gpointer data, GError **error) {
  (void)an, (void)av, (void)error;
  SvgCount *c = data;
  if (c->elements++ == 0)
    c->root_svg = g_str_equal(name, "svg");
  if (g_str_equal(name, "path"))
    c->paths++;
  if (g_str_equal(name, "text") || g_str_equal(name, "use"))
    c->texts++;
  (void)ctx;
}

/* Well-formed XML with an <svg> root and the drawing in it (axes, two
 * series with bars, glyphs for the labels); a PNG with its signature; the
 * same inputs give the same bytes. */
static void test_outputs(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL), *svg2 = g_build_filename(dir, "g.svg", NULL),
       *png = g_build_filename(dir, "f.png", NULL), *csv = g_build_filename(dir, "f.csv", NULL),
       *csv2 = g_build_filename(dir, "g.csv", NULL);
  const char *outs[][2] = {{svg, csv}, {svg2, csv2}, {png, NULL}};
  for (guint i = 0; i < 3; i++) {
    CliRun r = outs[i][1]
                   ? cli_run(PVD, FLORENTINE, "--generate", "ring:n=8", "-T", "6", "--trust",
                             "pndp", "-a", "0,1+2", "--out", outs[i][0], "--data", outs[i][1])
                   : cli_run(PVD, FLORENTINE, "--generate", "ring:n=8", "-T", "6", "--trust",
                             "pndp", "-a", "0,1+2", "--out", outs[i][0]);
    g_assert_cmpint(r.status, ==, 0);
    cli_run_clear(&r);
  }
  gchar *a, *b;
  gsize la, lb;
  g_assert_true(g_file_get_contents(svg, &a, &la, NULL));
  g_assert_true(g_file_get_contents(svg2, &b, &lb, NULL));
  g_assert_cmpuint(la, ==, lb);
  g_assert_true(memcmp(a, b, la) == 0);
  g_assert_cmpuint(la, >, 10000);

  SvgCount c = {0};
  GMarkupParser parser = {.start_element = on_start};
  GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, &c, NULL);
  GError *err = NULL;
  g_assert_true(g_markup_parse_context_parse(ctx, a, (gssize)la, &err));
  g_assert_true(g_markup_parse_context_end_parse(ctx, &err));
  g_assert_no_error(err);
  g_markup_parse_context_free(ctx);
  g_assert_true(c.root_svg);
  g_assert_cmpuint(c.paths, >, 40);
  g_assert_cmpuint(c.texts, >, 40);
  g_free(a);
  g_free(b);

  g_assert_true(g_file_get_contents(csv, &a, &la, NULL));
  g_assert_true(g_file_get_contents(csv2, &b, &lb, NULL));
  g_assert_cmpstr(a, ==, b);
  g_assert_true(strstr(a, "\nring:n=8,1,ours,") != NULL); /* two panels, spec as label */
  g_free(a);
  g_free(b);

  g_assert_true(g_file_get_contents(png, &a, &la, NULL));
  g_assert_cmpuint(la, >, 5000);
  g_assert_true(memcmp(a, "\x89PNG\r\n\x1a\n", 8) == 0);
  g_free(a);
  g_free(svg);
  g_free(svg2);
  g_free(png);
  g_free(csv);
  g_free(csv2);
  test_rmtree(dir);
  g_free(dir);
}

/* Adds the victims of one `dpgossip account --format csv` run. */
static void add_account_run(Stats *want, const char *attackers) {
  CliRun r = cli_run("account", FLORENTINE, "-T", "10", "--sensitivity", "bound", "--trust", "pndp",
                     "-a", attackers, "--compare", "muffliato", "--format", "csv");
  g_assert_cmpint(r.status, ==, 0);
  char **lines = g_strsplit(r.out, "\n", -1);
  g_assert_cmpstr(lines[0], ==,
                  "collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,muffliato_rdp,status,"
                  "attackers,alpha,delta,path,seed,mu_lower,bound");
  for (guint i = 1; lines[i] && *lines[i]; i++) {
    char **f = g_strsplit(lines[i], ",", -1);
    guint d = (guint)atoi(f[3]);
    stat_add(&want->s[d][OURS], g_ascii_strtod(f[6], NULL));
    stat_add(&want->s[d][MUFF], g_ascii_strtod(f[8], NULL));
    g_strfreev(f);
  }
  g_strfreev(lines);
  cli_run_clear(&r);
}

/* Several attackers pool their (attacker, victim) pairs; a '+' set is one
 * collusion set. Checked against separate `dpgossip account` runs. */
static void test_pooling(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL), *csv = g_build_filename(dir, "f.csv", NULL);
  CliRun r = cli_run(PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0,7,3+11", "--out", svg,
                     "--data", csv);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  Stats got, want;
  memset(&want, 0, sizeof want);
  parse_data(csv, "florentine", &got);
  add_account_run(&want, "0");
  add_account_run(&want, "7");
  add_account_run(&want, "3+11");
  assert_stats_equal(&got, &want);
  g_free(svg);
  g_free(csv);
  test_rmtree(dir);
  g_free(dir);
}

/* A label of non-ASCII characters is padded by characters, not bytes:
 * every summary row as wide as the header in characters, and the distance
 * field ending where the header's does (character 24 + 1 + 8). Byte
 * padding left "Erdős–Rényi" (11 characters, 14 bytes) 3 columns short. */
static void test_label_padding(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL);
  CliRun r = cli_run(PVD, FLORENTINE, "--label", "Erdős–Rényi", "-T", "10", "--trust", "pndp", "-a",
                     "0", "--out", svg);
  g_assert_cmpint(r.status, ==, 0);
  char **lines = g_strsplit(r.out, "\n", -1);
  g_assert_true(g_str_has_prefix(lines[0], "graph "));
  glong width = g_utf8_strlen(lines[0], -1);
  guint rows = 0;
  for (guint i = 1; lines[i] != NULL && *lines[i] != '\0'; i++, rows++) {
    g_assert_true(g_str_has_prefix(lines[i], "Erdős–Rényi "));
    g_assert_cmpint(g_utf8_strlen(lines[i], -1), ==, width);
    const char *end = g_utf8_offset_to_pointer(lines[i], 24 + 1 + 8);
    g_assert_true(g_ascii_isdigit(end[-1]) && end[0] == ' ');
  }
  g_assert_cmpuint(rows, >, 0);
  g_strfreev(lines);
  cli_run_clear(&r);
  g_free(svg);
  test_rmtree(dir);
  g_free(dir);
}

/* --attackers all: every ordered (attacker, victim) pair once, n (n - 1) in
 * all, and distance 1 holds the 2m ordered edges (Florentine: 15 nodes, 20
 * edges); --label names the panel in the CSV, quoted when it holds a comma. */
static void test_all_attackers(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL), *csv = g_build_filename(dir, "f.csv", NULL);
  CliRun r = cli_run(PVD, FLORENTINE, "--label", "Florentine, families", "-T", "10", "--trust",
                     "pndp", "-a", "all", "--out", svg, "--data", csv);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  char *text = NULL;
  g_assert_true(g_file_get_contents(csv, &text, NULL, NULL));
  /* The label holds a comma: quoted. */
  g_assert_true(g_str_has_prefix(text, "graph,distance,method,mean,min,max,count\n"
                                       "\"Florentine, families\",1,ours,"));
  guint total[N_METHODS] = {0}, at1 = 0;
  char **lines = g_strsplit(text, "\n", -1);
  for (guint i = 1; lines[i] && *lines[i]; i++) {
    const char *rest = lines[i] + strlen("\"Florentine, families\",");
    char **f = g_strsplit(rest, ",", -1);
    int m = g_str_equal(f[1], "ours") ? OURS : MUFF;
    total[m] += (guint)atoi(f[5]);
    if (atoi(f[0]) == 1 && m == OURS)
      at1 = (guint)atoi(f[5]);
    g_strfreev(f);
  }
  g_strfreev(lines);
  g_assert_cmpuint(total[OURS], ==, 15 * 14);
  g_assert_cmpuint(total[MUFF], ==, 15 * 14);
  g_assert_cmpuint(at1, ==, 2 * 20);
  g_free(text);
  g_free(svg);
  g_free(csv);
  test_rmtree(dir);
  g_free(dir);
}

/* The deadline mode of scenarios/async-deadline.ini: about a third of the
 * gathers on Florentine close on the timer. */
#define ASYNC "--mode", "deadline:ms=15", "--latency", "lognormal:mu=2,sigma=0.5", "--seed", "11"

/* Adds the victims of `dpgossip account --format csv` ARGS (one attacker
 * set, one trust): column @col into method @m. */
static void add_account_csv(Stats *want, int m, guint col, const char *const *args) {
  CliRun r = cli_run_v(args);
  if (r.status != 0)
    g_printerr("%s\n", r.err);
  g_assert_cmpint(r.status, ==, 0);
  char **lines = g_strsplit(r.out, "\n", -1);
  g_assert_cmpstr(lines[0], ==,
                  "collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,muffliato_rdp,status,"
                  "attackers,alpha,delta,path,seed,mu_lower,bound");
  for (guint i = 1; lines[i] && *lines[i]; i++) {
    char **f = g_strsplit(lines[i], ",", -1);
    g_assert_cmpuint(g_strv_length(f), ==, 17);
    stat_add(&want->s[atoi(f[3])][m], g_ascii_strtod(f[col], NULL));
    g_strfreev(f);
  }
  g_strfreev(lines);
  cli_run_clear(&r);
}

/* Asynchronous Figure 2 on Florentine, every node in turn the attacker, all
 * from one simulated run: each attacker's victims against a separate
 * `dpgossip account --path observer` run with the same mode, latency and
 * seed (one view per run: a second method, which also shows the other views
 * do not change the run), the "sync" series against the structured
 * accounting; the deadline drops messages and changes the numbers; the
 * outputs are byte-identical on a rerun. */
static void test_async(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL), *csv = g_build_filename(dir, "f.csv", NULL),
       *svg2 = g_build_filename(dir, "g.svg", NULL), *csv2 = g_build_filename(dir, "g.csv", NULL);
  CliRun r = cli_run(PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "all", ASYNC, "--out",
                     svg, "--data", csv);
  if (r.status != 0)
    g_printerr("%s\n", r.err);
  g_assert_cmpint(r.status, ==, 0);
  /* Muffliato's bound is not drawn, and stdout says so. */
  g_assert_true(strstr(r.out, "Muffliato's bound (static synchronous gossip) does not apply") !=
                NULL);
  g_assert_true(strstr(r.out, "sync_mean") != NULL);
  /* Progress on stderr, with messages the deadline left out. */
  const char *late = strstr(r.err, " too late to be used;");
  g_assert_nonnull(late);
  while (late > r.err && g_ascii_isdigit(late[-1]))
    late--;
  g_assert_cmpint(atoi(late), >, 0);
  cli_run_clear(&r);

  Stats got, want;
  memset(&want, 0, sizeof want);
  parse_data(csv, "florentine", &got);
  for (guint a = 0; a < 15; a++) {
    char id[8];
    g_snprintf(id, sizeof id, "%u", a);
    add_account_csv(&want, OURS, 6,
                    (const char *const[]){"account", FLORENTINE, "-T", "10", "--sensitivity",
                                          "bound", "--trust", "pndp", "-a", id, "--path",
                                          "observer", ASYNC, "--format", "csv", NULL});
    add_account_csv(&want, MUFF, 6,
                    (const char *const[]){"account", FLORENTINE, "-T", "10", "--sensitivity",
                                          "bound", "--trust", "pndp", "-a", id, "--format", "csv",
                                          NULL});
  }
  assert_stats_equal(&got, &want);
  /* Asynchrony changes the numbers: some distance moves by over 5%. */
  double most = 0;
  for (guint d = 1; d < 32; d++)
    if (got.s[d][OURS].count)
      most = MAX(most, test_rel_diff(got.s[d][OURS].sum, got.s[d][MUFF].sum));
  g_assert_cmpfloat(most, >, 0.05);

  r = cli_run(PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "all", ASYNC, "--out", svg2,
              "--data", csv2);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  const char *pairs[][2] = {{svg, svg2}, {csv, csv2}};
  for (guint i = 0; i < 2; i++) {
    gchar *a, *b;
    gsize la, lb;
    g_assert_true(g_file_get_contents(pairs[i][0], &a, &la, NULL));
    g_assert_true(g_file_get_contents(pairs[i][1], &b, &lb, NULL));
    g_assert_cmpuint(la, ==, lb);
    g_assert_true(memcmp(a, b, la) == 0);
    g_free(a);
    g_free(b);
  }
  g_free(svg);
  g_free(csv);
  g_free(svg2);
  g_free(csv2);
  test_rmtree(dir);
  g_free(dir);
}

/* The two CSV texts: same lines, same text fields, numbers to 1e-12
 * relative (byte-identical on the machine that wrote the reference; the
 * last digits may depend on the BLAS kernels a CPU gets). */
static void assert_csv_same(const char *got, const char *want) {
  char **g = g_strsplit(got, "\n", -1), **w = g_strsplit(want, "\n", -1);
  g_assert_cmpuint(g_strv_length(g), ==, g_strv_length(w));
  for (guint i = 0; w[i]; i++) {
    char **gf = g_strsplit(g[i], ",", -1), **wf = g_strsplit(w[i], ",", -1);
    g_assert_cmpuint(g_strv_length(gf), ==, g_strv_length(wf));
    for (guint j = 0; wf[j]; j++) {
      char *end = NULL;
      double wv = g_ascii_strtod(wf[j], &end);
      if (end == wf[j] || *end != '\0')
        g_assert_cmpstr(gf[j], ==, wf[j]);
      else
        g_assert_cmpfloat(test_rel_diff(g_ascii_strtod(gf[j], NULL), wv), <=, 1e-12);
    }
    g_strfreev(gf);
    g_strfreev(wf);
  }
  g_strfreev(g);
  g_strfreev(w);
}

/* The synchronous figure is what it was before --mode existed: the same
 * summary on stdout, byte for byte, and the same CSV; --path observer
 * simulates the synchronous run and gets the same numbers (to 1e-9) and
 * Muffliato's bound. */
static void test_sync_unchanged(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL), *csv = g_build_filename(dir, "f.csv", NULL);
  char *ref_csv = cli_test_data_path("figure-florentine-T10-all.csv");
  char *ref_out = cli_test_data_path("figure-florentine-T10-all.out");
  gchar *want_csv, *want_out, *got_csv;
  g_assert_true(g_file_get_contents(ref_csv, &want_csv, NULL, NULL));
  g_assert_true(g_file_get_contents(ref_out, &want_out, NULL, NULL));
  CliRun r = cli_run(PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "all", "--out", svg,
                     "--data", csv);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_cmpstr(r.out, ==, want_out);
  /* One line saying what was written, nothing else. */
  char *wrote = g_strdup_printf("dpgossip figure: wrote %s (1 panel) and its data %s\n", svg, csv);
  g_assert_cmpstr(r.err, ==, wrote);
  g_free(wrote);
  g_assert_true(g_file_get_contents(csv, &got_csv, NULL, NULL));
  assert_csv_same(got_csv, want_csv);
  cli_run_clear(&r);

  Stats structured, observed;
  parse_data(csv, "florentine", &structured);
  r = cli_run(PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "all", "--path", "observer",
              "--out", svg, "--data", csv);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_true(strstr(r.out, "muffliato_mean") != NULL);
  cli_run_clear(&r);
  parse_data(csv, "florentine", &observed);
  for (guint d = 1; d < 32; d++)
    for (guint m = 0; m < N_METHODS; m++) {
      const Stat *o = &observed.s[d][m], *st = &structured.s[d][m];
      g_assert_cmpuint(o->count, ==, st->count);
      if (!o->count)
        continue;
      g_assert_cmpfloat(test_rel_diff(o->sum, st->sum), <, 1e-9);
      g_assert_cmpfloat(test_rel_diff(o->min, st->min), <, 1e-9);
      g_assert_cmpfloat(test_rel_diff(o->max, st->max), <, 1e-9);
    }
  g_free(want_csv);
  g_free(want_out);
  g_free(got_csv);
  g_free(ref_csv);
  g_free(ref_out);
  g_free(svg);
  g_free(csv);
  test_rmtree(dir);
  g_free(dir);
}

static void expect_usage(const char *const *args, const char *needle, const char *out) {
  CliRun r = cli_run_v(args);
  if (r.status != 2 || !strstr(r.err, needle))
    g_printerr("status %d, stderr: %s (wanted '%s')\n", r.status, r.err, needle);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_true(strstr(r.err, needle) != NULL);
  if (out)
    g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  cli_run_clear(&r);
}

#define USAGE(needle, ...) expect_usage((const char *const[]){__VA_ARGS__, NULL}, needle, svg)

/* The message of the first line of @err after "dpgossip CMD: " (g_free). */
static char *first_message(const char *err) {
  const char *start = strstr(err, ": ");
  g_assert_nonnull(start);
  const char *end = strchr(start, '\n');
  return g_strndup(start + 2, end ? (gsize)(end - start - 2) : strlen(start + 2));
}

/* --path and --radius are the accounting request's rules: the figure
 * refuses @... (NULL-terminated options) with exit status 2 and exactly
 * the words of `dpgossip account` given the same options. */
static void same_refusal(const char *svg, ...) {
  const char *const fig[] = {PVD,    FLORENTINE, "-T", "10",    "--trust",
                             "pndp", "-a",       "0",  "--out", svg};
  const char *const acc[] = {"account", FLORENTINE, "-T",   "10", "--sensitivity",
                             "bound",   "--trust",  "pndp", "-a", "0"};
  GPtrArray *fa = g_ptr_array_new(), *aa = g_ptr_array_new();
  for (guint i = 0; i < G_N_ELEMENTS(fig); i++)
    g_ptr_array_add(fa, (gpointer)fig[i]);
  for (guint i = 0; i < G_N_ELEMENTS(acc); i++)
    g_ptr_array_add(aa, (gpointer)acc[i]);
  va_list ap;
  va_start(ap, svg);
  for (const char *arg = va_arg(ap, const char *); arg; arg = va_arg(ap, const char *)) {
    g_ptr_array_add(fa, (gpointer)arg);
    g_ptr_array_add(aa, (gpointer)arg);
  }
  va_end(ap);
  g_ptr_array_add(fa, NULL);
  g_ptr_array_add(aa, NULL);
  CliRun f = cli_run_v((const char *const *)fa->pdata),
         a = cli_run_v((const char *const *)aa->pdata);
  g_assert_cmpint(f.status, ==, 2);
  g_assert_cmpint(a.status, ==, 2);
  char *fm = first_message(f.err), *am = first_message(a.err);
  g_assert_cmpstr(fm, ==, am);
  g_assert_true(g_str_has_prefix(fm, "--"));
  g_free(fm);
  g_free(am);
  cli_run_clear(&f);
  cli_run_clear(&a);
  g_ptr_array_unref(fa);
  g_ptr_array_unref(aa);
}

/* The exact-sensitivity figure of Florentine, all attackers, exact (@path
 * NULL) or --path @path --radius @radius: its --data statistics in @out. */
static void local_figure(const char *csv, const char *svg, const char *path, const char *radius,
                         Stats *out) {
  CliRun r = path ? cli_run(PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "all",
                            "--sensitivity", "exact", "--path", path, "--radius", radius, "--out",
                            svg, "--data", csv)
                  : cli_run(PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "all",
                            "--sensitivity", "exact", "--out", svg, "--data", csv);
  g_assert_cmpint(r.status, ==, 0);
  if (path)
    g_assert_nonnull(strstr(r.out, "certified upper bounds"));
  cli_run_clear(&r);
  parse_data(csv, "florentine", out);
}

/* --path local --radius R: every pooled value (mean, min, max) at least the
 * exact one, only distances up to R; a ball covering the graph (Florentine's
 * diameter is 5) gives the exact figure. Both radii need --path local. */
static void test_local(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL), *csv = g_build_filename(dir, "f.csv", NULL);
  Stats exact, r2, r5;
  local_figure(csv, svg, NULL, NULL, &exact);
  local_figure(csv, svg, "local", "2", &r2);
  local_figure(csv, svg, "local", "5", &r5);
  for (guint d = 1; d < 32; d++) {
    const Stat *e = &exact.s[d][OURS], *b = &r2.s[d][OURS], *c = &r5.s[d][OURS];
    g_assert_cmpuint(c->count, ==, e->count);
    if (e->count) {
      g_assert_cmpfloat(test_rel_diff(c->sum, e->sum), <, 1e-9);
      g_assert_cmpfloat(test_rel_diff(c->min, e->min), <, 1e-9);
      g_assert_cmpfloat(test_rel_diff(c->max, e->max), <, 1e-9);
    }
    if (d > 2) {
      g_assert_cmpuint(b->count, ==, 0);
      continue;
    }
    g_assert_cmpuint(b->count, ==, e->count);
    g_assert_cmpfloat(b->sum, >=, e->sum * (1 - 1e-12));
    g_assert_cmpfloat(b->min, >=, e->min * (1 - 1e-12));
    g_assert_cmpfloat(b->max, >=, e->max * (1 - 1e-12));
  }
  /* Not vacuous: at distance 2 the bound is strictly looser. */
  g_assert_cmpfloat(r2.s[2][OURS].sum, >, 1.5 * exact.s[2][OURS].sum);
  g_unlink(svg);
  USAGE("--path local needs --radius R", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0",
        "--path", "local", "--out", svg);
  USAGE("--radius 2: the radius is for --path local", PVD, FLORENTINE, "-T", "10", "--trust",
        "pndp", "-a", "0", "--radius", "2", "--out", svg);
  USAGE("--radius must be at least 1 (got 0)", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a",
        "0", "--path", "local", "--radius", "0", "--out", svg);
  same_refusal(svg, "--radius", "2", NULL);
  g_free(svg);
  g_free(csv);
  test_rmtree(dir);
  g_free(dir);
}

static void test_bad_input(void) {
  char *dir = test_tmpdir("figure-cli");
  char *svg = g_build_filename(dir, "f.svg", NULL);
  char *pdf = g_build_filename(dir, "f.eps", NULL);
  USAGE("name the figure", "figure", FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0", "--out",
        svg);
  USAGE("unknown figure 'privacy-vs-time'", "figure", "privacy-vs-time", FLORENTINE, "-T", "10",
        "--trust", "pndp", "-a", "0", "--out", svg);
  USAGE("unexpected argument 'extra'", PVD, "extra", FLORENTINE, "-T", "10", "--trust", "pndp",
        "-a", "0", "--out", svg);
  USAGE("--out", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0");
  USAGE("unknown extension", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0", "--out",
        pdf);
  g_assert_false(g_file_test(pdf, G_FILE_TEST_EXISTS));
  USAGE("at least one graph", PVD, "-T", "10", "--trust", "pndp", "-a", "0", "--out", svg);
  USAGE("node 15 is out of range: graph 'florentine' has 15 nodes (0 to 14)", PVD, FLORENTINE, "-T",
        "10", "--trust", "pndp", "-a", "0,15", "--out", svg);
  USAGE("'x' is not a node id", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0,x",
        "--out", svg);
  USAGE("the set '0' is given twice", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0,0",
        "--out", svg);
  USAGE("node 3 appears twice", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "3+3",
        "--out", svg);
  USAGE("--attackers is required", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "--out", svg);
  USAGE("--rounds", PVD, FLORENTINE, "--trust", "pndp", "-a", "0", "--out", svg);
  USAGE("divide", PVD, FLORENTINE, "-T", "10", "-b", "3", "--trust", "pndp", "-a", "0", "--out",
        svg);
  USAGE("--trust is required", PVD, FLORENTINE, "-T", "10", "-a", "0", "--out", svg);
  USAGE("pndp only", PVD, FLORENTINE, "-T", "10", "--trust", "ldp", "-a", "0", "--out", svg);
  USAGE("--trust", PVD, FLORENTINE, "-T", "10", "--trust", "trusty", "-a", "0", "--out", svg);
  USAGE("dsgd only", PVD, FLORENTINE, "-T", "10", "--protocol", "antipgd", "--trust", "pndp", "-a",
        "0", "--out", svg);
  USAGE("--sigma must be positive", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0",
        "--sigma", "0", "--out", svg);
  USAGE("--alpha > 1", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0", "--alpha", "1",
        "--out", svg);
  USAGE("--label", PVD, FLORENTINE, "--label", "a", "--label", "b", "-T", "10", "--trust", "pndp",
        "-a", "0", "--out", svg);
  USAGE("--gossip", PVD, FLORENTINE, "--gossip", "random", "-T", "10", "--trust", "pndp", "-a", "0",
        "--out", svg);
  USAGE("--mode: ", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0", "--mode",
        "eventually", "--out", svg);
  USAGE("--latency: ", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0", "--mode",
        "deadline:ms=5", "--latency", "gamma:k=2", "--out", svg);
  USAGE("needs an asynchronous --mode", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0",
        "--loss", "0.1", "--out", svg);
  USAGE("--seed: ", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0", "--mode",
        "deadline:ms=5", "--seed", "-1", "--out", svg);
  USAGE("--path: unknown path 'fast'", PVD, FLORENTINE, "-T", "10", "--trust", "pndp", "-a", "0",
        "--path", "fast", "--out", svg);
  USAGE("--mode stale:s=1 needs --path observer", PVD, FLORENTINE, "-T", "10", "--trust", "pndp",
        "-a", "0", "--path", "structured", "--mode", "stale:s=1", "--out", svg);
  USAGE("--latency only matters in a simulated run", PVD, FLORENTINE, "-T", "10", "--trust", "pndp",
        "-a", "0", "--latency", "constant:ms=3", "--out", svg);

  /* Failures that are not usage errors: exit 1, nothing half-written. */
  char *missing = g_build_filename(dir, "nope.edges", NULL);
  CliRun r = cli_run(PVD, "--graph", missing, "-T", "10", "--trust", "pndp", "-a", "0", "--out",
                     svg);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_true(strstr(r.err, "nope.edges") != NULL);
  cli_run_clear(&r);
  char *bad_csv = g_build_filename(dir, "no-such-dir", "f.csv", NULL);
  r = cli_run(PVD, FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--out", svg, "--data",
              bad_csv);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_true(strstr(r.err, "--data") != NULL);
  cli_run_clear(&r);
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d))) /* only the figure; no temporary left */
    g_assert_cmpstr(name, ==, "f.svg");
  g_dir_close(d);
  g_free(bad_csv);
  g_free(missing);
  g_free(pdf);
  g_free(svg);
  test_rmtree(dir);
  g_free(dir);
}

/* --size and --dpi: a 5 x 4 in figure at 100 dpi is a 500 x 400 PNG (the
 * IHDR's width and height), and a PDF of 360 x 288 pt. */
static void test_size_dpi_pdf(void) {
  char *dir = test_tmpdir("figure-cli");
  char *png = g_build_filename(dir, "f.png", NULL), *pdf = g_build_filename(dir, "f.pdf", NULL);
  CliRun r = cli_run(PVD, FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--size", "5x4in",
                     "--dpi", "100", "--out", png);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  char *a;
  gsize la;
  g_assert_true(g_file_get_contents(png, &a, &la, NULL));
  g_assert_cmpuint(la, >, 24);
  const guint8 *u = (const guint8 *)a;
  g_assert_cmpuint((u[16] << 24) | (u[17] << 16) | (u[18] << 8) | u[19], ==, 500);
  g_assert_cmpuint((u[20] << 24) | (u[21] << 16) | (u[22] << 8) | u[23], ==, 400);
  g_free(a);
  r = cli_run(PVD, FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--size", "5x4in", "--out",
              pdf);
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  g_assert_true(g_file_get_contents(pdf, &a, &la, NULL));
  g_assert_true(g_str_has_prefix(a, "%PDF-"));
  g_free(a);
  r = cli_run(PVD, FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--size", "5x4", "--out",
              pdf);
  g_assert_cmpint(r.status, ==, 2);
  g_assert_nonnull(strstr(r.err, "--size"));
  cli_run_clear(&r);
  g_free(png);
  g_free(pdf);
  test_rmtree(dir);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/figure/florentine-reference", test_florentine_reference);
  g_test_add_func("/cli/figure/outputs", test_outputs);
  g_test_add_func("/cli/figure/pooling", test_pooling);
  g_test_add_func("/cli/figure/all-attackers", test_all_attackers);
  g_test_add_func("/cli/figure/label-padding", test_label_padding);
  g_test_add_func("/cli/figure/bad-input", test_bad_input);
  g_test_add_func("/cli/figure/async", test_async);
  g_test_add_func("/cli/figure/sync-unchanged", test_sync_unchanged);
  g_test_add_func("/cli/figure/size-dpi-pdf", test_size_dpi_pdf);
  g_test_add_func("/cli/figure/local", test_local);
  return g_test_run();
}
