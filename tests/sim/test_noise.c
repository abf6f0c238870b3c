/* tests/sim/test_noise.c: the noise registry (columns of B). */
#include "sim/sim.h"

#include <math.h>

static void test_register_and_read(void) {
  g_autoptr(GError) err = NULL;
  g_autoptr(SimNoiseRegistry) reg = sim_noise_registry_new(4, &err);
  g_assert_no_error(err);
  g_assert_cmpuint(sim_noise_registry_n_nodes(reg), ==, 4);
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, 0);

  SimNoiseId a = sim_noise_register_local(reg, 1.5, 2, 7, &err);
  g_assert_no_error(err);
  SimNoiseId b = sim_noise_register_edge(reg, 0.5, 3, 0, 1, &err);
  g_assert_no_error(err);
  guint owners[3] = {3, 1, 2};
  SimNoiseId c = sim_noise_register(reg, 2.0, owners, 3, SIM_NODE_NONE, 9, SIM_NOISE_KIND_USER + 2,
                                    &err);
  g_assert_no_error(err);
  SimNoiseId d = sim_noise_register_local(reg, 0.0, 0, 0, &err); /* std 0 is allowed */
  g_assert_no_error(err);
  g_assert_cmpuint(a, ==, 0);
  g_assert_cmpuint(b, ==, 1);
  g_assert_cmpuint(c, ==, 2);
  g_assert_cmpuint(d, ==, 3);
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, 4);

  g_assert_cmpfloat(sim_noise_std(reg, a), ==, 1.5);
  g_assert_cmpfloat(sim_noise_std(reg, b), ==, 0.5);
  g_assert_cmpfloat(sim_noise_std(reg, c), ==, 2.0);
  g_assert_cmpfloat(sim_noise_std(reg, d), ==, 0.0);

  g_assert_cmpint(sim_noise_kind(reg, a), ==, SIM_NOISE_KIND_LOCAL);
  g_assert_cmpint(sim_noise_kind(reg, b), ==, SIM_NOISE_KIND_EDGE_SECRET);
  g_assert_cmpint(sim_noise_kind(reg, c), ==, SIM_NOISE_KIND_USER + 2);
  g_assert_cmpuint(sim_noise_node(reg, a), ==, 2);
  g_assert_cmpuint(sim_noise_node(reg, b), ==, 3); /* filed under its first end */
  g_assert_cmpuint(sim_noise_node(reg, c), ==, SIM_NODE_NONE);
  g_assert_cmpuint(sim_noise_round(reg, a), ==, 7);
  g_assert_cmpuint(sim_noise_round(reg, b), ==, 1);
  g_assert_cmpuint(sim_noise_round(reg, c), ==, 9);

  /* Owners in the caller's order (edge sign convention). */
  g_assert_cmpuint(sim_noise_n_owners(reg, a), ==, 1);
  g_assert_cmpuint(sim_noise_owner(reg, a, 0), ==, 2);
  g_assert_cmpuint(sim_noise_n_owners(reg, b), ==, 2);
  g_assert_cmpuint(sim_noise_owner(reg, b, 0), ==, 3);
  g_assert_cmpuint(sim_noise_owner(reg, b, 1), ==, 0);
  g_assert_cmpuint(sim_noise_n_owners(reg, c), ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint(sim_noise_owner(reg, c, i), ==, owners[i]);

  /* known-by over every (variable, node) pair against the owner lists above. */
  static const gboolean known[4][4] = {
      {FALSE, FALSE, TRUE, FALSE}, /* a: local of node 2 */
      {TRUE, FALSE, FALSE, TRUE},  /* b: edge 3-0 */
      {FALSE, TRUE, TRUE, TRUE},   /* c: {3, 1, 2} */
      {TRUE, FALSE, FALSE, FALSE}, /* d: local of node 0 */
  };
  for (SimNoiseId k = 0; k < 4; k++)
    for (guint u = 0; u < 4; u++)
      g_assert_cmpint(sim_noise_is_known_by(reg, k, u), ==, known[k][u]);
  g_assert_false(sim_noise_is_known_by(reg, a, 100)); /* not a node: nobody's */
}

static void expect_register_error(SimNoiseRegistry *reg, double std, const guint *owners,
                                  guint n_owners, guint node, gint code) {
  GError *err = NULL;
  guint before = sim_noise_registry_count(reg);
  SimNoiseId k = sim_noise_register(reg, std, owners, n_owners, node, 0, 0, &err);
  g_assert_cmpuint(k, ==, SIM_NOISE_ID_INVALID);
  g_assert_error(err, SIM_ERROR, code);
  g_assert_nonnull(err->message);
  g_error_free(err);
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, before); /* nothing appended */
}

static void test_register_errors(void) {
  GError *err = NULL;
  g_assert_null(sim_noise_registry_new(0, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);

  g_autoptr(SimNoiseRegistry) reg = sim_noise_registry_new(3, NULL);
  sim_noise_register_local(reg, 1.0, 0, 0, NULL);
  guint one[1] = {1}, bad[1] = {3}, dup[3] = {0, 2, 0};
  expect_register_error(reg, -1.0, one, 1, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, -0.0 - 1e-300, one, 1, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, NAN, one, 1, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, INFINITY, one, 1, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, 1.0, one, 0, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, 1.0, NULL, 1, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, 1.0, bad, 1, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, 1.0, dup, 3, 1, SIM_ERROR_INVALID_ARGUMENT);
  expect_register_error(reg, 1.0, one, 1, 3, SIM_ERROR_INVALID_ARGUMENT);

  g_assert_cmpuint(sim_noise_register_edge(reg, 1.0, 2, 2, 0, &err), ==, SIM_NOISE_ID_INVALID);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpuint(sim_noise_register_local(reg, 1.0, 5, 0, &err), ==, SIM_NOISE_ID_INVALID);
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, 1);
  /* The registry still works after rejected registrations. */
  g_assert_cmpuint(sim_noise_register_edge(reg, 0.25, 0, 2, 4, NULL), ==, 1);
  g_assert_cmpfloat(sim_noise_std(reg, 1), ==, 0.25);
}

/* An unknown id is a programming error: a critical and a documented fallback. */
static void test_unknown_id(void) {
  g_autoptr(SimNoiseRegistry) reg = sim_noise_registry_new(2, NULL);
  sim_noise_register_local(reg, 1.0, 1, 0, NULL);
#define EXPECT_CRITICAL() g_test_expect_message("dpg-sim", G_LOG_LEVEL_CRITICAL, "*failed*")
  EXPECT_CRITICAL();
  g_assert_true(isnan(sim_noise_std(reg, 1)));
  EXPECT_CRITICAL();
  g_assert_cmpint(sim_noise_kind(reg, 7), ==, -1);
  EXPECT_CRITICAL();
  g_assert_cmpuint(sim_noise_n_owners(reg, 1), ==, 0);
  EXPECT_CRITICAL();
  g_assert_cmpuint(sim_noise_owner(reg, 0, 1), ==, SIM_NODE_NONE); /* owner index */
  EXPECT_CRITICAL();
  g_assert_false(sim_noise_is_known_by(reg, 1, 1));
  EXPECT_CRITICAL();
  g_assert_cmpuint(sim_noise_node(reg, 1), ==, SIM_NODE_NONE);
  EXPECT_CRITICAL();
  g_assert_cmpuint(sim_noise_round(reg, 1), ==, G_MAXUINT);
  g_test_assert_expected_messages();
}

/* Spaces share the registry: ids registered through one are seen by all, and a
 * space keeps the registry alive after its creator lets go. */
static void test_shared_and_refcounted(void) {
  SimNoiseRegistry *reg = sim_noise_registry_new(3, NULL);
  SimLinSpace *s1 = sim_lin_space_new(reg, 0, SIM_LIN_DENSE, 0, NULL);
  SimLinSpace *s2 = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, NULL);
  sim_noise_registry_unref(reg);
  g_assert_true(sim_lin_space_noise(s1) == sim_lin_space_noise(s2));
  SimNoiseId k = sim_noise_register_local(sim_lin_space_noise(s1), 3.0, 1, 0, NULL);
  SimLinvec *v = sim_linvec_new(s2);
  g_assert_true(sim_linvec_add_noise(v, 0.5, k, NULL, NULL));
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, k), ==, 1.5);
  sim_lin_space_unref(s1);
  sim_lin_space_unref(s2);
  /* v still holds s2, which still holds the registry. */
  g_assert_cmpuint(sim_noise_registry_count(sim_lin_space_noise(sim_linvec_space(v))), ==, 1);
  sim_linvec_free(v);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/noise/register_and_read", test_register_and_read);
  g_test_add_func("/noise/register_errors", test_register_errors);
  g_test_add_func("/noise/unknown_id", test_unknown_id);
  g_test_add_func("/noise/shared_and_refcounted", test_shared_and_refcounted);
  return g_test_run();
}
