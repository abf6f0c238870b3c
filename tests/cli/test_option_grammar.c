/*
 * tests/cli/test_option_grammar.c: one option grammar across the commands:
 * -T (rounds), -k (epochs) and -b (batches, the participation interval)
 * wherever they mean the same, any two giving the third (same outputs as
 * the pair written out), three that disagree refused; "did you mean" for
 * every mistyped enumerated value; the declared range of BLT's buffers
 * the one enforced; and one help text for an option that means the same
 * in several commands.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run_json.h"

static char *dir;

/* The JSON of a successful run (the parser in *@p). */
static JsonObject *json_ok(CliRun *r, JsonParser **p) {
  if (r->status != 0)
    g_error("exit %d: %s", r->status, r->err);
  return cli_run_json(r, p);
}

#define ACCOUNT                                                                                    \
  "account", "--generate", "florentine", "--trust", "ldp", "-a", "0", "--format", "json"

static void expect_account(CliRun r, gint64 T, gint64 b, const char *same_as) {
  JsonParser *p;
  JsonObject *o = json_ok(&r, &p);
  g_assert_cmpint(json_object_get_int_member(o, "rounds"), ==, T);
  g_assert_cmpint(json_object_get_int_member(o, "participation_interval"), ==, b);
  if (same_as != NULL)
    g_assert_cmpstr(r.out, ==, same_as);
  g_object_unref(p);
  cli_run_clear(&r);
}

static void test_account(void) {
  CliRun ref = cli_run(ACCOUNT, "-T", "32", "-b", "8");
  g_assert_cmpint(ref.status, ==, 0);
  expect_account(cli_run(ACCOUNT, "-k", "4", "-b", "8"), 32, 8, ref.out);
  expect_account(cli_run(ACCOUNT, "-T", "32", "-k", "4"), 32, 8, ref.out);
  expect_account(cli_run(ACCOUNT, "-T", "32", "-k", "4", "-b", "8"), 32, 8, ref.out);
  expect_account(cli_run(ACCOUNT, "--epochs", "4"), 4, 1, NULL); /* user level: b = 1 */
  cli_run_clear(&ref);
}

/* @args fail with status 2 and @message in their first line. */
static void expect_usage(const char *const *args, const char *message) {
  CliRun r = cli_run_v(args);
  g_assert_cmpint(r.status, ==, 2);
  char *first = g_strndup(r.err, strcspn(r.err, "\n"));
  if (strstr(first, message) == NULL)
    g_error("'%s' not in '%s'", message, first);
  g_free(first);
  cli_run_clear(&r);
}

#define USAGE(msg, ...) expect_usage((const char *const[]){__VA_ARGS__, NULL}, msg)

static void test_disagree(void) {
  USAGE("-k 4 epochs does not divide -T 30 rounds", ACCOUNT, "-T", "30", "-k", "4");
  USAGE("-T 32 rounds is not -k 4 epochs x -b 4 (give two of the three)", ACCOUNT, "-T", "32", "-k",
        "4", "-b", "4");
  USAGE("--epochs k must be positive (got 0)", ACCOUNT, "-k", "0");
  USAGE("-b 3 does not divide -T 16 rounds", "mafalda", "--generate", "florentine", "-T", "16",
        "-b", "3");
  USAGE("--epochs and --batches must both be given and positive, or one of them with --rounds",
        "mafalda", "--generate", "florentine", "-T", "16");
  USAGE("--epochs and --batches must both be given and positive (got k = 0, b = 16)", "mafalda",
        "--generate", "florentine", "-b", "16");
  USAGE("-T 12 rounds is not -k 3 epochs x -b 3", "train", "--generate", "florentine", "-d",
        "synthetic:linear", "-o", "x.csv", "-T", "12", "-k", "3", "-b", "3");
}

static char *slurp_run(const char *const *args, const char *out) {
  CliRun r = cli_run_v(args);
  if (r.status != 0)
    g_error("exit %d: %s", r.status, r.err);
  cli_run_clear(&r);
  char *text = NULL;
  g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
  return text;
}

#define TRAIN(out, ...)                                                                            \
  (const char *const[]) {                                                                          \
    "train", "--generate", "florentine", "-d", "synthetic:linear", "-q", "--trust", "none", "-o",  \
        out, __VA_ARGS__, NULL                                                                     \
  }

static void test_train_mafalda(void) {
  char *a = g_build_filename(dir, "a.csv", NULL), *b = g_build_filename(dir, "b.csv", NULL);
  char *ref = slurp_run(TRAIN(a, "-k", "3", "-b", "4"), a);
  char *got = slurp_run(TRAIN(b, "-T", "12", "-k", "3"), b);
  g_assert_cmpstr(got, ==, ref);
  g_free(got);
  got = slurp_run(TRAIN(b, "-T", "12", "-b", "4"), b);
  g_assert_cmpstr(got, ==, ref);
  g_free(got);
  g_free(ref);
  /* -T alone: one epoch of T batches. */
  ref = slurp_run(TRAIN(a, "-k", "1", "-b", "12"), a);
  got = slurp_run(TRAIN(b, "-T", "12"), b);
  g_assert_cmpstr(got, ==, ref);
  g_free(got);
  g_free(ref);
  g_free(a);
  g_free(b);
  JsonParser *p1, *p2;
  CliRun r1 = cli_run("mafalda", "--generate", "florentine", "-k", "5", "-b", "16", "--format",
                      "json", "-q");
  CliRun r2 = cli_run("mafalda", "--generate", "florentine", "-T", "80", "-b", "16", "--format",
                      "json", "-q");
  JsonObject *o1 = json_ok(&r1, &p1), *o2 = json_ok(&r2, &p2);
  g_assert_cmpint(json_object_get_int_member(o2, "epochs"), ==, 5);
  JsonNode *l1 = json_object_get_member(o1, "loss"), *l2 = json_object_get_member(o2, "loss");
  g_assert_true(json_node_equal(l1, l2));
  g_object_unref(p1);
  g_object_unref(p2);
  cli_run_clear(&r1);
  cli_run_clear(&r2);
  CliRun h = cli_run("help");
  g_assert_nonnull(strstr(h.out, "Horizon (account, audit, train, mafalda): -T rounds, -k epochs"));
  cli_run_clear(&h);
}

/* Every command that takes --latency lists every latency model (one text:
 * the train help once missed the overlay's geo model). */
static void test_latency_help(void) {
  const char *const cmds[] = {"train", "account", "figure"};
  for (guint i = 0; i < G_N_ELEMENTS(cmds); i++) {
    CliRun h = cmds[i][0] == 'f' ? cli_run("figure", "privacy-vs-distance", "--help")
                                 : cli_run(cmds[i], "--help");
    g_assert_cmpint(h.status, ==, 0);
    for (const char *m = "constant:\0uniform:\0lognormal:\0links:\0country:\0geo:\0"; *m;
         m += strlen(m) + 1)
      if (strstr(h.out, m) == NULL)
        g_error("%s --help does not name the latency model %s", cmds[i], m);
    cli_run_clear(&h);
  }
}

/* The help text of @option in `dpgossip @cmd --help` (g_free), or NULL. */
static char *help_text(const char *cmd, const char *option) {
  CliRun h = g_str_equal(cmd, "figure") ? cli_run("figure", "privacy-vs-distance", "--help")
             : g_str_equal(cmd, "onerun") ? cli_run("audit", "--attack", "onerun", "--help")
                                          : cli_run(cmd, "--help");
  g_assert_cmpint(h.status, ==, 0);
  char *pattern = g_strdup_printf("^  (-., )?--%s(=[^ ]+)? +(.*)$", option);
  GRegex *re = g_regex_new(pattern, G_REGEX_MULTILINE, 0, NULL);
  GMatchInfo *m = NULL;
  char *text = g_regex_match(re, h.out, 0, &m) ? g_match_info_fetch(m, 3) : NULL;
  g_match_info_free(m);
  g_regex_unref(re);
  g_free(pattern);
  cli_run_clear(&h);
  return text;
}

/* An option that means the same in several commands reads the same in
 * each one's --help, metavariable included. */
static void test_shared_help(void) {
  const struct {
    const char *option, *text, *cmds[5];
  } shared[] = {
      {"quiet", "No progress line (on a terminal: refreshed; elsewhere: every 10 s)",
       {"account", "figure", "mafalda", "train", NULL}},
      {"clip=DELTA", "Per-example gradient clipping norm Delta (default 1)",
       {"account", "figure", "train", "onerun", NULL}},
      {"alpha=ALPHA", "Renyi order alpha of the RDP reported (default 2)",
       {"account", "figure", "train", NULL}},
      {"delta=DELTA", "delta of the epsilon column (default 1e-6)", {"account", "train", NULL}},
      {"schedule=SPEC",
       "Time-varying gossip over the graph (default static): static, resample:GENSPEC, matching "
       "(the graph's neighbours paired each round; matching:complete=true pairs any two nodes), "
       "exponential, edge-failure:p=P, churn:FILE, churn:leave=P,join=Q or "
       "churn:trace=FILE[,format=sessions|stunner,scale=S,start=S,seed=N,map=seed|identity] "
       "(session traces)",
       {"account", "train", NULL}},
      {"dataset=SPEC",
       "Dataset (required): california:PATH, csv:PATH[,target=COL][,header=auto|yes|no]"
       "[,classes=N|auto][,standardize=yes|no|all] (target: the last column unless named or "
       "numbered; classes=0, the default: regression), idx:DIR, synthetic:linear|logistic[,...]",
       {"train", "onerun", NULL}},
      {"model=SPEC",
       "Model: linear, softmax, mlp[:hidden=H], cnn[:groups=G] (default linear or softmax by "
       "task)",
       {"train", "onerun", NULL}},
      {"partition=SPEC", "Records to nodes: uniform (default), dirichlet:alpha=A, classes:k=K",
       {"train", "onerun", NULL}},
      {"test-fraction=F", "Fraction of the records held out for testing, in (0, 1) (default 0.2)",
       {"train", "onerun", NULL}},
      {"epochs=K", "Epochs k (default 1)", {"train", "onerun", NULL}},
      {"lr=ETA", "Learning rate eta (default 0.1)", {"train", "onerun", NULL}},
      {"radius=R",
       "--path local: hops around the attackers whose victims are bounded (>= 1); every node "
       "farther away colludes with the attackers",
       {"account", "figure", NULL}},
  };
  for (guint i = 0; i < G_N_ELEMENTS(shared); i++)
    for (guint c = 0; shared[i].cmds[c] != NULL; c++) {
      char *text = help_text(shared[i].cmds[c], shared[i].option);
      if (g_strcmp0(text, shared[i].text) != 0)
        g_error("%s --help: --%s reads '%s', expected '%s'", shared[i].cmds[c],
                shared[i].option, text, shared[i].text);
      g_free(text);
    }
  char *run = help_text("run", "quiet");
  g_assert_cmpstr(run, ==,
                  "No progress line (on a terminal: refreshed; elsewhere: every 10 s) and no "
                  "summary");
  g_free(run);
  /* The simulated network: one text after each command's word for its run. */
  const char *const cmds[] = {"account", "figure", "train"};
  const char *const where[] = {"Observer path: ", "Simulated run: ", "Network: "};
  const char *const network[] = {"mode=MODE", "latency=SPEC", "loss=P"};
  for (guint i = 0; i < G_N_ELEMENTS(network); i++) {
    char *first = NULL;
    for (guint c = 0; c < G_N_ELEMENTS(cmds); c++) {
      char *text = help_text(cmds[c], network[i]);
      if (text == NULL || !g_str_has_prefix(text, where[c]))
        g_error("%s --help: --%s reads '%s'", cmds[c], network[i], text);
      if (first == NULL)
        first = g_strdup(text + strlen(where[c]));
      else
        g_assert_cmpstr(text + strlen(where[c]), ==, first);
      g_free(text);
    }
    g_free(first);
  }
  char *mode = help_text("train", "mode=MODE");
  g_assert_cmpstr(mode, ==, "Network: gossip mode sync (default), deadline:ms=D or stale:s=S");
  g_free(mode);
}

static void test_did_you_mean(void) {
  USAGE("unknown trust model 'pnpd' (expected ldp, pndp or secldp); did you mean 'pndp'?",
        "account", "--generate", "florentine", "-T", "4", "--trust", "pnpd", "-a", "0");
  USAGE("did you mean 'pndp'?", "train", "--generate", "florentine", "-d", "synthetic:linear", "-o",
        "x.csv", "--trust", "pnpd");
  USAGE("unknown generator 'florentin' (valid: erdos, gnm, regular, barabasi, watts, ring, path, "
        "star, complete, grid, hypercube, karate, florentine); did you mean 'florentine'?",
        "graph", "--generate", "florentin");
  USAGE("unknown protocol 'mufliato' (valid: antipgd, decor, dsgd, mafalda, mfdsgd, muffliato, "
        "zipdl); did you mean 'muffliato'? (no plugin provides protocol 'mufliato'",
        ACCOUNT, "-T", "4", "-p", "mufliato");
  USAGE("unknown gossip matrix 'metropolys' (valid: uniform, metropolis, maxdegree); did you "
        "mean 'metropolis'?",
        "graph", "--generate", "florentine", "--gossip", "metropolys");
  USAGE("--mode: unknown mode 'deadlin:ms=3' (valid: sync, deadline:ms=D, stale:s=S); did you "
        "mean 'deadline'?",
        ACCOUNT, "-T", "4", "--mode", "deadlin:ms=3");
  USAGE("--format: unknown format 'jsn' (valid: table, json); did you mean 'json'?", "graph",
        "--generate", "florentine", "--format", "jsn");
  USAGE("unknown schedule 'matchng' (valid: static, resample:GENSPEC, matching, exponential, "
        "edge-failure:p=P, churn:FILE, churn:leave=P,join=Q, "
        "churn:trace=FILE[,format=..,scale=..,start=..,seed=..,map=..]); did you mean 'matching'?",
        ACCOUNT, "-T", "4", "--schedule", "matchng");
  USAGE("--graph-format: unknown format 'edgs' (valid: auto, edges, csv, graphml, gml, "
        "pajek); did you mean 'edges'?",
        "graph", "--graph", "x.edges", "--graph-format", "edgs");
  USAGE("unknown workload 'mesages' (expected post-average or messages); did you mean "
        "'messages'?",
        "mafalda", "--generate", "florentine", "-k", "2", "-b", "2", "--workload", "mesages");
  USAGE("unknown figure 'privacy-vs-distanse' (valid: privacy-vs-distance); did you mean "
        "'privacy-vs-distance'?",
        "figure", "privacy-vs-distanse");
  /* Nothing close: no guess. */
  CliRun r = cli_run("graph", "--generate", "florentine", "--gossip", "zzzzzz");
  g_assert_cmpint(r.status, ==, 2);
  g_assert_null(strstr(r.err, "did you mean"));
  cli_run_clear(&r);
}

static void test_blt_buffers_range(void) {
  JsonParser *p;
  CliRun r = cli_run("protocols", "mfdsgd", "--format", "json");
  JsonObject *o = json_ok(&r, &p);
  JsonArray *params = json_object_get_array_member(o, "parameters");
  gboolean seen = FALSE;
  for (guint i = 0; i < json_array_get_length(params); i++) {
    JsonObject *q = json_array_get_object_element(params, i);
    if (!g_str_equal(json_object_get_string_member(q, "name"), "buffers"))
      continue;
    JsonObject *range = json_object_get_object_member(q, "range");
    g_assert_cmpint(json_object_get_int_member(range, "min"), ==, 1);
    g_assert_cmpint(json_object_get_int_member(range, "max"), ==, 8);
    seen = TRUE;
  }
  g_assert_true(seen);
  g_object_unref(p);
  cli_run_clear(&r);
  USAGE("--protocol: mfdsgd: parameter buffers=0 is out of range [1, 8]", ACCOUNT, "-T", "8", "-b",
        "4", "-p", "mfdsgd:C=blt,buffers=0");
  USAGE("--protocol: mafalda: parameter buffers=9 is out of range [1, 8]", ACCOUNT, "-T", "8", "-b",
        "4", "-p", "mafalda:C=blt,buffers=9");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  dir = test_tmpdir("grammar");
  g_test_add_func("/cli/option-grammar/account", test_account);
  g_test_add_func("/cli/option-grammar/disagree", test_disagree);
  g_test_add_func("/cli/option-grammar/train-mafalda", test_train_mafalda);
  g_test_add_func("/cli/option-grammar/did-you-mean", test_did_you_mean);
  g_test_add_func("/cli/option-grammar/latency-help", test_latency_help);
  g_test_add_func("/cli/option-grammar/shared-help", test_shared_help);
  g_test_add_func("/cli/option-grammar/blt-buffers-range", test_blt_buffers_range);
  int rc = g_test_run();
  char *rm[] = {"rm", "-rf", dir, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(dir);
  return rc;
}
