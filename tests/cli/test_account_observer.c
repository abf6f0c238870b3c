/*
 * tests/cli/test_account_observer.c: `dpgossip account --path observer`
 * end to end (the accounting read off a simulated run):
 *   - the paper's Figure 2 reference (pndp-florentine-T10-attacker0.json)
 *     through the observer path, to 1e-6;
 *   - observer = structured to 1e-9 for dsgd, muffliato:K=2, antipgd and
 *     mfdsgd with a C file, on Florentine and a random graph, under LDP
 *     and PNDP, a single attacker and a collusion set, b = 1 and 2, and on a
 *     random matching schedule; several sets and trust models in one run;
 *   - --path auto picks structured exactly when it describes the run;
 *   - DECOR's ordering (exact sensitivity): LDP <= SecLDP, PNDP <= SecLDP
 *     <= sqrt(k)/sigma; Zip-DL under PNDP finite and positive;
 *   - deadline mode: a slow link cuts victim 8's leak to attacker 0; a down
 *     link 1 -> 0 leaves attacker 0 (whose only neighbour is 1) knowing
 *     nothing;
 *   - a noiseless run: exactly the nodes within T hops are unprotected;
 *   - relabelling the nodes permutes the results; a random-latency run is
 *     byte-identical for the same seed;
 *   - the formats with several accountings, and every bad input of the new
 *     options.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/run_json.h"
#include "tests/common/checks.h"
#include "tests/common/files.h"

#define FLORENTINE "--generate", "florentine"
#define RANDOM "--generate", "erdos:n=12,p=0.35,seed=3,connected=true"

/* The accountings of a JSON output: the "accountings" array, or the
 * top-level object itself when there is one accounting. */
static GPtrArray *accountings(JsonObject *o) {
  GPtrArray *a = g_ptr_array_new();
  if (json_object_has_member(o, "accountings")) {
    JsonArray *arr = json_object_get_array_member(o, "accountings");
    for (guint i = 0; i < json_array_get_length(arr); i++)
      g_ptr_array_add(a, json_array_get_object_element(arr, i));
  } else {
    g_ptr_array_add(a, o);
  }
  return a;
}

/* Two outputs account the same sets alike: victims, distances and
 * unprotected lists equal, sensitivities to @tol relative (absolute below 1). */
static void assert_same_accountings(const CliRun *x, const CliRun *y, double tol) {
  JsonParser *px, *py;
  JsonObject *ox = cli_run_json(x, &px), *oy = cli_run_json(y, &py);
  GPtrArray *ax = accountings(ox), *ay = accountings(oy);
  g_assert_cmpuint(ax->len, ==, ay->len);
  for (guint a = 0; a < ax->len; a++) {
    JsonObject *cx = g_ptr_array_index(ax, a), *cy = g_ptr_array_index(ay, a);
    g_assert_cmpstr(json_object_get_string_member(cx, "trust"), ==,
                    json_object_get_string_member(cy, "trust"));
    JsonArray *ux = json_object_get_array_member(cx, "unprotected"),
              *uy = json_object_get_array_member(cy, "unprotected");
    g_assert_cmpuint(json_array_get_length(ux), ==, json_array_get_length(uy));
    JsonArray *vx = json_object_get_array_member(cx, "victims"),
              *vy = json_object_get_array_member(cy, "victims");
    g_assert_cmpuint(json_array_get_length(vx), ==, json_array_get_length(vy));
    for (guint i = 0; i < json_array_get_length(vx); i++) {
      JsonObject *a1 = json_array_get_object_element(vx, i),
                 *a2 = json_array_get_object_element(vy, i);
      g_assert_cmpint(json_object_get_int_member(a1, "node"), ==,
                      json_object_get_int_member(a2, "node"));
      if (json_object_get_null_member(a1, "sensitivity")) {
        g_assert_true(json_object_get_null_member(a2, "sensitivity"));
        continue;
      }
      double s1 = json_object_get_double_member(a1, "sensitivity"),
             s2 = json_object_get_double_member(a2, "sensitivity");
      if (fabs(s1 - s2) > tol * MAX(1.0, fabs(s2)))
        g_error("accounting %u victim %u: %.17g vs %.17g", a, i, s1, s2);
    }
  }
  g_ptr_array_unref(ax);
  g_ptr_array_unref(ay);
  g_object_unref(px);
  g_object_unref(py);
}

static const char *path_of(const CliRun *r) {
  static char buf[32];
  JsonParser *p;
  JsonObject *o = cli_run_json(r, &p);
  g_strlcpy(buf, json_object_get_string_member(o, "path"), sizeof buf);
  g_object_unref(p);
  return buf;
}

/* ---- The reference through the observer path ---- */

static void test_reference(void) {
  CliRun r = cli_run("account", FLORENTINE, "--rounds", "10", "--sensitivity", "bound", "--trust",
                     "pndp", "--attackers", "0", "--compare", "muffliato", "--path", "observer",
                     "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p, *rp = json_parser_new();
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpstr(json_object_get_string_member(o, "path"), ==, "observer");
  JsonObject *run = json_object_get_object_member(o, "run");
  g_assert_cmpstr(json_object_get_string_member(run, "mode"), ==, "sync");
  /* 20 edges, both ways, 10 rounds; nothing lost, nothing late. */
  g_assert_cmpint(json_object_get_int_member(run, "messages_sent"), ==, 400);
  g_assert_cmpint(json_object_get_int_member(run, "messages_dropped"), ==, 0);
  g_assert_cmpint(json_object_get_int_member(run, "late_discarded"), ==, 0);
  char *path = cli_test_data_path("reference/pndp-florentine-T10-attacker0.json");
  GError *err = NULL;
  json_parser_load_from_file(rp, path, &err);
  g_assert_no_error(err);
  g_free(path);
  JsonArray *rows = json_object_get_array_member(json_node_get_object(json_parser_get_root(rp)),
                                                 "rows");
  JsonArray *vic = json_object_get_array_member(o, "victims");
  g_assert_cmpuint(json_array_get_length(vic), ==, json_array_get_length(rows));
  for (guint i = 0; i < json_array_get_length(rows); i++) {
    JsonObject *v = json_array_get_object_element(vic, i),
               *w = json_array_get_object_element(rows, i);
    g_assert_cmpint(json_object_get_int_member(v, "node"), ==,
                    json_object_get_int_member(w, "node"));
    /* Thm 5.2's reference, capped at the whole release's RDP(2) = T /
     * sigma^2 = 10 (docs/design.md, "The LDP cap"). */
    double want = fmin(json_object_get_double_member(w, "rdp_alpha2"), 10);
    if (want > 1e-9)
      g_assert_cmpfloat(test_rel_diff(json_object_get_double_member(v, "rdp"), want), <, 1e-6);
    g_assert_cmpfloat(test_rel_diff(json_object_get_double_member(v, "muffliato_rdp"),
                                    json_object_get_double_member(w, "muffliato_rdp_alpha2")),
                      <, 1e-6);
  }
  g_object_unref(p);
  g_object_unref(rp);
  cli_run_clear(&r);
}

/* ---- Observer = structured ---- */

static void compare_paths(const char *const *base, guint n_base) {
  GPtrArray *a = g_ptr_array_new(), *b = g_ptr_array_new();
  g_ptr_array_add(a, "account");
  g_ptr_array_add(b, "account");
  for (guint i = 0; i < n_base; i++) {
    g_ptr_array_add(a, (gpointer)base[i]);
    g_ptr_array_add(b, (gpointer)base[i]);
  }
  const char *tail_o[] = {"--path", "observer", "--format", "json", NULL};
  const char *tail_s[] = {"--path", "structured", "--format", "json", NULL};
  for (guint i = 0; i < 5; i++) {
    g_ptr_array_add(a, (gpointer)tail_o[i]);
    g_ptr_array_add(b, (gpointer)tail_s[i]);
  }
  CliRun o = cli_run_v((const char *const *)a->pdata), s = cli_run_v((const char *const *)b->pdata);
  if (o.status != 0 || s.status != 0)
    g_error("%s / %s", o.err, s.err);
  g_assert_cmpstr(path_of(&o), ==, "observer");
  g_assert_cmpstr(path_of(&s), ==, "structured");
  assert_same_accountings(&o, &s, 1e-9);
  cli_run_clear(&o);
  cli_run_clear(&s);
  g_ptr_array_free(a, TRUE);
  g_ptr_array_free(b, TRUE);
}

/* A random lower-triangular 4 x 4 C. */
static char *write_c(char **dir) {
  *dir = test_tmpdir("account-obs");
  char *path = g_build_filename(*dir, "C.csv", NULL);
  g_assert_true(g_file_set_contents(path,
                                    "1.3,0,0,0\n"
                                    "-0.4,1.1,0,0\n"
                                    "0.25,0.6,1.7,0\n"
                                    "-0.3,0.2,-0.55,1.05\n",
                                    -1, NULL));
  return path;
}

static void test_equals_structured(void) {
  char *dir;
  char *c = write_c(&dir);
  char *mf = g_strdup_printf("mfdsgd:C=%s", c);
  const char *protos[] = {"dsgd", "muffliato:K=2", "antipgd", mf};
  for (guint p = 0; p < G_N_ELEMENTS(protos); p++) {
    const char *flo[] = {FLORENTINE, "-T",   "4",       "--trust", "ldp,pndp",   "-a",     "0",
                         "-a",       "3+11", "--sigma", "0.8",     "--protocol", protos[p]};
    compare_paths(flo, G_N_ELEMENTS(flo));
    const char *rnd[] = {RANDOM, "-T", "4",  "-b",    "2",          "--trust", "pndp,ldp",
                         "-a",   "2",  "-a", "1,5,7", "--protocol", protos[p]};
    compare_paths(rnd, G_N_ELEMENTS(rnd));
  }
  /* --path structured takes a run's mode, latency and loss (the delivery
   * record; stale mode's delay-augmented state), and a latency in sync
   * mode: the observer path's numbers, on the same seed's run. */
  const char *modes[] = {"deadline:ms=3", "stale:s=2", "stale:s=1"};
  for (guint m = 0; m < G_N_ELEMENTS(modes); m++) {
    const char *async[] = {FLORENTINE,
                           "-T",
                           "4",
                           "--trust",
                           "ldp,pndp",
                           "-a",
                           "0",
                           "-a",
                           "3+11",
                           "--mode",
                           modes[m],
                           "--loss",
                           "0.2",
                           "--latency",
                           "uniform:min=1,max=5",
                           "--seed",
                           "11",
                           "--protocol",
                           m == 2 ? "muffliato:K=2" : "dsgd"};
    compare_paths(async, G_N_ELEMENTS(async));
  }
  /* Mafalda in deadline and stale modes, sketched (the structured path's
   * fitted C): both paths fit the C of the run's delivery records (of
   * --seed), not the synchronous one. */
  const char *fitted[] = {"deadline:ms=25", "stale:s=2"};
  for (guint m = 0; m < G_N_ELEMENTS(fitted); m++) {
    const char *mf_async[] = {FLORENTINE, "-T",        "8",
                              "-b",       "4",         "--trust",
                              "pndp",     "-a",        "0",
                              "--mode",   fitted[m],   "--latency",
                              "lognormal:mu=3,sigma=0.5", "--seed", "7",
                              "--protocol", "mafalda:probes=2,samples=3"};
    compare_paths(mf_async, G_N_ELEMENTS(mf_async));
  }
  const char *lat[] = {FLORENTINE,   "-T",         "4",
                       "--trust",    "pndp",       "-a",
                       "0",          "--latency",  "uniform:min=1,max=5",
                       "--protocol", "mfdsgd:C=sr"};
  compare_paths(lat, G_N_ELEMENTS(lat));
  const char *sched[] = {FLORENTINE, "-T", "5",       "--schedule", "matching",
                         "--seed",   "3",  "--trust", "pndp",       "-a",
                         "4",        "-a", "0+9",     "--protocol", "muffliato:K=2"};
  compare_paths(sched, G_N_ELEMENTS(sched));
  g_remove(c);
  g_rmdir(dir);
  g_free(mf);
  g_free(c);
  g_free(dir);
}

/* A T x T lower-triangular C with random entries (a fixed seed) as CSV in
 * @dir: its inverse is dense, its noise's state of order min(k, T - k) at
 * step k (above the Kalman engine's 16 for T >= 34). Returns the path. */
static char *write_dense_c(const char *dir, guint T) {
  char *path = g_build_filename(dir, "C.csv", NULL);
  GString *s = g_string_new(NULL);
  GRand *r = g_rand_new_with_seed(3);
  for (guint i = 0; i < T; i++) {
    for (guint j = 0; j < T; j++) {
      double x = j > i    ? 0.0
                 : i == j ? g_rand_double_range(r, 1.0, 2.0)
                          : g_rand_double_range(r, -0.5, 0.5);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf(s, "%s%s", j ? "," : "", g_ascii_formatd(buf, sizeof buf, "%.17g", x));
    }
    g_string_append_c(s, '\n');
  }
  g_assert_true(g_file_set_contents(path, s->str, -1, NULL));
  g_rand_free(r);
  g_string_free(s, TRUE);
  return path;
}

static void test_auto(void) {
  const struct {
    const char *extra[6];
    const char *path;
    const char *reason;
  } cases[] = {
      {{"--protocol", "dsgd", NULL}, "structured", "synchronous run"},
      {{"--protocol", "mfdsgd:C=sr", NULL}, "structured", "synchronous run"},
      {{"--protocol", "decor", NULL}, "structured", "synchronous run"},
      {{"--protocol", "zipdl", NULL}, "observer", "does not know this protocol"},
      {{"--mode", "deadline:ms=5", NULL}, "structured", "delivery record"},
      {{"--mode", "stale:s=1", NULL}, "structured", "delay-augmented"},
      /* DECOR: its secrets on the schedule's edges, the record's W_r for
       * the rest (tests/protocols/test_account_decor_async.c). */
      {{"--mode", "stale:s=1", "--protocol", "decor", NULL}, "structured", "delay-augmented"},
      {{"--mode", "deadline:ms=5", "--protocol", "decor", NULL}, "structured", "delivery record"},
      {{"--mode", "deadline:ms=5", "--link", "1:0=constant:ms=3", NULL},
       "observer",
       "asynchronous mode"},
      {{"--mode", "deadline:ms=2", "--loss", "0.1", NULL}, "structured", "delivery record"},
      /* MF-D-SGD: the W-product engine on the deadline record, the Kalman
       * engine with the noise's state on the stale one (a C whose noise
       * has a low-order state; a dense random C below). */
      {{"--mode", "deadline:ms=2", "--protocol", "mfdsgd:C=sr", NULL},
       "structured",
       "delivery record"},
      {{"--mode", "stale:s=1", "--protocol", "mfdsgd:C=bsr", NULL},
       "structured",
       "delay-augmented"},
      {{"--link", "1:0=constant:ms=3", NULL}, "observer", "per-link"},
      {{"--latency", "uniform:min=1,max=4", NULL}, "structured", "do not depend on --latency"},
      {{"--schedule", "exponential", NULL}, "structured", "synchronous run"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *args[32] = {"account", FLORENTINE, "-T", "3",        "--trust",
                            "pndp",    "-a",       "0",  "--format", "json"};
    guint k = 0;
    while (args[k])
      k++;
    for (guint j = 0; cases[i].extra[j]; j++)
      args[k++] = cases[i].extra[j];
    args[k] = NULL;
    CliRun r = cli_run_v(args);
    if (r.status != 0)
      g_error("case %u: %s", i, r.err);
    JsonParser *p;
    JsonObject *o = cli_run_json(&r, &p);
    g_assert_cmpstr(json_object_get_string_member(o, "path"), ==, cases[i].path);
    g_assert_nonnull(strstr(json_object_get_string_member(o, "path_reason"), cases[i].reason));
    g_assert_cmpint(json_object_has_member(o, "run"), ==, g_str_equal(cases[i].path, "observer"));
    g_object_unref(p);
    cli_run_clear(&r);
  }
  /* MF-D-SGD in stale mode with a C whose noise has no low-order state:
   * the observer path. */
  char *dir = test_tmpdir("auto-stale-c");
  char *c = write_dense_c(dir, 40);
  char *spec = g_strdup_printf("mfdsgd:C=%s", c);
  CliRun r = cli_run("account", FLORENTINE, "-T", "40", "--trust", "pndp", "-a", "0", "--format",
                     "json", "--mode", "stale:s=1", "--protocol", spec);
  if (r.status != 0)
    g_error("dense C: %s", r.err);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpstr(json_object_get_string_member(o, "path"), ==, "observer");
  g_assert_nonnull(strstr(json_object_get_string_member(o, "path_reason"), "asynchronous mode"));
  g_object_unref(p);
  cli_run_clear(&r);
  g_free(spec);
  g_free(c);
  test_rmtree(dir);
  g_free(dir);
}

/* ---- DECOR and Zip-DL ---- */

static double mu_of(JsonObject *acc, guint node) {
  JsonArray *v = json_object_get_array_member(acc, "victims");
  for (guint i = 0; i < json_array_get_length(v); i++) {
    JsonObject *o = json_array_get_object_element(v, i);
    if ((guint)json_object_get_int_member(o, "node") == node)
      return json_object_get_null_member(o, "mu") ? INFINITY
                                                  : json_object_get_double_member(o, "mu");
  }
  return NAN;
}

static void test_decor_zipdl(void) {
  guint T = 6;
  CliRun r = cli_run("account", FLORENTINE, "-T", "6", "--trust", "ldp,pndp,secldp", "-a", "1",
                     "-a", "3+11", "--protocol", "decor", "--path", "observer", "--sensitivity",
                     "exact", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  JsonParser *p;
  JsonObject *o = cli_run_json(&r, &p);
  g_assert_cmpstr(json_object_get_string_member(o, "path"), ==, "observer");
  GPtrArray *acs = accountings(o);
  g_assert_cmpuint(acs->len, ==, 6);
  for (guint s = 0; s < 2; s++) {
    JsonObject *ldp = g_ptr_array_index(acs, 3 * s), *pndp = g_ptr_array_index(acs, 3 * s + 1),
               *sec = g_ptr_array_index(acs, 3 * s + 2);
    g_assert_cmpstr(json_object_get_string_member(ldp, "trust"), ==, "ldp");
    g_assert_cmpstr(json_object_get_string_member(sec, "trust"), ==, "secldp");
    guint strict = 0;
    for (guint u = 0; u < 15; u++) {
      double a = mu_of(ldp, u), b = mu_of(pndp, u), c = mu_of(sec, u);
      if (isnan(c))
        continue;
      g_assert_true(isfinite(a) && isfinite(b) && isfinite(c));
      g_assert_cmpfloat(a, <=, c * (1 + 1e-7));
      g_assert_cmpfloat(b, <=, c * (1 + 1e-7));
      g_assert_cmpfloat(c, <=, sqrt((double)T) * (1 + 1e-7));
      strict += a < c * (1 - 1e-6);
    }
    g_assert_cmpuint(strict, >, 0);
  }
  g_ptr_array_unref(acs);
  g_object_unref(p);
  cli_run_clear(&r);

  r = cli_run("account", FLORENTINE, "-T", "5", "--trust", "pndp", "-a", "0", "-a", "8+12",
              "--protocol", "zipdl", "--format", "json");
  g_assert_cmpint(r.status, ==, 0);
  o = cli_run_json(&r, &p);
  acs = accountings(o);
  for (guint a = 0; a < acs->len; a++) {
    JsonObject *ac = g_ptr_array_index(acs, a);
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(ac, "unprotected")), ==, 0);
    JsonArray *v = json_object_get_array_member(ac, "victims");
    guint positive = 0;
    for (guint i = 0; i < json_array_get_length(v); i++) {
      double mu = json_object_get_double_member(json_array_get_object_element(v, i), "mu");
      g_assert_true(isfinite(mu) && mu >= 0);
      positive += mu > 0;
    }
    g_assert_cmpuint(positive, >, 0);
  }
  g_ptr_array_unref(acs);
  g_object_unref(p);
  cli_run_clear(&r);
}

/* ---- Asynchronous runs ---- */

static JsonObject *run_json(CliRun *r, JsonParser **p) {
  if (r->status != 0)
    g_error("%s", r->err);
  return cli_run_json(r, p);
}

static void test_deadline(void) {
  CliRun sync = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--format",
                        "json");
  CliRun slow = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--mode",
                        "deadline:ms=5", "--latency", "constant:ms=1", "--link",
                        "8:1=constant:ms=1000", "--format", "json");
  CliRun down = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp", "-a", "0", "--mode",
                        "deadline:ms=5", "--latency", "constant:ms=1", "--link", "1:0=down",
                        "--format", "json");
  JsonParser *p1, *p2, *p3;
  JsonObject *os = run_json(&sync, &p1), *ol = run_json(&slow, &p2), *od = run_json(&down, &p3);
  g_assert_cmpstr(json_object_get_string_member(ol, "path"), ==, "observer");
  JsonObject *run = json_object_get_object_member(ol, "run");
  g_assert_cmpint(json_object_get_int_member(run, "late_discarded"), >=, 4);
  g_assert_cmpstr(json_array_get_string_element(json_object_get_array_member(run, "links"), 0), ==,
                  "8:1=constant:ms=1000");
  /* Node 1 never averages node 8's messages: 8 leaks far less to 0. */
  g_assert_cmpfloat(mu_of(ol, 8), <, 0.5 * mu_of(os, 8));
  g_assert_cmpfloat(mu_of(ol, 1), >, 0.0);
  /* Nothing of node 1 ever reaches attacker 0: it learns nothing at all. */
  run = json_object_get_object_member(od, "run");
  g_assert_cmpint(json_object_get_int_member(run, "messages_dropped"), ==, 4);
  for (guint u = 1; u < 15; u++)
    g_assert_cmpfloat(mu_of(od, u), ==, 0.0);
  g_object_unref(p1);
  g_object_unref(p2);
  g_object_unref(p3);
  cli_run_clear(&sync);
  cli_run_clear(&slow);
  cli_run_clear(&down);

  /* Random latencies and losses: the same seed, the same bytes. */
  CliRun a = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp,ldp", "-a", "0", "--mode",
                     "deadline:ms=3", "--latency", "uniform:min=1,max=5", "--loss", "0.2", "--seed",
                     "11", "--format", "json");
  CliRun b = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp,ldp", "-a", "0", "--mode",
                     "deadline:ms=3", "--latency", "uniform:min=1,max=5", "--loss", "0.2", "--seed",
                     "11", "--format", "json");
  CliRun c = cli_run("account", FLORENTINE, "-T", "4", "--trust", "pndp,ldp", "-a", "0", "--mode",
                     "deadline:ms=3", "--latency", "uniform:min=1,max=5", "--loss", "0.2", "--seed",
                     "12", "--format", "json");
  g_assert_cmpint(a.status, ==, 0);
  g_assert_cmpint(c.status, ==, 0);
  g_assert_cmpstr(a.out, ==, b.out);
  g_assert_cmpstr(a.out, !=, c.out);
  cli_run_clear(&a);
  cli_run_clear(&b);
  cli_run_clear(&c);
}

/* ---- Noiseless runs ---- */

static void test_noiseless(void) {
  const char *protos[] = {"dsgd", "decor", "zipdl"};
  /* Florentine: 0's neighbour is 1; 1's neighbours are 5, 6, 7, 8, 9. */
  const gint within1[] = {1}, within2[] = {1, 5, 6, 7, 8, 9};
  for (guint p = 0; p < G_N_ELEMENTS(protos); p++)
    for (guint T = 1; T <= 2; T++) {
      CliRun r = cli_run("account", FLORENTINE, "-T", T == 1 ? "1" : "2", "--trust", "pndp", "-a",
                         "0", "--sigma", "0", "--protocol", protos[p], "--path", "observer",
                         "--format", "json");
      JsonParser *jp;
      JsonObject *o = run_json(&r, &jp);
      JsonArray *un = json_object_get_array_member(o, "unprotected");
      const gint *want = T == 1 ? within1 : within2;
      guint n_want = T == 1 ? 1 : 6;
      g_assert_cmpuint(json_array_get_length(un), ==, n_want);
      for (guint i = 0; i < n_want; i++)
        g_assert_cmpint(json_array_get_int_element(un, i), ==, want[i]);
      for (guint u = 1; u < 15; u++) {
        double mu = mu_of(o, u);
        gboolean in = FALSE;
        for (guint i = 0; i < n_want; i++)
          in |= (gint)u == want[i];
        if (in)
          g_assert_true(isinf(mu));
        else
          g_assert_cmpfloat(mu, ==, 0.0);
      }
      g_object_unref(jp);
      cli_run_clear(&r);
    }
}

/* ---- Relabelling ---- */

static void test_relabel(void) {
  GError *err = NULL;
  char *orig = cli_data_path("graphs/florentine.edges"), *text = NULL;
  g_assert_true(g_file_get_contents(orig, &text, NULL, &err));
  char *dir = test_tmpdir("account-relabel");
  char *perm = g_build_filename(dir, "h.edges", NULL);
  GString *b = g_string_new(NULL);
  guint pi[15];
  for (guint u = 0; u < 15; u++)
    pi[u] = (7 * u + 3) % 15; /* 7 is invertible mod 15 */
  char **lines = g_strsplit(text, "\n", -1);
  guint n_edges = 0;
  for (guint i = 0; lines[i]; i++) {
    guint u, v;
    if (lines[i][0] == '#' || sscanf(lines[i], "%u %u", &u, &v) != 2)
      continue;
    g_string_append_printf(b, "%u %u\n", pi[v], pi[u]);
    n_edges++;
  }
  g_assert_cmpuint(n_edges, ==, 20);
  g_strfreev(lines);
  g_free(text);
  g_assert_true(g_file_set_contents(perm, b->str, -1, NULL));
  char *att = g_strdup_printf("%u+%u", pi[0], pi[9]);
  const char *protos[] = {"decor", "zipdl", "dsgd"};
  const char *trusts[] = {"secldp", "pndp", "pndp"};
  for (guint p = 0; p < G_N_ELEMENTS(protos); p++) {
    CliRun x = cli_run("account", "--graph", orig, "-T", "4", "--trust", trusts[p], "-a", "0+9",
                       "--protocol", protos[p], "--path", "observer", "--format", "json");
    CliRun y = cli_run("account", "--graph", perm, "-T", "4", "--trust", trusts[p], "-a", att,
                       "--protocol", protos[p], "--path", "observer", "--format", "json");
    JsonParser *px, *py;
    JsonObject *ox = run_json(&x, &px), *oy = run_json(&y, &py);
    guint positive = 0;
    for (guint u = 0; u < 15; u++) {
      double mx = mu_of(ox, u), my = mu_of(oy, pi[u]);
      if (isnan(mx)) {
        g_assert_true(isnan(my));
        continue;
      }
      g_assert_cmpfloat(fabs(mx - my), <=, 1e-9 * MAX(1.0, mx));
      positive += mx > 0;
    }
    g_assert_cmpuint(positive, >=, 5);
    g_object_unref(px);
    g_object_unref(py);
    cli_run_clear(&x);
    cli_run_clear(&y);
  }
  /* The written file is the generator's graph: same results. */
  CliRun g1 = cli_run("account", "--graph", orig, "-T", "3", "--trust", "pndp", "-a", "0",
                      "--format", "csv");
  CliRun g2 = cli_run("account", FLORENTINE, "-T", "3", "--trust", "pndp", "-a", "0", "--format",
                      "csv");
  g_assert_cmpstr(g1.out, ==, g2.out);
  cli_run_clear(&g1);
  cli_run_clear(&g2);
  g_remove(perm);
  g_rmdir(dir);
  g_free(att);
  g_free(orig);
  g_free(perm);
  g_free(dir);
  g_string_free(b, TRUE);
}

/* ---- Unresolved victims ---- */

/*
 * Zip-DL under LDP at sigma = 2^-27: victim 1's exact mu is 3.3e9 (exact
 * rationals, tests/protocols/test_account_exact.c), victim 0's 5.1e7. The
 * first must come out unresolved in every format, with the warning on
 * stderr, never as a number; the second stays a number; the status column
 * and fields appear only then.
 */
#define UNRESOLVED_NOTE "no protection: mu > 1e8 or not resolvable in double precision"

static void test_unresolved(void) {
  const char *sigma = "7.450580596923828125e-09";
  CliRun c = cli_run("account", FLORENTINE, "-T", "4", "--trust", "ldp", "-a", "9", "--protocol",
                     "zipdl", "--path", "observer", "--sigma", sigma, "--format", "csv");
  CliRun j = cli_run("account", FLORENTINE, "-T", "4", "--trust", "ldp", "-a", "9", "--protocol",
                     "zipdl", "--path", "observer", "--sigma", sigma, "--format", "json");
  CliRun t = cli_run("account", FLORENTINE, "-T", "4", "--trust", "ldp", "-a", "9", "--protocol",
                     "zipdl", "--path", "observer", "--sigma", sigma);
  g_assert_cmpint(c.status, ==, 0);
  g_assert_cmpint(j.status, ==, 0);
  g_assert_cmpint(t.status, ==, 0);
  for (guint i = 0; i < 3; i++) {
    const CliRun *r = i == 0 ? &c : i == 1 ? &j : &t;
    g_assert_nonnull(strstr(r->err, "warning: trust ldp, attackers 9: victims 1, "));
    g_assert_nonnull(strstr(r->err, UNRESOLVED_NOTE));
  }
  char **lines = g_strsplit(c.out, "\n", -1);
  g_assert_cmpstr(lines[0], ==,
                  "collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,muffliato_rdp,status,"
                  "attackers,alpha,delta,path,seed,mu_lower,bound");
  g_assert_cmpstr(lines[2], ==,
                  "9,ldp,1,1,inf,inf,inf,inf,,unresolved,9,2,1e-06,observer,0,,exact");
  g_assert_true(g_str_has_prefix(lines[1], "9,ldp,0,2,50939954."));
  g_assert_true(g_str_has_suffix(lines[1], ",protected,9,2,1e-06,observer,0,,exact"));
  g_strfreev(lines);
  JsonParser *p;
  JsonObject *o = run_json(&j, &p);
  JsonArray *un = json_object_get_array_member(o, "unresolved");
  g_assert_cmpuint(json_array_get_int_element(un, 0), ==, 1);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "unprotected")), ==, 0);
  JsonArray *vs = json_object_get_array_member(o, "victims");
  JsonObject *v0 = json_array_get_object_element(vs, 0), *v1 = json_array_get_object_element(vs, 1);
  g_assert_false(json_object_has_member(v0, "status"));
  g_assert_cmpstr(json_object_get_string_member(v1, "status"), ==, "unresolved");
  g_assert_cmpstr(json_object_get_string_member(v1, "note"), ==, UNRESOLVED_NOTE);
  g_assert_true(json_object_get_null_member(v1, "mu"));
  g_object_unref(p);
  g_assert_nonnull(strstr(t.out, "unresolved     9 victims (" UNRESOLVED_NOTE ")"));
  cli_run_clear(&c);
  cli_run_clear(&j);
  cli_run_clear(&t);
}

/* ---- Formats with several accountings ---- */

static void test_formats(void) {
  CliRun c = cli_run("account", FLORENTINE, "-T", "3", "--trust", "ldp,pndp", "-a", "0", "-a",
                     "3+11", "--protocol", "decor", "--path", "observer", "--format", "csv");
  CliRun j = cli_run("account", FLORENTINE, "-T", "3", "--trust", "ldp,pndp", "-a", "0", "-a",
                     "3+11", "--protocol", "decor", "--path", "observer", "--format", "json");
  CliRun t = cli_run("account", FLORENTINE, "-T", "3", "--trust", "ldp,pndp", "-a", "0", "-a",
                     "3+11", "--protocol", "decor", "--path", "observer");
  g_assert_cmpint(c.status, ==, 0);
  g_assert_cmpint(t.status, ==, 0);
  char **lines = g_strsplit(c.out, "\n", -1);
  g_assert_cmpstr(lines[0], ==,
                  "collusion,trust,victim,distance,sensitivity,mu,rdp,epsilon,muffliato_rdp,status,"
                  "attackers,alpha,delta,path,seed,mu_lower,bound");
  /* 14 + 14 + 13 + 13 victims, then the final empty line. */
  g_assert_cmpuint(g_strv_length(lines), ==, 1 + 54 + 1);
  g_assert_true(g_str_has_prefix(lines[1], "0,ldp,1,1,"));
  g_assert_true(g_str_has_prefix(lines[15], "0,pndp,1,1,"));
  g_assert_true(g_str_has_prefix(lines[29], "3+11,ldp,0,"));
  JsonParser *p;
  JsonObject *o = run_json(&j, &p);
  GPtrArray *acs = accountings(o);
  g_assert_cmpuint(acs->len, ==, 4);
  JsonObject *last = g_ptr_array_index(acs, 3);
  JsonArray *att = json_object_get_array_member(last, "attackers");
  g_assert_cmpint(json_array_get_int_element(att, 1), ==, 11);
  /* CSV carries the JSON's numbers exactly. */
  char **f = g_strsplit(lines[54], ",", -1);
  JsonArray *v = json_object_get_array_member(last, "victims");
  JsonObject *lv = json_array_get_object_element(v, json_array_get_length(v) - 1);
  g_assert_cmpfloat(g_ascii_strtod(f[6], NULL), ==, json_object_get_double_member(lv, "rdp"));
  g_strfreev(f);
  g_ptr_array_unref(acs);
  g_object_unref(p);
  g_strfreev(lines);
  g_assert_nonnull(strstr(t.out, "path           observer"));
  g_assert_nonnull(strstr(t.out, "trust          pndp, attackers 3+11"));
  cli_run_clear(&c);
  cli_run_clear(&j);
  cli_run_clear(&t);
}

/* ---- Bad inputs ---- */

static void expect_fail(int status, const char *needle, const char *const *args) {
  CliRun r = cli_run_v(args);
  g_assert_cmpint(r.status, ==, status);
  g_assert_cmpstr(r.out, ==, "");
  if (!strstr(r.err, needle))
    g_error("stderr '%s' lacks '%s'", r.err, needle);
  cli_run_clear(&r);
}

#define FAIL(status, needle, ...)                                                                  \
  expect_fail(status, needle,                                                                      \
              (const char *const[]){"account", FLORENTINE, "-T", "3", __VA_ARGS__, NULL})

static void test_bad_inputs(void) {
  FAIL(2, "unknown path 'magic' (valid: auto, structured, observer, local)", "--trust", "pndp",
       "-a", "0", "--path", "magic");
  FAIL(2, "the structured path knows dsgd", "--trust", "pndp", "-a", "0", "--path", "structured",
       "--protocol", "zipdl");
  char *dir = test_tmpdir("structured-stale-c");
  char *c = write_dense_c(dir, 40), *spec = g_strdup_printf("mfdsgd:C=%s", c);
  FAIL(2, "--mode only exists in a simulated run", "--trust", "pndp", "-a", "0", "--path",
       "structured", "--protocol", spec, "-T", "40", "--mode", "stale:s=1");
  g_free(spec);
  g_free(c);
  test_rmtree(dir);
  g_free(dir);
  FAIL(2, "--lr, --storage only exist", "--trust", "pndp", "-a", "0", "--path", "structured",
       "--latency", "constant:ms=2", "--lr", "0.5", "--storage", "dense");
  FAIL(2, "--link only exists", "--trust", "pndp", "-a", "0", "--path", "structured", "--link",
       "1:0=down");
  FAIL(2,
       "--path local bounds D-SGD, Muffliato, DECOR and MF-D-SGD (one C) in deadline or stale "
       "mode on its ball's part of the run's delivery record (docs/local-bounds.md), other runs "
       "synchronous without simulating them: --link only exists",
       "--trust", "pndp", "-a", "0", "--path", "local", "--radius", "2", "--mode", "deadline:ms=5",
       "--link", "1:0=down");
  FAIL(2,
       "--path local with --mode deadline:ms=5 counts hops on the static graph: drop "
       "--schedule matching",
       "--trust", "pndp", "-a", "0", "--path", "local", "--radius", "2", "--schedule", "matching",
       "--mode", "deadline:ms=5");
  FAIL(2, "needs an asynchronous --mode", "--trust", "pndp", "-a", "0", "--loss", "0.1");
  FAIL(2, "--mode:", "--trust", "pndp", "-a", "0", "--mode", "eventually");
  FAIL(2, "--latency:", "--trust", "pndp", "-a", "0", "--latency", "fast");
  FAIL(2, "--loss:", "--trust", "pndp", "-a", "0", "--mode", "deadline:ms=1", "--loss", "lots");
  FAIL(2, "not FROM:TO=down or FROM:TO=LATENCY", "--trust", "pndp", "-a", "0", "--link", "1-0");
  FAIL(2, "not FROM:TO=down or FROM:TO=LATENCY", "--trust", "pndp", "-a", "0", "--link",
       "1:0=slow");
  FAIL(2, "--link: node '15' is not in the graph (its 15 nodes are 0 to 14)", "--trust", "pndp",
       "-a", "0", "--link", "1:15=down");
  FAIL(2, "--link 3:03: a link joins two distinct nodes", "--trust", "pndp", "-a", "0", "--link",
       "3:03=down");
  FAIL(2, "--storage: unknown provenance storage 'compressed'", "--trust", "pndp", "-a", "0",
       "--storage", "compressed");
  FAIL(2, "--lr must be", "--trust", "pndp", "-a", "0", "--lr", "-1");
  FAIL(2, "--seed:", "--trust", "pndp", "-a", "0", "--seed", "x");
  FAIL(2, "--schedule:", "--trust", "pndp", "-a", "0", "--schedule", "wobbly");
  FAIL(2, "--trust: pndp is listed twice", "--trust", "pndp,pndp", "-a", "0");
  FAIL(2, "--trust: unknown trust model", "--trust", "pndp,trusty", "-a", "0");
  FAIL(2, "the set '3+0' is given twice", "--trust", "pndp", "-a", "0+3", "-a", "3+0");
  FAIL(2, "appears twice", "--trust", "pndp", "-a", "0", "-a", "2+2");
  FAIL(2, "out of range", "--trust", "pndp", "-a", "0", "-a", "15");
  FAIL(2, "for a static gossip matrix", "--trust", "pndp", "-a", "0", "--compare", "muffliato",
       "--schedule", "matching");
  FAIL(2, "Muffliato's bound is for D-SGD under PNDP", "--trust", "pndp", "-a", "0", "--compare",
       "muffliato", "--protocol", "decor");
  FAIL(2, "unknown protocol 'gossip'", "--trust", "pndp", "-a", "0", "--protocol", "gossip");
  /* A synchronous run behind a down link never finishes: the run says who waits. */
  FAIL(1, "the run stalled", "--trust", "pndp", "-a", "0", "--path", "observer", "--link",
       "1:0=down");
  FAIL(1, "C=/nonexistent/C.csv: ", "--trust", "pndp", "-a", "0", "--protocol",
       "mafalda:C=/nonexistent/C.csv");
  CliRun r = cli_run("account", "--help");
  g_assert_cmpint(r.status, ==, 0);
  g_assert_nonnull(strstr(r.out, "--path"));
  g_assert_nonnull(strstr(r.out, "--link"));
  g_assert_nonnull(strstr(r.out, "--protocol-plugin"));
  cli_run_clear(&r);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/account-observer/reference", test_reference);
  g_test_add_func("/cli/account-observer/equals-structured", test_equals_structured);
  g_test_add_func("/cli/account-observer/auto", test_auto);
  g_test_add_func("/cli/account-observer/decor-zipdl", test_decor_zipdl);
  g_test_add_func("/cli/account-observer/deadline", test_deadline);
  g_test_add_func("/cli/account-observer/noiseless", test_noiseless);
  g_test_add_func("/cli/account-observer/relabel", test_relabel);
  g_test_add_func("/cli/account-observer/formats", test_formats);
  g_test_add_func("/cli/account-observer/unresolved", test_unresolved);
  g_test_add_func("/cli/account-observer/bad-inputs", test_bad_inputs);
  return g_test_run();
}
