/*
 * tests/privacy/test_stream_keep.c: a checkpoint keeps fresh noise that no
 * view has observed out of the streaming accountant's state
 * (sim_lin_space_rebase_keeping). Zip-DL's shape by hand: a model
 * m = g_0 + z and two payloads in flight, p_j = m + y_j. At the checkpoint
 * no view has seen z, y_1, y_2: the state is g_0's row alone (one variable,
 * three before the fix), the linvecs keep their noise, and the next period,
 * which observes
 * both payloads, still gives the closed form X_0 = 1^T [[2,1],[1,2]]^-1 1 =
 * 2/3 for victim 0 (A = (1, 1)^T). Also the checks of its options.
 */
#include <math.h>

#include "privacy/stream_internal.h"

/* Pools the provenance of @v as one row (gradient entries first). */
static void pool_row(const SimLinvec *v, GArray *start, GArray *ngrad, GArray *cols, GArray *vals) {
  guint32 ng = 0;
  for (int pass = 0; pass < 2; pass++) {
    SimLinvecIter it;
    SimLinPart part;
    guint32 col;
    double c;
    sim_linvec_iter_init(&it, v, pass == 0 ? SIM_LIN_GRAD : SIM_LIN_NOISE);
    while (sim_linvec_iter_next(&it, &part, &col, &c)) {
      g_array_append_val(cols, col);
      g_array_append_val(vals, c);
      ng += pass == 0;
    }
  }
  g_array_append_val(ngrad, ng);
  gsize end = cols->len;
  g_array_append_val(start, end);
}

/* @data non-NULL: a second checkpoint, still unobserved, folds what the
 * first kept (provenances hold one period's kept draws at most). */
static void test_unobserved_payloads(gconstpointer data) {
  GError *err = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(2, &err);
  g_assert_no_error(err);
  SimNoiseId z = sim_noise_register_local(reg, 1.0, 0, 0, &err);
  SimNoiseId y1 = sim_noise_register_local(reg, 1.0, 0, 0, &err);
  SimNoiseId y2 = sim_noise_register_local(reg, 1.0, 0, 0, &err);
  g_assert_no_error(err);
  SimLinSpace *space = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &err);
  g_assert_no_error(err);
  SimLinvec *m = sim_linvec_new(space);
  g_assert_true(sim_linvec_add_gradient(m, 1.0, 0, 0, NULL, &err));
  g_assert_true(sim_linvec_add_noise(m, 1.0, z, NULL, &err));
  SimLinvec *p1 = sim_linvec_dup(m), *p2 = sim_linvec_dup(m);
  g_assert_true(sim_linvec_add_noise(p1, 1.0, y1, NULL, &err));
  g_assert_true(sim_linvec_add_noise(p2, 1.0, y2, NULL, &err));
  g_assert_no_error(err);

  PrivStreamOptions so = {.T = 1};
  PrivStream *ps = priv_stream_new(space, &so, &err);
  g_assert_no_error(err);
  gboolean members[2] = {FALSE, TRUE}; /* PNDP attacker 1: z, y are node 0's */
  g_assert_true(priv_stream_add_view(ps, PRIV_TRUST_PNDP, members, &err));
  GArray *start = g_array_new(FALSE, FALSE, sizeof(gsize));
  GArray *ngrad = g_array_new(FALSE, FALSE, sizeof(guint32));
  GArray *cols = g_array_new(FALSE, FALSE, sizeof(guint32));
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint));
  gsize zero = 0;
  g_array_append_val(start, zero);
  GArray *view_rows[1] = {ids};
  PrivRowPool empty = {(const gsize *)start->data, NULL, NULL, NULL};
  g_assert_true(priv_stream_period(ps, &empty, view_rows, TRUE, &err));
  g_assert_no_error(err);
  g_assert_cmpuint(priv_stream_max_state(ps), ==, 1);
  /* Each payload: z and its y, then the state variable standing for g_0. */
  g_assert_cmpuint(sim_linvec_nnz(p1, SIM_LIN_GRAD), ==, 0);
  g_assert_cmpuint(sim_linvec_nnz(p1, SIM_LIN_NOISE), ==, 3);
  g_assert_cmpuint(sim_linvec_nnz(m, SIM_LIN_NOISE), ==, 2);
  g_assert_cmpfloat(sim_linvec_noise_coeff(p1, z), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(p1, y1), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(p2, y2), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(p1, y2), ==, 0.0);
  if (data) {
    g_assert_true(priv_stream_period(ps, &empty, view_rows, TRUE, &err));
    g_assert_no_error(err);
    g_assert_cmpuint(priv_stream_max_state(ps), ==, 3); /* m, p1, p2 now differ */
    g_assert_cmpuint(sim_linvec_nnz(p1, SIM_LIN_NOISE), ==, 1);
    g_assert_cmpfloat(sim_linvec_noise_coeff(p1, y1), ==, 0.0);
  }

  for (guint i = 0; i < 2; i++) {
    pool_row(i == 0 ? p1 : p2, start, ngrad, cols, vals);
    g_array_append_val(ids, i);
  }
  PrivRowPool pool = {(const gsize *)start->data, (const guint32 *)ngrad->data,
                      (const guint32 *)cols->data, (const double *)vals->data};
  g_assert_true(priv_stream_period(ps, &pool, view_rows, FALSE, &err));
  g_assert_no_error(err);
  PrivBlocks *b = priv_stream_blocks(ps, 0, &err);
  g_assert_no_error(err);
  g_assert_cmpint(b->status[0], ==, PRIV_NODE_PROTECTED);
  g_assert_cmpfloat(fabs(priv_blocks_get(b, 0)[0] - 2.0 / 3.0), <=, 1e-12);
  priv_blocks_free(b);

  g_array_unref(start);
  g_array_unref(ngrad);
  g_array_unref(cols);
  g_array_unref(vals);
  g_array_unref(ids);
  priv_stream_free(ps);
  sim_linvec_free(p1);
  sim_linvec_free(p2);
  sim_linvec_free(m);
  sim_lin_space_unref(space);
  sim_noise_registry_unref(reg);
}

/* T must be positive, the clipping norm positive and finite, and the
 * error names the streaming accountant. */
static void test_bad_options(void) {
  GError *err = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(2, &err);
  SimLinSpace *space = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &err);
  g_assert_no_error(err);
  const PrivStreamOptions bad[] = {
      {.T = 0}, {.T = 1, .clip = -1}, {.T = 1, .clip = NAN}, {.T = 1, .range_tol = -1e-8}};
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_assert_null(priv_stream_new(space, &bad[i], &err));
    g_assert_error(err, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT);
    g_assert_true(g_str_has_prefix(err->message, "streaming accountant: T must be positive"));
    g_clear_error(&err);
  }
  sim_lin_space_unref(space);
  sim_noise_registry_unref(reg);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_data_func("/privacy/stream/keep_unobserved_payloads", NULL, test_unobserved_payloads);
  g_test_add_data_func("/privacy/stream/keep_then_fold", "fold", test_unobserved_payloads);
  g_test_add_func("/privacy/stream/bad_options", test_bad_options);
  return g_test_run();
}
