/*
 * protocols/runtime.c: a run: configuration, task, engine, nodes; the
 * getters a protocol uses; the local step.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <float.h>
#include <math.h>
#include <string.h>

#include "protocols/internal.h"
#include "spec/spec.h"

struct ProtoRun {
  ProtoContext ctx;
};

/* Streams of the run's global randomness, one purpose each (the node
 * streams of sim_engine_rng use purposes < SIM_RNG_N_PURPOSES). */
enum {
  SEED_SPLIT = SIM_RNG_USER + 40,
  SEED_PARTITION,
  SEED_INIT,
  SEED_EVAL, /* the sampled evaluation's nodes and test rows */
};

static guint64 derived_seed(guint64 seed, guint purpose) {
  return sim_rng_stream_seed(seed, SIM_NODE_NONE, purpose);
}

void proto_run_config_init(ProtoRunConfig *cfg) {
  g_return_if_fail(cfg != NULL);
  memset(cfg, 0, sizeof *cfg);
  cfg->gossip = TOPO_GOSSIP_UNIFORM;
  cfg->protocol = "dsgd";
  cfg->sigma = 1.0;
  cfg->clip = 1.0;
  cfg->lr = 0.1;
  cfg->test_fraction = LEARN_DEFAULT_TEST_FRACTION;
  cfg->threads = 1;
  cfg->storage = SIM_LIN_SPARSE;
}

void proto_context_fail(ProtoContext *ctx, GError *error) {
  if (ctx->error == NULL)
    ctx->error = error;
  else
    g_error_free(error);
  if (ctx->engine != NULL)
    sim_engine_stop(ctx->engine);
}

/* ------------------------------------------------------------- checks */

static gboolean bad(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean bad(GError **error, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error_literal(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT, msg);
  g_free(msg);
  return FALSE;
}

static gboolean check_config(const ProtoRunConfig *cfg, GError **error) {
  if ((cfg->graph == NULL) == (cfg->schedule == NULL))
    return bad(error, "give exactly one topology: a graph or a schedule");
  if (!(cfg->sigma >= 0.0 && isfinite(cfg->sigma)))
    return bad(error, "sigma must be a finite number >= 0 (got %g)", cfg->sigma);
  if (!(cfg->clip > 0.0 && isfinite(cfg->clip)))
    return bad(error, "the clipping norm must be a finite number > 0 (got %g)", cfg->clip);
  /* The noise std sigma*Delta must be a normal double: one that underflows
   * (to 0, or to a subnormal with a few bits left) is less noise than the
   * structured accounting of sigma assumes; one that overflows is no noise
   * at all (inf - inf). */
  if (cfg->sigma > 0.0 && !(cfg->sigma * cfg->clip >= DBL_MIN && cfg->sigma * cfg->clip <= DBL_MAX))
    return bad(error,
               "the noise std sigma x clip = %g x %g = %g leaves the range of doubles "
               "[%g, %g]: rescale sigma or the clipping norm",
               cfg->sigma, cfg->clip, cfg->sigma * cfg->clip, DBL_MIN, DBL_MAX);
  if (!(cfg->lr > 0.0 && isfinite(cfg->lr)))
    return bad(error, "the learning rate must be a finite number > 0 (got %g)", cfg->lr);
  if (!(cfg->compute_ms >= 0.0 && cfg->compute_ms < 1e12))
    return bad(error, "the local compute time must be in [0, 1e12) ms (got %g)", cfg->compute_ms);
  if (cfg->threads == 0 || cfg->threads > 1024)
    return bad(error, "threads must be in [1, 1024] (got %u)", cfg->threads);
  if (cfg->storage != SIM_LIN_DENSE && cfg->storage != SIM_LIN_SPARSE &&
      cfg->storage != SIM_LIN_NONE)
    return bad(error, "unknown provenance storage %d", (int)cfg->storage);
  if (!(cfg->test_fraction >= 0.0 && cfg->test_fraction < 1.0))
    return bad(error, "the test fraction must be in [0, 1) (got %g)", cfg->test_fraction);
  return TRUE;
}

/* T, k, b from the configuration (see ProtoRunConfig). */
static gboolean participation(ProtoContext *ctx, const ProtoRunConfig *cfg, GError **error) {
  guint k = cfg->epochs, b = cfg->batches;
  if (cfg->dataset != NULL || cfg->external != NULL || cfg->rounds == 0) {
    k = k ? k : 1;
    b = b ? b : 1;
    guint64 T = (guint64)k * b;
    if (T > G_MAXINT32)
      return bad(error, "%u epochs x %u batches is too many steps", k, b);
    if (cfg->rounds != 0 && cfg->rounds != T)
      return bad(error, "rounds %u differ from epochs x batches = %u x %u", cfg->rounds, k, b);
    ctx->T = (guint)T;
  } else {
    ctx->T = cfg->rounds;
    if (k && b) {
      if ((guint64)k * b != cfg->rounds)
        return bad(error, "rounds %u differ from epochs x batches = %u x %u", cfg->rounds, k, b);
    } else if (b) {
      if (cfg->rounds % b != 0)
        return bad(error, "rounds %u are not a multiple of %u batches", cfg->rounds, b);
      k = cfg->rounds / b;
    } else if (k) {
      if (cfg->rounds % k != 0)
        return bad(error, "rounds %u are not a multiple of %u epochs", cfg->rounds, k);
      b = cfg->rounds / k;
    } else {
      b = 1; /* user-level participation: every step */
      k = cfg->rounds;
    }
  }
  ctx->k = k;
  ctx->b = b;
  return TRUE;
}

gboolean proto_task_data(const char *dataset, const char *model, double test_fraction, guint64 seed,
                         LearnDataset **train, LearnDataset **test, double **init, gsize *dim,
                         GError **error) {
  g_return_val_if_fail(dataset != NULL && train != NULL && test != NULL && init != NULL, FALSE);
  *init = NULL;
  /* load_task's calls, with its seeds. */
  if (!learn_data_load(dataset, test_fraction, derived_seed(seed, SEED_SPLIT), train, test, error))
    return FALSE;
  const char *spec = model ? model : (*train)->n_classes ? "softmax" : "linear";
  LearnModel *m = learn_model_new(spec, (*train)->n_features, (*train)->n_classes, error);
  if (m == NULL) {
    g_clear_pointer(train, learn_dataset_free);
    g_clear_pointer(test, learn_dataset_free);
    return FALSE;
  }
  *dim = learn_model_n_params(m);
  *init = g_new(double, *dim);
  learn_model_init(m, *init, derived_seed(seed, SEED_INIT));
  learn_model_free(m);
  return TRUE;
}

/* The caller's task: the record tables the partition and the sampled
 * evaluation read (labels only, no features), its size and start. */
static gboolean load_external(ProtoContext *ctx, const ProtoRunConfig *cfg, GError **error) {
  const ProtoExternalTask *x = cfg->external;
  if (x->dim == 0 || x->init == NULL || x->gradient == NULL || x->n_test == 0)
    return bad(error, "an external task needs parameters, an initial model, a gradient and "
                      "test records");
  if (x->n_classes == 1)
    return bad(error, "a classification task needs at least 2 classes (got 1)");
  if (x->n_train < ctx->n)
    return bad(error,
               "%u nodes but only %" G_GSIZE_FORMAT " training records: every node needs at "
               "least one (use fewer nodes or more data)",
               ctx->n, x->n_train);
  ctx->external = x;
  ctx->train = learn_dataset_new(x->n_train, 1, x->n_classes); /* labels only */
  ctx->test = learn_dataset_new(x->n_test, 1, x->n_classes);
  for (gsize i = 0; x->train_labels != NULL && i < x->n_train; i++) {
    if (!(x->train_labels[i] >= 0 && x->train_labels[i] < x->n_classes))
      return bad(error, "training label %g of record %" G_GSIZE_FORMAT " is not in 0..%u",
                 x->train_labels[i], i, x->n_classes - 1);
    ctx->train->targets[i] = x->train_labels[i];
  }
  if (x->partition != NULL) {
    if (cfg->partition != NULL)
      return bad(error, "a partition rule (%s) and the caller's partition lists: give one",
                 cfg->partition);
    if (x->partition->n_nodes != ctx->n || x->partition->n_batches != ctx->b)
      return bad(error,
                 "the caller's partition is for %u nodes and %u batches, the run has %u "
                 "and %u",
                 x->partition->n_nodes, x->partition->n_batches, ctx->n, ctx->b);
    ctx->partition = learn_partition_copy(x->partition);
  } else {
    ctx->partition = learn_partition_new(cfg->partition, ctx->train, ctx->n, ctx->b,
                                         derived_seed(ctx->seed, SEED_PARTITION), error);
  }
  if (ctx->partition == NULL)
    return FALSE;
  /* The same step as a built-in model's (load_task). */
  ctx->step = ctx->lr * (double)ctx->n * (double)ctx->b / (double)ctx->partition->n_records;
  ctx->dim = x->dim;
  ctx->init_params = g_memdup2(x->init, x->dim * sizeof(double));
  return TRUE;
}

static gboolean load_task(ProtoContext *ctx, const ProtoRunConfig *cfg, GError **error) {
  if (cfg->external != NULL) {
    if (cfg->dataset != NULL || cfg->model != NULL)
      return bad(error, "an external task takes no dataset or model spec");
    return load_external(ctx, cfg, error);
  }
  if (cfg->dataset == NULL) {
    if (cfg->model != NULL)
      return bad(error, "a model (%s) needs a dataset", cfg->model);
    return TRUE;
  }
  if (!learn_data_load(cfg->dataset, cfg->test_fraction, derived_seed(ctx->seed, SEED_SPLIT),
                       &ctx->train, &ctx->test, error))
    return FALSE;
  const char *spec = cfg->model ? cfg->model : ctx->train->n_classes ? "softmax" : "linear";
  ctx->model = learn_model_new(spec, ctx->train->n_features, ctx->train->n_classes, error);
  if (ctx->model == NULL)
    return FALSE;
  if (ctx->train->n < ctx->n) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "%u nodes but only %" G_GSIZE_FORMAT " training records: every node needs at "
                "least one (use fewer nodes or more data)",
                ctx->n, ctx->train->n);
    return FALSE;
  }
  ctx->partition = learn_partition_new(cfg->partition, ctx->train, ctx->n, ctx->b,
                                       derived_seed(ctx->seed, SEED_PARTITION), error);
  if (ctx->partition == NULL)
    return FALSE;
  /* A gradient slot is the SUM of the batch's clipped per-example gradients
   * (one record moves it by at most Delta: the unit the accountant counts) and
   * the noise is added to that sum before dividing by the expected batch size,
   * as Opacus does. Dividing by one constant keeps every gradient slot and its
   * noise on the same scale, so the accounting (and its structured fast path)
   * is unchanged while the noise shrinks with the batch. */
  /* The records dealt, not the training set: a users:k partition leaves
   * the users beyond n k out. */
  ctx->step = ctx->lr * (double)ctx->n * (double)ctx->b / (double)ctx->partition->n_records;
  ctx->dim = learn_model_n_params(ctx->model);
  ctx->init_params = g_new(double, ctx->dim);
  learn_model_init(ctx->model, ctx->init_params, derived_seed(ctx->seed, SEED_INIT));
  return TRUE;
}

/* A measured latency must know every edge of the graph (of round 0 for a
 * time-varying schedule): refused before the run rather than at the first
 * message on a missing link. O(m log degree). */
static gboolean check_link_latencies(ProtoContext *ctx, GError **error) {
  TopoGraph *g = ctx->graph != NULL ? ctx->graph : topo_schedule_graph(ctx->schedule, 0, NULL);
  gboolean ok = TRUE;
  for (guint u = 0; ok && g != NULL && u < topo_graph_n_nodes(g); u++) {
    guint deg;
    const guint *nb = topo_graph_neighbors(g, u, &deg);
    for (guint i = 0; ok && i < deg; i++)
      ok = sim_engine_check_link(ctx->engine, u, nb[i], error);
  }
  if (g != ctx->graph)
    topo_graph_free(g);
  return ok;
}

static gboolean setup_links(ProtoContext *ctx, const ProtoRunConfig *cfg, GError **error) {
  SimLinkParams link = {.latency = {.kind = SIM_LATENCY_CONSTANT, .ms = 0.0}};
  if (cfg->latency != NULL && !sim_latency_parse(cfg->latency, &link.latency, error))
    return FALSE;
  if (cfg->loss != NULL && !sim_loss_parse(cfg->loss, &link.loss, error))
    return FALSE;
  if (ctx->mode.kind == PROTO_MODE_SYNC && link.loss > 0.0)
    return bad(error,
               "sync mode cannot run over lossy links (loss %g): a lost message would block "
               "its receiver forever; use --mode deadline:ms=D or stale:s=S",
               link.loss);
  /* A measured model's files name nodes as the graph's file does. */
  const TopoGraph *named = ctx->graph != NULL      ? ctx->graph
                           : ctx->schedule != NULL ? topo_schedule_base(ctx->schedule)
                                                   : NULL;
  if (named != NULL)
    sim_engine_set_node_names(ctx->engine, topo_graph_node_find_cb, named);
  if (!sim_engine_set_default_link(ctx->engine, &link, error))
    return FALSE;
  return !SIM_LATENCY_IS_MEASURED(&link.latency) || check_link_latencies(ctx, error);
}

static guint inbox_hash(gconstpointer key) {
  guint64 x = GPOINTER_TO_SIZE(key);
  x ^= x >> 31;
  x *= G_GUINT64_CONSTANT(0x9E3779B97F4A7C15);
  return (guint)(x >> 32);
}

static void node_setup(ProtoContext *ctx, ProtoNode *node, guint u) {
  node->ctx = ctx;
  node->id = u;
  node->model = sim_linvec_new(ctx->space);
  if (ctx->init_params != NULL)
    sim_linvec_add_public(node->model, 1.0, ctx->init_params, NULL);
  if (ctx->mode.kind == PROTO_MODE_STALE) {
    node->last_used = g_hash_table_new(g_direct_hash, g_direct_equal);
    node->lost = g_hash_table_new(inbox_hash, g_direct_equal);
  }
  if (ctx->external != NULL)
    node->grad = g_new0(double, ctx->dim);
  if (ctx->model != NULL) {
    node->grad = g_new0(double, ctx->dim);
    node->scratch = g_new0(double, learn_model_scratch_size(ctx->model));
  }
  node->deadline_timer = SIM_EVENT_ID_NONE;
}

/* Fixed bytes per node besides its vectors: the node, its inbox and
 * stale-mode tables, the engine's node state and queue entries. */
#define NODE_OVERHEAD 1024

/*
 * The memory of the nodes' models, estimated before any of them exists (a
 * 10-million-node graph, or a model of 2e9 classes, used to abort in
 * g_malloc halfway through). Each node holds its model, gradient and scratch
 * (dim doubles each) and, with provenance on, the coefficients of its model
 * and of the payload it sends: a node's model at the end of round T depends
 * on the gradients and noise of round t of the nodes within T - t hops, at
 * most min(n, 1 + dmax ((dmax-1)^r - 1)/(dmax-2)) of them at r hops (dmax
 * unknown, i.e. n, for a time-varying schedule). Sparse coefficients take 12
 * bytes, dense ones 8 bytes for every column up to n T.
 */
static gsize models_bytes(ProtoContext *ctx) {
  double n = ctx->n, T = ctx->T, dim = (double)ctx->dim;
  double per_node = 8.0 * (3.0 * dim + 2.0) + NODE_OVERHEAD;
  double coeffs = 0.0;
  if (ctx->storage == SIM_LIN_DENSE) {
    coeffs = 2.0 * n * T * 8.0; /* gradient and noise halves */
  } else if (ctx->storage == SIM_LIN_SPARSE) {
    double dmax = n;
    if (ctx->is_static) {
      TopoGraph *g = ctx->graph != NULL ? ctx->graph : topo_schedule_graph(ctx->schedule, 0, NULL);
      if (g != NULL) {
        dmax = 0;
        for (guint u = 0; u < topo_graph_n_nodes(g); u++)
          dmax = MAX(dmax, topo_graph_degree(g, u));
        if (g != ctx->graph)
          topo_graph_free(g);
      }
    }
    /* Round T - 1 - r reaches the ball of radius r, r = 0 .. T - 1. */
    double reach = 0.0, ball = 1.0, shell = dmax;
    for (guint r = 0; r < ctx->T; r++) {
      reach += ball;
      if (ball >= n) { /* saturated: every later round adds n */
        reach += n * (double)(ctx->T - 1 - r);
        break;
      }
      ball = MIN(n, ball + shell);
      shell *= MAX(dmax - 1.0, 1.0);
    }
    /* Rebased at every round (a streaming observer), a coefficient list
     * spans one round: state variables, noise and gradients of the ball of
     * radius 1. */
    if (ctx->rebased)
      reach = 3.0 * MIN(n, 1.0 + dmax);
    coeffs = 2.0 * 12.0 * MIN(n * T, reach);
  }
  /* What grows with the steps whatever the provenance: every node's noise
   * variable of each step in the registry (arrays doubling: x 2), the byte
   * per step of what each node has received and the step's count of nodes
   * that reached it (issue 37 measured 530 bytes a step at 15 nodes; a
   * doubling array briefly holds twice its content when it grows). */
  double per_step = n * (2.0 * (double)sim_noise_registry_bytes_per_variable() + 1.0) + 8.0;
  double bytes = n * per_node + 2.0 * coeffs * (ctx->prov_nodes ? ctx->prov_nodes : n) +
                 T * per_step;
  return bytes >= (double)G_MAXSIZE ? G_MAXSIZE : (gsize)bytes;
}

/* The inbox keys pack (round, from) into a pointer. */
G_STATIC_ASSERT(sizeof(gpointer) >= 8);

ProtoRun *proto_run_new(const ProtoRunConfig *cfg, GError **error) {
  g_return_val_if_fail(cfg != NULL, NULL);
  if (!check_config(cfg, error))
    return NULL;
  ProtoRun *run = g_new0(ProtoRun, 1);
  ProtoContext *ctx = &run->ctx;
  ctx->run = run;
  ctx->sigma = cfg->sigma;
  ctx->clip = cfg->clip;
  ctx->lr = cfg->lr;
  ctx->step = cfg->lr; /* no task: a gradient slot is one unit vector */
  ctx->compute_ms = cfg->compute_ms;
  ctx->seed = cfg->seed;
  ctx->c_seed = cfg->delivery_seed_set ? cfg->delivery_seed : cfg->seed;
  ctx->c_cache = cfg->c_cache;
  ctx->mode_spec = g_strdup(cfg->mode);
  ctx->latency_spec = g_strdup(cfg->latency);
  ctx->loss_spec = g_strdup(cfg->loss);
  ctx->gossip = cfg->gossip;
  ctx->threads = cfg->threads;
  ctx->eval_every = cfg->eval_every;
  ctx->eval_nodes_asked = cfg->eval_nodes;
  ctx->eval_rows_asked = cfg->eval_rows;
  ctx->eval_seed = derived_seed(cfg->seed, SEED_EVAL);
  ctx->storage = cfg->storage;
  ctx->rebased = cfg->rebased;
  if (cfg->kept != NULL && cfg->nuisance_from != NULL)
    ctx->prov_nodes = cfg->n_kept + cfg->n_nuisance_from;
  ctx->reached = g_array_new(FALSE, TRUE, sizeof(guint));
  g_mutex_init(&ctx->eval_lock);
  g_cond_init(&ctx->eval_cond);

  if (!proto_spec_parse(cfg->protocol ? cfg->protocol : "dsgd", &ctx->vt, &ctx->params, error) ||
      !proto_mode_parse(cfg->mode, &ctx->mode, error) || !participation(ctx, cfg, error))
    goto fail;
  if (cfg->graph != NULL) {
    ctx->graph = topo_graph_copy(cfg->graph, error);
    if (ctx->graph == NULL)
      goto fail;
    ctx->schedule = topo_schedule_new("static", ctx->graph, cfg->gossip, cfg->seed, error);
    if (ctx->schedule == NULL)
      goto fail;
    ctx->schedule_owned = TRUE;
    ctx->is_static = TRUE;
  } else {
    ctx->schedule = cfg->schedule;
    ctx->is_static = topo_schedule_is_static(cfg->schedule);
  }
  ctx->n = topo_schedule_n(ctx->schedule);
  if (ctx->n == 0) {
    bad(error, "the topology has no node");
    goto fail;
  }
  if (!ctx->is_static)
    ctx->round_w = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                         (GDestroyNotify)proto_round_w_free);
  if (!load_task(ctx, cfg, error))
    goto fail;
  {
    char *params = ctx->dim > 0 ? g_strdup_printf("%" G_GSIZE_FORMAT " parameters each, ", ctx->dim)
                                : g_strdup("");
    char *what = g_strdup_printf("the models of %u nodes (%s%u steps%s)", ctx->n, params, ctx->T,
                                 ctx->storage == SIM_LIN_NONE ? "" : ", with provenance");
    g_free(params);
    gboolean fits = spec_check_memory(models_bytes(ctx), what,
                                      "use fewer nodes, steps or model parameters", PROTO_ERROR,
                                      PROTO_ERROR_INVALID_ARGUMENT, error);
    g_free(what);
    if (!fits)
      goto fail;
  }
  ctx->noise = sim_noise_registry_new(ctx->n, error);
  if (ctx->noise == NULL)
    goto fail;
  ctx->space = sim_lin_space_new(ctx->noise, ctx->dim, ctx->storage, ctx->T, error);
  if (ctx->space == NULL ||
      (cfg->kept != NULL && !sim_lin_space_keep_nodes(ctx->space, cfg->kept, cfg->n_kept, error)) ||
      (cfg->heard != NULL &&
       !sim_lin_space_hear_nodes(ctx->space, cfg->heard, cfg->n_heard, error)) ||
      (cfg->nuisance_from != NULL &&
       !sim_lin_space_nuisance_from(ctx->space, cfg->nuisance_from, cfg->n_nuisance_from, error)))
    goto fail;
  ctx->engine = sim_engine_new(ctx->n, ctx->seed, &proto_runtime_handlers, ctx, error);
  if (ctx->engine == NULL ||
      (cfg->delivery_seed_set &&
       !sim_engine_set_delivery_seed(ctx->engine, cfg->delivery_seed, error)) ||
      !setup_links(ctx, cfg, error))
    goto fail;
  if (proto_round_w_get(ctx, 0, error) == NULL) /* fails early on a bad schedule */
    goto fail;

  ctx->nodes = g_new0(ProtoNode, ctx->n);
  for (guint u = 0; u < ctx->n; u++) {
    node_setup(ctx, &ctx->nodes[u], u);
    if (!sim_engine_set_node(ctx->engine, u, NULL, &ctx->nodes[u], error))
      goto fail;
  }
  ctx->steps_total = (guint64)ctx->n * ctx->T;
  if (!proto_eval_setup(ctx, error))
    goto fail;

  proto_vtable_resolve(ctx->vt, &ctx->handlers);
  if (ctx->handlers.init != NULL && !ctx->handlers.init(ctx, ctx->params, &ctx->run_state, error))
    goto fail;
  ctx->run_state_set = TRUE;
  if (ctx->handlers.node_init != NULL)
    for (guint u = 0; u < ctx->n; u++)
      if (!ctx->handlers.node_init(&ctx->nodes[u], ctx->run_state, &ctx->nodes[u].state, error)) {
        g_prefix_error(error, "node %u: ", u);
        goto fail;
      }
  return run;

fail:
  proto_run_free(run);
  return NULL;
}

void proto_run_free(ProtoRun *run) {
  if (run == NULL)
    return;
  ProtoContext *ctx = &run->ctx;
  proto_eval_finish(ctx);
  if (ctx->run_state_set) {
    if (ctx->handlers.node_free != NULL)
      for (guint u = 0; u < ctx->n; u++)
        if (ctx->nodes[u].state != NULL)
          ctx->handlers.node_free(ctx->nodes[u].state);
    if (ctx->handlers.finish != NULL)
      ctx->handlers.finish(ctx->run_state);
  }
  /* The engine first: it releases the messages still in flight. */
  sim_engine_free(ctx->engine);
  if (ctx->nodes != NULL) {
    for (guint u = 0; u < ctx->n; u++) {
      ProtoNode *node = &ctx->nodes[u];
      proto_node_clear_exchange(node);
      proto_inbox_clear(&node->inbox);
      if (node->last_used != NULL)
        g_hash_table_destroy(node->last_used);
      if (node->lost != NULL)
        g_hash_table_destroy(node->lost);
      sim_linvec_free(node->model);
      g_free(node->grad);
      g_free(node->scratch);
      g_free(node->have);
    }
    g_free(ctx->nodes);
  }
  g_free(ctx->noise_z);
  proto_secrets_free(ctx);
  if (ctx->round_w != NULL)
    g_hash_table_destroy(ctx->round_w);
  proto_round_w_free(ctx->static_w);
  sim_lin_space_unref(ctx->space);
  sim_noise_registry_unref(ctx->noise);
  if (ctx->schedule_owned)
    topo_schedule_free(ctx->schedule);
  topo_graph_free(ctx->graph);
  g_free(ctx->mode_spec);
  g_free(ctx->latency_spec);
  g_free(ctx->loss_spec);
  learn_dataset_free(ctx->train);
  learn_dataset_free(ctx->test);
  learn_partition_free(ctx->partition);
  learn_model_free(ctx->model);
  g_free(ctx->init_params);
  g_free(ctx->eval_steps);
  g_free(ctx->metrics);
  g_free(ctx->eval_slot);
  g_free(ctx->test_rows);
  proto_params_free(ctx->params);
  g_free(ctx->eval_done);
  g_array_unref(ctx->reached);
  g_mutex_clear(&ctx->eval_lock);
  g_cond_clear(&ctx->eval_cond);
  if (ctx->error != NULL)
    g_error_free(ctx->error);
  g_free(run);
}

/* A description of the first node that is not done, for stall errors. */
static char *describe_stall(ProtoContext *ctx, guint *n_stuck) {
  *n_stuck = 0;
  ProtoNode *first = NULL;
  for (guint u = 0; u < ctx->n; u++)
    if (!ctx->nodes[u].done) {
      (*n_stuck)++;
      if (first == NULL)
        first = &ctx->nodes[u];
    }
  if (first == NULL)
    return NULL;
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "node %u (step %u) ", first->id, first->step);
  if (first->gathering && first->w != NULL) {
    const ProtoRoundW *w = first->w;
    g_string_append_printf(s, "is waiting for round-%u messages from", first->round);
    guint shown = 0;
    for (guint p = w->in_ptr[first->id]; p < w->in_ptr[first->id + 1]; p++)
      if (!first->have[p - w->in_ptr[first->id]] && shown++ < 8)
        g_string_append_printf(s, " %u", w->in_cols[p]);
    g_string_append(s, " (lost, or never sent)");
  } else if (first->exchanged) {
    g_string_append_printf(s, "has not sent round %u", first->round);
  } else {
    g_string_append_printf(s,
                           "is idle at round %u: the protocol neither exchanged nor "
                           "called proto_node_done",
                           first->round);
  }
  return g_string_free(s, FALSE);
}

gboolean proto_run_run(ProtoRun *run, GError **error) {
  g_return_val_if_fail(run != NULL, FALSE);
  ProtoContext *ctx = &run->ctx;
  if (ctx->ran) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT, "a run can only run once");
    return FALSE;
  }
  ctx->ran = TRUE;
  GError *sub = NULL;
  SimRunStatus status = sim_engine_run(ctx->engine, SIM_TIME_NEVER, &sub);
  proto_eval_finish(ctx);
  if (status == SIM_RUN_ERROR) {
    g_propagate_error(error, sub);
    return FALSE;
  }
  if (ctx->error != NULL) {
    g_propagate_error(error, ctx->error);
    ctx->error = NULL;
    return FALSE;
  }
  if (ctx->cancelled) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_CANCELLED, "the run was cancelled");
    return FALSE;
  }
  guint n_stuck;
  char *stall = describe_stall(ctx, &n_stuck);
  if (stall != NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_STALLED,
                "the run stalled at %.3f ms with %u of %u nodes unfinished: %s",
                sim_engine_now(ctx->engine) / (double)SIM_TIME_MS, n_stuck, ctx->n, stall);
    g_free(stall);
    return FALSE;
  }
  if (!proto_metrics_flush(ctx, error))
    return FALSE;
  if (ctx->progress != NULL)
    ctx->progress(1.0, ctx->progress_data);
  return TRUE;
}

void proto_run_cancel(ProtoRun *run) {
  if (run != NULL)
    run->ctx.cancelled = 1;
}

void proto_run_set_progress(ProtoRun *run, ProtoProgressFunc func, gpointer user_data) {
  g_return_if_fail(run != NULL);
  run->ctx.progress = func;
  run->ctx.progress_data = user_data;
}

void proto_run_set_gradient_func(ProtoRun *run, ProtoGradientFunc func, gpointer user_data) {
  g_return_if_fail(run != NULL);
  run->ctx.gradient = func;
  run->ctx.gradient_data = user_data;
}

void proto_run_set_gather_func(ProtoRun *run, ProtoGatherFunc func, gpointer user_data) {
  g_return_if_fail(run != NULL);
  run->ctx.gather = func;
  run->ctx.gather_data = user_data;
}

SimEngine *proto_run_engine(ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return run->ctx.engine;
}

ProtoContext *proto_run_context(ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return &run->ctx;
}

const ProtoVTable *proto_run_protocol(const ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return run->ctx.vt;
}

const SimLinvec *proto_run_node_model(ProtoRun *run, guint u) {
  g_return_val_if_fail(run != NULL && u < run->ctx.n, NULL);
  return run->ctx.nodes[u].model;
}

const LearnDataset *proto_run_train_set(const ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return run->ctx.train;
}

const LearnDataset *proto_run_test_set(const ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return run->ctx.test;
}

const LearnModel *proto_run_learn_model(const ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return run->ctx.model;
}

const LearnPartition *proto_run_partition(const ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return run->ctx.partition;
}

const double *proto_run_initial_params(const ProtoRun *run) {
  g_return_val_if_fail(run != NULL, NULL);
  return run->ctx.init_params;
}

void proto_run_get_stats(ProtoRun *run, ProtoRunStats *stats) {
  g_return_if_fail(run != NULL && stats != NULL);
  ProtoContext *ctx = &run->ctx;
  memset(stats, 0, sizeof *stats);
  stats->sim_time = sim_engine_now(ctx->engine);
  sim_engine_get_stats(ctx->engine, &stats->engine);
  stats->gathers = ctx->gathers;
  stats->partial_gathers = ctx->partial_gathers;
  stats->late_discarded = ctx->late_discarded;
  stats->stale_inputs = ctx->stale_inputs;
  /* The protocol's draws, not the state variables of a streaming rebase. */
  guint count = sim_noise_registry_count(ctx->noise);
  stats->n_noise = 0;
  for (guint k = 0; k < count; k++)
    stats->n_noise += sim_noise_kind(ctx->noise, k) != SIM_NOISE_KIND_STATE;
}

/* ------------------------------------------------------------ context */

guint proto_context_n_nodes(const ProtoContext *ctx) {
  return ctx->n;
}

guint proto_context_steps(const ProtoContext *ctx) {
  return ctx->T;
}

guint proto_context_epochs(const ProtoContext *ctx) {
  return ctx->k;
}

guint proto_context_batches(const ProtoContext *ctx) {
  return ctx->b;
}

double proto_context_sigma(const ProtoContext *ctx) {
  return ctx->sigma;
}

double proto_context_clip(const ProtoContext *ctx) {
  return ctx->clip;
}

double proto_context_lr(const ProtoContext *ctx) {
  return ctx->lr;
}

double proto_context_step_size(const ProtoContext *ctx) {
  return ctx->step;
}

gsize proto_context_dim(const ProtoContext *ctx) {
  return ctx->dim;
}

SimLinSpace *proto_context_space(const ProtoContext *ctx) {
  return ctx->space;
}

SimNoiseRegistry *proto_context_noise(const ProtoContext *ctx) {
  return ctx->noise;
}

gpointer proto_context_run_state(const ProtoContext *ctx) {
  return ctx->run_state;
}

guint64 proto_context_seed(const ProtoContext *ctx) {
  return ctx->seed;
}

gboolean proto_context_gossip_is_static(const ProtoContext *ctx) {
  return ctx->is_static;
}

double *proto_context_gossip_dense(ProtoContext *ctx, guint round, GError **error) {
  return proto_schedule_gossip_dense(ctx->schedule, round, error);
}

double *proto_schedule_gossip_dense(TopoSchedule *schedule, guint round, GError **error) {
  GError *sub = NULL;
  TopoGossip *g = topo_schedule_gossip(schedule, round, &sub);
  if (g == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "gossip matrix of round %u: %s", round,
                sub->message);
    g_error_free(sub);
    return NULL;
  }
  double *dense = topo_gossip_dense(g);
  topo_gossip_free(g);
  return dense;
}

ProtoNode *proto_context_node(ProtoContext *ctx, guint u) {
  g_return_val_if_fail(u < ctx->n, NULL);
  return &ctx->nodes[u];
}

/* --------------------------------------------------------------- nodes */

guint proto_node_id(const ProtoNode *node) {
  return node->id;
}

ProtoContext *proto_node_context(const ProtoNode *node) {
  return node->ctx;
}

gpointer proto_node_state(const ProtoNode *node) {
  return node->state;
}

guint proto_node_step(const ProtoNode *node) {
  return node->step;
}

SimTime proto_node_now(const ProtoNode *node) {
  return sim_engine_now(node->ctx->engine);
}

SimLinvec *proto_node_model(ProtoNode *node) {
  return node->model;
}

static void report_progress(ProtoContext *ctx) {
  ctx->steps_done++;
  if (ctx->progress == NULL || ctx->steps_total == 0)
    return;
  guint pct = (guint)(ctx->steps_done * 100 / ctx->steps_total);
  if (pct != ctx->progress_last) {
    ctx->progress_last = pct;
    ctx->progress((double)ctx->steps_done / (double)ctx->steps_total, ctx->progress_data);
  }
}

SimTime proto_compute_ns(const ProtoContext *ctx) {
  return (SimTime)llround(ctx->compute_ms * 1e6);
}

gboolean proto_node_local_step(ProtoNode *node, guint t, GError **error) {
  ProtoContext *ctx = node->ctx;
  if (t != node->step || t >= ctx->T) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "node %u: local step %u out of order (next is %u of %u)", node->id, t, node->step,
                ctx->T);
    return FALSE;
  }
  proto_eval_maybe(ctx, node, t);
  proto_step_reached(ctx, t);
  const double *g = NULL;
  if ((ctx->model != NULL || ctx->external != NULL) && ctx->gradient != NULL) {
    ctx->gradient(node->id, t, node->grad, ctx->dim, ctx->gradient_data);
    g = node->grad;
  } else if (ctx->external != NULL) {
    gsize count = 0;
    const gsize *batch = learn_partition_batch(ctx->partition, node->id, t, &count);
    if (!ctx->external->gradient(node->id, t, sim_linvec_const_data(node->model), batch, count,
                                 node->grad, ctx->dim, ctx->external->user_data, error))
      return FALSE;
    g = node->grad;
  } else if (ctx->model != NULL) {
    gsize count = 0;
    const gsize *batch = learn_partition_batch(ctx->partition, node->id, t, &count);
    learn_model_clipped_grad(ctx->model, sim_linvec_const_data(node->model), ctx->train, batch,
                             count, ctx->clip, node->grad, node->scratch);
    /* The mean back to the sum: the slot's unit (see setup of ctx->step). */
    for (gsize i = 0; i < ctx->dim; i++)
      node->grad[i] *= (double)count;
    g = node->grad;
  }
  if (!sim_linvec_add_gradient(node->model, -ctx->step, node->id, t, g, error))
    return FALSE;
  node->step++;
  node->busy_until = sim_engine_now(ctx->engine) + proto_compute_ns(ctx);
  report_progress(ctx);
  return TRUE;
}

void proto_node_done(ProtoNode *node) {
  if (node->done)
    return;
  node->done = TRUE;
  proto_eval_maybe(node->ctx, node, node->step);
  proto_step_reached(node->ctx, node->step);
}
