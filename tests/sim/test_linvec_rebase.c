/*
 * tests/sim/test_linvec_rebase.c: the live-linvec registry and the rebase
 * of the streaming accountant (sim_lin_space_rebase): every live linvec with
 * a provenance is handed over once and replaced by one fresh state variable;
 * retained noise comes back as identity rows; numeric data are untouched.
 */
#include <math.h>

#include "sim/sim.h"

typedef struct {
  GArray *states; /* SimNoiseId */
  GArray *nnz;    /* gsize: provenance length before (G_MAXSIZE: retained) */
  GArray *noise3; /* double: coefficient of noise 3 before */
} Seen;

static gboolean collect(SimNoiseId state, const SimLinvec *before, gpointer data, GError **error) {
  (void)error;
  Seen *s = data;
  gsize nnz = before ? sim_linvec_nnz(before, SIM_LIN_BOTH) : G_MAXSIZE;
  double c = before ? sim_linvec_noise_coeff(before, 3) : NAN;
  g_array_append_val(s->states, state);
  g_array_append_val(s->nnz, nnz);
  g_array_append_val(s->noise3, c);
  return TRUE;
}

static void test_rebase(void) {
  GError *err = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(4, &err);
  for (guint u = 0; u < 4; u++)
    sim_noise_register_local(reg, 2.0, u, 0, &err);
  g_assert_no_error(err);
  SimLinSpace *sp = sim_lin_space_new(reg, 2, SIM_LIN_SPARSE, 0, &err);
  g_assert_no_error(err);
  double z[2] = {1.0, -1.0}, g[2] = {0.5, 0.25};
  SimLinvec *a = sim_linvec_new(sp), *b = sim_linvec_new(sp), *c = sim_linvec_new(sp);
  SimLinvec *empty = sim_linvec_new(sp);
  g_assert_cmpuint(sim_lin_space_n_live(sp), ==, 4);
  g_assert_true(sim_linvec_add_noise(a, 1.0, 3, z, &err));
  g_assert_true(sim_linvec_add_gradient(a, -1.0, 1, 0, g, &err));
  g_assert_true(sim_linvec_add_noise(b, 0.5, 0, z, &err));
  g_assert_true(sim_linvec_add_noise(c, 1.0, 2, z, &err));
  sim_linvec_free(b); /* unregistered in O(1): c takes its place */
  g_assert_cmpuint(sim_lin_space_n_live(sp), ==, 3);
  sim_noise_retain(reg, 1);
  sim_noise_retain(reg, 1); /* once is once */
  Seen s = {g_array_new(FALSE, FALSE, sizeof(SimNoiseId)), g_array_new(FALSE, FALSE, sizeof(gsize)),
            g_array_new(FALSE, FALSE, sizeof(double))};
  g_assert_true(sim_lin_space_rebase(sp, collect, &s, &err));
  g_assert_no_error(err);
  /* a (2 entries, noise 3 at 1 x std 2) and c, not the empty one, then
   * retained noise 1 under its own id. */
  g_assert_cmpuint(s.states->len, ==, 3);
  g_assert_cmpuint(g_array_index(s.nnz, gsize, 0), ==, 2);
  g_assert_cmpfloat(g_array_index(s.noise3, double, 0), ==, 2.0);
  g_assert_cmpuint(g_array_index(s.nnz, gsize, 1), ==, 1);
  g_assert_cmpuint(g_array_index(s.nnz, gsize, 2), ==, G_MAXSIZE);
  g_assert_cmpuint(g_array_index(s.states, SimNoiseId, 2), ==, 1);
  SimNoiseId ka = g_array_index(s.states, SimNoiseId, 0);
  g_assert_cmpuint(ka, ==, 4); /* the next id of the registry */
  g_assert_cmpint(sim_noise_kind(reg, ka), ==, SIM_NOISE_KIND_STATE);
  g_assert_cmpfloat(sim_noise_std(reg, ka), ==, 1.0);
  g_assert_cmpuint(sim_noise_n_owners(reg, ka), ==, 0);
  /* a is now 1.0 z_ka, its data unchanged: 2 z - g = (2 - 0.5, -2 - 0.25). */
  g_assert_cmpuint(sim_linvec_nnz(a, SIM_LIN_BOTH), ==, 1);
  g_assert_cmpfloat(sim_linvec_noise_coeff(a, ka), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_grad_coeff(a, 1, 0), ==, 0.0);
  g_assert_cmpfloat(sim_linvec_const_data(a)[0], ==, 1.5);
  g_assert_cmpfloat(sim_linvec_const_data(a)[1], ==, -2.25);
  g_assert_cmpuint(sim_linvec_nnz(empty, SIM_LIN_BOTH), ==, 0);
  sim_noise_release(reg, 1);
  GArray *kept = sim_noise_retained(reg);
  g_assert_cmpuint(kept->len, ==, 0);
  g_array_unref(kept);
  g_array_unref(s.states);
  g_array_unref(s.nnz);
  g_array_unref(s.noise3);
  sim_linvec_free(a);
  sim_linvec_free(c);
  sim_linvec_free(empty);
  g_assert_cmpuint(sim_lin_space_n_live(sp), ==, 0);
  sim_lin_space_unref(sp);
  sim_noise_registry_unref(reg);
}

static void test_rebase_needs_sparse(void) {
  GError *err = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(2, &err);
  SimLinSpace *sp = sim_lin_space_new(reg, 0, SIM_LIN_DENSE, 0, &err);
  g_assert_false(sim_lin_space_rebase(sp, collect, NULL, &err));
  g_assert_error(err, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  sim_lin_space_unref(sp);
  sim_noise_registry_unref(reg);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/linvec/rebase", test_rebase);
  g_test_add_func("/linvec/rebase-needs-sparse", test_rebase_needs_sparse);
  return g_test_run();
}
