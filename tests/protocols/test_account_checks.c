/*
 * tests/protocols/test_account_checks.c: the accounting request's checks on
 * typed values (proto_account_check_*), shared by `dpgossip account` and
 * dpg_account: each boundary on both sides, and the messages the two print.
 */
#include <math.h>

#include "protocols/protocols.h"

/* @ok: whether the check passed; else its message must be @msg. */
static void expect(gboolean ok, GError *error, const char *msg) {
  if (msg == NULL) {
    g_assert_no_error(error);
    g_assert_true(ok);
    return;
  }
  g_assert_false(ok);
  g_assert_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
  g_assert_cmpstr(error->message, ==, msg);
  g_error_free(error);
}

/* @call uses &e; evaluated before its error is read. */
#define EXPECT(call, msg)                                                                          \
  do {                                                                                             \
    GError *e = NULL;                                                                              \
    gboolean ok_ = (call);                                                                         \
    expect(ok_, e, msg);                                                                           \
  } while (0)

static void test_horizon(void) {
  EXPECT(proto_account_check_horizon(0, 1, &e), "--rounds T must be given and positive (got 0)");
  EXPECT(proto_account_check_horizon(6, 4, &e),
         "--participation-interval b = 4 must be positive and divide --rounds T = 6");
  EXPECT(proto_account_check_horizon(6, 0, &e),
         "--participation-interval b = 0 must be positive and divide --rounds T = 6");
  EXPECT(proto_account_check_horizon(6, 3, &e), NULL);
  EXPECT(proto_account_check_horizon(1, 1, &e), NULL);
}

static void test_numbers(void) {
  EXPECT(proto_account_check_numbers(0, 1, 1.5, 0.5, &e), NULL);
  const char *msg = "need --sigma >= 0, --clip > 0, --alpha > 1 and 0 < --delta < 1 "
                    "(got 1, 1, 2, 1)";
  EXPECT(proto_account_check_numbers(1, 1, 2, 1, &e), msg);
  g_assert_false(proto_account_check_numbers(NAN, 1, 2, 0.5, NULL));
  g_assert_false(proto_account_check_numbers(1, 0, 2, 0.5, NULL));
  g_assert_false(proto_account_check_numbers(1, 1, 1, 0.5, NULL));
  g_assert_false(proto_account_check_numbers(1, 1, INFINITY, 0.5, NULL));
  g_assert_false(proto_account_check_numbers(1, INFINITY, 2, 0.5, NULL));
  g_assert_false(proto_account_check_numbers(1, 1, 2, 0, NULL));
  EXPECT(proto_account_check_lr(NAN, &e), NULL); /* not given */
  EXPECT(proto_account_check_lr(0.1, &e), NULL);
  EXPECT(proto_account_check_lr(0, &e), "--lr must be a finite number > 0 (got 0)");
  g_assert_false(proto_account_check_lr(INFINITY, NULL));
  EXPECT(proto_account_check_accountant(TRUE, SIM_LIN_SPARSE, &e), NULL);
  EXPECT(proto_account_check_accountant(FALSE, SIM_LIN_DENSE, &e), NULL);
  EXPECT(proto_account_check_accountant(TRUE, SIM_LIN_DENSE, &e),
         "--accountant streaming rebases sparse provenance: drop --storage dense");
}

static void test_structured(void) {
  ProtoAccountStructuredAsk a = {.known = TRUE, .protocol = "dsgd"};
  EXPECT(proto_account_check_structured(&a, &e), NULL);
  a.lr = TRUE;
  a.local = TRUE;
  EXPECT(proto_account_check_structured(&a, &e),
         "--path local bounds D-SGD, Muffliato, DECOR and MF-D-SGD (one C) in deadline or stale "
         "mode on its ball's part of the run's delivery record (docs/local-bounds.md), other "
         "runs synchronous without simulating them: --lr only exists in a simulated run (use --path observer or auto)");
  a.async_mode = a.accountant = TRUE;
  EXPECT(proto_account_check_structured(&a, &e),
         "--path local bounds D-SGD, Muffliato, DECOR and MF-D-SGD (one C) in deadline or stale "
         "mode on its ball's part of the run's delivery record (docs/local-bounds.md), other "
         "runs synchronous without simulating them: --mode, --lr, --accountant only exist in a simulated run (use --path "
         "observer or auto)");
  /* A run the delivery record describes: its mode, latency and loss are
   * taken; --link, --lr and the others are not. */
  ProtoAccountStructuredAsk r = {.known = TRUE,
                                 .protocol = "dsgd",
                                 .async_mode = TRUE,
                                 .latency = TRUE,
                                 .loss = TRUE,
                                 .recordable = TRUE};
  EXPECT(proto_account_check_structured(&r, &e), NULL);
  r.local = TRUE; /* the local path reads the ball's part of the same record */
  EXPECT(proto_account_check_structured(&r, &e), NULL);
  r.local = FALSE;
  r.links = TRUE;
  EXPECT(proto_account_check_structured(&r, &e),
         "--path structured accounts D-SGD, Muffliato and DECOR in deadline or stale mode and "
         "MF-D-SGD in deadline mode (and in stale mode with a banded or BLT C) on the run's "
         "delivery record, other protocols synchronous without simulating them: --link only "
         "exists in a simulated run (use --path observer or auto)");
  /* Not recordable (MF-D-SGD in stale mode with a C of no low-order noise
   * state): sync mode takes a
   * latency (its messages do not depend on it), an asynchronous mode not. */
  ProtoAccountStructuredAsk s = {.known = TRUE, .protocol = "mfdsgd:C=sr", .latency = TRUE};
  EXPECT(proto_account_check_structured(&s, &e), NULL);
  s.async_mode = TRUE;
  EXPECT(proto_account_check_structured(&s, &e),
         "--path structured accounts D-SGD, Muffliato and DECOR in deadline or stale mode and "
         "MF-D-SGD in deadline mode (and in stale mode with a banded or BLT C) on the run's "
         "delivery record, other protocols synchronous without simulating them: --mode, "
         "--latency only exist in a simulated run (use --path observer or auto)");
  a.known = FALSE;
  a.protocol = "mafalda";
  EXPECT(proto_account_check_structured(&a, &e),
         "--path structured: the structured path knows dsgd, muffliato, decor (with local "
         "noise), antipgd and mfdsgd/mafalda with a given C or a C fitted from a sketch "
         "(probes=K), not 'mafalda' (use --path observer or auto)");
}

static void test_compare(void) {
  EXPECT(proto_account_check_compare("muffliato", "dsgd", TRUE, NULL, &e), NULL);
  EXPECT(proto_account_check_compare("muffliato", "dsgd", TRUE, "static", &e), NULL);
  EXPECT(proto_account_check_compare("muff", "dsgd", TRUE, NULL, &e),
         "--compare: unknown accounting 'muff' (valid: muffliato)");
  const char *pndp = "--compare muffliato: Muffliato's bound is for D-SGD under PNDP (use "
                     "--protocol dsgd --trust pndp)";
  EXPECT(proto_account_check_compare("muffliato", "dsgd", FALSE, NULL, &e), pndp);
  EXPECT(proto_account_check_compare("muffliato", "muffliato", TRUE, NULL, &e), pndp);
  EXPECT(proto_account_check_compare("muffliato", "dsgd", TRUE, "churn:p=0.1", &e),
         "--compare muffliato: Muffliato's bound is for a static gossip matrix, not "
         "--schedule churn:p=0.1");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/protocols/account-checks/horizon", test_horizon);
  g_test_add_func("/protocols/account-checks/numbers", test_numbers);
  g_test_add_func("/protocols/account-checks/structured", test_structured);
  g_test_add_func("/protocols/account-checks/compare", test_compare);
  return g_test_run();
}
