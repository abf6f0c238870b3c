/*
 * scenarios/account.c: the privacy of a point, for each collusion set and
 * each trust model: per-victim blocks from the structured fast path (no run
 * needed: the W-product structure of a synchronous run) or from what an
 * observer attached to the run's bus recorded, then the per-victim report
 * (sensitivity under cyclic (T/b, b)-participation, mu, RDP, epsilon) and,
 * when asked, Muffliato's original bound next to it.
 */
#include <math.h>

#include "scenarios/internal.h"

/* The structured path's blocks, or, when the scenario asks for the local
 * path and @local is given, the certified local bounds' report (*@local;
 * NULL returned). */
static PrivBlocks *structured(const ScenConfig *c, const double *C, double sigma,
                              const ScenCollusion *col, PrivTrust trust,
                              const PrivAccountOptions *opt, PrivReport **local, GError **error) {
  TopoGossip *w = NULL;
  TopoSchedule *s = NULL;
  if (c->schedule_static
          ? (w = topo_gossip_new(c->g, c->gossip, error)) == NULL
          : (s = topo_schedule_new(c->schedule, c->g, c->gossip, c->seed, error)) == NULL)
    return NULL;
  PrivStructuredProblem p = {.protocol = (PrivProtocol)c->shape.kind,
                             .K = c->shape.kind == PRIV_PROTOCOL_MUFFLIATO ? c->shape.K : 1,
                             .C_local = c->shape.kind == PRIV_PROTOCOL_MFDSGD ? C : NULL,
                             .T = c->rounds,
                             .trust = trust,
                             .attackers = col->nodes,
                             .n_attackers = col->n_nodes,
                             .sigma = sigma,
                             .b = c->has_task ? c->batches : c->b,
                             .engine = PRIV_ENGINE_AUTO};
  PrivBlocks *blocks = NULL;
  if (c->path == SCEN_PATH_LOCAL && local != NULL)
    *local = proto_account_local(&p, w, s, c->radius, opt, NULL, error);
  else
    blocks = proto_account_structured(&p, w, s, error);
  topo_gossip_free(w);
  topo_schedule_free(s);
  return blocks;
}

gboolean scen_account_ldp_worst_mu(const ScenConfig *c, const double *C, double *mu1,
                                   GError **error) {
  /* Under LDP the attackers see every message and nothing else: a node's
   * value does not depend on who observes, so {0} and {1} cover every node. */
  static guint node0[] = {0}, node1[] = {1};
  ScenCollusion sets[] = {{"0", node0, 1}, {"1", node1, 1}};
  PrivAccountOptions opt = {
      .b = c->has_task ? c->batches : c->b, .sensitivity = c->sensitivity, .alpha = 2};
  *mu1 = 0.0;
  for (guint i = 0; i < G_N_ELEMENTS(sets); i++) {
    /* Calibration is exact whatever the scenario's path: a bound is not
     * the worst node's mu. */
    PrivBlocks *blocks = structured(c, C, 1.0, &sets[i], PRIV_TRUST_LDP, NULL, NULL, error);
    PrivReport *rep = blocks ? priv_account_report(blocks, NULL, &opt, error) : NULL;
    priv_blocks_free(blocks);
    if (rep == NULL)
      return FALSE;
    for (guint v = 0; v < rep->n_victims; v++)
      *mu1 = MAX(*mu1, rep->victims[v].mu); /* +inf when unprotected or unresolved */
    priv_report_free(rep);
  }
  return TRUE;
}

static void json_num(JsonBuilder *jb, const char *key, double x) {
  json_builder_set_member_name(jb, key);
  if (isfinite(x))
    json_builder_add_double_value(jb, x);
  else
    json_builder_add_null_value(jb); /* unprotected: never a finite number */
}

gboolean scen_account(const ScenConfig *c, const double *C, double sigma, ProtoObservedRun *obs,
                      ScenRunOutput *out, GError **error) {
  out->privacy_csv = g_string_new(NULL);
  out->victims = g_array_new(FALSE, FALSE, sizeof(ScenVictimRow));
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_array(jb);
  gboolean ok = TRUE;
  if (c->path == SCEN_PATH_NONE)
    goto done;
  PrivAccountOptions opt = {
      .b = c->b, .sensitivity = c->sensitivity, .alpha = c->alpha, .delta = c->delta};
  /* Local bounds say so in the path column, with their radius. */
  char *path = c->path == SCEN_PATH_LOCAL        ? g_strdup_printf("local:radius=%u", c->radius)
               : c->path == SCEN_PATH_STRUCTURED ? g_strdup("structured")
                                                 : g_strdup("observer");
  for (guint i = 0; ok && i < c->n_collusions; i++) {
    const ScenCollusion *col = &c->collusions[i];
    for (guint j = 0; ok && j < c->n_trust; j++) {
      PrivTrust trust = c->trust[j];
      PrivBlocks *blocks = NULL;
      PrivReport *rep = NULL;
      if (c->path == SCEN_PATH_STRUCTURED || c->path == SCEN_PATH_LOCAL) {
        blocks = structured(c, C, sigma, col, trust, &opt, &rep, error);
      } else {
        blocks = proto_observed_run_blocks(obs, i * c->n_trust + j, error);
      }
      if (blocks)
        rep = priv_account_report(blocks, c->g, &opt, error);
      priv_blocks_free(blocks);
      if (rep == NULL) {
        g_prefix_error(error, "accounting collusion.%s under %s: ", col->name,
                       priv_trust_name(trust));
        ok = FALSE;
        break;
      }
      double *muff = NULL;
      if (c->compare_muffliato && trust == PRIV_TRUST_PNDP && c->shape.kind == PRIV_PROTOCOL_DSGD &&
          c->schedule_static && sigma > 0) {
        TopoGossip *w = topo_gossip_new(c->g, c->gossip, error);
        muff = w ? priv_muffliato_rdp(w, c->rounds, col->nodes, col->n_nodes, c->alpha, sigma,
                                      error)
                 : NULL;
        topo_gossip_free(w);
        if (muff == NULL) {
          priv_report_free(rep);
          ok = FALSE;
          break;
        }
      }
      double max_eps = 0, sum_eps = 0, max_mu = 0, max_rdp = 0;
      guint unprotected = 0, unresolved = 0;
      char *members = scen_privacy_members_label(col->nodes, col->n_nodes);
      ScenPrivacyCsvSet set = {.collusion = col->name,
                               .attackers = members,
                               .trust = trust,
                               .path = path,
                               .seed = c->seed};
      scen_privacy_csv_rows(out->privacy_csv, &set, rep, muff);
      g_free(members);
      for (guint v = 0; v < rep->n_victims; v++) {
        const PrivVictim *pv = &rep->victims[v];
        unresolved += pv->unresolved;
        ScenVictimRow row = {
            i,     j, pv->node, pv->distance, pv->rdp, pv->epsilon, muff ? muff[pv->node] : NAN,
            pv->mu};
        g_array_append_val(out->victims, row);
        unprotected += pv->unprotected;
        max_eps = MAX(max_eps, pv->epsilon);
        max_mu = MAX(max_mu, pv->mu);
        max_rdp = MAX(max_rdp, pv->rdp);
        sum_eps += pv->epsilon;
      }
      json_builder_begin_object(jb);
      json_builder_set_member_name(jb, "collusion");
      json_builder_add_string_value(jb, col->name);
      json_builder_set_member_name(jb, "nodes");
      json_builder_begin_array(jb);
      for (guint m = 0; m < col->n_nodes; m++)
        json_builder_add_int_value(jb, col->nodes[m]);
      json_builder_end_array(jb);
      json_builder_set_member_name(jb, "trust");
      json_builder_add_string_value(jb, priv_trust_name(trust));
      json_builder_set_member_name(jb, "path");
      json_builder_add_string_value(jb, path);
      json_builder_set_member_name(jb, "victims");
      json_builder_add_int_value(jb, rep->n_victims);
      json_builder_set_member_name(jb, "unprotected");
      json_builder_add_int_value(jb, unprotected);
      if (unresolved) {
        /* Only when there are some (PRIV_UNRESOLVED_NOTE). */
        json_builder_set_member_name(jb, "unresolved");
        json_builder_add_int_value(jb, unresolved);
        json_builder_set_member_name(jb, "note");
        json_builder_add_string_value(jb, PRIV_UNRESOLVED_NOTE);
        out->privacy_unresolved = TRUE;
      }
      json_num(jb, "max_mu", max_mu);
      json_num(jb, "max_rdp", max_rdp);
      json_num(jb, "max_epsilon", max_eps);
      json_num(jb, "mean_epsilon", rep->n_victims ? sum_eps / rep->n_victims : NAN);
      json_builder_end_object(jb);
      g_free(muff);
      priv_report_free(rep);
    }
  }
  g_free(path);
done:
  json_builder_end_array(jb);
  out->privacy_summary = json_builder_get_root(jb);
  g_object_unref(jb);
  return ok;
}
