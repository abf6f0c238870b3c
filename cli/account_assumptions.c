/*
 * cli/account_assumptions.c: the assumptions `dpgossip account` states
 * with its numbers (every format prints them): each trust model as the
 * path sees it, the noise, participation, the run accounted.
 */
#include <math.h>

#include "cli/account_output.h"

const char *cli_account_schedule(const ProtoAccountJob *j) {
  return j->schedule ? j->schedule_spec : NULL;
}

guint cli_account_count_unresolved(const PrivReport *r) {
  guint k = 0;
  for (guint i = 0; i < r->n_victims; i++)
    k += r->victims[i].unresolved;
  return k;
}

/* A trust model in words (its row in privacy/trust.c): the observer path
 * reads what each attacker set saw of a simulated run (dropped and late
 * messages included), the structured path describes a synchronous run. */
static const char *trust_assumption(PrivTrust t, ProtoAccountPath path) {
  const PrivTrustModel *m = priv_trust_model(t);
  if (m == NULL)
    return "";
  return path == PROTO_ACCOUNT_OBSERVER ? m->observer : m->structured;
}

/* The noise as the path accounts it. */
static char *noise(const ProtoAccountJob *j) {
  if (j->path == PROTO_ACCOUNT_OBSERVER)
    return g_strdup_printf("noise as protocol %s draws it (Gaussian, sigma = %g; docs/design.md "
                           "\"Noise units\"), read off the provenance of every message",
                           j->label, j->sigma);
  if (j->proto.protocol == PRIV_PROTOCOL_MFDSGD)
    return g_strdup_printf("Gaussian noise nu * C_local^-1 z per node, nu = sigma * Delta * "
                           "sens_Pi(C_local) (Thm 5.2 bound at b = %u), sigma = %g",
                           j->b, j->sigma);
  if (j->proto.protocol == PRIV_PROTOCOL_DECOR) {
    double ss = isnan(j->proto.sigma_secret) ? j->sigma : j->proto.sigma_secret;
    return g_strdup_printf("DECOR: local Gaussian noise of std sigma * Delta, sigma = %g, plus "
                           "per edge of each step's gossip a secret of std sigma_secret * Delta, "
                           "sigma_secret = %g, added with opposite signs at its two ends; "
                           "independent across steps",
                           j->sigma, ss);
  }
  return g_strdup_printf("Gaussian noise of std sigma * Delta, sigma = %g, independent across "
                         "nodes and steps",
                         j->sigma);
}

/* The run the numbers hold for. */
static char *run(const ProtoAccountJob *j) {
  const char *sched = cli_account_schedule(j);
  char *topo = sched ? g_strdup_printf("the gossip matrices W_r of schedule %s (seed "
                                       "%" G_GUINT64_FORMAT ")",
                                       sched, j->seed)
                     : g_strdup("a static gossip matrix");
  char *s;
  if (j->path == PROTO_ACCOUNT_OBSERVER)
    s = g_strdup_printf("observer path: one simulated run on %s, mode %s, latency %s, loss "
                        "%s%s, seed %" G_GUINT64_FORMAT ", learning rate %g; the accounting "
                        "is exactly what each attacker set saw in that run (it may differ "
                        "in another run of a random mode, latency, loss or schedule)",
                        topo, j->mode_spec ? j->mode_spec : "sync",
                        j->latency_spec ? j->latency_spec : "constant:ms=0",
                        j->loss_spec ? j->loss_spec : "0",
                        j->links->len ? " with per-link overrides" : "", j->seed, j->lr);
  else
    s = g_strdup_printf("structured path: synchronous run on %s, every message delivered",
                        topo);
  g_free(topo);
  return s;
}

GPtrArray *cli_account_assumptions(const CliAccountOutput *c) {
  const ProtoAccountJob *j = c->job;
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(a, g_strdup_printf("gradients clipped to norm Delta = %g; sensitivities in "
                                     "units of Delta",
                                     j->clip));
  g_ptr_array_add(a, noise(j));
  if (c->nonprivate)
    g_ptr_array_add(a, g_strdup("nonprivate: no noise at all, so no protection: mu = inf for "
                                "every victim whose gradients reach the attackers"));
  for (guint i = 0; i < j->trusts->len; i++)
    g_ptr_array_add(a, g_strdup(trust_assumption(g_array_index(j->trusts, PrivTrust, i),
                                                 j->path)));
  g_ptr_array_add(a,
                  g_strdup_printf("participation: cyclic (k,b): each record is used k = %u "
                                  "times, once every b = %u steps%s",
                                  j->T / j->b, j->b, j->b == 1 ? " (user level: every step)" : ""));
  g_ptr_array_add(a, g_strdup("gradients may be chosen adaptively (paper Thm 5.1: the "
                              "knowledge of a causal run is column-echelon)"));
  g_ptr_array_add(a, g_strdup(j->sensitivity == MF_SENSITIVITY_EXACT
                                  ? "sensitivity exact: max over patterns of the SDP "
                                    "max <X_u[pi], U>, U psd, diag(U) <= 1 (certified)"
                                  : "sensitivity bound: max over patterns of sum |X_u[pi]| "
                                    "(paper Thm 5.2)"));
  g_ptr_array_add(a, run(j));
  if (j->radius)
    g_ptr_array_add(
        a, g_strdup_printf("local bounds, radius %u: every node more than %u hops from the "
                           "attackers colludes with them (under ldp, knowing its own noise), "
                           "so each value is a certified upper bound of the exact one (equal "
                           "when the ball covers the graph); only the victims within %u hops "
                           "are reported (docs/local-bounds.md)",
                           j->radius, j->radius, j->radius));
  g_ptr_array_add(a, g_strdup_printf("epsilon from mu-GDP at delta = %g (Dong, Roth & Su 2022, "
                                     "Cor. 1); rdp at alpha = %g",
                                     j->delta, j->alpha));
  if (j->compare_muffliato)
    g_ptr_array_add(a, g_strdup("muffliato_rdp: Muffliato's original bound (Cyffers et al. "
                                "2022, corrected Thm 11) for a synchronous run on the static W, "
                                "user level, clipped at T, for the PNDP accountings"));
  return a;
}
