/*
 * cli/audit_onerun.c: `dpgossip audit --attack onerun`: the one-run audit
 * of a real D-SGD training run (Steinke, Nasr and Jagielski 2023). m gradient
 * canaries (cli/audit_onerun.h), each included with probability 1/2, join
 * the batches of random nodes; after training, the LDP attacker guesses
 * "in" for the k best-scored canaries and "out" for the k worst, and the
 * number of right guesses gives an epsilon lower bound at the stated
 * confidence (priv_onerun_epsilon_lower), printed beside the epsilon the
 * run's own accounting gives at the same delta (LDP, the largest over the
 * canaries' nodes). A lower bound above the accounted epsilon means the
 * printed guarantee is wrong: an error, exit status 1.
 */
#include <math.h>
#include <stdio.h>

#include "cli/audit_onerun.h"
#include "cli/cli.h"
#include "cli/train_privacy.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "spec/spec.h"

#define CMD "audit"

typedef struct {
  char *attack, *format, *seed_text, *sigma_text;
  /* The training run (D-SGD, LDP of every node), checked by
   * proto_train_validate as `train`'s is: its numbers and its task (the
   * dataset, model and partition are GOption's copies). */
  ProtoTrainOptions run;
  gint canaries, guesses;
  double confidence;
  CliFormat fmt;
} OnerunOptions;

typedef struct {
  guint m, r, v;
  double eps_low, eps, mu, test_loss;
} OnerunResult;

static void options_clear(OnerunOptions *o) {
  g_free(o->attack);
  g_free((char *)o->run.task.dataset);
  g_free((char *)o->run.task.model);
  g_free((char *)o->run.task.partition);
  g_free(o->format);
  g_free(o->seed_text);
  g_free(o->sigma_text);
}

/* The checks a bad flag fails, before any data is read. */
static gboolean options_check(OnerunOptions *o, GError **error) {
#define BAD(...) (g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, __VA_ARGS__), FALSE)
  if (g_strcmp0(o->attack, "onerun") != 0)
    return BAD("--attack onerun must be given once for the one-run audit (got --attack %s)",
               o->attack != NULL ? o->attack : "(none)");
  if (o->run.task.dataset == NULL)
    return BAD("--dataset is required");
  o->run.sigma = NAN;
  if (!cli_number_option("--sigma", o->sigma_text, &o->run.sigma, error))
    return FALSE;
  o->run.seed = o->seed_text;
  ProtoAccountRefusal refusal;
  if (!proto_train_validate(&o->run, &refusal, error))
    return FALSE;
  /* What only an audit asks: noise to audit. */
  if (o->run.sigma == 0)
    return BAD("--sigma must be > 0 (got 0): without noise nothing is protected and there is "
               "nothing to audit");
  if (o->canaries < 2 || o->canaries > 1000000)
    return BAD("--canaries must be in [2, 1000000] (got %d)", o->canaries);
  if (o->guesses == 0)
    o->guesses = MAX(1, o->canaries / 4);
  if (o->guesses < 1 || 2 * (gint64)o->guesses > o->canaries)
    return BAD("--guesses K (K in, K out) must be in [1, canaries / 2] (got %d for %d canaries)",
               o->guesses, o->canaries);
  if (!(o->run.delta > 0 && o->run.delta < 1) || !(o->confidence > 0 && o->confidence < 1))
    return BAD("--delta and --confidence must be in (0, 1) (got %g and %g)", o->run.delta,
               o->confidence);
  return o->format == NULL ||
         cli_format_parse(o->format,
                          1u << CLI_FORMAT_TABLE | 1u << CLI_FORMAT_JSON | 1u << CLI_FORMAT_CSV,
                          &o->fmt, error);
#undef BAD
}

/* The accounted guarantee of the canaries' nodes: the largest. */
static void accounted(const CliTrainPrivacy *priv, const CliOnerunCanaries *c, OnerunResult *res) {
  res->eps = 0;
  res->mu = 0;
  for (guint i = 0; i < c->m; i++) {
    const PrivVictim *v = cli_train_privacy_victim(priv, 0, c->node[i]);
    res->eps = v != NULL ? MAX(res->eps, v->epsilon) : INFINITY;
    res->mu = v != NULL ? MAX(res->mu, v->mu) : INFINITY;
  }
}

/* Trains with the canaries, accounts and audits. */
static int audit_run(const OnerunOptions *o, const TopoGraph *g, TopoGossipKind kind,
                     OnerunResult *res, GError **error) {
  ProtoAccountRequest r;
  proto_train_request(&o->run, &r);
  r.gossip = kind;
  gboolean usage;
  CliTrainPrivacy *priv = cli_train_privacy_plan(&r, g, &usage, error);
  if (priv == NULL)
    return usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
  const ProtoObserveOptions *observe = cli_train_privacy_observe(priv);
  ProtoRunConfig cfg;
  proto_train_run_config(&r, &o->run.task, g, NULL, observe != NULL, &cfg);
  CliOnerunCanaries *c = NULL;
  CliOnerunHook *hook = NULL;
  int status = CLI_EXIT_FAILURE;
  ProtoObservedRun *orun = proto_observed_run_new(&cfg, observe, error);
  if (orun == NULL)
    goto out;
  ProtoRun *run = proto_observed_run_proto(orun);
  ProtoContext *ctx = proto_run_context(run);
  /* The canaries' directions and their nodes' models: (m + n) d doubles at
   * most, checked before allocation. */
  gsize doubles = ((gsize)o->canaries + proto_context_n_nodes(ctx)) * proto_context_dim(ctx);
  if (!spec_check_memory(doubles * sizeof(double), "the canaries",
                         "use fewer --canaries or a smaller --model",
                         G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, error))
    goto out;
  c = cli_onerun_canaries_new((guint)o->canaries, proto_context_dim(ctx),
                              proto_context_n_nodes(ctx), (guint)o->run.batches, o->run.seed_value);
  hook = cli_onerun_attach(run, c, error);
  cli_interrupt_set_run(run);
  gboolean ran = hook != NULL && !cli_interrupted() && proto_observed_run_run(orun, error);
  cli_interrupt_set_run(NULL);
  if (cli_interrupted()) {
    g_clear_error(error);
    status = cli_interrupt_status();
    goto out;
  }
  if (!ran || !cli_train_privacy_account(priv, orun, error))
    goto out;
  accounted(priv, c, res);
  res->test_loss = proto_run_mean_test_loss(run, proto_context_steps(ctx));
  res->m = c->m;
  res->r = 2 * (guint)o->guesses;
  res->v = cli_onerun_guess(c, (guint)o->guesses);
  if (priv_onerun_epsilon_lower(res->m, res->r, res->v, o->run.delta, o->confidence, &res->eps_low,
                                error))
    status = CLI_EXIT_OK;
out:
  proto_observed_run_free(orun);
  cli_onerun_hook_free(hook);
  cli_onerun_canaries_free(c);
  cli_train_privacy_free(priv);
  return status;
}

/* One tidy row, as the distinguishing audit's (attack "onerun"). */
static void print_result(const OnerunOptions *o, const OnerunResult *r, const char *verdict) {
  if (o->fmt == CLI_FORMAT_JSON) {
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    cli_json_string(b, "protocol", "dsgd");
    cli_json_string(b, "trust", "ldp");
    cli_json_string(b, "attack", "onerun");
    cli_json_number(b, "sigma", o->run.sigma);
    cli_json_int(b, "epochs", o->run.epochs);
    cli_json_int(b, "batches", o->run.batches);
    cli_json_int(b, "canaries", r->m);
    cli_json_int(b, "guesses", r->r);
    cli_json_int(b, "correct", r->v);
    cli_json_number(b, "epsilon_lower", r->eps_low);
    cli_json_number(b, "epsilon", r->eps);
    cli_json_number(b, "mu", r->mu);
    cli_json_number(b, "delta", o->run.delta);
    cli_json_number(b, "confidence", o->confidence);
    cli_json_number(b, "test_loss", r->test_loss);
    cli_json_string(b, "status", verdict);
    cli_json_int(b, "seed", (gint64)o->run.seed_value);
    json_builder_end_object(b);
    cli_json_print(b);
    return;
  }
  if (o->fmt == CLI_FORMAT_TABLE) {
    printf("%-8s %-6s %10s %6s %7s %8s %7s %7s %13s %10s %10s %10s %s\n", "protocol", "trust",
           "sigma", "epochs", "batches", "canaries", "guesses", "correct", "epsilon_lower",
           "epsilon", "mu", "test_loss", "status");
    printf("%-8s %-6s %10.4g %6d %7d %8u %7u %7u %13.4g %10.4g %10.4g %10.4g %s\n", "dsgd", "ldp",
           o->run.sigma, o->run.epochs, o->run.batches, r->m, r->r, r->v, r->eps_low, r->eps, r->mu,
           r->test_loss, verdict);
    return;
  }
  printf("protocol,trust,attack,sigma,epochs,batches,canaries,guesses,correct,epsilon_lower,"
         "epsilon,mu,delta,confidence,test_loss,status,seed\n");
  printf("dsgd,ldp,onerun,%.17g,%d,%d,%u,%u,%u,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,"
         "%" G_GUINT64_FORMAT "\n",
         o->run.sigma, o->run.epochs, o->run.batches, r->m, r->r, r->v, r->eps_low, r->eps, r->mu, o->run.delta,
         o->confidence, r->test_loss, verdict, o->run.seed_value);
}

int cli_audit_onerun(int argc, char **argv) {
  CliGraphOptions gopt = {0};
  OnerunOptions o = {.run = {.protocol = "dsgd",
                             .epochs = 1,
                             .batches = 1,
                             .threads = 1,
                             .lr = 0.1,
                             .clip = 1.0,
                             .alpha = 2.0,
                             .delta = 1e-6,
                             .task = {.test_fraction = LEARN_DEFAULT_TEST_FRACTION}},
                     .canaries = 200,
                     .confidence = 0.95};
  GOptionEntry entries[] = {
      {"attack", 0, 0, G_OPTION_ARG_STRING, &o.attack,
       "onerun (required here: the one-run audit; np, learned and reconstruction take the "
       "options of `dpgossip audit --help`)",
       "onerun"},
      CLI_OPTIONS_TASK(&o.run.task),
      CLI_OPTION_EPOCHS(&o.run.epochs),
      {"batches", 'b', 0, G_OPTION_ARG_INT, &o.run.batches, "Batches per node b (default 1)", "B"},
      CLI_OPTION_LR(&o.run.lr),
      {"sigma", 0, 0, G_OPTION_ARG_STRING, &o.sigma_text, "Noise multiplier sigma > 0 (default 1)",
       "S"},
      CLI_OPTION_CLIP(&o.run.clip),
      CLI_OPTION_TEST_FRACTION(&o.run.task),
      {"canaries", 0, 0, G_OPTION_ARG_INT, &o.canaries,
       "Canaries m, each included with probability 1/2 (default 200)", "M"},
      {"guesses", 0, 0, G_OPTION_ARG_INT, &o.guesses,
       "Guess 'in' for the K best scores and 'out' for the K worst (default m / 4)", "K"},
      {"delta", 0, 0, G_OPTION_ARG_DOUBLE, &o.run.delta,
       "delta of both epsilons (default 1e-6)", "DELTA"},
      {"confidence", 0, 0, G_OPTION_ARG_DOUBLE, &o.confidence,
       "Confidence of the lower bound (default 0.95)", "C"},
      {"seed", 's', 0, G_OPTION_ARG_STRING, &o.seed_text,
       "Seed of the run and the canaries (default 0)", "N"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &o.format, "table (default), csv or json", "FMT"},
      G_OPTION_ENTRY_NULL};
  const CliOptionsSpec spec = {
      .parameter = "- one-run audit of a D-SGD training run (LDP)",
      .graph = &gopt,
      .entries = entries,
      .description =
          "Trains D-SGD (sync) with m gradient canaries of norm Delta at random nodes and\n"
          "batches, each included with probability 1/2; the LDP attacker (every message\n"
          "sent) scores each canary by the inner product of its node's noisy updates with\n"
          "it, guesses, and the right guesses bound epsilon from below at the confidence\n"
          "(Steinke, Nasr and Jagielski 2023). Output: one row, epsilon_lower beside the\n"
          "accounted epsilon (LDP, the canaries' nodes) at the same delta; status\n"
          "consistent, or overstated (exit 1) when the bound exceeds the accounted one.\n"
          "\n"
          "Example:\n"
          "  dpgossip audit --attack onerun --graph facebook-ego-414-lcc.edges \\\n"
          "    --dataset california:cal_housing.data --model mlp:hidden=16 -k 4 -b 4 \\\n"
          "    --sigma 1 --canaries 400 --seed 1\n"};
  int status = CLI_EXIT_USAGE;
  TopoGraph *g = NULL;
  GError *error = NULL;
  TopoGossipKind kind = TOPO_GOSSIP_UNIFORM;
  OnerunResult res = {0};
  if (!cli_options_parse(&spec, &argc, &argv))
    goto out;
  if (!options_check(&o, &error) || !learn_data_spec_check(o.run.task.dataset, &error) ||
      (o.run.task.model != NULL && !learn_model_spec_check(o.run.task.model, &error)) ||
      (o.run.task.partition != NULL && !learn_partition_spec_check(o.run.task.partition, &error)) ||
      !cli_graph_options_gossip(&gopt, &kind, &error)) {
    status = cli_fail(CMD, error, CLI_EXIT_USAGE);
    goto out;
  }
  g = cli_graph_options_build(&gopt, &error);
  if (g == NULL) {
    status = cli_fail(CMD, error, cli_graph_options_status(&gopt, error));
    goto out;
  }
  /* The run a signal cancels: nothing is printed before it ends, so an
   * interrupted audit leaves no output. */
  CliInterrupt saved = {0};
  cli_interrupt_begin(&saved, NULL);
  status = audit_run(&o, g, kind, &res, &error);
  cli_interrupt_end(&saved);
  if (cli_interrupted()) {
    g_clear_error(&error);
    status = cli_interrupt_status();
    fprintf(stderr, "dpgossip %s: interrupted; no output written\n", CMD);
    goto out;
  }
  if (status != CLI_EXIT_OK) {
    status = cli_fail(CMD, error, cli_error_status(error));
    goto out;
  }
  gboolean overstated = res.eps_low > res.eps;
  print_result(&o, &res, overstated ? "overstated" : "consistent");
  if (overstated) {
    fprintf(stderr,
            "dpgossip %s: error: the empirical epsilon lower bound %.4g exceeds the "
            "accounted epsilon %.4g at delta = %g: the printed guarantee is wrong\n",
            CMD, res.eps_low, res.eps, o.run.delta);
    status = CLI_EXIT_FAILURE;
  }
out:
  topo_graph_free(g);
  options_clear(&o);
  cli_graph_options_clear(&gopt);
  return status;
}
