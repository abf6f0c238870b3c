/*
 * tests/protocols/test_account_request.c: the accounting request every
 * front end fills (proto_account_validate, _job_plan, _job_execute): each
 * refusal with its kind and message, the path it plans, reports equal to
 * the structured accountant called directly and to the observer path's
 * simulation of the same run, Muffliato's bound for PNDP only, and the
 * cancel flag.
 */
#include <math.h>
#include <string.h>

#include "protocols/protocols.h"

/* A request on dsgd, T = 4, PNDP against node 0. */
static ProtoAccountRequest base(const char *const *attackers) {
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.rounds = 4;
  r.trust = "pndp";
  r.attackers = attackers;
  return r;
}

static const char *const node0[] = {"0", NULL};

/* Validation refuses @r with @kind and exactly @msg. */
static void refused(const ProtoAccountRequest *r, ProtoAccountRefusal kind, const char *msg) {
  GError *e = NULL;
  ProtoAccountRefusal got = (ProtoAccountRefusal)-1;
  ProtoAccountJob *j = proto_account_validate(r, &got, &e);
  g_assert_null(j);
  g_assert_nonnull(e);
  g_assert_cmpstr(e->message, ==, msg);
  g_assert_cmpint(got, ==, kind);
  g_error_free(e);
}

static void test_refusals(void) {
  ProtoAccountRequest r = base(node0);
  r.trust = NULL;
  refused(&r, PROTO_REFUSED_RULE, "--trust is required: ldp, pndp or secldp");
  r = base(node0);
  r.interval = 3;
  refused(&r, PROTO_REFUSED_RULE,
          "--participation-interval b = 3 must be positive and divide --rounds T = 4");
  r = base(node0);
  r.trust = "pndp,pndp";
  refused(&r, PROTO_REFUSED_VALUE, "--trust: pndp is listed twice");
  r = base(NULL);
  refused(&r, PROTO_REFUSED_RULE,
          "--attackers: give at least one node id, e.g. --attackers 0, 0,5 (each alone), 0+5 "
          "(a collusion set) or all");
  r = base(node0);
  r.sigma = -1;
  refused(&r, PROTO_REFUSED_VALUE,
          "need --sigma >= 0, --clip > 0, --alpha > 1 and 0 < --delta < 1 (got -1, 1, 2, 1e-06)");
  r = base(node0);
  r.path = "local";
  refused(&r, PROTO_REFUSED_RULE,
          "--path local needs --radius R (the hops around the attackers whose victims are "
          "bounded, R >= 1; larger is tighter and slower) or --tightness X (grow the radius "
          "until every victim's mu / mu_lower <= X)");
  r = base(node0);
  r.radius = 2;
  refused(&r, PROTO_REFUSED_RULE,
          "--radius 2: the radius is for --path local (certified bounds around the attackers)");
  r = base(node0);
  r.loss = "0.1";
  refused(&r, PROTO_REFUSED_RULE,
          "--loss 0.1 needs an asynchronous --mode (deadline:ms=D or stale:s=S): a lost message "
          "would block a synchronous run forever");
  r = base(node0);
  r.storage = "dense";
  r.accountant = "streaming";
  refused(&r, PROTO_REFUSED_RULE,
          "--accountant streaming rebases sparse provenance: drop --storage dense");
  r = base(node0);
  r.path = "structured";
  r.protocol = "zipdl";
  refused(&r, PROTO_REFUSED_RULE,
          "--path structured: the structured path knows dsgd, muffliato, decor (with local "
          "noise), antipgd and mfdsgd/mafalda with a given C or a C fitted from a sketch "
          "(probes=K), not 'zipdl' (use --path observer or auto)");
  /* DECOR's secrets without local noise: the observer path only. */
  r = base(node0);
  r.path = "structured";
  r.protocol = "decor:sigma_secret=1";
  r.sigma = 0.0;
  refused(&r, PROTO_REFUSED_RULE,
          "--path structured: the structured path knows dsgd, muffliato, decor (with local "
          "noise), antipgd and mfdsgd/mafalda with a given C or a C fitted from a sketch "
          "(probes=K), not 'decor:sigma_secret=1' (use --path observer or auto)");
  r = base(node0);
  r.compare = "muffliato";
  r.trust = "ldp";
  refused(&r, PROTO_REFUSED_RULE,
          "--compare muffliato: Muffliato's bound is for D-SGD under PNDP (use --protocol dsgd "
          "--trust pndp)");
  r = base(node0);
  r.protocol = "nosuchprotocol";
  GError *e = NULL;
  ProtoAccountRefusal kind;
  g_assert_null(proto_account_validate(&r, &kind, &e));
  g_assert_cmpint(kind, ==, PROTO_REFUSED_PROTOCOL);
  g_assert_true(g_str_has_prefix(e->message, "--protocol: "));
  g_error_free(e);
}

/* Planning on a graph: the attackers and links against its nodes, the
 * schedule's spec. */
static void test_plan_refusals(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=5", &e);
  g_assert_no_error(e);
  const char *const far[] = {"7", NULL};
  const char *const links[] = {"0:9=down", NULL};
  ProtoAccountRequest r = base(far);
  ProtoAccountRefusal kind;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_no_error(e);
  g_assert_false(proto_account_job_plan(j, g, "ring", &kind, &e));
  g_assert_cmpint(kind, ==, PROTO_REFUSED_VALUE);
  g_assert_true(g_str_has_prefix(e->message, "--attackers: "));
  g_clear_error(&e);
  proto_account_job_free(j);
  r = base(node0);
  r.mode = "deadline:ms=5";
  r.links = links;
  j = proto_account_validate(&r, NULL, &e);
  g_assert_false(proto_account_job_plan(j, g, "ring", &kind, &e));
  g_assert_cmpint(kind, ==, PROTO_REFUSED_RULE);
  g_assert_cmpstr(e->message, ==, "--link: node '9' is not in the graph (its 5 nodes are 0 to 4)");
  g_clear_error(&e);
  proto_account_job_free(j);
  r = base(node0);
  r.schedule = "nosuchschedule";
  j = proto_account_validate(&r, NULL, &e);
  g_assert_false(proto_account_job_plan(j, g, "ring", &kind, &e));
  g_assert_cmpint(kind, ==, PROTO_REFUSED_SCHEDULE);
  g_assert_true(g_str_has_prefix(e->message, "--schedule: "));
  g_clear_error(&e);
  proto_account_job_free(j);
  topo_graph_free(g);
}

/* Validated, planned and executed on @g; the path must be @path. */
static ProtoAccountJob *run(const ProtoAccountRequest *r, const TopoGraph *g,
                            ProtoAccountPath path) {
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(r, NULL, &e);
  g_assert_no_error(e);
  g_assert_true(proto_account_job_plan(j, g, "graph", NULL, &e));
  g_assert_cmpint(j->path, ==, path);
  g_assert_true(proto_account_job_execute(j, &e));
  g_assert_no_error(e);
  return j;
}

/* The request's structured reports are the structured accountant's on the
 * same problem, called directly; the observer path's simulation of the
 * same synchronous run gives the same mu to 1e-9; the compare bound exists
 * for PNDP only. */
static void test_paths_agree(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &e);
  g_assert_no_error(e);
  const char *const sets[] = {"0", "3+5", NULL};
  ProtoAccountRequest r = base(sets);
  r.trust = "pndp,ldp";
  r.sigma = 0.7;
  r.compare = "muffliato";
  ProtoAccountJob *s = run(&r, g, PROTO_ACCOUNT_STRUCTURED);
  g_assert_cmpstr(s->path_reason, ==,
                  "auto: a synchronous run of a protocol the structured path knows");
  g_assert_cmpuint(s->n_acs, ==, 4);
  r.path = "observer";
  ProtoAccountJob *o = run(&r, g, PROTO_ACCOUNT_OBSERVER);
  TopoGossip *w = topo_gossip_new(g, TOPO_GOSSIP_UNIFORM, &e);
  g_assert_no_error(e);
  for (guint a = 0; a < s->n_acs; a++) {
    const ProtoAccounting *ac = &s->acs[a];
    g_assert_cmpint(ac->trust, ==, a % 2 == 0 ? PRIV_TRUST_PNDP : PRIV_TRUST_LDP);
    g_assert_true((ac->muff != NULL) == (ac->trust == PRIV_TRUST_PNDP));
    const TopoGossip *ws[] = {w};
    PrivStructuredProblem p = {.protocol = PRIV_PROTOCOL_DSGD,
                               .K = 1,
                               .T = 4,
                               .trust = ac->trust,
                               .attackers = ac->attackers,
                               .n_attackers = ac->n_attackers,
                               .sigma = 0.7,
                               .b = 1,
                               .gossip = ws,
                               .n_gossip = 1};
    PrivBlocks *b = priv_structured_blocks(&p, &e);
    g_assert_no_error(e);
    /* The job's own choice (auto: exact for 14 victims at T = 4). */
    PrivAccountOptions opt = {.b = 1, .sensitivity = s->sensitivity, .alpha = 2, .delta = 1e-6};
    PrivReport *direct = priv_account_report(b, g, &opt, &e);
    g_assert_no_error(e);
    const PrivReport *mine = ac->report, *sim = o->acs[a].report;
    g_assert_cmpuint(mine->n_victims, ==, direct->n_victims);
    g_assert_cmpuint(sim->n_victims, ==, direct->n_victims);
    /* PNDP never above the whole release's mu, sqrt(T) / sigma = 2 / 0.7
     * (docs/design.md, "The LDP cap"); LDP is that value itself. */
    double cap = ac->trust == PRIV_TRUST_PNDP ? 2.0 / 0.7 : INFINITY;
    for (guint v = 0; v < direct->n_victims; v++) {
      double want = fmin(direct->victims[v].mu, cap);
      g_assert_cmpuint(mine->victims[v].node, ==, direct->victims[v].node);
      g_assert_cmpfloat(mine->victims[v].mu, ==, want);
      g_assert_cmpint(mine->victims[v].ldp_capped, ==, direct->victims[v].mu > cap);
      g_assert_cmpfloat_with_epsilon(sim->victims[v].mu, want, 1e-9);
    }
    priv_report_free(direct);
    priv_blocks_free(b);
  }
  g_assert_cmpuint(o->stats.engine.messages_sent, >, 0);
  topo_gossip_free(w);
  proto_account_job_free(s);
  proto_account_job_free(o);
  topo_graph_free(g);
}

/* An asynchronous mode plans the observer path, and says why. */
static void test_auto_observer(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=5", &e);
  ProtoAccountRequest r = base(node0);
  r.mode = "stale:s=1";
  const char *const slow[] = {"1:0=constant:ms=3", NULL}; /* a link override: no record */
  r.links = slow;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_true(proto_account_job_plan(j, g, "ring", NULL, &e));
  g_assert_cmpint(j->path, ==, PROTO_ACCOUNT_OBSERVER);
  g_assert_cmpstr(j->path_reason, ==,
                  "auto: an asynchronous mode changes the effective gossip matrices");
  g_assert_cmpstr(proto_account_job_path_name(j), ==, "observer");
  proto_account_job_free(j);
  /* Stale mode of D-SGD: the structured path on a delay-augmented state. */
  r.links = NULL;
  j = proto_account_validate(&r, NULL, &e);
  g_assert_true(proto_account_job_plan(j, g, "ring", NULL, &e));
  g_assert_cmpint(j->path, ==, PROTO_ACCOUNT_STRUCTURED);
  g_assert_nonnull(strstr(j->path_reason, "delay-augmented"));
  proto_account_job_free(j);
  /* Deadline mode of D-SGD: the structured path on the run's deliveries. */
  r.mode = "deadline:ms=5";
  j = proto_account_validate(&r, NULL, &e);
  g_assert_true(proto_account_job_plan(j, g, "ring", NULL, &e));
  g_assert_cmpint(j->path, ==, PROTO_ACCOUNT_STRUCTURED);
  g_assert_nonnull(strstr(j->path_reason, "delivery record"));
  proto_account_job_free(j);
  topo_graph_free(g);
}

/* Accountings are set-major, or trust-major when asked: the same pairs. */
static void test_order(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=5", &e);
  const char *const sets[] = {"0", "2+3", NULL};
  for (guint major = 0; major < 2; major++) {
    ProtoAccountRequest r = base(sets);
    r.trust = "ldp,pndp,secldp";
    r.trust_major = major;
    ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
    g_assert_true(proto_account_job_plan(j, g, "ring", NULL, &e));
    g_assert_cmpuint(j->n_acs, ==, 6);
    for (guint a = 0; a < 6; a++) {
      guint t = major ? a / 2 : a % 3, set = major ? a % 2 : a / 3;
      g_assert_cmpint(j->acs[a].trust, ==, g_array_index(j->trusts, PrivTrust, t));
      g_assert_cmpuint(j->acs[a].set, ==, set);
      g_assert_cmpuint(j->acs[a].n_attackers, ==, set + 1);
    }
    proto_account_job_free(j);
  }
  topo_graph_free(g);
}

/* Without attackers, every node's LDP guarantee: one accounting per trust
 * model, every node a victim in node order, node 0's value that of the
 * set {1}'s accounting; only ldp, and a graph of two nodes at least. */
static void test_every_node(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("florentine", &e);
  ProtoAccountRequest r = base(NULL);
  r.trust = "ldp";
  r.every_node = TRUE;
  ProtoAccountJob *all = run(&r, g, PROTO_ACCOUNT_STRUCTURED);
  const char *const one[] = {"1", NULL};
  ProtoAccountRequest r1 = base(one);
  r1.trust = "ldp";
  ProtoAccountJob *set1 = run(&r1, g, PROTO_ACCOUNT_STRUCTURED);
  g_assert_cmpuint(all->n_acs, ==, 1);
  const PrivReport *m = all->acs[0].report, *s1 = set1->acs[0].report;
  g_assert_cmpuint(m->n_victims, ==, topo_graph_n_nodes(g));
  for (guint v = 0; v < m->n_victims; v++) {
    g_assert_cmpuint(m->victims[v].node, ==, v);
    g_assert_cmpint(m->victims[v].distance, ==, -1);
  }
  g_assert_cmpuint(s1->victims[0].node, ==, 0);
  g_assert_cmpfloat(m->victims[0].mu, ==, s1->victims[0].mu);
  g_assert_cmpfloat(m->victims[0].mu, >, 0);
  proto_account_job_free(all);
  proto_account_job_free(set1);
  r.trust = "ldp,pndp";
  refused(&r, PROTO_REFUSED_RULE,
          "--trust pndp: say who observes with --attackers (e.g. --attackers 0, or 0+5 for a "
          "collusion set); only ldp needs none");
  topo_graph_free(g);
  TopoGraph *lone = topo_graph_new_from_edges(1, NULL, 0, &e);
  g_assert_no_error(e);
  r.trust = "ldp";
  ProtoAccountRefusal kind;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_false(proto_account_job_plan(j, lone, "lone", &kind, &e));
  g_assert_cmpint(kind, ==, PROTO_REFUSED_RULE);
  g_assert_cmpstr(e->message, ==, "--trust ldp: the graph has a single node, nobody to observe it");
  g_clear_error(&e);
  proto_account_job_free(j);
  topo_graph_free(lone);
}

/* A set cancel flag stops the request before any accounting, on either path. */
static void test_cancel(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=5", &e);
  gint cancel = 1;
  for (guint k = 0; k < 2; k++) {
    ProtoAccountRequest r = base(node0);
    r.cancel = &cancel;
    r.path = k == 0 ? "structured" : "observer";
    ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
    g_assert_true(proto_account_job_plan(j, g, "ring", NULL, &e));
    g_assert_false(proto_account_job_execute(j, &e));
    g_assert_error(e, PROTO_ERROR, PROTO_ERROR_CANCELLED);
    g_clear_error(&e);
    g_assert_null(j->acs[0].report);
    proto_account_job_free(j);
  }
  topo_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/protocols/account_request/refusals", test_refusals);
  g_test_add_func("/protocols/account_request/plan_refusals", test_plan_refusals);
  g_test_add_func("/protocols/account_request/paths_agree", test_paths_agree);
  g_test_add_func("/protocols/account_request/auto_observer", test_auto_observer);
  g_test_add_func("/protocols/account_request/order", test_order);
  g_test_add_func("/protocols/account_request/every_node", test_every_node);
  g_test_add_func("/protocols/account_request/cancel", test_cancel);
  return g_test_run();
}
