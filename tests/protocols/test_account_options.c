/*
 * tests/protocols/test_account_options.c: the option strings of an
 * accounting request (proto_account_parse_*, proto_account_resolve_protocol),
 * parsed once for `dpgossip account`, figure, train and dpg_account: the
 * values read, the strings refused and the messages the callers print.
 */
#include <math.h>
#include <string.h>

#include "protocols/protocols.h"

/* @ok: whether the parse passed; else its message must start with @msg. */
static void expect(gboolean ok, GError *error, const char *msg) {
  if (msg == NULL) {
    g_assert_no_error(error);
    g_assert_true(ok);
    return;
  }
  g_assert_false(ok);
  g_assert_nonnull(error);
  if (!g_str_has_prefix(error->message, msg))
    g_error("'%s' does not start with '%s'", error->message, msg);
  g_error_free(error);
}

#define EXPECT(call, msg)                                                                          \
  do {                                                                                             \
    GError *e = NULL;                                                                              \
    gboolean ok_ = (call);                                                                         \
    expect(ok_, e, msg);                                                                           \
  } while (0)

static void test_trusts(void) {
  GArray *a = g_array_new(FALSE, FALSE, sizeof(PrivTrust));
  EXPECT(proto_account_parse_trusts("secldp, ldp", a, &e), NULL);
  g_assert_cmpuint(a->len, ==, 2);
  g_assert_cmpint(g_array_index(a, PrivTrust, 0), ==, PRIV_TRUST_SECLDP);
  g_assert_cmpint(g_array_index(a, PrivTrust, 1), ==, PRIV_TRUST_LDP);
  g_array_set_size(a, 0);
  EXPECT(proto_account_parse_trusts("", a, &e),
         "--trust: give ldp, pndp or secldp (or a comma-separated list)");
  g_array_set_size(a, 0);
  EXPECT(proto_account_parse_trusts("pndp,ldp,pndp", a, &e), "--trust: pndp is listed twice");
  g_array_set_size(a, 0);
  EXPECT(proto_account_parse_trusts("ldp,cdp", a, &e), "--trust: ");
  g_array_free(a, TRUE);
}

static void test_link(void) {
  ProtoAccountLink l = {0};
  EXPECT(proto_account_parse_link("8:1=constant:ms=1000", &l, &e), NULL);
  g_assert_cmpuint(l.from, ==, 8);
  g_assert_cmpuint(l.to, ==, 1);
  g_assert_false(l.down);
  g_assert_cmpint(l.latency.kind, ==, SIM_LATENCY_CONSTANT);
  g_assert_cmpfloat(l.latency.ms, ==, 1000.0);
  EXPECT(proto_account_parse_link("0:4294967294=down", &l, &e), NULL);
  g_assert_cmpuint(l.to, ==, G_MAXUINT - 1);
  g_assert_true(l.down);
  const char *form = "is not FROM:TO=down or FROM:TO=LATENCY (e.g. 8:1=constant:ms=1000, the "
                     "directed link from node 8 to node 1)";
  /* Ends are labels (ids on a graph without), looked up when planned. */
  EXPECT(proto_account_parse_link("Medici:007=down", &l, &e), NULL);
  g_assert_cmpstr(l.from_label, ==, "Medici");
  g_assert_cmpuint(l.from, ==, G_MAXUINT);
  g_assert_cmpstr(l.to_label, ==, "007");
  g_assert_cmpuint(l.to, ==, 7);
  const char *bad[] = {"8:1", "8=down", "8:1:2=down", "8:1=", " 8:1=down", "8 :1=down", ":1=down"};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *msg = g_strdup_printf("--link: '%s' %s", bad[i], form);
    GError *e = NULL;
    g_assert_false(proto_account_parse_link(bad[i], &l, &e));
    g_assert_cmpstr(e->message, ==, msg);
    g_error_free(e);
    g_free(msg);
  }
  /* The latency parser's reason follows the form. */
  char *prefix = g_strdup_printf("--link: '8:1=slow' %s: ", form);
  EXPECT(proto_account_parse_link("8:1=slow", &l, &e), prefix);
  g_free(prefix);
  EXPECT(proto_account_parse_link(NULL, &l, &e), "--link: '' is not");
}

static void test_run_options(void) {
  ProtoMode m;
  double loss = -1;
  EXPECT(proto_account_parse_run_options(NULL, NULL, NULL, &m, &loss, &e), NULL);
  g_assert_cmpint(m.kind, ==, PROTO_MODE_SYNC);
  g_assert_cmpfloat(loss, ==, 0.0);
  EXPECT(proto_account_parse_run_options("deadline:ms=5", "constant:ms=1", "0.25", &m, &loss, &e),
         NULL);
  g_assert_cmpint(m.kind, ==, PROTO_MODE_DEADLINE);
  g_assert_cmpfloat(loss, ==, 0.25);
  EXPECT(proto_account_parse_run_options(NULL, NULL, "0.25", &m, NULL, &e),
         "--loss 0.25 needs an asynchronous --mode (deadline:ms=D or stale:s=S): a lost message "
         "would block a synchronous run forever");
  EXPECT(proto_account_parse_run_options("warp", NULL, NULL, &m, NULL, &e), "--mode: ");
  EXPECT(proto_account_parse_run_options(NULL, "slow", NULL, &m, NULL, &e), "--latency: ");
  EXPECT(proto_account_parse_run_options(NULL, NULL, "2", &m, NULL, &e), "--loss: ");
}

static void test_protocol(void) {
  ProtoAccountProtocol p = {0};
  EXPECT(proto_account_resolve_protocol("muffliato:K=3", &p, &e), NULL);
  g_assert_true(p.structured);
  g_assert_cmpint(p.protocol, ==, PRIV_PROTOCOL_MUFFLIATO);
  g_assert_cmpuint(p.K, ==, 3);
  proto_account_protocol_clear(&p);
  p = (ProtoAccountProtocol){0};
  EXPECT(proto_account_resolve_protocol("antipgd", &p, &e), NULL);
  g_assert_true(p.structured);
  g_assert_cmpint(p.protocol, ==, PRIV_PROTOCOL_MFDSGD);
  g_assert_cmpstr(p.c_spec, ==, "antipgd");
  g_assert_cmpuint(p.K, ==, 1);
  proto_account_protocol_clear(&p);
  g_assert_null(p.c_spec);
  /* Mafalda's own C is optimized inside the run: only a simulation knows it. */
  p = (ProtoAccountProtocol){0};
  EXPECT(proto_account_resolve_protocol("mafalda", &p, &e), NULL);
  g_assert_false(p.structured);
  g_assert_null(p.c_spec);
  p = (ProtoAccountProtocol){0};
  /* So are the families fitted to the graph: the structured path has none. */
  const char *fitted[] = {"mafalda:C=toeplitz,band=4", "mfdsgd:C=toeplitz", "mfdsgd:C=blt",
                          "mfdsgd:C=mafalda"};
  for (guint i = 0; i < G_N_ELEMENTS(fitted); i++) {
    p = (ProtoAccountProtocol){0};
    EXPECT(proto_account_resolve_protocol(fitted[i], &p, &e), NULL);
    g_assert_false(p.structured);
    g_assert_null(p.c_spec);
  }
  p = (ProtoAccountProtocol){0};
  EXPECT(proto_account_resolve_protocol("mfdsgd:C=", &p, &e),
         "--protocol: mfdsgd:C= needs a family (identity, antipgd, sr, bsr, mafalda, toeplitz, "
         "blt) or a CSV file");
  g_assert_null(p.c_spec);
  EXPECT(proto_account_resolve_protocol("nosuch", &p, &e), "--protocol: ");
}

/* A fitted family without a graph is an error that says so, not a NULL
 * graph reaching the gossip. */
static void test_fitted_without_graph(void) {
  const char *fitted[] = {"mafalda", "toeplitz", "blt"};
  for (guint i = 0; i < G_N_ELEMENTS(fitted); i++) {
    g_assert_true(proto_c_spec_fits_graph(fitted[i]));
    ProtoCRecipe r = {.spec = fitted[i], .T = 8, .k = 2, .b = 4, .buffers = 2};
    GError *error = NULL;
    g_assert_null(proto_c_local(&r, &error));
    g_assert_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(error->message, "give the graph or its schedule"));
    g_error_free(error);
  }
  g_assert_false(proto_c_spec_fits_graph("bsr"));
  g_assert_false(proto_c_spec_fits_graph(NULL));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/protocols/account-options/trusts", test_trusts);
  g_test_add_func("/protocols/account-options/link", test_link);
  g_test_add_func("/protocols/account-options/run-options", test_run_options);
  g_test_add_func("/protocols/account-options/protocol", test_protocol);
  g_test_add_func("/protocols/account-options/fitted-without-graph", test_fitted_without_graph);
  return g_test_run();
}
