/*
 * scenarios/schema.c: the scenario key table and the checks it supports
 * alone (see schema.h). Module specs (protocol, mode, latency, dataset...)
 * are only checked for being non-empty here; resolve.c (scen_config_resolve)
 * hands them to their modules' parsers.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "scenarios/schema.h"
#include "spec/spec.h"

/*
 * Each row binds its key to the field of the resolved configuration that
 * holds it (FIELD(name, STORE)), so that its default, its parsing, its
 * check and its line of the resolved file all come from the row
 * (resolve.c's scen_config_resolve_stored and scen_config_to_ini); a key
 * the row alone cannot write names its writer (WRITE). FIELD checks at
 * compile time that the field has the size its store writes. The fuzz
 * targets build this file alone (GLib only, no ScenConfig): there the rows
 * are unbound, which the checks do not read.
 */
#ifdef SCEN_SCHEMA_GLIB_ONLY
#define FIELD(f, st) .store = SCEN_STORE_NONE
#define NO_FIELD .store = SCEN_STORE_NONE
#define WRITE(fn) .write = NULL
#define CHOICES_OF(fn) .choices_of = NULL
#else
#include <stddef.h>

#include "scenarios/internal.h"
#define STORE_SIZE_STRING sizeof(char *)
#define STORE_SIZE_UINT sizeof(guint)
#define STORE_SIZE_U64 sizeof(guint64)
#define STORE_SIZE_DOUBLE sizeof(double)
#define STORE_SIZE_BOOL sizeof(gboolean)
#define STORE_SIZE_CHOICE sizeof(gint)
#define FIELD(f, st)                                                                               \
  .store = SCEN_STORE_##st,                                                                        \
  .offset = offsetof(ScenConfig, f) +                                                              \
            0 * sizeof(char[sizeof(((ScenConfig *)0)->f) == STORE_SIZE_##st ? 1 : -1])
#define NO_FIELD .store = SCEN_STORE_NONE
#define WRITE(fn) .write = fn
#define CHOICES_OF(fn) .choices_of = fn
#endif

#define NO_RANGE 1, 0
#define MAX_STEPS 10000000.0

static const ScenKeyInfo keys[] = {
    /* [simulation] */
    {"simulation", "name", SCEN_TYPE_STRING, NULL, NO_RANGE, SCEN_KEY_DERIVED, NULL,
     "the run's name (default: the file name without .ini)", FIELD(name, STRING)},
    {"simulation", "seed", SCEN_TYPE_SEED, "0", NO_RANGE, 0, NULL,
     "seed of every random choice (data split, partition, noise, latencies, graphs)",
     FIELD(seed, U64)},
    {"simulation", "rounds", SCEN_TYPE_UINT, NULL, 1, MAX_STEPS, SCEN_KEY_DERIVED, NULL,
     "T, the local steps (default: epochs x batches with a [task], else 10)", FIELD(rounds, UINT),
     WRITE(scen_write_rounds)},
    {"simulation", "mode", SCEN_TYPE_SPEC, "sync", NO_RANGE, 0, NULL,
     "gossip mode: sync, deadline:ms=D or stale:s=S", FIELD(mode, STRING)},
    {"simulation", "compute_ms", SCEN_TYPE_DOUBLE, "0", 0, 1e12, 0, NULL,
     "local compute time of each step, in ms", FIELD(compute_ms, DOUBLE)},
    /* [topology] */
    {"topology", "graph", SCEN_TYPE_PATH, NULL, NO_RANGE, SCEN_KEY_OPTIONAL, NULL,
     "an edge-list file (exactly one of graph and generate)", FIELD(graph, STRING)},
    {"topology", "generate", SCEN_TYPE_SPEC, NULL, NO_RANGE, SCEN_KEY_OPTIONAL, NULL,
     "a generator spec: florentine, karate, ring:n=N, erdos:n=N,p=P,seed=S, ...",
     FIELD(generate, STRING)},
    {"topology", "lcc", SCEN_TYPE_BOOL, "false", NO_RANGE, 0, NULL,
     "keep only the largest connected component", FIELD(lcc, BOOL)},
    {"topology", "gossip", SCEN_TYPE_ENUM, "uniform", NO_RANGE, 0, "uniform|metropolis|maxdegree",
     "gossip weights", FIELD(gossip, CHOICE)},
    /* Its help follows the list of topologies/' schedule table (scen_keys_describe). */
    {"topology", "schedule", SCEN_TYPE_SPEC, "static", NO_RANGE, 0, NULL,
     "paths relative to the scenario file", FIELD(schedule, STRING)},
    /* [network] */
    {"network", "latency", SCEN_TYPE_SPEC, "constant:ms=0", NO_RANGE, 0, NULL,
     "link latency: constant:ms=X, uniform:min=A,max=B, lognormal:mu=M,sigma=S; measured: "
     "links:file=PATH,unit=ms|s (an edge list's latency column), "
     "country:rtt=PATH,seed=S[,intra=PATH] (RIPE Atlas country RTTs) or "
     "geo:nodes=PATH[,base=MS,per_km=MS,jitter=S,max=MS,seed=S] (node coordinates, great-circle "
     "distance); paths relative to the scenario file",
     FIELD(latency, STRING)},
    {"network", "loss", SCEN_TYPE_SPEC, "0", NO_RANGE, 0, NULL,
     "message loss probability (not in sync mode)", FIELD(loss, STRING)},
    /* [protocol] */
    /* Its help follows the protocol registry's names (scen_keys_describe). */
    {"protocol", "name", SCEN_TYPE_SPEC, "dsgd", NO_RANGE, 0, NULL,
     "NAME[:key=value,...] (dpgossip protocols lists the parameters), or nonprivate (D-SGD "
     "without noise)",
     FIELD(protocol, STRING)},
    {"protocol", "plugin", SCEN_TYPE_PATH, NULL, NO_RANGE, SCEN_KEY_OPTIONAL, NULL,
     "a protocol plugin (.so built against protocols/plugin.h) to load; name may then be "
     "its protocol. Code: validate never loads it, run only with --allow-plugins",
     FIELD(plugin, STRING)},
    {"protocol", "sigma", SCEN_TYPE_DOUBLE, "1", 0, 1e300, 0, NULL,
     "noise multiplier (noise std sigma x clip; MF protocols: x sens(C))", FIELD(sigma, DOUBLE),
     WRITE(scen_write_sigma)},
    {"protocol", "mu", SCEN_TYPE_DOUBLE, NULL, 0, 1e300, SCEN_KEY_OPTIONAL | SCEN_KEY_MIN_OPEN,
     NULL,
     "instead of sigma: the noise that makes every node mu-GDP under LDP (participation of "
     "[privacy])",
     FIELD(mu, DOUBLE), WRITE(scen_write_mu)},
    {"protocol", "clip", SCEN_TYPE_DOUBLE, "1", 0, 1e300, SCEN_KEY_MIN_OPEN, NULL,
     "clipping norm Delta", FIELD(clip, DOUBLE)},
    {"protocol", "lr", SCEN_TYPE_DOUBLE, "0.1", 0, 1e300, SCEN_KEY_MIN_OPEN, NULL, "step size eta",
     FIELD(lr, DOUBLE)},
    /* [task] */
    {"task", "dataset", SCEN_TYPE_SPEC, NULL, NO_RANGE, SCEN_KEY_REQUIRED, NULL,
     "california:PATH, csv:PATH[,...], idx:DIR[,limit=N], synthetic:linear|logistic[,...]",
     FIELD(dataset, STRING)},
    {"task", "model", SCEN_TYPE_SPEC, NULL, NO_RANGE, SCEN_KEY_DERIVED, NULL,
     "linear, softmax or mlp:hidden=H (default: linear for regression, softmax for classes)",
     FIELD(model, STRING)},
    {"task", "epochs", SCEN_TYPE_UINT, "1", 1, MAX_STEPS, 0, NULL, "k, passes over the data",
     FIELD(epochs, UINT)},
    {"task", "batches", SCEN_TYPE_UINT, "1", 1, MAX_STEPS, 0, NULL,
     "b, batches per node per epoch (T = k x b)", FIELD(batches, UINT)},
    {"task", "test_fraction", SCEN_TYPE_DOUBLE, "0.2", 0, 1, SCEN_KEY_MAX_OPEN, NULL,
     "records held out for testing", FIELD(test_fraction, DOUBLE)},
    {"task", "partition", SCEN_TYPE_SPEC, "uniform", NO_RANGE, 0, NULL,
     "records to nodes: uniform, dirichlet:alpha=A (label skew) or classes:k=K (K labels "
     "per node)",
     FIELD(partition, STRING)},
    {"task", "eval_every", SCEN_TYPE_UINT, NULL, 0, MAX_STEPS, SCEN_KEY_DERIVED, NULL,
     "evaluate every N steps and at T (default: T/20; 0: at T only)", FIELD(eval_every, UINT)},
    {"task", "eval_nodes", SCEN_TYPE_UINT, "0", 0, 4294967294.0, SCEN_KEY_IF_CHANGED, NULL,
     "nodes evaluated, drawn with the seed (0: every node up to 10000 nodes, else 1000; as many "
     "as the nodes: all)",
     FIELD(eval_nodes, UINT)},
    {"task", "eval_rows", SCEN_TYPE_UINT, "0", 0, 4294967294.0, SCEN_KEY_IF_CHANGED, NULL,
     "test rows each evaluation uses, drawn with the seed (0: all up to 10000 nodes, else "
     "10000; as many as the rows: all)",
     FIELD(eval_rows, UINT)},
    /* [privacy] */
    {"privacy", "trust", SCEN_TYPE_ENUM_LIST, "ldp", NO_RANGE, 0, NULL,
     "trust models, e.g. pndp;ldp", NO_FIELD, WRITE(scen_write_trust),
     CHOICES_OF(scen_trust_choices)},
    {"privacy", "sensitivity", SCEN_TYPE_ENUM, "auto", NO_RANGE, 0, "bound|exact|auto",
     "auto (exact when its estimated cost is under 1 CPU s, else bound; docs/design.md "
     "\"Which sensitivity\"), bound (paper Thm 5.2) or exact (SDP)",
     FIELD(sensitivity, CHOICE)},
    {"privacy", "participation_interval", SCEN_TYPE_UINT, NULL, 1, MAX_STEPS, SCEN_KEY_DERIVED,
     NULL, "b, steps between two uses of a record; divides T (default: task batches, else 1)",
     FIELD(b, UINT)},
    {"privacy", "alpha", SCEN_TYPE_DOUBLE, "2", 1, 1e300, SCEN_KEY_MIN_OPEN, NULL,
     "Renyi order of the rdp column", FIELD(alpha, DOUBLE)},
    {"privacy", "delta", SCEN_TYPE_DOUBLE, "1e-06", 0, 1, SCEN_KEY_MIN_OPEN | SCEN_KEY_MAX_OPEN,
     NULL, "delta of the epsilon column", FIELD(delta, DOUBLE)},
    {"privacy", "compare", SCEN_TYPE_ENUM, "none", NO_RANGE, 0, "none|muffliato",
     "another accounting next to ours (muffliato: Cyffers et al. 2022, D-SGD under PNDP)",
     FIELD(compare_muffliato, CHOICE)},
    {"privacy", "path", SCEN_TYPE_ENUM, "auto", NO_RANGE, 0, "auto|structured|observer|local|none",
     "how to account: structured (fast: D-SGD, Muffliato, DECOR, MF-D-SGD, AntiPGD, Mafalda; "
     "deadline and stale mode on the run's delivery record), observer (what the attackers saw "
     "on the bus), local (certified bounds mu_lower <= exact <= mu within privacy.radius hops, "
     "for whatever `dpgossip account --path local` takes: asynchronous modes on the ball's part "
     "of the run's delivery record, Zip-DL and plugins on the observer path's ball), auto, or "
     "none",
     FIELD(path_requested, CHOICE)},
    {"privacy", "radius", SCEN_TYPE_UINT, NULL, 1, 1000000, SCEN_KEY_OPTIONAL | SCEN_KEY_IF_CHANGED,
     NULL,
     "path local: hops around each collusion set whose victims get certified bounds "
     "(every node farther away colludes)",
     FIELD(radius, UINT)},
    {"privacy", "tightness", SCEN_TYPE_DOUBLE, NULL, 1, 1e300,
     SCEN_KEY_OPTIONAL | SCEN_KEY_IF_CHANGED, NULL,
     "path local without privacy.radius: grow the radius from 1 until every victim's "
     "mu / mu_lower is at most this (or the ball covers the graph, the next radius would take "
     "over 600 s or is refused for memory: privacy.json says where and why)",
     FIELD(tightness, DOUBLE)},
    {"privacy", "accountant", SCEN_TYPE_ENUM, "streaming", NO_RANGE, SCEN_KEY_IF_CHANGED,
     "streaming|dense",
     "observer path: streaming (per round, flat memory) or dense (every row, factorized at "
     "the end; the reference)",
     FIELD(dense_accountant, CHOICE)},
    /* [collusion.NAME] */
    {"collusion.*", "nodes", SCEN_TYPE_NODE_LIST, NULL, NO_RANGE, SCEN_KEY_REQUIRED, NULL,
     "the attacker sets: " SPEC_ATTACKERS_GRAMMAR " (7;40, the older form, is 7+40)", NO_FIELD,
     WRITE(scen_write_collusions)},
    /* [audit] */
    {"audit", "victims", SCEN_TYPE_STRING, NULL, NO_RANGE, SCEN_KEY_OPTIONAL, NULL,
     "audit these victims (node ids joined by ';', or all: every node outside the set) "
     "against each collusion set and trust model by attacks on simulated runs "
     "(docs/audits.md); audit.csv. Needs a constant latency and no loss (schedules and b > 1 are "
     "audited as accounted)",
     NO_FIELD, WRITE(scen_write_victims)},
    {"audit", "trials", SCEN_TYPE_UINT, "1000", 20, 1e9, 0, NULL, "simulated runs per world",
     FIELD(audit_trials, UINT)},
    {"audit", "attack", SCEN_TYPE_ENUM, "all", NO_RANGE, 0, "np|learned|reconstruction|all",
     "the attack (all: every one that applies)", NO_FIELD, WRITE(scen_write_attack)},
    /* [output] */
    {"output", "dir", SCEN_TYPE_PATH, NULL, NO_RANGE, SCEN_KEY_DERIVED, NULL,
     "output folder (default: results/NAME next to the scenario)", FIELD(out_dir, STRING),
     WRITE(scen_write_out_dir)},
    {"output", "plots", SCEN_TYPE_BOOL, "true", NO_RANGE, 0, NULL, "write the figures",
     FIELD(plots, BOOL)},
    {"output", "figure_format", SCEN_TYPE_ENUM, "svg", NO_RANGE, SCEN_KEY_IF_CHANGED, "svg|png|pdf",
     "file format of the figures", FIELD(figure_ext, STRING)},
    {"output", "figure_size", SCEN_TYPE_STRING, NULL, NO_RANGE, SCEN_KEY_OPTIONAL, NULL,
     "size of one panel, WxH in points or with a unit: 5x3.5in, 12x9cm (default 420x290; a "
     "figure of R x C panels is R x C of them, its title included)",
     NO_FIELD, WRITE(scen_write_figure_size)},
    {"output", "figure_dpi", SCEN_TYPE_DOUBLE, "144", 18, 1152, SCEN_KEY_IF_CHANGED, NULL,
     "PNG resolution in dots per inch", FIELD(figure_dpi, DOUBLE)},
};

static const char *const sections[] = {"simulation", "topology", "network", "protocol",
                                       "task",       "privacy",  "audit",   "collusion.*",
                                       "sweep",      "output",   NULL};

const ScenKeyInfo *scen_schema_keys(guint *n) {
  *n = G_N_ELEMENTS(keys);
  return keys;
}

static const char *family(const char *section) {
  if (g_str_has_prefix(section, "collusion.") && section[10] != '\0')
    return "collusion.*";
  return section;
}

const ScenKeyInfo *scen_schema_find(const char *section, const char *key) {
  const char *fam = family(section);
  for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
    if (g_str_equal(keys[i].section, fam) && g_str_equal(keys[i].key, key))
      return &keys[i];
  return NULL;
}

gboolean scen_schema_is_section(const char *section) {
  const char *fam = family(section);
  if (g_str_equal(fam, "collusion.*"))
    return TRUE;
  for (guint i = 0; sections[i]; i++)
    if (g_str_equal(sections[i], fam) && !g_str_equal(fam, "collusion.*"))
      return TRUE;
  return FALSE;
}

/* Close enough to be a typo: distance <= 2, or <= a third of the length. */
static gboolean close_enough(guint d, const char *word) {
  return spec_typo_distance(d, word);
}

char *scen_schema_suggest_section(const char *section) {
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; sections[i]; i++) {
    const char *cand = g_str_equal(sections[i], "collusion.*") ? "collusion" : sections[i];
    guint d = scen_edit_distance(section, cand);
    if (g_str_has_prefix(sections[i], "collusion")) {
      /* [colusion.pair] -> collusion.pair */
      const char *dot = strchr(section, '.');
      if (dot != NULL) {
        char *head = g_strndup(section, (gsize)(dot - section));
        d = scen_edit_distance(head, "collusion");
        g_free(head);
        if (close_enough(d, "collusion") && d < best_d) {
          best_d = d;
          best = NULL;
          return g_strdup_printf(" (did you mean [collusion%s]?)", dot);
        }
      } else if (g_str_equal(section, "collusion")) {
        return g_strdup(" (collusion sets are named: [collusion.NAME])");
      }
    }
    if (d < best_d) {
      best_d = d;
      best = cand;
    }
  }
  if (best != NULL && close_enough(best_d, section))
    return g_strdup_printf(" (did you mean [%s]?)", best);
  return g_strdup("");
}

char *scen_schema_suggest_key(const char *section, const char *key) {
  const char *fam = family(section);
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
    if (!g_str_equal(keys[i].section, fam))
      continue;
    guint d = scen_edit_distance(key, keys[i].key);
    if (d < best_d) {
      best_d = d;
      best = keys[i].key;
    }
  }
  if (best != NULL && close_enough(best_d, key))
    return g_strdup_printf(" (did you mean '%s'?)", best);
  /* The right key in the wrong section: [protocol] rounds = 10. */
  for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
    if (g_str_equal(keys[i].key, key) && !g_str_equal(keys[i].section, fam)) {
      if (g_str_equal(keys[i].section, "collusion.*"))
        return g_strdup(" (it belongs in a [collusion.NAME] section)");
      return g_strdup_printf(" (it belongs in [%s]: %s.%s)", keys[i].section, keys[i].section, key);
    }
  for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
    guint d = scen_edit_distance(key, keys[i].key);
    if (close_enough(d, key) && !g_str_equal(keys[i].section, "collusion.*"))
      return g_strdup_printf(" (did you mean %s.%s?)", keys[i].section, keys[i].key);
  }
  return g_strdup("");
}

/* ---- Values ---- */

gboolean scen_parse_bool(const char *v, gboolean *out, char **msg) {
  static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off",
                                                                              "0"};
  for (guint i = 0; i < G_N_ELEMENTS(yes); i++) {
    if (g_ascii_strcasecmp(v, yes[i]) == 0) {
      *out = TRUE;
      return TRUE;
    }
    if (g_ascii_strcasecmp(v, no[i]) == 0) {
      *out = FALSE;
      return TRUE;
    }
  }
  *msg = g_strdup_printf("'%s' is not a boolean (true or false)", v);
  return FALSE;
}

gboolean scen_parse_uint64(const char *v, guint64 *out, char **msg) {
  if (!g_ascii_isdigit(v[0])) {
    *msg = g_strdup_printf("'%s' is not a non-negative integer", v);
    return FALSE;
  }
  char *end = NULL;
  errno = 0;
  guint64 x = g_ascii_strtoull(v, &end, 10);
  if (*end != '\0') {
    *msg = g_strdup_printf("'%s' is not a non-negative integer", v);
    return FALSE;
  }
  if (errno == ERANGE) {
    *msg = g_strdup_printf("'%s' is too large (at most %" G_GUINT64_FORMAT ")", v, G_MAXUINT64);
    return FALSE;
  }
  *out = x;
  return TRUE;
}

gboolean scen_parse_double(const char *v, double *out, char **msg) {
  char *end = NULL;
  errno = 0;
  double x = g_ascii_strtod(v, &end);
  if (v[0] == '\0' || *end != '\0' || g_ascii_isspace(v[0])) {
    *msg = g_strdup_printf("'%s' is not a number", v);
    return FALSE;
  }
  if (!isfinite(x)) {
    *msg = g_strdup_printf("'%s' is not a finite number", v);
    return FALSE;
  }
  *out = x;
  return TRUE;
}

static char *range_text(const ScenKeyInfo *k) {
  gboolean lo = k->min > -1e300, hi = k->max < 1e300;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(a, sizeof a, "%g", k->min);
  g_ascii_formatd(b, sizeof b, "%g", k->max);
  if (lo && hi)
    return g_strdup_printf("in %s%s, %s%s", (k->flags & SCEN_KEY_MIN_OPEN) ? "(" : "[", a, b,
                           (k->flags & SCEN_KEY_MAX_OPEN) ? ")" : "]");
  if (lo)
    return g_strdup_printf("%s %s", (k->flags & SCEN_KEY_MIN_OPEN) ? ">" : ">=", a);
  return g_strdup_printf("%s %s", (k->flags & SCEN_KEY_MAX_OPEN) ? "<" : "<=", b);
}

static gboolean in_range(const ScenKeyInfo *k, double x) {
  if (k->min > k->max)
    return TRUE;
  if ((k->flags & SCEN_KEY_MIN_OPEN) ? !(x > k->min) : !(x >= k->min))
    return FALSE;
  if ((k->flags & SCEN_KEY_MAX_OPEN) ? !(x < k->max) : !(x <= k->max))
    return FALSE;
  return TRUE;
}

static gboolean is_choice(const char *choices, const char *v) {
  char **c = g_strsplit(choices, "|", -1);
  gboolean found = g_strv_contains((const char *const *)c, v);
  g_strfreev(c);
  return found;
}

static char *choices_text(const char *choices) {
  char **c = g_strsplit(choices, "|", -1);
  char *t = g_strjoinv(", ", c);
  g_strfreev(c);
  return t;
}

static char *suggest_choice(const char *choices, const char *v) {
  char **c = g_strsplit(choices, "|", -1);
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; c[i]; i++) {
    guint d = scen_edit_distance(v, c[i]);
    if (d < best_d) {
      best_d = d;
      best = c[i];
    }
  }
  char *s = best && close_enough(best_d, v) ? g_strdup_printf("; did you mean '%s'?", best)
                                            : g_strdup("");
  g_strfreev(c);
  return s;
}

const char *scen_key_choices(const ScenKeyInfo *k) {
  return k->choices != NULL ? k->choices : k->choices_of != NULL ? k->choices_of() : NULL;
}

gboolean scen_value_check(const ScenKeyInfo *k, const char *raw, char **msg) {
  const char *choices = scen_key_choices(k);
  char *v = scen_unescape(raw);
  gboolean ok = TRUE;
  switch (k->type) {
  case SCEN_TYPE_STRING:
    break;
  case SCEN_TYPE_PATH:
  case SCEN_TYPE_SPEC:
    if (v[0] == '\0') {
      *msg = g_strdup("empty value");
      ok = FALSE;
    }
    break;
  case SCEN_TYPE_BOOL: {
    gboolean b;
    ok = scen_parse_bool(v, &b, msg);
    break;
  }
  case SCEN_TYPE_SEED: {
    guint64 x;
    ok = scen_parse_uint64(v, &x, msg);
    break;
  }
  case SCEN_TYPE_UINT: {
    guint64 x;
    ok = scen_parse_uint64(v, &x, msg);
    if (ok && !in_range(k, (double)x)) {
      char *r = range_text(k);
      *msg = g_strdup_printf("%s is out of range: must be an integer %s", v, r);
      g_free(r);
      ok = FALSE;
    }
    break;
  }
  case SCEN_TYPE_DOUBLE: {
    double x;
    ok = scen_parse_double(v, &x, msg);
    if (ok && !in_range(k, x)) {
      char *r = range_text(k);
      *msg = g_strdup_printf("%s is out of range: must be %s", v, r);
      g_free(r);
      ok = FALSE;
    }
    break;
  }
  case SCEN_TYPE_ENUM:
    if (choices != NULL && !is_choice(choices, v)) {
      char *c = choices_text(choices), *s = suggest_choice(choices, v);
      *msg = g_strdup_printf("unknown value '%s' (valid: %s)%s", v, c, s);
      g_free(c);
      g_free(s);
      ok = FALSE;
    }
    break;
  case SCEN_TYPE_NODE_LIST: {
    /* The command line's grammar (spec/), with the older "0;8" still read.
     * Only the message is kept; a local quark, as this file builds without
     * the rest of scenarios/ (the fuzz target). */
    SpecAttackers a;
    GError *e = NULL;
    spec_attackers_init(&a);
    ok = spec_attackers_parse(&a, v, SPEC_ATTACKERS_SEMICOLON, g_quark_from_static_string("scen"),
                              0, &e);
    if (!ok)
      *msg = g_strdup(e->message);
    g_clear_error(&e);
    spec_attackers_clear(&a);
    break;
  }
  case SCEN_TYPE_ENUM_LIST: {
    char **items = scen_split_list(raw);
    guint n = g_strv_length(items);
    if (n == 0 || (n == 1 && items[0][0] == '\0')) {
      *msg = g_strdup("give at least one value");
      ok = FALSE;
    }
    for (guint i = 0; ok && i < n; i++) {
      if (choices != NULL && !is_choice(choices, items[i])) {
        char *c = choices_text(choices), *s = suggest_choice(choices, items[i]);
        *msg = g_strdup_printf("unknown value '%s' (valid: %s)%s", items[i], c, s);
        g_free(c);
        g_free(s);
        ok = FALSE;
      }
      for (guint j = 0; ok && j < i; j++)
        if (g_str_equal(items[i], items[j])) {
          *msg = g_strdup_printf("'%s' is listed twice", items[i]);
          ok = FALSE;
        }
    }
    g_strfreev(items);
    break;
  }
  }
  g_free(v);
  return ok;
}

/* ---- Whole-document checks ---- */

static char *dotted(const char *section, const char *key) {
  return g_strdup_printf("%s.%s", section, key);
}

void scen_schema_check_doc(const ScenDoc *doc, ScenProblems *ps) {
  GPtrArray *secs = scen_doc_list_sections(doc);
  for (guint i = 0; i < secs->len; i++) {
    const char *sec = g_ptr_array_index(secs, i);
    ScenLoc sloc = {doc->path, scen_doc_section_line(doc, sec)};
    if (sloc.line == 0) {
      /* Only named by an override. */
      const ScenOverride *o = NULL;
      for (guint j = 0; j < doc->overrides->len && !o; j++) {
        const ScenOverride *c = g_ptr_array_index(doc->overrides, j);
        if (g_str_equal(c->section, sec))
          o = c;
      }
      if (o)
        sloc = (ScenLoc){o->file, o->line};
    }
    if (!scen_schema_is_section(sec)) {
      char *hint = scen_schema_suggest_section(sec);
      scen_problems_add(ps, sloc, sec, "unknown section%s", hint);
      g_free(hint);
      continue;
    }
    if (g_str_equal(sec, "sweep"))
      continue; /* scen_sweep_axes checks it */
    GPtrArray *ks = scen_doc_list_keys(doc, sec);
    for (guint j = 0; j < ks->len; j++) {
      const char *key = g_ptr_array_index(ks, j);
      ScenLoc loc;
      const char *raw = scen_doc_get_raw(doc, sec, key, &loc);
      char *what = dotted(sec, key);
      const ScenKeyInfo *k = scen_schema_find(sec, key);
      if (k == NULL) {
        char *hint = scen_schema_suggest_key(sec, key);
        scen_problems_add(ps, loc, what, "unknown key%s", hint);
        g_free(hint);
      } else if (raw != NULL) {
        char *msg = NULL;
        if (!scen_value_check(k, raw, &msg)) {
          scen_problems_add(ps, loc, what, "%s", msg);
          g_free(msg);
        }
      }
      g_free(what);
    }
    g_ptr_array_unref(ks);
    /* Required keys of a present section. */
    guint n;
    const ScenKeyInfo *all = scen_schema_keys(&n);
    for (guint j = 0; j < n; j++) {
      if (!(all[j].flags & SCEN_KEY_REQUIRED) || !g_str_equal(all[j].section, family(sec)))
        continue;
      if (scen_doc_get_raw(doc, sec, all[j].key, NULL) == NULL) {
        char *what = dotted(sec, all[j].key);
        scen_problems_add(ps, sloc, what, "missing: [%s] needs %s = ... (%s)", sec, all[j].key,
                          all[j].help);
        g_free(what);
      }
    }
  }
  g_ptr_array_unref(secs);
  GPtrArray *axes = scen_sweep_axes(doc, ps);
  g_ptr_array_unref(axes);
}

/* ---- Sweeps ---- */

void scen_sweep_axis_free(ScenSweepAxis *a) {
  if (a == NULL)
    return;
  g_free(a->section);
  g_free(a->key);
  g_strfreev(a->items);
  g_free(a);
}

#define MAX_RANGE 1000000

/* "A..B" with integers A <= B: appends A..B to @out. -1: not a range; 0: a
 * malformed range (message in *msg); 1: done. */
static int expand_range(const char *item, GPtrArray *out, char **msg) {
  const char *dots = strstr(item, "..");
  if (dots == NULL)
    return -1;
  char *a = g_strndup(item, (gsize)(dots - item)), *b = g_strdup(dots + 2);
  g_strstrip(a);
  g_strstrip(b);
  gint64 lo = 0, hi = 0;
  char *ea = NULL, *eb = NULL;
  errno = 0;
  if (a[0] != '\0')
    lo = g_ascii_strtoll(a, &ea, 10);
  int e1 = errno;
  errno = 0;
  if (b[0] != '\0')
    hi = g_ascii_strtoll(b, &eb, 10);
  int e2 = errno;
  int r = 1;
  if (a[0] == '\0' || b[0] == '\0' || *ea != '\0' || *eb != '\0' || e1 || e2) {
    *msg = g_strdup_printf("'%s' is not an integer range A..B", item);
    r = 0;
  } else if (lo > hi) {
    *msg = g_strdup_printf("range '%s' is empty (%" G_GINT64_FORMAT " > %" G_GINT64_FORMAT ")",
                           item, lo, hi);
    r = 0;
  } else if ((guint64)(hi - lo) >= MAX_RANGE) {
    *msg = g_strdup_printf("range '%s' has more than %d values", item, MAX_RANGE);
    r = 0;
  } else {
    for (gint64 x = lo; x <= hi; x++)
      g_ptr_array_add(out, g_strdup_printf("%" G_GINT64_FORMAT, x));
  }
  g_free(a);
  g_free(b);
  return r;
}

/* The schema entry of sweep key @name (section.key) and its parts in
 * *@sec, *@key; NULL (a problem reported, nothing allocated) when it names
 * no key that can be swept. */
static const ScenKeyInfo *sweep_key(const char *name, ScenLoc loc, const char *what,
                                    ScenProblems *ps, char **sec, char **key) {
  const ScenKeyInfo *k = NULL;
  if (!scen_doc_split_key(name, sec, key)) {
    if (ps)
      scen_problems_add(ps, loc, what,
                        "a sweep key is section.key (e.g. protocol.sigma = 0.5;1;2)");
  } else if (!scen_schema_is_section(*sec) || g_str_equal(*sec, "sweep")) {
    char *hint = scen_schema_suggest_section(*sec);
    if (ps)
      scen_problems_add(ps, loc, what, "sweep over an unknown section [%s]%s", *sec, hint);
    g_free(hint);
  } else if ((k = scen_schema_find(*sec, *key)) == NULL) {
    char *hint = scen_schema_suggest_key(*sec, *key);
    if (ps)
      scen_problems_add(ps, loc, what, "sweep over an unknown key %s.%s%s", *sec, *key, hint);
    g_free(hint);
  } else if (g_str_equal(*sec, "output")) {
    if (ps)
      scen_problems_add(ps, loc, what, "[output] keys cannot be swept");
    k = NULL;
  }
  if (k == NULL) {
    g_clear_pointer(sec, g_free);
    g_clear_pointer(key, g_free);
  }
  return k;
}

/* The values of a sweep over key @k written @raw: its items, ranges A..B
 * expanded for integer keys, each checked against @k, none twice. NULL (a
 * problem reported) when one is not. */
static GPtrArray *sweep_items(const ScenKeyInfo *k, const char *raw, ScenLoc loc, const char *what,
                              ScenProblems *ps) {
  /* List-valued keys take one list per item: items are separated by '|'
   * for them (collusion.x.nodes = 0;1 | 7;40), else by ';'. */
  gboolean listy = k->type == SCEN_TYPE_ENUM_LIST || k->type == SCEN_TYPE_NODE_LIST;
  char **raw_items;
  if (listy) {
    raw_items = g_strsplit(raw, "|", -1);
    for (guint j = 0; raw_items[j]; j++)
      g_strstrip(raw_items[j]);
  } else {
    raw_items = scen_split_list(raw);
  }
  GPtrArray *items = g_ptr_array_new_with_free_func(g_free);
  gboolean ok = TRUE;
  guint n_raw = g_strv_length(raw_items);
  if (n_raw == 0 || (n_raw == 1 && raw_items[0][0] == '\0')) {
    if (ps)
      scen_problems_add(ps, loc, what, "give at least one value (a;b;c or A..B)");
    ok = FALSE;
  }
  for (guint j = 0; ok && j < n_raw; j++) {
    char *msg = NULL;
    int r = (k->type == SCEN_TYPE_UINT || k->type == SCEN_TYPE_SEED)
                ? expand_range(raw_items[j], items, &msg)
                : -1;
    if (r == 0) {
      if (ps)
        scen_problems_add(ps, loc, what, "%s", msg);
      ok = FALSE;
    } else if (r < 0 && !scen_value_check(k, raw_items[j], &msg)) {
      if (ps)
        scen_problems_add(ps, loc, what, "item %u: %s", j + 1, msg);
      ok = FALSE;
    } else if (r < 0) {
      g_ptr_array_add(items, g_strdup(raw_items[j]));
    }
    g_free(msg);
  }
  g_strfreev(raw_items);
  /* A hash set, not pairwise comparisons: an axis may hold 10^6 values. */
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint j = 0; ok && j < items->len; j++)
    if (!g_hash_table_add(seen, g_ptr_array_index(items, j))) {
      if (ps)
        scen_problems_add(ps, loc, what, "value '%s' is listed twice",
                          (char *)g_ptr_array_index(items, j));
      ok = FALSE;
    }
  g_hash_table_unref(seen);
  if (!ok)
    g_clear_pointer(&items, g_ptr_array_unref);
  return items;
}

GPtrArray *scen_sweep_axes(const ScenDoc *doc, ScenProblems *ps) {
  GPtrArray *axes = g_ptr_array_new_with_free_func((GDestroyNotify)scen_sweep_axis_free);
  GPtrArray *ks = scen_doc_list_keys(doc, "sweep");
  for (guint i = 0; i < ks->len; i++) {
    const char *name = g_ptr_array_index(ks, i);
    ScenLoc loc;
    const char *raw = scen_doc_get_raw(doc, "sweep", name, &loc);
    if (raw == NULL)
      continue;
    char *what = g_strdup_printf("sweep.%s", name);
    char *sec = NULL, *key = NULL;
    const ScenKeyInfo *k = sweep_key(name, loc, what, ps, &sec, &key);
    GPtrArray *items = k ? sweep_items(k, raw, loc, what, ps) : NULL;
    for (guint j = 0; items && j < axes->len; j++) {
      const ScenSweepAxis *o = g_ptr_array_index(axes, j);
      if (g_str_equal(o->section, sec) && g_str_equal(o->key, key)) {
        if (ps)
          scen_problems_add(ps, loc, what, "swept twice");
        g_clear_pointer(&items, g_ptr_array_unref);
      }
    }
    if (items) {
      ScenSweepAxis *a = g_new0(ScenSweepAxis, 1);
      a->section = sec;
      a->key = key;
      a->n_items = items->len;
      g_ptr_array_add(items, NULL);
      a->items = (char **)g_ptr_array_free(items, FALSE);
      a->loc = loc;
      g_ptr_array_add(axes, a);
    } else {
      g_free(sec);
      g_free(key);
    }
    g_free(what);
  }
  g_ptr_array_unref(ks);
  if (ps && scen_sweep_count(axes) > 1000000) {
    ScenSweepAxis *a = g_ptr_array_index(axes, 0);
    scen_problems_add(ps, a->loc, "sweep", "%" G_GUINT64_FORMAT " points: at most 1000000",
                      scen_sweep_count(axes));
  }
  return axes;
}

guint64 scen_sweep_count(const GPtrArray *axes) {
  guint64 n = 1;
  for (guint i = 0; i < axes->len; i++) {
    const ScenSweepAxis *a = g_ptr_array_index(axes, i);
    if (a->n_items != 0 && n > G_MAXUINT64 / a->n_items)
      return G_MAXUINT64;
    n *= a->n_items;
  }
  return n;
}

void scen_sweep_point(const GPtrArray *axes, guint64 index, guint *out) {
  for (guint i = axes->len; i-- > 0;) {
    const ScenSweepAxis *a = g_ptr_array_index(axes, i);
    out[i] = (guint)(index % a->n_items);
    index /= a->n_items;
  }
}
