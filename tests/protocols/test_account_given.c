/*
 * tests/protocols/test_account_given.c: what a caller that resolved its
 * own values gives the accounting request (a scenario): attacker sets by
 * name (sorted, the same members twice allowed, refused beside
 * --attackers, empty or with a repeated member), MF-D-SGD's C_local built
 * outside the request (the structured path then accounts a protocol whose
 * C it cannot build, with the numbers of the same C given by its spec), and
 * the run's batches when they are not the participation interval.
 */
#include <math.h>

#include "protocols/protocols.h"

static const char *const node0[] = {"0", NULL};

/* A request on @protocol, T = 4, PNDP against node 0. */
static ProtoAccountRequest base(const char *protocol) {
  ProtoAccountRequest r;
  proto_account_request_init(&r);
  r.protocol = protocol;
  r.rounds = 4;
  r.trust = "pndp";
  r.attackers = node0;
  return r;
}

/* Validation refuses @r with @kind and exactly @msg. */
static void refused(const ProtoAccountRequest *r, ProtoAccountRefusal kind, const char *msg) {
  GError *e = NULL;
  ProtoAccountRefusal got = (ProtoAccountRefusal)-1;
  g_assert_null(proto_account_validate(r, &got, &e));
  g_assert_cmpstr(e->message, ==, msg);
  g_assert_cmpint(got, ==, kind);
  g_error_free(e);
}

/* The request validated and planned on @g, then executed. */
static ProtoAccountJob *run(const ProtoAccountRequest *r, const TopoGraph *g) {
  GError *e = NULL;
  ProtoAccountJob *j = proto_account_validate(r, NULL, &e);
  g_assert_no_error(e);
  g_assert_true(proto_account_job_plan(j, g, "ring", NULL, &e));
  g_assert_true(proto_account_job_execute(j, &e));
  g_assert_no_error(e);
  return j;
}

static void test_named_sets(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=6", &e);
  static const guint pair[] = {4, 1}, one[] = {1, 4}, empty[] = {0}, twice[] = {2, 2};
  ProtoAccountSet sets[] = {{"pair", pair, 2}, {"same", one, 2}};
  ProtoAccountRequest r = base(NULL);
  r.attackers = NULL;
  r.sets = sets;
  r.n_sets = 2;
  r.trust = "ldp,pndp";
  ProtoAccountJob *j = run(&r, g);
  g_assert_cmpuint(j->n_acs, ==, 4);
  g_assert_cmpstr(j->set_names[0], ==, "pair");
  g_assert_cmpstr(j->set_names[1], ==, "same");
  g_assert_null(j->set_names[2]);
  for (guint a = 0; a < 4; a++) {
    g_assert_cmpuint(j->acs[a].set, ==, a / 2);
    g_assert_cmpuint(j->acs[a].n_attackers, ==, 2);
    g_assert_cmpuint(j->acs[a].attackers[0], ==, 1);
    g_assert_cmpuint(j->acs[a].attackers[1], ==, 4);
  }
  /* The same members: the same numbers. */
  for (guint v = 0; v < j->acs[1].report->n_victims; v++)
    g_assert_cmpfloat(j->acs[1].report->victims[v].mu, ==, j->acs[3].report->victims[v].mu);
  proto_account_job_free(j);
  r.attackers = node0;
  refused(&r, PROTO_REFUSED_RULE, "--attackers: give attacker ids or named sets, not both");
  r.attackers = NULL;
  sets[1] = (ProtoAccountSet){"none", empty, 0};
  refused(&r, PROTO_REFUSED_VALUE, "--attackers: the set 'none' has no member");
  sets[1] = (ProtoAccountSet){"twice", twice, 2};
  refused(&r, PROTO_REFUSED_VALUE, "--attackers: node 2 appears twice in the set 'twice'");
  topo_graph_free(g);
}

/* The structured path with a C given to a protocol whose C it cannot
 * build (Mafalda's, fitted to the gossip) reports what it reports for the
 * same C given by a family. */
static void test_given_c(void) {
  GError *e = NULL;
  TopoGraph *g = topo_graph_generate("ring:n=6", &e);
  ProtoCRecipe recipe = {.spec = "sr", .T = 4, .k = 4, .b = 1};
  double *C = proto_c_local(&recipe, &e);
  g_assert_no_error(e);
  ProtoAccountRequest fam = base("mfdsgd:C=sr");
  ProtoAccountJob *want = run(&fam, g);
  ProtoAccountRequest given = base("mafalda");
  GError *plan_e = NULL;
  ProtoAccountJob *fitted = proto_account_validate(&given, NULL, &plan_e);
  g_assert_true(proto_account_job_plan(fitted, g, "ring", NULL, &plan_e));
  g_assert_cmpint(fitted->path, ==, PROTO_ACCOUNT_OBSERVER); /* no C: simulated */
  proto_account_job_free(fitted);
  given.C_local = C;
  ProtoAccountJob *got = run(&given, g);
  g_assert_cmpint(got->path, ==, PROTO_ACCOUNT_STRUCTURED);
  const PrivReport *a = want->acs[0].report, *b = got->acs[0].report;
  g_assert_cmpuint(a->n_victims, ==, b->n_victims);
  for (guint v = 0; v < a->n_victims; v++) {
    g_assert_cmpfloat(b->victims[v].mu, ==, a->victims[v].mu);
    g_assert_cmpfloat(b->victims[v].mu, >, 0);
  }
  proto_account_job_free(want);
  proto_account_job_free(got);
  given = base("dsgd");
  given.C_local = C;
  refused(&given, PROTO_REFUSED_RULE,
          "--protocol dsgd: a given C_local is MF-D-SGD's (mfdsgd, mafalda, antipgd)");
  g_free(C);
  topo_graph_free(g);
}

/* A training run of 2 batches accounted at b = 4: its noise is
 * calibrated for (2, 2)-participation, its run has 2 epochs of 2 batches. */
static void test_batches(void) {
  GError *e = NULL;
  ProtoAccountRequest r = base("mfdsgd:C=sr");
  r.interval = 4;
  r.batches = 2;
  ProtoAccountJob *j = proto_account_validate(&r, NULL, &e);
  g_assert_no_error(e);
  g_assert_cmpuint(j->b, ==, 4);
  g_assert_cmpuint(j->run_b, ==, 2);
  g_assert_cmpuint(j->run.batches, ==, 2);
  g_assert_cmpuint(j->run.epochs, ==, 2);
  proto_account_job_free(j);
  r.batches = 3;
  refused(&r, PROTO_REFUSED_RULE,
          "--batches 3 must divide --rounds T = 4 (the run's T/batches epochs)");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/protocols/account_given/named_sets", test_named_sets);
  g_test_add_func("/protocols/account_given/given_c", test_given_c);
  g_test_add_func("/protocols/account_given/batches", test_batches);
  return g_test_run();
}
