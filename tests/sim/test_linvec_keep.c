/*
 * tests/sim/test_linvec_keep.c: sim_lin_space_keep_nodes, the one home of
 * what a known node's provenance is on the local path's observer ball
 * (docs/local-bounds.md, "The observer path's ball"): a known node's
 * gradient slots and any noise one of its nodes owns add nothing, a
 * message it sends carries an empty provenance, and the gradient columns
 * are the kept nodes' only; its refusals. sim_lin_space_hear_nodes: a
 * heard known node's message keeps its provenance (its own gradients and
 * noise still add nothing), another known node's carries none.
 * sim_lin_space_nuisance_from,
 * the lower bound's attacker on the same ball, and its refusals.
 */
#include <string.h>

#include "sim/sim.h"

/* A 6-node space keeping nodes 1, 2 and 4. */
static SimLinSpace *space_keeping(SimNoiseRegistry **reg) {
  GError *e = NULL;
  *reg = sim_noise_registry_new(6, &e);
  g_assert_no_error(e);
  SimLinSpace *s = sim_lin_space_new(*reg, 0, SIM_LIN_SPARSE, 0, &e);
  g_assert_no_error(e);
  const guint keep[] = {1, 2, 4};
  g_assert_true(sim_lin_space_keep_nodes(s, keep, 3, &e));
  g_assert_no_error(e);
  return s;
}

static void test_columns(void) {
  SimNoiseRegistry *reg;
  SimLinSpace *s = space_keeping(&reg);
  g_assert_cmpuint(sim_lin_space_n_nodes(s), ==, 6);
  g_assert_cmpuint(sim_lin_space_n_kept(s), ==, 3);
  g_assert_cmpuint(sim_lin_space_kept_index(s, 4), ==, 2);
  g_assert_cmpuint(sim_lin_space_kept_index(s, 3), ==, G_MAXUINT);
  /* Node 4 at step 5: column 5 x 3 + 2, and back. */
  g_assert_cmpuint(sim_lin_space_grad_column(s, 4, 5), ==, 17);
  guint u, t;
  sim_lin_space_grad_slot(s, 17, &u, &t);
  g_assert_cmpuint(u, ==, 4);
  g_assert_cmpuint(t, ==, 5);
  GError *e = NULL;
  SimLinvec *v = sim_linvec_new(s);
  g_assert_true(sim_linvec_add_gradient(v, 2.0, 4, 5, NULL, &e));
  g_assert_true(sim_linvec_add_gradient(v, 3.0, 3, 5, NULL, &e)); /* known: nothing */
  g_assert_no_error(e);
  g_assert_cmpuint(sim_linvec_nnz(v, SIM_LIN_GRAD), ==, 1);
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 4, 5), ==, 2.0);
  g_assert_cmpfloat(sim_linvec_grad_coeff(v, 3, 5), ==, 0.0);
  /* Noise: a kept node's stays, a known node's and an edge secret with a
   * known end go; a state variable (no owner) stays. */
  SimNoiseId kept = sim_noise_register_local(reg, 1.0, 2, 0, &e);
  SimNoiseId known = sim_noise_register_local(reg, 1.0, 0, 0, &e);
  SimNoiseId shared = sim_noise_register_edge(reg, 1.0, 1, 5, 0, &e);
  SimNoiseId inner = sim_noise_register_edge(reg, 1.0, 1, 2, 0, &e);
  SimNoiseId state = sim_noise_register_state(reg, &e);
  g_assert_no_error(e);
  const SimNoiseId ids[] = {kept, known, shared, inner, state};
  for (guint i = 0; i < G_N_ELEMENTS(ids); i++)
    g_assert_true(sim_linvec_add_noise(v, 1.0, ids[i], NULL, &e));
  const double c[] = {1, 1, 1, 1, 1};
  g_assert_true(sim_linvec_add_noise_sum(v, 5, c, ids, 1.0, NULL, &e));
  g_assert_no_error(e);
  g_assert_cmpuint(sim_linvec_nnz(v, SIM_LIN_NOISE), ==, 3);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, kept), ==, 2.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, known), ==, 0.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, shared), ==, 0.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, inner), ==, 2.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, state), ==, 2.0);
  /* A message of a kept node keeps it; one of a known node carries none. */
  SimMessage *mk = sim_message_new_linvec(2, 0, 0, sim_linvec_dup(v), 0);
  SimMessage *mu = sim_message_new_linvec(3, 0, 0, sim_linvec_dup(v), 0);
  g_assert_cmpuint(sim_linvec_nnz(sim_message_provenance(mk), SIM_LIN_BOTH), ==, 4);
  g_assert_cmpuint(sim_linvec_nnz(sim_message_provenance(mu), SIM_LIN_BOTH), ==, 0);
  sim_message_unref(mk);
  sim_message_unref(mu);
  sim_linvec_free(v);
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
}

static void test_refusals(void) {
  GError *e = NULL;
  SimNoiseRegistry *reg = sim_noise_registry_new(4, &e);
  SimLinSpace *s = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &e);
  g_assert_no_error(e);
  const guint unsorted[] = {2, 1}, beyond[] = {1, 4}, ok[] = {0, 3};
  g_assert_false(sim_lin_space_keep_nodes(s, unsorted, 2, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot keep 2 of 4 nodes: the kept nodes must be increasing node "
                  "ids below the network size");
  g_clear_error(&e);
  g_assert_false(sim_lin_space_keep_nodes(s, beyond, 2, &e));
  g_assert_nonnull(e);
  g_clear_error(&e);
  g_assert_false(sim_lin_space_keep_nodes(s, ok, 0, &e));
  g_assert_cmpstr(e->message, ==, "linvec space: cannot keep 0 of 4 nodes: no node to keep");
  g_clear_error(&e);
  SimLinvec *v = sim_linvec_new(s);
  g_assert_false(sim_lin_space_keep_nodes(s, ok, 2, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot keep 2 of 4 nodes: linvecs exist already (keep the nodes "
                  "before the first one)");
  g_clear_error(&e);
  sim_linvec_free(v);
  g_assert_true(sim_lin_space_keep_nodes(s, ok, 2, &e));
  g_assert_false(sim_lin_space_keep_nodes(s, ok, 2, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot keep 2 of 4 nodes: the space keeps a set of nodes already");
  g_clear_error(&e);
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
}

static void test_heard(void) {
  SimNoiseRegistry *reg;
  SimLinSpace *s = space_keeping(&reg);
  GError *e = NULL;
  /* Refusals: a kept node, an unsorted list, none; then nodes 3 and 5. */
  const guint kept[] = {3, 4}, unsorted[] = {5, 3}, heard[] = {3, 5};
  g_assert_false(sim_lin_space_hear_nodes(s, kept, 2, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot hear 2 of 6 nodes: a heard node is kept (only known "
                  "nodes are heard through their messages)");
  g_clear_error(&e);
  g_assert_false(sim_lin_space_hear_nodes(s, unsorted, 2, &e));
  g_assert_nonnull(e);
  g_clear_error(&e);
  g_assert_false(sim_lin_space_hear_nodes(s, heard, 0, &e));
  g_assert_cmpstr(e->message, ==, "linvec space: cannot hear 0 of 6 nodes: no node to hear");
  g_clear_error(&e);
  g_assert_true(sim_lin_space_hear_nodes(s, heard, 2, &e));
  g_assert_no_error(e);
  g_assert_false(sim_lin_space_hear_nodes(s, heard, 2, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot hear 2 of 6 nodes: the space hears a set of nodes already");
  g_clear_error(&e);
  /* Heard node 3's model: kept node 4's gradient (received) and its own,
   * with kept node 2's noise and its own. Its message keeps what came from
   * the kept nodes; known node 0's message of the same model, nothing. */
  SimLinvec *v = sim_linvec_new(s);
  SimNoiseId kept_noise = sim_noise_register_local(reg, 1.0, 2, 0, &e);
  SimNoiseId own = sim_noise_register_local(reg, 1.0, 3, 0, &e);
  g_assert_true(sim_linvec_add_gradient(v, 2.0, 4, 1, NULL, &e));
  g_assert_true(sim_linvec_add_gradient(v, 3.0, 3, 1, NULL, &e));
  g_assert_true(sim_linvec_add_noise(v, 1.0, kept_noise, NULL, &e));
  g_assert_true(sim_linvec_add_noise(v, 1.0, own, NULL, &e));
  g_assert_no_error(e);
  SimMessage *mh = sim_message_new_linvec(3, 0, 0, sim_linvec_dup(v), 0);
  SimMessage *mu = sim_message_new_linvec(0, 0, 0, sim_linvec_dup(v), 0);
  const SimLinvec *ph = sim_message_provenance(mh);
  g_assert_cmpuint(sim_linvec_nnz(ph, SIM_LIN_BOTH), ==, 2);
  g_assert_cmpfloat(sim_linvec_grad_coeff(ph, 4, 1), ==, 2.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(ph, kept_noise), ==, 1.0);
  g_assert_cmpuint(sim_linvec_nnz(sim_message_provenance(mu), SIM_LIN_BOTH), ==, 0);
  sim_message_unref(mh);
  sim_message_unref(mu);
  sim_linvec_free(v);
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
  /* A space that keeps every node has nothing to hear. */
  reg = sim_noise_registry_new(2, &e);
  s = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &e);
  const guint one[] = {1};
  g_assert_false(sim_lin_space_hear_nodes(s, one, 1, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot hear 1 of 2 nodes: the space keeps every node (keep a set "
                  "first)");
  g_clear_error(&e);
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
}

/* sim_lin_space_nuisance_from (the lower bound's attacker): a message of a
 * listed sender carries one fresh nuisance variable, one per message; an
 * unlisted known node's message stays empty; a noise variable with one
 * kept owner stays (an edge secret into the ball is unknown noise), one
 * with no kept owner goes. Then its refusals. */
static void test_nuisance(void) {
  SimNoiseRegistry *reg;
  SimLinSpace *s = space_keeping(&reg);
  GError *e = NULL;
  const guint shell[] = {3, 5};
  g_assert_true(sim_lin_space_nuisance_from(s, shell, 2, &e));
  g_assert_no_error(e);
  SimNoiseId shared = sim_noise_register_edge(reg, 1.0, 1, 5, 0, &e);
  SimNoiseId outside = sim_noise_register_edge(reg, 1.0, 0, 3, 0, &e);
  g_assert_no_error(e);
  SimLinvec *v = sim_linvec_new(s);
  g_assert_true(sim_linvec_add_noise(v, 1.0, shared, NULL, &e));
  g_assert_true(sim_linvec_add_noise(v, 1.0, outside, NULL, &e));
  g_assert_true(sim_linvec_add_gradient(v, 1.0, 1, 0, NULL, &e));
  g_assert_no_error(e);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, shared), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(v, outside), ==, 0.0);
  guint before = sim_noise_registry_count(reg);
  /* Two messages of shell node 5, one of node 0 (known, not listed). */
  SimMessage *m1 = sim_message_new_linvec(5, 2, 0, sim_linvec_dup(v), 8);
  SimMessage *m2 = sim_message_new_linvec(5, 3, 0, sim_linvec_dup(v), 8);
  SimMessage *m0 = sim_message_new_linvec(0, 2, 0, sim_linvec_dup(v), 8);
  g_assert_cmpuint(sim_noise_registry_count(reg), ==, before + 2);
  const SimLinvec *p1 = sim_message_provenance(m1), *p2 = sim_message_provenance(m2);
  g_assert_cmpuint(sim_linvec_nnz(p1, SIM_LIN_GRAD), ==, 0);
  g_assert_cmpuint(sim_linvec_nnz(p1, SIM_LIN_NOISE), ==, 1);
  g_assert_cmpfloat(sim_linvec_noise_coeff(p1, before), ==, 1.0);
  g_assert_cmpfloat(sim_linvec_noise_coeff(p2, before + 1), ==, 1.0);
  g_assert_cmpint(sim_noise_kind(reg, before), ==, SIM_NOISE_KIND_NUISANCE);
  g_assert_cmpuint(sim_noise_owner(reg, before, 0), ==, 5);
  g_assert_cmpuint(sim_noise_round(reg, before + 1), ==, 3);
  g_assert_cmpuint(sim_linvec_nnz(sim_message_provenance(m0), SIM_LIN_BOTH), ==, 0);
  g_assert_cmpuint(sim_lin_space_nuisance_failures(s), ==, 0);
  sim_message_unref(m1);
  sim_message_unref(m2);
  sim_message_unref(m0);
  /* Refusals: twice, or with linvecs alive, */
  g_assert_false(sim_lin_space_nuisance_from(s, shell, 2, &e));
  g_assert_error(e, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot take the messages of 2 nodes as nuisance: the space has "
                  "its senders already");
  g_clear_error(&e);
  sim_linvec_free(v);
  sim_lin_space_unref(s);
  sim_noise_registry_unref(reg);
  /* a kept sender, and a space that keeps every node. */
  s = space_keeping(&reg);
  const guint bad[] = {3, 4};
  g_assert_false(sim_lin_space_nuisance_from(s, bad, 2, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot take the messages of 2 nodes as nuisance: a sender is "
                  "kept or beyond the network");
  g_clear_error(&e);
  sim_lin_space_unref(s);
  SimLinSpace *all = sim_lin_space_new(reg, 0, SIM_LIN_SPARSE, 0, &e);
  g_assert_false(sim_lin_space_nuisance_from(all, shell, 2, &e));
  g_assert_cmpstr(e->message, ==,
                  "linvec space: cannot take the messages of 2 nodes as nuisance: the space keeps "
                  "every node (keep the ball first)");
  g_clear_error(&e);
  sim_lin_space_unref(all);
  sim_noise_registry_unref(reg);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/linvec/keep/columns", test_columns);
  g_test_add_func("/linvec/keep/refusals", test_refusals);
  g_test_add_func("/linvec/keep/heard", test_heard);
  g_test_add_func("/linvec/keep/nuisance", test_nuisance);
  return g_test_run();
}
