/*
 * topologies/schedule.c: time-varying gossip schedules W_0, W_1, ...
 *
 * Every round's topology is recomputed from (seed, round) alone, with its own
 * hashed RNG stream, so W_t never depends on which rounds were asked before
 * (the one exception, Markov churn, is a chain: its states are generated in
 * round order into a cache, which gives the same answer whatever the order
 * of queries).
 */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topologies/internal.h"

/* Stream purposes, so that two schedules with one seed draw independently. */
enum {
  PURPOSE_RESAMPLE = 0x7265,
  PURPOSE_MATCHING = 0x6d61,
  PURPOSE_EDGE_FAILURE = 0x6566,
  PURPOSE_CHURN = 0x6368,
};

/*
 * The kinds of schedule, one row each (the table is below, after the
 * functions its rows name). A row binds a spec's name (and, for kinds that
 * share one, the start of its argument) to its parser, its step (round t's
 * graph and W_t) and its texts, so that the parser, the error's list of valid
 * specs and every help text (topo_schedule_kinds_text) read the one row.
 * Adding a kind: its fields in TopoSchedule, its functions, its row.
 */
typedef struct SchedKind SchedKind;

struct TopoSchedule {
  const SchedKind *row;
  char *spec; /* as given: topo_schedule_reseeded parses it again */
  TopoGossipKind kind;
  guint64 seed;
  guint n;
  TopoGraph *base;     /* NULL only for resample without a base */
  char *gen_spec;      /* resample */
  gboolean match_complete; /* matching among all pairs, not base's edges */
  guint tau;           /* exponential: ceil(log2 n) */
  double p;            /* edge failure probability */
  GArray *intervals;   /* churn file: TopoChurnInterval */
  double leave, join;  /* Markov churn probabilities */
  GByteArray *states;  /* Markov churn: n presence bytes per computed round */
  guint n_states;      /* rounds in states */
  TopoTraceChurn *tc;  /* churn replayed from a session trace */
};

struct SchedKind {
  const char *name;     /* the spec's name, before ':' */
  /* '|'-separated starts of the argument that select this row among rows
   * of one name; NULL: any other argument. */
  const char *starts;
  const char *synopsis; /* in the list of valid specs, e.g. "edge-failure:p=P" */
  const char *usage;    /* in help texts: the full grammar (NULL: synopsis) */
  const char *note;     /* in help texts, in parentheses after it (nullable) */
  gboolean fixed;       /* W_t is the base's W for every t */
  /* Parses @spec (its argument @arg, NULL without ':') into @s, whose kind,
   * seed, base and n are set (base may be NULL). */
  gboolean (*parse)(TopoSchedule *s, const char *spec, const char *arg, GError **error);
  /* Round @round's topology (a new graph). */
  TopoGraph *(*graph)(TopoSchedule *s, guint round, GError **error);
  /* W_t when it is not topo_gossip_new of the graph (nullable). */
  TopoGossip *(*gossip)(TopoSchedule *s, guint round, GError **error);
  /* Whether node u is present; every node's presence (g_free). NULL: all. */
  gboolean (*present)(TopoSchedule *s, guint round, guint u);
  guint8 *(*presence)(TopoSchedule *s, guint round);
  /* Whether every round's edges are base edges (NULL: when there is a base). */
  gboolean (*within_base)(const TopoSchedule *s);
  /* What drives W_t (FIXED by default): mafalda's expected Gram reads it. */
  TopoScheduleRandomness randomness;
  /* For a kind without a law, what its rounds are instead, as
   * topo_schedule_round_law's refusal says it (NULL: "a fixed sequence of
   * graphs" for a FIXED kind, "random rounds" for a RANDOM one). */
  const char *no_law;
  /* The law of one round of an i.i.d. (or fixed) kind as a finite list of
   * outcomes (topo_schedule_round_law); NULL: none. */
  gboolean (*law)(const TopoSchedule *s, guint64 max_outcomes, TopoRoundLawFunc visit,
                  gpointer data, GError **error);
};

static gboolean law_static(const TopoSchedule *s, guint64 max_outcomes, TopoRoundLawFunc visit,
                           gpointer data, GError **error);
static gboolean law_edge_failure(const TopoSchedule *s, guint64 max_outcomes,
                                 TopoRoundLawFunc visit, gpointer data, GError **error);
static gboolean law_matching(const TopoSchedule *s, guint64 max_outcomes, TopoRoundLawFunc visit,
                             gpointer data, GError **error);

void topo_schedule_free(TopoSchedule *s) {
  if (s == NULL)
    return;
  topo_graph_free(s->base);
  g_free(s->spec);
  g_free(s->gen_spec);
  if (s->intervals != NULL)
    g_array_unref(s->intervals);
  if (s->states != NULL)
    g_byte_array_unref(s->states);
  topo_trace_churn_free(s->tc);
  g_free(s);
}

/* Parse the part after "name:" as key=value parameters of schedule name. */
static gboolean parse_params(const char *spec, const char *const *valid,
                             const char *const *required, Spec **out, GError **error) {
  /* A value out of range is the user's typing, as one that does not parse
   * (TOPO_ERROR_RANGE: exit status 2 in every front end, issue 37). */
  Spec *ps = spec_parse(spec, "schedule", FALSE, TOPO_ERROR, TOPO_ERROR_PARSE, TOPO_ERROR_RANGE,
                        error);
  if (ps == NULL)
    return FALSE;
  if (!spec_check(ps, "schedule", valid, required, error)) {
    spec_free(ps);
    return FALSE;
  }
  *out = ps;
  return TRUE;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

static gboolean need_base(const TopoSchedule *s, GError **error) {
  if (s->base != NULL)
    return TRUE;
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "schedule '%s' needs a base graph",
              s->row->name);
  return FALSE;
}

static gboolean need_two(const TopoSchedule *s, GError **error) {
  if (s->n >= 2)
    return TRUE;
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
              "schedule '%s' needs at least 2 nodes", s->row->name);
  return FALSE;
}

/* A kind with no parameters, on the base graph. */
static gboolean parse_plain(TopoSchedule *s, const char *spec, const char *arg, GError **error) {
  (void)arg;
  Spec *ps = NULL;
  gboolean ok = parse_params(spec, NULL, NULL, &ps, error) && need_base(s, error);
  spec_free(ps);
  return ok;
}

/* ---- static ---- */

static TopoGraph *static_graph(TopoSchedule *s, guint round, GError **error) {
  (void)round;
  return topo_graph_copy(s->base, error);
}

/* ---- resample:GENSPEC ---- */

static gboolean resample_parse(TopoSchedule *s, const char *spec, const char *arg, GError **error) {
  (void)spec;
  if (arg == NULL || *arg == '\0') {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                "schedule 'resample' needs a generator spec, e.g. resample:erdos:n=100,p=0.05");
    return FALSE;
  }
  /* Round 0 validates the spec and fixes n. */
  TopoGraph *g0 = topo_graph_generate_seeded(arg, topo_hash3(s->seed, 0, PURPOSE_RESAMPLE), error);
  if (g0 == NULL)
    return FALSE;
  guint n0 = topo_graph_n_nodes(g0);
  topo_graph_free(g0);
  if (s->base != NULL && n0 != s->n) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "schedule 'resample': generator makes %u nodes but the base graph has %u", n0,
                s->n);
    return FALSE;
  }
  s->n = n0;
  s->gen_spec = g_strdup(arg);
  return TRUE;
}

static TopoGraph *resample_graph(TopoSchedule *s, guint round, GError **error) {
  return topo_graph_generate_seeded(s->gen_spec, topo_hash3(s->seed, round, PURPOSE_RESAMPLE),
                                    error);
}

static gboolean never_within_base(const TopoSchedule *s) {
  (void)s;
  return FALSE;
}

/* ---- matching[:complete=BOOL] ---- */

static gboolean matching_parse(TopoSchedule *s, const char *spec, const char *arg, GError **error) {
  (void)arg;
  Spec *ps = NULL;
  /* The graph's edges by default: "gossip over the graph" pairs
   * neighbours. base= chose that before it was the default: refused with
   * the way to either meaning rather than read silently. */
  gboolean ok = parse_params(spec, KEYS("complete", "base"), NULL, &ps, error);
  if (ok && spec_get(ps, "base") != NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "schedule 'matching': base= is no longer an option: 'matching' pairs the "
                "graph's neighbours by default; 'matching:complete=true' pairs any two nodes");
    ok = FALSE;
  }
  ok = ok && spec_bool(ps, "complete", FALSE, &s->match_complete, error) && need_base(s, error) &&
       need_two(s, error);
  spec_free(ps);
  return ok;
}

static TopoGraph *matching_graph(TopoSchedule *s, guint round, GError **error) {
  gsl_rng *rng = topo_rng_new(s->seed, round, PURPOSE_MATCHING);
  GArray *edges = g_array_new(FALSE, FALSE, sizeof(guint));
  if (s->match_complete) {
    guint *perm = g_new(guint, s->n);
    for (guint u = 0; u < s->n; u++)
      perm[u] = u;
    gsl_ran_shuffle(rng, perm, s->n, sizeof(guint));
    g_array_append_vals(edges, perm, s->n - s->n % 2); /* odd n: last one idles */
    g_free(perm);
  } else {
    gsize m;
    guint *be = topo_graph_edges(s->base, &m);
    gsize *order = g_new(gsize, m + 1);
    for (gsize i = 0; i < m; i++)
      order[i] = i;
    gsl_ran_shuffle(rng, order, m, sizeof(gsize));
    guint8 *used = g_new0(guint8, s->n);
    for (gsize i = 0; i < m; i++) {
      guint u = be[2 * order[i]], v = be[2 * order[i] + 1];
      if (!used[u] && !used[v]) {
        used[u] = used[v] = 1;
        g_array_append_val(edges, u);
        g_array_append_val(edges, v);
      }
    }
    g_free(used);
    g_free(order);
    g_free(be);
  }
  gsl_rng_free(rng);
  TopoGraph *g = topo_graph_build(s->n, (const guint *)(void *)edges->data, edges->len / 2, error);
  g_array_unref(edges);
  return g;
}

static gboolean matching_within_base(const TopoSchedule *s) {
  return !s->match_complete;
}

/* ---- exponential ---- */

static gboolean exponential_parse(TopoSchedule *s, const char *spec, const char *arg,
                                  GError **error) {
  if (!parse_plain(s, spec, arg, error) || !need_two(s, error))
    return FALSE;
  while (((guint64)1 << s->tau) < s->n)
    s->tau++;
  return TRUE;
}

static TopoGraph *exponential_graph(TopoSchedule *s, guint round, GError **error) {
  guint hop = 1u << (round % s->tau);
  guint *e = g_new(guint, 2 * (gsize)s->n);
  for (guint i = 0; i < s->n; i++) {
    e[2 * i] = i;
    e[2 * i + 1] = (guint)(((guint64)i + hop) % s->n);
  }
  TopoGraph *g = topo_graph_build(s->n, e, s->n, error);
  g_free(e);
  return g;
}

static TopoGossip *exponential_gossip(TopoSchedule *s, guint round, GError **error) {
  (void)error;
  /* Directed: row i averages itself with its one peer i + hop. */
  guint hop = 1u << (round % s->tau);
  TopoGossip *w = topo_gossip_alloc(s->n, 2 * (gsize)s->n);
  for (guint i = 0; i < s->n; i++) {
    guint j = (guint)(((guint64)i + hop) % s->n);
    w->col[2 * i] = MIN(i, j);
    w->col[2 * i + 1] = MAX(i, j);
    w->val[2 * i] = w->val[2 * i + 1] = 0.5;
    w->row_ptr[i + 1] = 2 * (i + 1);
  }
  w->symmetric = 2 * hop == s->n; /* i + n/2 and i - n/2 are the same peer */
  return w;
}

/* ---- The base minus what a round removes: edge failures, churn ---- */

/* Base graph minus round t's absent nodes and, with @failures, minus the
 * edges that fail (each down with probability s->p). */
static TopoGraph *filtered_base(TopoSchedule *s, guint round, gboolean failures, GError **error) {
  gsize m;
  guint *e = topo_graph_edges(s->base, &m);
  guint8 *present = s->row->presence != NULL ? s->row->presence(s, round) : NULL;
  gsl_rng *rng = failures ? topo_rng_new(s->seed, round, PURPOSE_EDGE_FAILURE) : NULL;
  gsize k = 0;
  for (gsize i = 0; i < m; i++) {
    guint u = e[2 * i], v = e[2 * i + 1];
    /* Draw for every edge, up or not, so edge i's fate is fixed by (seed, t, i). */
    gboolean up = rng == NULL || gsl_rng_uniform(rng) >= s->p;
    if (present != NULL && (!present[u] || !present[v]))
      up = FALSE;
    if (up) {
      e[2 * k] = u;
      e[2 * k + 1] = v;
      k++;
    }
  }
  if (rng != NULL)
    gsl_rng_free(rng);
  g_free(present);
  TopoGraph *g = topo_graph_build(s->n, e, k, error);
  g_free(e);
  return g;
}

static gboolean edge_failure_parse(TopoSchedule *s, const char *spec, const char *arg,
                                   GError **error) {
  (void)arg;
  Spec *ps = NULL;
  gboolean ok = parse_params(spec, KEYS("p"), KEYS("p"), &ps, error) &&
                spec_double(ps, "p", 0.0, 0.0, 1.0, &s->p, error) && need_base(s, error);
  spec_free(ps);
  return ok;
}

static TopoGraph *edge_failure_graph(TopoSchedule *s, guint round, GError **error) {
  return filtered_base(s, round, TRUE, error);
}

static TopoGraph *churn_graph(TopoSchedule *s, guint round, GError **error) {
  return filtered_base(s, round, FALSE, error);
}

/* churn:FILE */

static gboolean churn_file_parse(TopoSchedule *s, const char *spec, const char *arg,
                                 GError **error) {
  (void)spec;
  if (arg == NULL || *arg == '\0') {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE,
                "schedule 'churn' needs a FILE, leave=P,join=Q or trace=FILE");
    return FALSE;
  }
  return need_base(s, error) && (s->intervals = topo_churn_load(arg, s->base, error)) != NULL;
}

static gboolean churn_file_present(TopoSchedule *s, guint round, guint u) {
  for (guint i = 0; i < s->intervals->len; i++) {
    const TopoChurnInterval *iv = &g_array_index(s->intervals, TopoChurnInterval, i);
    if (iv->node == u && iv->leave <= round && round < iv->join)
      return FALSE;
  }
  return TRUE;
}

static guint8 *churn_file_presence(TopoSchedule *s, guint round) {
  guint8 *p = g_malloc(s->n);
  memset(p, 1, s->n);
  for (guint i = 0; i < s->intervals->len; i++) {
    const TopoChurnInterval *iv = &g_array_index(s->intervals, TopoChurnInterval, i);
    if (iv->leave <= round && round < iv->join)
      p[iv->node] = 0;
  }
  return p;
}

/* churn:leave=P,join=Q */

static gboolean markov_parse(TopoSchedule *s, const char *spec, const char *arg, GError **error) {
  (void)arg;
  Spec *ps = NULL;
  gboolean ok = parse_params(spec, KEYS("leave", "join"), KEYS("leave", "join"), &ps, error) &&
                spec_double(ps, "leave", 0.0, 0.0, 1.0, &s->leave, error) &&
                spec_double(ps, "join", 0.0, 0.0, 1.0, &s->join, error) && need_base(s, error);
  spec_free(ps);
  if (ok) {
    s->states = g_byte_array_new();
    g_byte_array_set_size(s->states, s->n);
    memset(s->states->data, 1, s->n); /* everyone present at round 0 */
    s->n_states = 1;
  }
  return ok;
}

/* Markov churn: extend the state cache through round t. */
static const guint8 *markov_states(TopoSchedule *s, guint round) {
  while (s->n_states <= round) {
    guint r = s->n_states;
    g_byte_array_set_size(s->states, (guint)((gsize)(r + 1) * s->n));
    const guint8 *prev = s->states->data + (gsize)(r - 1) * s->n;
    guint8 *cur = s->states->data + (gsize)r * s->n;
    gsl_rng *rng = topo_rng_new(s->seed, r, PURPOSE_CHURN);
    for (guint u = 0; u < s->n; u++) {
      /* One draw per node per round whatever its state: streams stay aligned. */
      double x = gsl_rng_uniform(rng);
      cur[u] = prev[u] ? x >= s->leave : x < s->join;
    }
    gsl_rng_free(rng);
    s->n_states++;
  }
  return s->states->data + (gsize)round * s->n;
}

static gboolean markov_present(TopoSchedule *s, guint round, guint u) {
  return markov_states(s, round)[u] != 0;
}

static guint8 *markov_presence(TopoSchedule *s, guint round) {
  return g_memdup2(markov_states(s, round), s->n);
}

/* churn:trace=FILE[,...] */

static gboolean trace_parse(TopoSchedule *s, const char *spec, const char *arg, GError **error) {
  (void)arg;
  Spec *ps = NULL;
  gboolean ok = parse_params(spec, KEYS("trace", "format", "scale", "start", "seed", "map"),
                             KEYS("trace"), &ps, error) &&
                need_base(s, error) &&
                (s->tc = topo_trace_churn_new(ps, s->base, s->seed, error)) != NULL;
  spec_free(ps);
  return ok;
}

static gboolean trace_present(TopoSchedule *s, guint round, guint u) {
  return topo_trace_churn_present(s->tc, round, u);
}

static guint8 *trace_presence(TopoSchedule *s, guint round) {
  guint8 *p = g_malloc(s->n);
  for (guint u = 0; u < s->n; u++)
    p[u] = (guint8)topo_trace_churn_present(s->tc, round, u);
  return p;
}

/* ---- The table ---- */

static const SchedKind kinds[] = {
    {.name = "static",
     .synopsis = "static",
     .fixed = TRUE,
     .parse = parse_plain,
     .graph = static_graph,
     .law = law_static},
    {.name = "resample",
     .synopsis = "resample:GENSPEC",
     .parse = resample_parse,
     .graph = resample_graph,
     .within_base = never_within_base,
     .randomness = TOPO_SCHEDULE_RANDOM,
     .no_law = "a generated graph per round"},
    {.name = "matching",
     .synopsis = "matching",
     .note = "the graph's neighbours paired each round; matching:complete=true pairs any two "
             "nodes",
     .parse = matching_parse,
     .graph = matching_graph,
     .within_base = matching_within_base,
     .randomness = TOPO_SCHEDULE_IID,
     .law = law_matching},
    {.name = "exponential",
     .synopsis = "exponential",
     .parse = exponential_parse,
     .graph = exponential_graph,
     .gossip = exponential_gossip,
     .within_base = never_within_base},
    {.name = "edge-failure",
     .synopsis = "edge-failure:p=P",
     .parse = edge_failure_parse,
     .graph = edge_failure_graph,
     .randomness = TOPO_SCHEDULE_IID,
     .law = law_edge_failure},
    {.name = "churn",
     .synopsis = "churn:FILE",
     .parse = churn_file_parse,
     .graph = churn_graph,
     .present = churn_file_present,
     .presence = churn_file_presence},
    {.name = "churn",
     .starts = "leave=|join=",
     .synopsis = "churn:leave=P,join=Q",
     .parse = markov_parse,
     .graph = churn_graph,
     .present = markov_present,
     .presence = markov_presence,
     .randomness = TOPO_SCHEDULE_RANDOM,
     .no_law = "a Markov chain"},
    {.name = "churn",
     .starts = "trace=",
     .synopsis = "churn:trace=FILE[,format=..,scale=..,start=..,seed=..,map=..]",
     .usage = "churn:trace=FILE[,format=sessions|stunner,scale=S,start=S,seed=N,map=seed|identity]",
     .note = "session traces",
     .parse = trace_parse,
     .graph = churn_graph,
     .present = trace_present,
     .presence = trace_presence},
};

/* TRUE when @arg starts with one of the '|'-separated @starts. */
static gboolean arg_selects(const char *starts, const char *arg) {
  if (arg == NULL)
    return FALSE;
  for (const char *p = starts; *p != '\0';) {
    gsize len = strcspn(p, "|");
    if (strncmp(arg, p, len) == 0)
      return TRUE;
    p += len + (p[len] == '|');
  }
  return FALSE;
}

/* The row of a spec named @name with argument @arg (nullable), or NULL. */
static const SchedKind *find_kind(const char *name, const char *arg) {
  const SchedKind *any = NULL;
  for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
    if (strcmp(kinds[i].name, name) != 0)
      continue;
    if (kinds[i].starts == NULL)
      any = any != NULL ? any : &kinds[i];
    else if (arg_selects(kinds[i].starts, arg))
      return &kinds[i];
  }
  return any;
}

const char *const *topo_schedule_kind_names(void) {
  static const char *names[G_N_ELEMENTS(kinds) + 1];
  static gsize once = 0;
  if (g_once_init_enter(&once)) {
    guint k = 0;
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++)
      if (!g_strv_contains(names, kinds[i].name)) /* rows of one name are listed once */
        names[k++] = kinds[i].name;
    g_once_init_leave(&once, 1);
  }
  return names;
}

const char *topo_schedule_kinds_text(gboolean help) {
  static char *text[2];
  static gsize once = 0;
  if (g_once_init_enter(&once)) {
    for (int h = 0; h < 2; h++) {
      GString *s = g_string_new(NULL);
      for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        const SchedKind *k = &kinds[i];
        if (i > 0)
          g_string_append(s, h && i + 1 == G_N_ELEMENTS(kinds) ? " or " : ", ");
        g_string_append(s, h && k->usage != NULL ? k->usage : k->synopsis);
        if (h && k->note != NULL)
          g_string_append_printf(s, " (%s)", k->note);
      }
      text[h] = g_string_free(s, FALSE);
    }
    g_once_init_leave(&once, 1);
  }
  return text[help ? 1 : 0];
}

TopoSchedule *topo_schedule_new(const char *spec, const TopoGraph *base, TopoGossipKind kind,
                                guint64 seed, GError **error) {
  if (spec == NULL || *spec == '\0') {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "empty schedule spec (valid: %s)",
                topo_schedule_kinds_text(FALSE));
    return NULL;
  }
  if (!topo_gossip_kind_check(kind, error))
    return NULL;
  const char *colon = strchr(spec, ':');
  char *name = colon ? g_strndup(spec, (gsize)(colon - spec)) : g_strdup(spec);
  const char *arg = colon ? colon + 1 : NULL;
  const SchedKind *row = find_kind(name, arg);
  if (row == NULL) {
    const char *const *names = topo_schedule_kind_names();
    char *hint = spec_did_you_mean(name, names, g_strv_length((char **)names));
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_PARSE, "unknown schedule '%s' (valid: %s)%s", name,
                topo_schedule_kinds_text(FALSE), hint);
    g_free(hint);
    g_free(name);
    return NULL;
  }
  g_free(name);
  TopoSchedule *s = g_new0(TopoSchedule, 1);
  s->row = row;
  s->spec = g_strdup(spec);
  s->kind = kind;
  s->seed = seed;
  if (base != NULL) {
    s->base = topo_graph_copy(base, error);
    if (s->base == NULL)
      goto fail;
    s->n = topo_graph_n_nodes(base);
  }
  if (row->parse(s, spec, arg, error))
    return s;
fail:
  topo_schedule_free(s);
  return NULL;
}

TopoSchedule *topo_schedule_reseeded(const TopoSchedule *s, guint64 seed, GError **error) {
  g_return_val_if_fail(s != NULL, NULL);
  return topo_schedule_new(s->spec, s->base, s->kind, seed, error);
}

guint topo_schedule_n(const TopoSchedule *s) {
  g_return_val_if_fail(s != NULL, 0);
  return s->n;
}

gboolean topo_schedule_is_static(const TopoSchedule *s) {
  g_return_val_if_fail(s != NULL, FALSE);
  return s->row->fixed;
}

const TopoGraph *topo_schedule_base(const TopoSchedule *s) {
  g_return_val_if_fail(s != NULL, NULL);
  return s->base;
}

gboolean topo_schedule_within_base(const TopoSchedule *s) {
  g_return_val_if_fail(s != NULL, FALSE);
  if (s->row->within_base != NULL)
    return s->row->within_base(s);
  return s->base != NULL; /* static, edge failures, churn: base minus what a round removes */
}

gboolean topo_schedule_node_present(TopoSchedule *s, guint round, guint u) {
  g_return_val_if_fail(s != NULL && u < s->n, FALSE);
  return s->row->present == NULL || s->row->present(s, round, u);
}

TopoGraph *topo_schedule_graph(TopoSchedule *s, guint round, GError **error) {
  if (s == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "schedule is NULL");
    return NULL;
  }
  return s->row->graph(s, round, error);
}

TopoGossip *topo_schedule_gossip(TopoSchedule *s, guint round, GError **error) {
  if (s == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "schedule is NULL");
    return NULL;
  }
  if (s->row->gossip != NULL)
    return s->row->gossip(s, round, error);
  /* Matching: every kind gives 1/2 on a pair (all degrees <= 1). */
  TopoGraph *g = topo_schedule_graph(s, round, error);
  if (g == NULL)
    return NULL;
  TopoGossip *w = topo_gossip_new(g, s->kind, error);
  topo_graph_free(g);
  return w;
}

static gint cmp_change(gconstpointer a, gconstpointer b) {
  const TopoChange *x = a, *y = b;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->u != y->u)
    return x->u < y->u ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v);
}

static void push(GArray *out, TopoChangeKind kind, guint u, guint v) {
  TopoChange c = {kind, u, v};
  g_array_append_val(out, c);
}

GArray *topo_schedule_changes(TopoSchedule *s, guint round, GError **error) {
  if (s == NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT, "schedule is NULL");
    return NULL;
  }
  GArray *out = g_array_new(FALSE, FALSE, sizeof(TopoChange));
  if (round == 0 || s->row->fixed)
    return out;
  TopoGraph *a = topo_schedule_graph(s, round - 1, error);
  TopoGraph *b = a != NULL ? topo_schedule_graph(s, round, error) : NULL;
  if (b == NULL) {
    topo_graph_free(a);
    g_array_unref(out);
    return NULL;
  }
  guint8 *pa = NULL, *pb = NULL;
  if (s->row->presence != NULL) {
    pa = s->row->presence(s, round - 1);
    pb = s->row->presence(s, round);
  }
  for (guint u = 0; pa != NULL && u < s->n; u++) {
    if (pa[u] && !pb[u])
      push(out, TOPO_CHANGE_NODE_LEFT, u, G_MAXUINT);
    if (!pa[u] && pb[u])
      push(out, TOPO_CHANGE_NODE_JOINED, u, G_MAXUINT);
  }
  g_free(pa);
  g_free(pb);
  /* Merge the two sorted edge lists. */
  gsize ma, mb, i = 0, j = 0;
  guint *ea = topo_graph_edges(a, &ma), *eb = topo_graph_edges(b, &mb);
  while (i < ma || j < mb) {
    int c;
    if (i == ma)
      c = 1;
    else if (j == mb)
      c = -1;
    else if (ea[2 * i] != eb[2 * j])
      c = ea[2 * i] < eb[2 * j] ? -1 : 1;
    else
      c = (ea[2 * i + 1] > eb[2 * j + 1]) - (ea[2 * i + 1] < eb[2 * j + 1]);
    if (c < 0) {
      push(out, TOPO_CHANGE_EDGE_REMOVED, ea[2 * i], ea[2 * i + 1]);
      i++;
    } else if (c > 0) {
      push(out, TOPO_CHANGE_EDGE_ADDED, eb[2 * j], eb[2 * j + 1]);
      j++;
    } else {
      i++;
      j++;
    }
  }
  g_free(ea);
  g_free(eb);
  topo_graph_free(a);
  topo_graph_free(b);
  g_array_sort(out, cmp_change);
  return out;
}

/* ---- The law of one round (i.i.d. schedules): docs/design.md, "Mafalda over
 * a changing network". ---- */

TopoScheduleRandomness topo_schedule_randomness(const TopoSchedule *s) {
  g_return_val_if_fail(s != NULL, TOPO_SCHEDULE_RANDOM);
  return s->row->randomness;
}

/* Visits the round whose graph has the @k edges @e (pairs) with
 * probability @prob. */
static gboolean visit_edges(const TopoSchedule *s, const guint *e, gsize k, double prob,
                            TopoRoundLawFunc visit, gpointer data, GError **error) {
  TopoGraph *g = topo_graph_build(s->n, e, k, error);
  if (g == NULL)
    return FALSE;
  TopoGossip *w = topo_gossip_new(g, s->kind, error);
  topo_graph_free(g);
  if (w == NULL)
    return FALSE;
  visit(prob, w, data);
  topo_gossip_free(w);
  return TRUE;
}

static gboolean too_many(const char *what, double outcomes, guint64 max_outcomes, GError **error) {
  if (outcomes <= (double)max_outcomes)
    return FALSE;
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
              "the exact law of a round of schedule '%s' has %.4g outcomes, more than the "
              "%" G_GUINT64_FORMAT
              " allowed: estimate the expectation from sampled schedules instead",
              what, outcomes, max_outcomes);
  return TRUE;
}

/* Edge failure: every up/down pattern of the base's m edges, with
 * probability p^down (1-p)^up; patterns of probability 0 are skipped. */
static gboolean law_edge_failure(const TopoSchedule *s, guint64 max_outcomes,
                                 TopoRoundLawFunc visit, gpointer data, GError **error) {
  gsize m;
  guint *e = topo_graph_edges(s->base, &m);
  gboolean ok = !too_many("edge-failure", ldexp(1.0, (int)MIN(m, 1000)), max_outcomes, error);
  guint *up = g_new(guint, 2 * m + 2);
  for (guint64 pattern = 0; ok && pattern < ((guint64)1 << m); pattern++) {
    gsize k = 0, down = 0;
    for (gsize i = 0; i < m; i++) {
      if ((pattern >> i) & 1u) {
        down++;
      } else {
        up[2 * k] = e[2 * i];
        up[2 * k + 1] = e[2 * i + 1];
        k++;
      }
    }
    double prob = pow(s->p, (double)down) * pow(1.0 - s->p, (double)k);
    if (prob > 0.0)
      ok = visit_edges(s, up, k, prob, visit, data, error);
  }
  g_free(up);
  g_free(e);
  return ok;
}

static gint cmp_u64(gconstpointer a, gconstpointer b) {
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return (x > y) - (x < y);
}

/* Matching over the base's edges: the greedy scan of a uniformly shuffled
 * edge list takes the first edge, then scans the rest in uniform relative
 * order, so its law is: a uniform edge among those still free, recursively.
 * Partial matchings (bit sets of edges) are carried level by level with
 * their probabilities; a matching with no free edge left is an outcome. */
static gboolean law_matching_base(const TopoSchedule *s, guint64 max_outcomes,
                                  TopoRoundLawFunc visit, gpointer data, GError **error) {
  gsize m;
  guint *e = topo_graph_edges(s->base, &m);
  if (m > 64) {
    g_free(e);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "the exact law of a round of schedule 'matching' is computed for at most 64 "
                "edges (the base graph has %" G_GSIZE_FORMAT
                "): estimate the expectation from sampled schedules instead",
                m);
    return FALSE;
  }
  GHashTable *level = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  guint64 *key0 = g_new0(guint64, 1);
  double *p0 = g_new(double, 1);
  *p0 = 1.0;
  g_hash_table_insert(level, key0, p0);
  guint8 *used = g_new(guint8, s->n);
  guint *pairs = g_new(guint, 2 * m + 2);
  gsize *avail = g_new(gsize, m + 1);
  guint64 states = 0;
  gboolean ok = TRUE;
  while (ok && g_hash_table_size(level) > 0) {
    /* In increasing key order: the sums below never depend on hashing. */
    guint len;
    gpointer *keys = g_hash_table_get_keys_as_array(level, &len);
    guint64 *sorted = g_new(guint64, len);
    for (guint i = 0; i < len; i++)
      sorted[i] = *(guint64 *)keys[i];
    g_free(keys);
    qsort(sorted, len, sizeof(guint64), cmp_u64);
    GHashTable *next = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    for (guint i = 0; ok && i < len; i++) {
      guint64 set = sorted[i];
      double prob = *(double *)g_hash_table_lookup(level, &set);
      memset(used, 0, s->n);
      gsize k = 0, na = 0;
      for (gsize j = 0; j < m; j++)
        if ((set >> j) & 1u) {
          used[e[2 * j]] = used[e[2 * j + 1]] = 1;
          pairs[2 * k] = e[2 * j];
          pairs[2 * k + 1] = e[2 * j + 1];
          k++;
        }
      for (gsize j = 0; j < m; j++)
        if (!used[e[2 * j]] && !used[e[2 * j + 1]])
          avail[na++] = j;
      if (na == 0) {
        ok = !too_many("matching", (double)++states, max_outcomes, error) &&
             visit_edges(s, pairs, k, prob, visit, data, error);
        continue;
      }
      for (gsize j = 0; j < na; j++) {
        guint64 child = set | ((guint64)1 << avail[j]);
        double *pc = g_hash_table_lookup(next, &child);
        if (pc == NULL) {
          ok = !too_many("matching", (double)++states, max_outcomes, error);
          guint64 *kc = g_memdup2(&child, sizeof child);
          pc = g_new0(double, 1);
          g_hash_table_insert(next, kc, pc);
        }
        *pc += prob / (double)na;
      }
    }
    g_free(sorted);
    g_hash_table_unref(level);
    level = next;
  }
  g_hash_table_unref(level);
  g_free(used);
  g_free(pairs);
  g_free(avail);
  g_free(e);
  return ok;
}

/* Matching among all pairs: pairing a uniform shuffle two by two gives every
 * perfect matching (n even; n odd: a uniform idle node, then a perfect
 * matching of the others) the same probability. Enumerated by pairing the
 * lowest unpaired node with each other one. */
typedef struct {
  const TopoSchedule *s;
  guint8 *paired;
  guint *pairs;
  gsize k;
  double prob;
  TopoRoundLawFunc visit;
  gpointer data;
} CompleteEnum;

static gboolean enum_complete(CompleteEnum *c, GError **error) {
  guint u = 0;
  while (u < c->s->n && c->paired[u])
    u++;
  if (u == c->s->n)
    return visit_edges(c->s, c->pairs, c->k, c->prob, c->visit, c->data, error);
  c->paired[u] = 1;
  gboolean ok = TRUE;
  for (guint v = u + 1; ok && v < c->s->n; v++) {
    if (c->paired[v])
      continue;
    c->paired[v] = 1;
    c->pairs[2 * c->k] = u;
    c->pairs[2 * c->k + 1] = v;
    c->k++;
    ok = enum_complete(c, error);
    c->k--;
    c->paired[v] = 0;
  }
  c->paired[u] = 0;
  return ok;
}

static gboolean law_matching_complete(const TopoSchedule *s, guint64 max_outcomes,
                                      TopoRoundLawFunc visit, gpointer data, GError **error) {
  guint n = s->n, even = n - n % 2;
  double count = n % 2 ? (double)n : 1.0; /* the idle node */
  for (guint j = even - 1; j > 1; j -= 2)
    count *= (double)j; /* (even - 1)!! perfect matchings */
  if (too_many("matching:complete=true", count, max_outcomes, error))
    return FALSE;
  CompleteEnum c = {s, g_new0(guint8, n), g_new(guint, n + 2), 0, 1.0 / count, visit, data};
  gboolean ok = TRUE;
  for (guint idle = 0; ok && idle < (n % 2 ? n : 1); idle++) {
    if (n % 2)
      c.paired[idle] = 1;
    ok = enum_complete(&c, error);
    if (n % 2)
      c.paired[idle] = 0;
  }
  g_free(c.paired);
  g_free(c.pairs);
  return ok;
}

static gboolean law_static(const TopoSchedule *s, guint64 max_outcomes, TopoRoundLawFunc visit,
                           gpointer data, GError **error) {
  (void)max_outcomes;
  TopoGossip *w = topo_gossip_new(s->base, s->kind, error);
  if (w == NULL)
    return FALSE;
  visit(1.0, w, data);
  topo_gossip_free(w);
  return TRUE;
}

static gboolean law_matching(const TopoSchedule *s, guint64 max_outcomes, TopoRoundLawFunc visit,
                             gpointer data, GError **error) {
  return s->match_complete ? law_matching_complete(s, max_outcomes, visit, data, error)
                           : law_matching_base(s, max_outcomes, visit, data, error);
}

gboolean topo_schedule_round_law(const TopoSchedule *s, guint64 max_outcomes,
                                 TopoRoundLawFunc visit, gpointer data, GError **error) {
  g_return_val_if_fail(s != NULL && visit != NULL, FALSE);
  if (s->row->law != NULL)
    return s->row->law(s, max_outcomes, visit, data, error);
  g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
              "schedule '%s': its rounds are not independent draws of one finite law (%s): "
              "take its expectation over its trace or from sampled schedules",
              s->row->synopsis,
              s->row->no_law != NULL                      ? s->row->no_law
              : s->row->randomness == TOPO_SCHEDULE_FIXED ? "a fixed sequence of graphs"
                                                          : "random rounds");
  return FALSE;
}

/* Accumulates E[W] and E[W kron W] from the outcomes. */
typedef struct {
  guint n;
  double *M, *Q;
  guint64 outcomes;
} Moments;

static void add_moments(double prob, const TopoGossip *w, gpointer data) {
  Moments *mo = data;
  gsize n = mo->n;
  mo->outcomes++;
  for (guint c = 0; c < n; c++)
    for (guint i = w->row_ptr[c]; i < w->row_ptr[c + 1]; i++) {
      guint a = w->col[i];
      double pw = prob * w->val[i];
      mo->M[c * n + a] += pw;
      for (guint d = 0; d < n; d++)
        for (guint j = w->row_ptr[d]; j < w->row_ptr[d + 1]; j++)
          mo->Q[((c * n + d) * n + a) * n + w->col[j]] += pw * w->val[j];
    }
}

gboolean topo_schedule_round_moments(const TopoSchedule *s, guint64 max_outcomes, gsize max_bytes,
                                     double **M, double **Q, guint64 *n_outcomes, GError **error) {
  g_return_val_if_fail(s != NULL && M != NULL && Q != NULL, FALSE);
  guint64 n = s->n, n4 = n * n * n * n;
  guint64 bytes = n4 / (n * n) == n * n && n4 < G_MAXUINT64 / 8 ? 8 * (n4 + n * n) : G_MAXUINT64;
  if (max_bytes == 0)
    max_bytes = (gsize)MIN((guint64)G_MAXSIZE,
                           (guint64)sysconf(_SC_PHYS_PAGES) * (guint64)sysconf(_SC_PAGESIZE));
  if (bytes > max_bytes) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "the second moment E[W kron W] of a round on %u nodes needs %" G_GUINT64_FORMAT
                " bytes (n^4 doubles), more than the %" G_GSIZE_FORMAT
                " allowed: estimate the expectation from sampled schedules instead",
                s->n, bytes, max_bytes);
    return FALSE;
  }
  Moments mo = {s->n, g_try_new0(double, (gsize)(n * n)), g_try_new0(double, (gsize)n4), 0};
  if (mo.M == NULL || mo.Q == NULL) {
    g_free(mo.M);
    g_free(mo.Q);
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                "out of memory for the %" G_GUINT64_FORMAT " bytes of a round's moments", bytes);
    return FALSE;
  }
  if (!topo_schedule_round_law(s, max_outcomes, add_moments, &mo, error)) {
    g_free(mo.M);
    g_free(mo.Q);
    return FALSE;
  }
  *M = mo.M;
  *Q = mo.Q;
  if (n_outcomes != NULL)
    *n_outcomes = mo.outcomes;
  return TRUE;
}
