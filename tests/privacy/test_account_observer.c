/*
 * tests/privacy/test_account_observer.c: the observer on real engine runs. A
 * small synchronous D-SGD written against the engine (linvec payloads, as
 * every protocol's) is observed by several views at once; their knowledge,
 * through the generic accountant, must equal the structured fast path's
 * blocks. A lossy run checks what each trust model sees of dropped messages.
 */
#include "test_account_util.h"

typedef struct {
  const TopoGossip *w;
  guint T;
  SimNoiseId *z; /* z[t * n + u] */
  SimLinvec **theta, **y;
  guint *round, *received;
  guint n;
  gboolean lossy; /* no averaging: just the round-0 messages */
} Dsgd;

static void check(gboolean ok, GError *err) {
  g_assert_no_error(err);
  g_assert_true(ok);
}

/* theta_{t+1/2} = theta_t - (g_t + sigma Delta z_t), sent to the neighbours;
 * its own weight goes straight into the average. */
static void step(SimEngine *e, Dsgd *d, guint u) {
  GError *err = NULL;
  guint t = d->round[u];
  SimLinvec *x = sim_linvec_dup(d->theta[u]);
  check(sim_linvec_add_gradient(x, -1.0, u, t, NULL, &err), err);
  check(sim_linvec_add_noise(x, -1.0, d->z[(gsize)t * d->n + u], NULL, &err), err);
  sim_linvec_zero(d->y[u]);
  check(sim_linvec_axpy(d->y[u], topo_gossip_get(d->w, u, u), x, &err), err);
  d->received[u] = 0;
  const guint *cols;
  const double *vals;
  guint len = topo_gossip_row(d->w, u, &cols, &vals);
  guint32 *to = g_new(guint32, len);
  guint n_to = 0;
  for (guint j = 0; j < len; j++)
    if (cols[j] != u)
      to[n_to++] = cols[j];
  SimMessage *m = sim_message_new_linvec(u, t, 0, x, 8);
  check(sim_engine_broadcast(e, m, to, n_to, &err), err);
  sim_message_unref(m);
  g_free(to);
}

static void on_start(SimEngine *e, guint32 node, gpointer state) {
  (void)state;
  step(e, sim_engine_get_user_data(e), node);
}

static void on_message(SimEngine *e, guint32 node, gpointer state, SimMessage *m) {
  (void)state;
  Dsgd *d = sim_engine_get_user_data(e);
  GError *err = NULL;
  guint32 from = sim_message_from(m);
  g_assert_cmpuint(sim_message_round(m), ==, d->round[node]);
  check(
      sim_linvec_axpy(d->y[node], topo_gossip_get(d->w, node, from), sim_message_payload(m), &err),
      err);
  guint deg;
  const guint *cols;
  const double *vals;
  deg = topo_gossip_row(d->w, node, &cols, &vals) - 1;
  if (d->lossy || ++d->received[node] < deg)
    return;
  /* theta_{t+1} = sum_v W[u,v] theta_{t+1/2}^(v) */
  check(sim_linvec_copy(d->theta[node], d->y[node], &err), err);
  if (++d->round[node] < d->T)
    step(e, d, node);
}

typedef struct {
  guint sent, delivered, dropped;
} Counts;

static void count_events(const SimBusEvent *ev, gpointer data) {
  Counts *c = data;
  if (ev->kind == SIM_BUS_MESSAGE_SENT)
    c->sent++;
  if (ev->kind == SIM_BUS_MESSAGE_DELIVERED)
    c->delivered++;
  if (ev->kind == SIM_BUS_MESSAGE_DROPPED)
    c->dropped++;
}

/* Runs D-SGD on @w for @T steps with an observer holding the given views;
 * returns the observer (the engine is gone: payloads freed long ago). */
static PrivObserver *run_observed(const TopoGossip *w, guint T, double sigma, double loss,
                                  const PrivTrust *trusts, const guint *const *sets,
                                  const guint *set_len, guint n_views, Counts *counts) {
  GError *err = NULL;
  guint n = topo_gossip_n(w);
  SimNoiseRegistry *reg = sim_noise_registry_new(n, &err);
  SimLinSpace *space = sim_lin_space_new(reg, 0, SIM_LIN_DENSE, 0, &err);
  g_assert_no_error(err);
  Dsgd d = {.w = w, .T = T, .n = n, .lossy = loss > 0};
  d.z = g_new(SimNoiseId, (gsize)T * n);
  for (guint t = 0; t < T; t++)
    for (guint u = 0; u < n; u++)
      d.z[t * n + u] = sim_noise_register_local(reg, sigma, u, t, NULL);
  d.theta = g_new(SimLinvec *, n);
  d.y = g_new(SimLinvec *, n);
  d.round = g_new0(guint, n);
  d.received = g_new0(guint, n);
  for (guint u = 0; u < n; u++) {
    d.theta[u] = sim_linvec_new(space);
    d.y[u] = sim_linvec_new(space);
  }
  SimNodeHandlers h = {.on_start = on_start, .on_message = on_message};
  SimEngine *e = sim_engine_new(n, 42, &h, &d, &err);
  g_assert_no_error(err);
  SimLinkParams link = {.latency = {.kind = SIM_LATENCY_CONSTANT, .ms = 1.0}, .loss = loss};
  check(sim_engine_set_default_link(e, &link, &err), err);
  PrivObserver *obs = priv_observer_new(space, &err);
  g_assert_no_error(err);
  for (guint v = 0; v < n_views; v++)
    g_assert_cmpuint(priv_observer_add_view(obs, trusts[v], sets[v], set_len[v], &err), ==, v);
  check(priv_observer_attach(obs, sim_engine_bus(e), &err), err);
  g_assert_false(priv_observer_attach(obs, sim_engine_bus(e), &err)); /* once */
  g_clear_error(&err);
  sim_bus_subscribe(sim_engine_bus(e), count_events, counts, NULL, &err);
  g_assert_cmpint(sim_engine_run(e, SIM_TIME_NEVER, &err), ==, SIM_RUN_IDLE);
  g_assert_no_error(err);
  if (!d.lossy)
    for (guint u = 0; u < n; u++)
      g_assert_cmpuint(d.round[u], ==, T);
  /* The bus dies with the engine: the observer must forget it. */
  sim_engine_free(e);
  for (guint u = 0; u < n; u++) {
    sim_linvec_free(d.theta[u]);
    sim_linvec_free(d.y[u]);
  }
  g_free(d.theta);
  g_free(d.y);
  g_free(d.round);
  g_free(d.received);
  g_free(d.z);
  sim_lin_space_unref(space);
  sim_noise_registry_unref(reg);
  return obs;
}

static PrivBlocks *observed_blocks(const PrivObserver *obs, guint view, guint T) {
  GError *err = NULL;
  PrivKnowledge *k = priv_observer_knowledge(obs, view, &err);
  g_assert_no_error(err);
  PrivKnowledgeOptions o = {.T = T, .clip = 1.0};
  PrivBlocks *b = priv_knowledge_blocks(k, &o, &err);
  g_assert_no_error(err);
  priv_knowledge_free(k);
  return b;
}

static void test_engine_dsgd(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &err);
  g_assert_no_error(err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  const TopoGossip *ws[] = {w};
  guint T = 5;
  double sigma = 1.3;
  const guint s0[] = {0}, s25[] = {2, 5}, s12[] = {12};
  const guint *sets[] = {s0, s25, s0, s25, s12};
  const guint len[] = {1, 2, 1, 2, 1};
  const PrivTrust trusts[] = {PRIV_TRUST_PNDP, PRIV_TRUST_PNDP, PRIV_TRUST_LDP, PRIV_TRUST_SECLDP,
                              PRIV_TRUST_PNDP};
  Counts counts = {0};
  PrivObserver *obs = run_observed(w, T, sigma, 0.0, trusts, sets, len, 5, &counts);
  g_assert_cmpuint(priv_observer_n_views(obs), ==, 5);
  /* 2 messages per edge per step; PNDP {0} receives node 1's T messages. */
  g_assert_cmpuint(counts.sent, ==, 2 * 20 * T);
  g_assert_cmpuint(counts.delivered, ==, counts.sent);
  g_assert_cmpuint(priv_observer_n_rows(obs, 0), ==, T);
  g_assert_cmpuint(priv_observer_n_rows(obs, 2), ==, 15 * T); /* one per sender per step */
  HandRun run = {.protocol = PRIV_PROTOCOL_DSGD,
                 .K = 1,
                 .T = T,
                 .gossip = ws,
                 .n_gossip = 1,
                 .sigma = sigma,
                 .clip = 1.0};
  for (guint v = 0; v < 5; v++) {
    PrivBlocks *seen = observed_blocks(obs, v, T);
    PrivBlocks *fast = fast_blocks(&run, trusts[v], sets[v], len[v], PRIV_ENGINE_AUTO);
    g_assert_cmpfloat(blocks_rel_diff(seen, fast), <, 1e-9);
    priv_blocks_free(seen);
    priv_blocks_free(fast);
  }
  g_assert_null(priv_observer_knowledge(obs, 5, &err));
  g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  priv_observer_free(obs);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* With loss, LDP sees every SENT message (the wire), PNDP only deliveries. */
static void test_lossy(void) {
  GError *err = NULL;
  TopoGraph *g = topo_graph_generate("star:n=9", &err);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &err);
  g_assert_no_error(err);
  double sigma = 2.0;
  const guint hub[] = {0};
  const guint *sets[] = {hub, hub};
  const guint len[] = {1, 1};
  const PrivTrust trusts[] = {PRIV_TRUST_PNDP, PRIV_TRUST_LDP};
  Counts counts = {0};
  PrivObserver *obs = run_observed(w, 1, sigma, 0.5, trusts, sets, len, 2, &counts);
  g_assert_cmpuint(counts.sent, ==, 16);
  g_assert_cmpuint(counts.delivered + counts.dropped, ==, 16);
  g_assert_cmpuint(counts.dropped, >, 0);
  g_assert_cmpuint(counts.delivered, >, 0);
  PrivBlocks *pndp = observed_blocks(obs, 0, 1), *ldp = observed_blocks(obs, 1, 1);
  guint protected_ = 0;
  for (guint u = 1; u < 9; u++) {
    g_assert_cmpfloat(fabs(priv_blocks_get(ldp, u)[0] - 1.0 / (sigma * sigma)), <, 1e-12);
    double x = priv_blocks_get(pndp, u)[0];
    /* The hub either got u's message (X = 1/sigma^2) or not (X = 0). */
    g_assert_true(fabs(x) < 1e-12 || fabs(x - 1.0 / (sigma * sigma)) < 1e-12);
    protected_ += fabs(x) < 1e-12;
  }
  /* Leaves whose message to the hub was lost: the hub learnt nothing. */
  g_assert_cmpuint(priv_observer_n_rows(obs, 0), ==, 8 - protected_);
  g_assert_cmpuint(protected_, >, 0);
  priv_blocks_free(pndp);
  priv_blocks_free(ldp);
  priv_observer_free(obs);
  topo_gossip_free(w);
  topo_graph_free(g);
}

/* Views: argument checks; detaching before the bus dies; replay by hand. */
static void test_views_and_replay(void) {
  GError *err = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(3, &err);
  SimLinSpace *space = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &err);
  PrivObserver *obs = priv_observer_new(space, &err);
  g_assert_no_error(err);
  const guint dup[] = {1, 1}, out[] = {3}, one[] = {1};
  g_assert_cmpuint(priv_observer_add_view(obs, PRIV_TRUST_PNDP, dup, 2, &err), ==, G_MAXUINT);
  g_assert_nonnull(strstr(err->message, "twice"));
  g_clear_error(&err);
  g_assert_cmpuint(priv_observer_add_view(obs, PRIV_TRUST_PNDP, out, 1, &err), ==, G_MAXUINT);
  g_assert_nonnull(strstr(err->message, "out of range"));
  g_clear_error(&err);
  g_assert_cmpuint(priv_observer_add_view(obs, PRIV_TRUST_PNDP, one, 0, &err), ==, G_MAXUINT);
  g_clear_error(&err);
  g_assert_cmpuint(priv_observer_add_view(obs, PRIV_TRUST_SECLDP, one, 1, &err), ==, 0);

  /* An edge secret between 1 and 2 and 0's local noise: node 1 knows the
   * secret (SecLDP), not node 0's noise. */
  SimNoiseId e12 = sim_noise_register_edge(reg, 1.0, 1, 2, 0, &err);
  SimNoiseId z0 = sim_noise_register_local(reg, 1.0, 0, 0, &err);
  SimLinvec *m = sim_linvec_new(space);
  check(sim_linvec_add_gradient(m, 1.0, 0, 0, NULL, &err), err);
  check(sim_linvec_add_noise(m, 1.0, e12, NULL, &err), err);
  SimMessage *msg = sim_message_new_linvec(0, 0, 0, m, 8);
  SimBusEvent ev = {.kind = SIM_BUS_MESSAGE_SENT, .from = 0, .to = 2, .message = msg};
  priv_observer_observe(obs, &ev);
  priv_observer_observe(obs, &ev); /* the same row twice is kept once */
  g_assert_cmpuint(priv_observer_n_rows(obs, 0), ==, 1);
  PrivBlocks *b = observed_blocks(obs, 0, 1);
  g_assert_cmpint(b->status[0], ==, PRIV_NODE_UNPROTECTED); /* g_0 + known secret */
  priv_blocks_free(b);
  check(sim_linvec_add_noise(m, 1.0, z0, NULL, &err), err);
  priv_observer_observe(obs, &ev);
  g_assert_cmpuint(priv_observer_n_rows(obs, 0), ==, 2);
  b = observed_blocks(obs, 0, 1);
  g_assert_cmpint(b->status[0], ==, PRIV_NODE_UNPROTECTED); /* the first row still shows it */
  priv_blocks_free(b);
  sim_message_unref(msg);

  /* Detach before the engine goes, then free both in either order. */
  SimEngine *e = sim_engine_new(3, 1, NULL, NULL, &err);
  check(priv_observer_attach(obs, sim_engine_bus(e), &err), err);
  priv_observer_detach(obs);
  check(priv_observer_attach(obs, sim_engine_bus(e), &err), err);
  priv_observer_free(obs); /* unsubscribes itself */
  sim_engine_free(e);
  sim_lin_space_unref(space);
  sim_noise_registry_unref(reg);
}

/* priv_observer_view_hear_sent: a PNDP view hears what its senders send
 * to its receivers (delivered or not), nothing else of theirs; its
 * argument checks. */
static void test_hear_sent(void) {
  GError *err = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(4, &err);
  SimLinSpace *space = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &err);
  PrivObserver *obs = priv_observer_new(space, &err);
  g_assert_no_error(err);
  const guint zero[] = {0}, two[] = {2}, three[] = {3}, bad[] = {3, 1}, far[] = {4};
  g_assert_cmpuint(priv_observer_add_view(obs, PRIV_TRUST_PNDP, zero, 1, &err), ==, 0);
  struct {
    guint view;
    const guint *senders, *receivers;
    guint n_senders, n_receivers;
    const char *why;
  } refused[] = {
      {1, two, three, 1, 1, "no such view"},
      {0, two, three, 0, 1, "no sender to hear"},
      {0, two, three, 1, 0, "no receiver (NULL receivers: any)"},
      {0, bad, three, 2, 1, "the nodes must be increasing node ids below the network size"},
      {0, two, far, 1, 1, "the nodes must be increasing node ids below the network size"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
    g_assert_false(priv_observer_view_hear_sent(obs, refused[i].view, refused[i].senders,
                                                refused[i].n_senders, refused[i].receivers,
                                                refused[i].n_receivers, &err));
    g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(g_strrstr(err->message, refused[i].why));
    g_clear_error(&err);
  }
  check(priv_observer_view_hear_sent(obs, 0, two, 1, three, 1, &err), err);
  g_assert_false(priv_observer_view_hear_sent(obs, 0, two, 1, NULL, 0, &err));
  g_assert_nonnull(g_strrstr(err->message, "the view hears a set of senders already"));
  g_clear_error(&err);
  /* Distinct rows: node u's gradient at step 0. */
  struct {
    SimBusEventKind kind;
    guint from, to;
    gboolean heard;
  } events[] = {
      {SIM_BUS_MESSAGE_SENT, 2, 3, TRUE},       /* a heard sender to a heard receiver */
      {SIM_BUS_MESSAGE_SENT, 2, 1, FALSE},      /* to another node */
      {SIM_BUS_MESSAGE_DELIVERED, 2, 3, FALSE}, /* the delivery adds nothing */
      {SIM_BUS_MESSAGE_SENT, 1, 3, FALSE},      /* another sender */
      {SIM_BUS_MESSAGE_SENT, 1, 0, FALSE},      /* PNDP: what 0 receives, not sent */
      {SIM_BUS_MESSAGE_DELIVERED, 1, 0, TRUE},
  };
  gsize rows = 0;
  for (guint i = 0; i < G_N_ELEMENTS(events); i++) {
    SimLinvec *m = sim_linvec_new(space);
    check(sim_linvec_add_gradient(m, 1.0, i % 4, 0, NULL, &err), err);
    check(sim_linvec_add_gradient(m, 2.0 + i, (i + 1) % 4, 0, NULL, &err), err);
    SimMessage *msg = sim_message_new_linvec(events[i].from, 0, 0, m, 8);
    SimBusEvent ev = {
        .kind = events[i].kind, .from = events[i].from, .to = events[i].to, .message = msg};
    priv_observer_observe(obs, &ev);
    rows += events[i].heard;
    g_assert_cmpuint(priv_observer_n_rows(obs, 0), ==, rows);
    sim_message_unref(msg);
  }
  priv_observer_free(obs);
  sim_lin_space_unref(space);
  sim_noise_registry_unref(reg);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/privacy/account/observer/engine-dsgd", test_engine_dsgd);
  g_test_add_func("/privacy/account/observer/lossy", test_lossy);
  g_test_add_func("/privacy/account/observer/views-and-replay", test_views_and_replay);
  g_test_add_func("/privacy/account/observer/hear-sent", test_hear_sent);
  return g_test_run();
}
