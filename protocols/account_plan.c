/*
 * protocols/account_plan.c: the accounting plan (which path, and why), the
 * structured path's gossip matrices, and the one recipe of MF-D-SGD's local
 * correlation C_local, shared by the protocol itself (mfdsgd.c), `dpgossip
 * account` and the scenarios.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "protocols/internal.h"
#include "spec/spec.h"

ProtoAccountPath proto_account_plan(const ProtoAccountCase *c, const char **why) {
  /* The order is the order of the reasons: the first that rules the
   * structured path out is the one given. */
  const char *w;
  ProtoAccountPath path = PROTO_ACCOUNT_OBSERVER;
  if (!c->known)
    w = "auto: the structured path does not know this protocol";
  else if (c->recordable && c->mode == PROTO_MODE_DEADLINE && c->n_links == 0) {
    path = PROTO_ACCOUNT_STRUCTURED;
    w = "auto: a deadline-mode run of D-SGD, Muffliato, DECOR or MF-D-SGD: the structured path "
        "on its delivery record (the W_r its gathers applied, the messages each node received)";
  } else if (c->recordable && c->mode == PROTO_MODE_STALE && c->n_links == 0) {
    path = PROTO_ACCOUNT_STRUCTURED;
    w = "auto: a stale-mode run of D-SGD, Muffliato, DECOR or MF-D-SGD: the structured path on "
        "its delivery record, late messages held in a delay-augmented state";
  } else if (c->mode != PROTO_MODE_SYNC)
    w = "auto: an asynchronous mode changes the effective gossip matrices";
  else if (c->loss > 0)
    w = "auto: message loss changes who receives what";
  else if (c->n_links > 0)
    w = "auto: per-link overrides change who receives what";
  else {
    path = PROTO_ACCOUNT_STRUCTURED;
    w = c->run_options ? "auto: a synchronous run of a protocol the structured path knows (its "
                         "messages do not depend on --latency, --lr or --storage)"
                       : "auto: a synchronous run of a protocol the structured path knows";
  }
  if (why)
    *why = w;
  return path;
}

gboolean proto_bad_valuev(GError **error, const char *fmt, va_list ap) {
  char *msg = g_strdup_vprintf(fmt, ap);
  g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, msg);
  g_free(msg);
  return FALSE;
}

static gboolean bad_value(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean bad_value(GError **error, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  proto_bad_valuev(error, fmt, ap);
  va_end(ap);
  return FALSE;
}

gboolean proto_account_check_horizon(gint rounds, gint interval, GError **error) {
  if (rounds <= 0)
    return bad_value(error, "--rounds T must be given and positive (got %d)", rounds);
  if (interval <= 0 || rounds % interval != 0)
    return bad_value(error,
                     "--participation-interval b = %d must be positive and divide "
                     "--rounds T = %d",
                     interval, rounds);
  return TRUE;
}

gboolean proto_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                     GError **error) {
  if (!(sigma >= 0) || !isfinite(sigma) || !(clip > 0) || !isfinite(clip) || !(alpha > 1) ||
      !isfinite(alpha) || !(delta > 0 && delta < 1))
    return bad_value(error,
                     "need --sigma >= 0, --clip > 0, --alpha > 1 and 0 < --delta < 1 "
                     "(got %g, %g, %g, %g)",
                     sigma, clip, alpha, delta);
  return TRUE;
}

gboolean proto_account_check_lr(double lr, GError **error) {
  if (!isnan(lr) && !(lr > 0 && isfinite(lr)))
    return bad_value(error, "--lr must be a finite number > 0 (got %g)", lr);
  return TRUE;
}

gboolean proto_account_check_accountant(gboolean streaming, SimLinStorage storage, GError **error) {
  if (streaming && storage == SIM_LIN_DENSE)
    return bad_value(error, "--accountant streaming rebases sparse provenance: drop --storage "
                            "dense");
  return TRUE;
}

gboolean proto_account_check_structured(const ProtoAccountStructuredAsk *a, GError **error) {
  if (!a->known)
    return bad_value(error,
                     "--path structured: the structured path knows dsgd, muffliato, decor "
                     "(with local noise), antipgd and mfdsgd/mafalda with a given C or a C fitted "
                     "from a sketch (probes=K), not '%s' (use --path observer or auto)",
                     a->protocol);
  /* The structured path takes a run's mode, latency and loss from its
   * delivery record (proto_account_recordable),
   * and in sync mode the messages do not depend on the
   * latency. What it cannot take is listed. */
  /* The local path reads its ball's part of the same record (a timing run
   * of the whole graph: proto_deliveries_record_ball). */
  gboolean by_record = a->recordable;
  const struct {
    gboolean given;
    const char *name;
  } only_simulated[] = {{a->async_mode && !by_record, "--mode"},
                        {a->latency && !(by_record || (!a->async_mode && !a->local)), "--latency"},
                        {a->loss && !by_record, "--loss"},
                        {a->links, "--link"},
                        {a->lr, "--lr"},
                        {a->storage, "--storage"},
                        {a->accountant, "--accountant"}};
  GString *bad = g_string_new(NULL);
  for (guint i = 0; i < G_N_ELEMENTS(only_simulated); i++)
    if (only_simulated[i].given)
      g_string_append_printf(bad, ", %s", only_simulated[i].name);
  gboolean ok = bad->len == 0;
  if (!ok)
    bad_value(error, "%s: %s only exist%s in a simulated run (use --path observer or auto)",
              a->local ? "--path local bounds D-SGD, Muffliato, DECOR and MF-D-SGD (one C) in "
                         "deadline or stale mode on its ball's part of the run's delivery record "
                         "(docs/local-bounds.md), other runs synchronous without simulating them"
                       : "--path structured accounts D-SGD, Muffliato and DECOR in deadline or "
                         "stale mode and MF-D-SGD in deadline mode (and in stale mode with a "
                         "banded or BLT C) on the run's delivery record, other protocols "
                         "synchronous without simulating them",
              bad->str + 2, strchr(bad->str + 2, ',') ? "" : "s");
  g_string_free(bad, TRUE);
  return ok;
}

gboolean proto_account_check_compare(const char *compare, const char *protocol_name,
                                     gboolean has_pndp, const char *schedule, GError **error) {
  if (!g_str_equal(compare, "muffliato"))
    return bad_value(error, "--compare: unknown accounting '%s' (valid: muffliato)", compare);
  if (!g_str_equal(protocol_name, "dsgd") || !has_pndp)
    return bad_value(error, "--compare muffliato: Muffliato's bound is for D-SGD under PNDP "
                            "(use --protocol dsgd --trust pndp)");
  if (schedule && !g_str_equal(schedule, "static"))
    return bad_value(error,
                     "--compare muffliato: Muffliato's bound is for a static gossip "
                     "matrix, not --schedule %s",
                     schedule);
  return TRUE;
}

gsize proto_schedule_gossips_bytes(guint64 n_gossip, gsize nodes) {
  /* All K T matrices are held at once: each at least its pointer, its
   * header, n + 1 row offsets and the n diagonal entries (a column and a
   * value) every W_t keeps. T = 2e9 aborted in g_malloc0 here. */
  gsize each = spec_size_add(8 * sizeof(gpointer) + sizeof(guint),
                             spec_size_mul(nodes, 2 * sizeof(guint) + sizeof(double)));
  return spec_size_mul(n_gossip > G_MAXSIZE ? G_MAXSIZE : (gsize)n_gossip, each);
}

/* The K T gossip matrices of @schedule a simulated run of @p uses (free
 * with free_gossips), or NULL with @error set. */
static TopoGossip **schedule_gossips(const PrivStructuredProblem *p, TopoSchedule *schedule,
                                     guint *n, GError **error) {
  guint K = p->protocol == PRIV_PROTOCOL_MUFFLIATO ? MAX(p->K, 1u) : 1u;
  guint64 n_gossip = (guint64)K * p->T;
  if (n_gossip > G_MAXUINT / 2) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "%u steps x %u gossip rounds are too many gossip matrices", p->T, K);
    return NULL;
  }
  gsize nodes = topo_schedule_n(schedule);
  char *what = g_strdup_printf("the %" G_GUINT64_FORMAT " gossip matrices of a time-varying "
                               "schedule on %" G_GSIZE_FORMAT " nodes",
                               n_gossip, nodes);
  gboolean fits = spec_check_memory(proto_schedule_gossips_bytes(n_gossip, nodes), what,
                                    "use fewer steps (-T), or a static schedule", PRIV_ERROR,
                                    PRIV_ERROR_MEMORY, error);
  g_free(what);
  if (!fits)
    return NULL;
  *n = (guint)n_gossip;
  TopoGossip **ws = g_new0(TopoGossip *, n_gossip);
  for (guint r = 0; r < n_gossip; r++)
    if ((ws[r] = topo_schedule_gossip(schedule, r, error)) == NULL) {
      for (guint i = 0; i < r; i++)
        topo_gossip_free(ws[i]);
      g_free(ws);
      return NULL;
    }
  return ws;
}

static void free_gossips(TopoGossip **ws, guint n) {
  for (guint r = 0; r < n; r++)
    topo_gossip_free(ws[r]);
  g_free(ws);
}

/* What an accounting computes from its problem on the run's gossip. */
typedef gpointer (*OnGossipFunc)(const PrivStructuredProblem *q, gpointer data, GError **error);

/* The run's gossip @ws (@n matrices) into @q: its gossip, or on a delivery
 * record (q->messages: q->gossip is what the gathers applied) DECOR's
 * secret gossip. */
static void put_gossip(PrivStructuredProblem *q, const TopoGossip *const *ws, guint n) {
  if (q->messages != NULL) {
    q->secret_gossip = ws;
    q->n_secret_gossip = n;
  } else {
    q->gossip = ws;
    q->n_gossip = n;
  }
}

/* @func on @p with the run's gossip (put_gossip): the static @w, or the
 * K T rounds of @schedule, built for the call and freed after it. */
static gpointer on_gossip(const PrivStructuredProblem *p, const TopoGossip *w,
                          TopoSchedule *schedule, OnGossipFunc func, gpointer data,
                          GError **error) {
  PrivStructuredProblem q = *p;
  if (schedule == NULL) {
    const TopoGossip *ws[] = {w};
    put_gossip(&q, ws, 1);
    return func(&q, data, error);
  }
  guint n = 0;
  TopoGossip **ws = schedule_gossips(p, schedule, &n, error);
  if (ws == NULL)
    return NULL;
  put_gossip(&q, (const TopoGossip *const *)ws, n);
  gpointer result = func(&q, data, error);
  free_gossips(ws, n);
  return result;
}

static gpointer blocks_of(const PrivStructuredProblem *q, gpointer data, GError **error) {
  (void)data;
  return priv_structured_blocks(q, error);
}

PrivBlocks *proto_account_structured(const PrivStructuredProblem *p, const TopoGossip *w,
                                     TopoSchedule *schedule, GError **error) {
  return on_gossip(p, w, schedule, blocks_of, NULL, error);
}

/* The local report's settings. */
typedef struct {
  guint radius;
  const PrivAccountOptions *opt;
  PrivLocalInfo *info;
} Local;

static gpointer local_of(const PrivStructuredProblem *q, gpointer data, GError **error) {
  const Local *l = data;
  return priv_local_report(q, l->radius, l->opt, l->info, error);
}

PrivReport *proto_account_local(const PrivStructuredProblem *p, const TopoGossip *w,
                                TopoSchedule *schedule, guint radius, const PrivAccountOptions *opt,
                                PrivLocalInfo *info, GError **error) {
  Local l = {radius, opt, info};
  return on_gossip(p, w, schedule, local_of, &l, error);
}

/* Appends to @e, a refusal for memory of @spec's exact fit, probes= as the
 * way out. */
static void name_probes(GError *e, const char *spec) {
  char *example = g_str_equal(spec, "mafalda") ? g_strdup("mafalda:probes=16")
                                               : g_strdup_printf("mfdsgd:C=%s,probes=16", spec);
  char *msg = g_strdup_printf("%s; give probes=K (e.g. %s) to fit C from a sketch of the sparse "
                              "gossip, O(n T) memory",
                              e->message, example);
  g_free(example);
  g_free(e->message);
  e->message = msg;
}

/* The C of a schedule that varies: fitted to the expected objective over
 * its randomness, never to the rounds this run draws (that would be an
 * oracle knowing the run's matchings): exact over independent rounds
 * (matching, edge failure: their law, whatever the seed) and over a fixed
 * sequence (exponential, a churn file or trace: known in advance); a
 * random schedule without a finite law is refused. The same C to the bit
 * as `dpgossip mafalda --schedule` (proto_schedule_gram, mf_mafalda_c_gram). */
static double *mafalda_expected(const ProtoCRecipe *r, GError **error) {
  if (topo_schedule_randomness(r->schedule) == TOPO_SCHEDULE_RANDOM) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=mafalda under a random schedule without a finite per-round law (resample, "
                "churn:leave,join): its expected objective must be sampled, independently of "
                "the run's draws; fit it with `dpgossip mafalda --schedule SPEC --samples S "
                "--out C.csv` and give C=C.csv");
    return NULL;
  }
  ProtoScheduleGram sg = {.workload = MF_WORKLOAD_POST_AVERAGE};
  GError *sub = NULL;
  double *C = NULL;
  guint n = topo_schedule_n(r->schedule);
  if (r->probes > 0 && topo_schedule_randomness(r->schedule) == TOPO_SCHEDULE_FIXED) {
    /* The fit of `mafalda --schedule SPEC --probes K` (proto_sketch_gram). */
    if (proto_sketch_gram(r->schedule, r->T, MF_WORKLOAD_POST_AVERAGE, r->probes, r->seed, &sg.H,
                          NULL, &sub))
      C = mf_mafalda_c_gram(sg.H, r->T, r->k, r->b, r->band, &sub);
  } else if (proto_c_check_memory(r, n, &sub) && proto_schedule_gram(&sg, r->schedule, r->T, &sub))
    C = sg.W != NULL ? mf_mafalda_c(n, r->T, r->k, r->b, r->band, sg.W, NULL, NULL, &sub)
                     : mf_mafalda_c_gram(sg.H, r->T, r->k, r->b, r->band, &sub);
  proto_schedule_gram_clear(&sg);
  if (C == NULL && r->probes == 0 && g_error_matches(sub, MF_ERROR, MF_ERROR_MEMORY) &&
      strstr(sub->message, "probes=") == NULL)
    name_probes(sub, r->spec); /* the trace's T dense W_t (80 GB on the overlay) */
  if (C == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "Mafalda's correlation for this schedule's expected objective: %s", sub->message);
    g_error_free(sub);
  }
  return C;
}

/* Mafalda in deadline or stale mode: C fitted to the mean Gram matrix of
 * r->samples delivery records drawn from r->seed (proto_delivery_gram,
 * never the run's own records), as `dpgossip mafalda --mode` fits it; NULL
 * with *@in_time set when every record's every W_r is the static W (the
 * synchronous objective: the caller's static fit), NULL with @error set on
 * a failure. */
static double *mafalda_deliveries(const ProtoCRecipe *r, gboolean *in_time, GError **error) {
  ProtoRunConfig cfg;
  proto_run_config_init(&cfg);
  gboolean is_static = r->schedule == NULL || topo_schedule_is_static(r->schedule);
  if (is_static && r->graph != NULL) {
    cfg.graph = r->graph;
    cfg.gossip = r->gossip;
  } else {
    cfg.schedule = r->schedule;
  }
  cfg.mode = r->mode;
  cfg.latency = r->latency;
  cfg.loss = r->loss;
  cfg.seed = r->seed;
  ProtoDeliveryGram dg = {.samples = r->samples ? r->samples : PROTO_DELIVERY_SAMPLES,
                          .probes = r->probes,
                          .workload = MF_WORKLOAD_POST_AVERAGE};
  GError *sub = NULL;
  double *C = NULL;
  *in_time = FALSE;
  if (proto_delivery_gram(&dg, &cfg, r->T, &sub)) {
    if (dg.in_time && is_static)
      *in_time = TRUE;
    else
      C = mf_mafalda_c_gram(dg.H, r->T, r->k, r->b, r->band, &sub);
  }
  g_free(dg.H);
  if (C == NULL && r->probes == 0 && g_error_matches(sub, MF_ERROR, MF_ERROR_MEMORY))
    name_probes(sub, r->spec); /* a record's T dense W_r */
  if (C == NULL && sub != NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "Mafalda's correlation for the delivery records of %s (samples=%u): %s", r->mode,
                dg.samples, sub->message);
    g_error_free(sub);
  }
  return C;
}

/* Whether @r's mode is deadline or stale (an unparsable mode is the run's
 * to refuse: no). */
static gboolean asynchronous(const ProtoCRecipe *r) {
  ProtoMode m;
  return r->mode != NULL && proto_mode_parse(r->mode, &m, NULL) && m.kind != PROTO_MODE_SYNC;
}

/* Mafalda: C optimized for this graph's post-average workload (paper
 * Alg. 2; docs/design.md "Mafalda"), for its expectation over a schedule
 * that varies, or in deadline and stale modes for the gossip the delivery
 * records apply. */
static double *mafalda(const ProtoCRecipe *r, GError **error) {
  if (asynchronous(r)) {
    gboolean in_time = FALSE;
    double *C = mafalda_deliveries(r, &in_time, error);
    if (!in_time)
      return C;
  }
  if (r->schedule != NULL && !topo_schedule_is_static(r->schedule))
    return mafalda_expected(r, error);
  GError *sub = NULL;
  guint n = r->schedule != NULL ? topo_schedule_n(r->schedule) : topo_graph_n_nodes(r->graph);
  double *W = NULL;
  if (r->probes > 0) {
    double *H = NULL;
    double *C = NULL;
    if (proto_c_sketch(r, &H, NULL, error))
      C = mf_mafalda_c_gram(H, r->T, r->k, r->b, r->band, &sub);
    g_free(H);
    if (C == NULL && sub != NULL) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                  "Mafalda's correlation for this graph's sketch: %s", sub->message);
      g_error_free(sub);
    }
    return C;
  }
  if (!proto_c_check_memory(r, n, &sub)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "Mafalda's correlation for this graph: %s",
                sub->message);
    g_error_free(sub);
    return NULL;
  }
  if (r->schedule != NULL) {
    n = topo_schedule_n(r->schedule);
    W = proto_schedule_gossip_dense(r->schedule, 0, error);
  } else {
    TopoGossip *w = topo_gossip_new(r->graph, r->gossip, error);
    W = w ? topo_gossip_dense(w) : NULL;
    topo_gossip_free(w);
  }
  if (W == NULL)
    return NULL;
  double *C = mf_mafalda_c(n, r->T, r->k, r->b, r->band, W, NULL, NULL, &sub);
  g_free(W);
  if (C == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "Mafalda's correlation for this graph: %s",
                sub->message);
    g_error_free(sub);
  }
  return C;
}

gboolean proto_c_spec_is_cset(const char *spec) {
  static const char *const families[] = {"identity", "antipgd", "sr", "bsr"};
  if (spec == NULL || *spec == '\0' || proto_c_spec_fits_graph(spec))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS(families); i++)
    if (g_str_equal(spec, families[i]))
      return FALSE;
  return mf_cset_is_file(spec);
}

gboolean proto_c_check_memory(const ProtoCRecipe *r, guint n, GError **error) {
  if (mf_gram_check_memory(n, r->T, 0, error))
    return TRUE;
  g_prefix_error(error, "C=%s fitted exactly on the dense gossip: ", r->spec);
  name_probes(*error, r->spec);
  return FALSE;
}

gboolean proto_c_sketch(const ProtoCRecipe *r, double **H, MfGramSpectral **form,
                        GError **error) {
  TopoSchedule *s = r->schedule;
  if (s == NULL && (s = topo_schedule_new("static", r->graph, r->gossip, r->seed, error)) == NULL)
    return FALSE;
  GError *sub = NULL;
  gboolean ok = proto_sketch_gram(s, r->T, MF_WORKLOAD_POST_AVERAGE, r->probes, r->seed, H, form,
                                  &sub);
  if (s != r->schedule)
    topo_schedule_free(s);
  if (!ok) {
    g_set_error(error, PROTO_ERROR,
                sub->domain == PROTO_ERROR ? sub->code : PROTO_ERROR_FAILED,
                "C=%s,probes=%u: %s", r->spec, r->probes, sub->message);
    g_error_free(sub);
  }
  return ok;
}

gboolean proto_c_spec_fits_graph(const char *spec) {
  return spec != NULL && (g_str_equal(spec, "mafalda") || g_str_equal(spec, "toeplitz") ||
                          g_str_equal(spec, "blt"));
}

double *proto_c_local(const ProtoCRecipe *r, GError **error) {
  static const struct {
    const char *name;
    MfBaseline which;
  } families[] = {{"identity", MF_BASELINE_IDENTITY},
                  {"antipgd", MF_BASELINE_ANTIPGD},
                  {"sr", MF_BASELINE_SR},
                  {"bsr", MF_BASELINE_BSR}};
  const char *spec = r->spec;
  if (spec == NULL || *spec == '\0') {
    g_set_error(
        error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
        "C: give a family (identity, antipgd, sr, bsr, mafalda, toeplitz, blt) or a CSV file");
    return NULL;
  }
  if (proto_c_spec_fits_graph(spec) && r->graph == NULL && r->schedule == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s is fitted to the run's gossip: give the graph or its schedule", spec);
    return NULL;
  }
  for (guint i = 0; i < G_N_ELEMENTS(families); i++)
    if (strcmp(spec, families[i].name) == 0) {
      guint w = families[i].which == MF_BASELINE_BSR ? (r->band ? r->band : r->b) : 0;
      GError *sub = NULL;
      double *C = mf_baseline(families[i].which, r->T, w, &sub);
      if (C == NULL) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "C=%s: %s", spec, sub->message);
        g_error_free(sub);
      }
      return C;
    }
  if (strcmp(spec, "mafalda") == 0)
    return mafalda(r, error);
  if (strcmp(spec, "toeplitz") == 0)
    return proto_cmatrix_toeplitz(r, error);
  if (strcmp(spec, "blt") == 0)
    return proto_cmatrix_blt(r, error);
  if (!g_file_test(spec, G_FILE_TEST_EXISTS)) {
    g_set_error(
        error, PROTO_ERROR, PROTO_ERROR_IO,
        "C=%s: neither a family (identity, antipgd, sr, bsr, mafalda, toeplitz, blt) nor an "
        "existing file (%s)",
        spec, g_strerror(ENOENT));
    return NULL;
  }
  if (mf_cset_is_file(spec)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s is a C-set (one C per class of nodes): only the protocol's own run and its "
                "accounting (dpgossip train, account) take it here, one C is needed",
                spec);
    return NULL;
  }
  return proto_cmatrix_load_csv(spec, r->T, error);
}
