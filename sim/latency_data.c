/*
 * sim/latency_data.c: measured latency models: per-link latencies read from
 * an edge list (links:) and delays drawn from measured round-trip statistics
 * between countries (country:).
 *
 * A link's delay is fixed for the run, as a King or RIPE latency matrix
 * drives PeerSim and OverSim: the tables give the spread between host pairs,
 * not the jitter of one pair's pings. The country model needs no storage per
 * link: a node's country and a pair's delay are hashes of the seed and the
 * ids, so a million-node graph costs nothing and every run, thread count and
 * MPI rank sees the same delays.
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "sim/link_internal.h"
#include "sim/sim.h"
#include "spec/spec.h"

#define RTT_HEADER "cty1,cty2,rtt_cnt,rtt_avg,rtt_std,rtt_min,rtt_max"
#define INTRA_HEADER "rtt_cnt,rtt_avg,rtt_std,rtt_min,rtt_max"
/* The most a country table can need: each pair of the 26^2 two-letter codes
 * once (228,826 rows), plus the rows of addresses without a country, at well
 * under 200 bytes a row. A larger file (a gzip of skipped rows, say) is
 * refused while inflating, not after gigabytes of rows read and dropped. */
#define RTT_TABLE_MAX ((gsize)64 << 20)

struct SimLatencyData {
  gint ref;
  SimLatencyKind kind;
  char *file;
  /* links: rows of a CSR by source node, targets increasing */
  guint32 n_nodes;
  gsize n_links, both; /* links, links whose reverse is listed too */
  gsize *row;          /* n_nodes + 1 offsets */
  guint32 *to;
  SimTime *ns;
  /* country */
  guint64 seed;
  guint n_countries, n_listed; /* kept, listed with a two-letter code */
  double kept_share;           /* of the listed countries' measurements */
  char (*code)[3];
  double *cum;       /* cumulative weights, cum[n - 1] = 1 */
  SimRttStat *pairs; /* n x n, symmetric */
  gboolean intra;    /* the same-AS row stands in for missing own rows */
  SimGeoNodes *geo;  /* geo */
};

/* ---- Spec keys ---- */

#define LINKS_USAGE "links:file=PATH,unit=ms|s"
#define COUNTRY_USAGE "country:rtt=PATH,seed=S[,intra=PATH]"
#define GEO_USAGE "geo:nodes=PATH[,base=MS,per_km=MS,jitter=S,max=MS,seed=S]"

/* The geo model's defaults: the least-squares line of the pseudo-mainnet
 * overlay's link latencies on their great-circle lengths and the spread of
 * the latencies around it, over all its links (bench/geo_latency_fit.py,
 * data/README.md): the overlay's mean latency, 77 ms, on its own links. */
#define GEO_BASE_MS 55.1
#define GEO_PER_KM_MS 0.003767
#define GEO_JITTER 0.9615
#define GEO_MAX_MS 636.8 /* the overlay's largest link latency */
#define GEO_SEED 1

/* A path key's file must exist now, so validate finds a typo. A file that
 * is not there or is no file is SIM_ERROR_IO, the run's failure as a
 * missing graph or churn file, not a spec that does not parse. */
static gboolean check_path(const char *spec, const char *key, const char *path, GError **error) {
  if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  /* Say what the path is: a folder or a device (/dev/zero) exists, and
   * "not found" sent the user looking for a typo (issue 37). */
  if (g_file_test(path, G_FILE_TEST_IS_DIR))
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                "latency spec \"%s\": %s=%s is a folder, not a file", spec, key, path);
  else if (g_file_test(path, G_FILE_TEST_EXISTS))
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                "latency spec \"%s\": %s=%s is not a regular file (a device, a pipe or a "
                "socket): give a file",
                spec, key, path);
  else
    g_set_error(error, SIM_ERROR, SIM_ERROR_IO,
                "latency spec \"%s\": %s=: file not found: %s (relative paths resolve against "
                "the working directory; in a scenario file, against its folder)",
                spec, key, path);
  return FALSE;
}

static gboolean parse_seed(const char *spec, const char *val, guint64 *out, GError **error) {
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(val, &end, 10);
  if (*val < '0' || *val > '9' || *end || errno == ERANGE) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "latency spec \"%s\": seed '%s' is not an integer in [0, 2^64-1]", spec, val);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* A geo: constant: finite and >= 0. */
static gboolean parse_constant(const char *spec, const char *key, const char *val, double *out,
                               GError **error) {
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod(val, &end);
  if (end == val || *end || errno == ERANGE || !isfinite(v) || v < 0) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "latency spec \"%s\": %s '%s' is not a finite number >= 0", spec, key, val);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* Stores one key=value of a measured spec into @l; @seen marks keys given.
 * Key 0 is the file and key 1 the unit or the seed in every model. */
static gboolean set_key(const char *spec, const char *key, const char *val, SimLatency *l,
                        guint *seen, GError **error) {
  gboolean links = l->kind == SIM_LATENCY_LINKS, geo = l->kind == SIM_LATENCY_GEO;
  static const char *const links_keys[] = {"file", "unit"};
  static const char *const country_keys[] = {"rtt", "seed", "intra"};
  static const char *const geo_keys[] = {"nodes", "seed", "base", "per_km", "jitter", "max"};
  const char *const *keys = links ? links_keys : geo ? geo_keys : country_keys;
  guint n = links ? G_N_ELEMENTS(links_keys)
                  : geo ? G_N_ELEMENTS(geo_keys) : G_N_ELEMENTS(country_keys);
  guint k = 0;
  while (k < n && g_ascii_strcasecmp(key, keys[k]) != 0)
    k++;
  if (k == n) {
    char *hint = spec_did_you_mean(key, keys, n);
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "latency spec \"%s\": unknown key '%s' (expected %s)%s", spec, key,
                links ? LINKS_USAGE : geo ? GEO_USAGE : COUNTRY_USAGE, hint);
    g_free(hint);
    return FALSE;
  }
  if (*seen & (1u << k)) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "latency spec \"%s\": key '%s' given twice",
                spec, keys[k]);
    return FALSE;
  }
  *seen |= 1u << k;
  if (*val == '\0') {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "latency spec \"%s\": key '%s' has no value",
                spec, keys[k]);
    return FALSE;
  }
  if (links && k == 1) {
    static const char *const units[] = {"ms", "s"};
    if (g_ascii_strcasecmp(val, "ms") != 0 && g_ascii_strcasecmp(val, "s") != 0) {
      char *hint = spec_did_you_mean(val, units, G_N_ELEMENTS(units));
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "latency spec \"%s\": unit '%s' is neither ms nor s%s", spec, val, hint);
      g_free(hint);
      return FALSE;
    }
    l->unit_ms = g_ascii_strcasecmp(val, "s") == 0 ? 1000.0 : 1.0;
    return TRUE;
  }
  if (!links && k == 1)
    return parse_seed(spec, val, &l->seed, error);
  if (geo && k >= 2)
    return parse_constant(spec, keys[k], val,
                          k == 2   ? &l->base_ms
                          : k == 3 ? &l->per_km_ms
                          : k == 4 ? &l->jitter
                                   : &l->max_ms,
                          error);
  if (!check_path(spec, keys[k], val, error))
    return FALSE;
  if (!links && k == 2)
    l->intra = g_intern_string(val);
  else
    l->file = g_intern_string(val);
  return TRUE;
}

gboolean sim_latency_parse_measured(const char *spec, const char *params, SimLatency *l,
                                    GError **error) {
  gboolean links = l->kind == SIM_LATENCY_LINKS, geo = l->kind == SIM_LATENCY_GEO;
  const char *usage = links ? LINKS_USAGE : geo ? GEO_USAGE : COUNTRY_USAGE;
  gchar **items = g_strsplit(params, ",", -1);
  guint seen = 0;
  if (geo) {
    l->base_ms = GEO_BASE_MS;
    l->per_km_ms = GEO_PER_KM_MS;
    l->jitter = GEO_JITTER;
    l->max_ms = GEO_MAX_MS;
    l->seed = GEO_SEED;
  }
  gboolean ok = TRUE;
  for (guint i = 0; ok && items[i]; i++) {
    char *item = g_strstrip(items[i]);
    char *eq = strchr(item, '=');
    if (eq == NULL) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "latency spec \"%s\": \"%s\" is not key=value (expected %s; paths cannot "
                  "hold commas)",
                  spec, item, usage);
      ok = FALSE;
      break;
    }
    *eq = '\0';
    ok = set_key(spec, g_strstrip(item), g_strstrip(eq + 1), l, &seen, error);
  }
  g_strfreev(items);
  /* Required: file and unit (links), rtt and seed (country), nodes (geo). */
  const char *missing = !ok            ? NULL
                        : !(seen & 1u) ? (links ? "file" : geo ? "nodes" : "rtt")
                        : !(seen & 2u) && !geo ? (links ? "unit" : "seed")
                                               : NULL;
  if (missing != NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "latency spec \"%s\": missing key '%s' (expected %s)", spec, missing, usage);
    ok = FALSE;
  }
  return ok;
}

char *sim_latency_spec_rebase(const char *spec, const char *dir) {
  g_return_val_if_fail(dir != NULL, NULL);
  const char *colon = spec != NULL ? strchr(spec, ':') : NULL;
  if (colon == NULL)
    return g_strdup(spec);
  char *model = g_strstrip(g_strndup(spec, (gsize)(colon - spec)));
  gboolean measured = g_ascii_strcasecmp(model, "links") == 0 ||
                     g_ascii_strcasecmp(model, "country") == 0 ||
                     g_ascii_strcasecmp(model, "geo") == 0;
  g_free(model);
  if (!measured)
    return g_strdup(spec);
  GString *out = g_string_new_len(spec, colon + 1 - spec);
  gchar **items = g_strsplit(colon + 1, ",", -1);
  for (guint i = 0; items[i]; i++) {
    char *eq = strchr(items[i], '=');
    if (i > 0)
      g_string_append_c(out, ',');
    char *key = eq != NULL ? g_strstrip(g_strndup(items[i], (gsize)(eq - items[i]))) : NULL;
    char *val = eq != NULL ? g_strstrip(g_strdup(eq + 1)) : NULL;
    gboolean path = key != NULL && *val != '\0' && !g_path_is_absolute(val) &&
                    (g_ascii_strcasecmp(key, "file") == 0 || g_ascii_strcasecmp(key, "rtt") == 0 ||
                     g_ascii_strcasecmp(key, "intra") == 0 ||
                     g_ascii_strcasecmp(key, "nodes") == 0);
    if (path) {
      char *abs = g_canonicalize_filename(val, dir);
      g_string_append_printf(out, "%s=%s", key, abs);
      g_free(abs);
    } else {
      g_string_append(out, items[i]);
    }
    g_free(key);
    g_free(val);
  }
  g_strfreev(items);
  return g_string_free(out, FALSE);
}

/* ---- Reading ---- */

static SimLatencyData *data_new(SimLatencyKind kind, const char *file) {
  SimLatencyData *d = g_new0(SimLatencyData, 1);
  d->ref = 1;
  d->kind = kind;
  d->file = g_strdup(file);
  return d;
}

SimLatencyData *sim_latency_data_ref(SimLatencyData *d) {
  g_return_val_if_fail(d != NULL, NULL);
  g_atomic_int_inc(&d->ref);
  return d;
}

void sim_latency_data_unref(SimLatencyData *d) {
  if (d == NULL || !g_atomic_int_dec_and_test(&d->ref))
    return;
  g_free(d->file);
  g_free(d->row);
  g_free(d->to);
  g_free(d->ns);
  g_free(d->code);
  g_free(d->cum);
  g_free(d->pairs);
  sim_geo_nodes_free(d->geo);
  g_free(d);
}

/* SIM_ERROR_FILE "FILE:LINE: ..." (always FALSE). */
#define fail(error, file, line, ...)                                                               \
  spec_error_at(error, SIM_ERROR, SIM_ERROR_FILE, file, line, __VA_ARGS__)

/* A number token (NUL-terminated): finite and >= 0. */
static gboolean read_number(const char *file, gsize line, const char *what, const char *tok,
                            double *out, GError **error) {
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod(tok, &end);
  if (end == tok || *end || errno == ERANGE || !isfinite(v) || v < 0)
    return spec_error_token(error, SIM_ERROR, SIM_ERROR_FILE, file, line, what, tok,
                            MIN((gssize)strlen(tok), 64), " is not a finite number >= 0");
  *out = v;
  return TRUE;
}

gboolean sim_node_names_find(const SimNodeNames *names, const char *file, gsize line,
                             const char *tok, guint32 *id, GError **error) {
  gsize len = strlen(tok);
  char digits[24];
  const char *label = tok;
  char *unquoted = NULL;
  if (len >= 2 && tok[0] == '"' && tok[len - 1] == '"')
    label = unquoted = g_strndup(tok + 1, len - 2);
  gboolean number = *label != '\0';
  for (const char *p = label; *p; p++)
    number &= g_ascii_isdigit(*p);
  guint64 v;
  if (number && g_ascii_string_to_unsigned(label, 10, 0, G_MAXUINT64, &v, NULL)) {
    g_snprintf(digits, sizeof digits, "%" G_GUINT64_FORMAT, v);
    label = digits;
  }
  guint found = 0;
  gboolean ok = names->find(names->graph, label, &found);
  g_free(unquoted);
  if (!ok)
    return spec_error_token(error, SIM_ERROR, SIM_ERROR_FILE, file, line, "node", tok,
                            MIN((gssize)len, 64), " is not in the graph");
  *id = found;
  return TRUE;
}

/* ---- links: ---- */

typedef struct {
  guint64 a, b; /* labels, then node ids */
  double ms;
  gsize line;
} RawLink;

static gint compare_links(gconstpointer pa, gconstpointer pb) {
  const RawLink *x = pa, *y = pb;
  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  if (x->b != y->b)
    return x->b < y->b ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* Splits [p, stop) on blanks and commas into at most 4 NUL-terminated tokens
 * (the text is modified, *stop included: a newline, a '#' or the final NUL);
 * returns how many there were. */
static guint split_tokens(char *p, char *stop, char **tok) {
  guint n = 0;
  *stop = '\0';
  while (p < stop) {
    while (p < stop && (g_ascii_isspace(*p) || *p == ','))
      *p++ = '\0';
    if (p == stop)
      break;
    if (n < 4)
      tok[n] = p;
    n++;
    while (p < stop && !g_ascii_isspace(*p) && *p != ',')
      p++;
  }
  return n;
}

static gboolean read_label(const char *file, gsize line, const char *tok, guint64 *out,
                           GError **error) {
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(tok, &end, 10);
  if (*tok < '0' || *tok > '9' || *end || errno == ERANGE)
    return spec_error_token(error, SIM_ERROR, SIM_ERROR_FILE, file, line, "node label", tok,
                            MIN((gssize)strlen(tok), 64), " is not a non-negative integer");
  *out = v;
  return TRUE;
}

/* The lines of an edge list with a latency column, in file order. */
static GArray *read_links(const char *file, char *text, gsize len, double unit_ms,
                          const SimNodeNames *names, GError **error) {
  GArray *links = g_array_new(FALSE, FALSE, sizeof(RawLink));
  char *p = text, *end = text + len;
  gsize line = 0;
  gboolean content = FALSE, ok = TRUE;
  while (ok && p < end) {
    line++;
    char *eol = memchr(p, '\n', (gsize)(end - p));
    if (eol == NULL)
      eol = end;
    char *hash = memchr(p, '#', (gsize)(eol - p));
    char *tok[4];
    guint nt = split_tokens(p, hash != NULL ? hash : eol, tok);
    p = eol + 1;
    if (nt == 0)
      continue;
    gboolean first = !content;
    content = TRUE;
    /* A header names the columns: a first line whose latency field is no
     * number (nodes may be names, so the first field cannot tell). */
    char *num_end = NULL;
    if (first && nt == 3 && (g_ascii_strtod(tok[2], &num_end), num_end == tok[2] || *num_end))
      continue;
    if (nt != 3) {
      ok = fail(error, file, line, "%u fields, expected 'source target latency'", nt);
      break;
    }
    RawLink l = {.line = line};
    guint32 a = 0, b = 0;
    if (names->find != NULL) {
      ok = sim_node_names_find(names, file, line, tok[0], &a, error) &&
           sim_node_names_find(names, file, line, tok[1], &b, error);
      l.a = a;
      l.b = b;
    } else {
      ok = read_label(file, line, tok[0], &l.a, error) &&
           read_label(file, line, tok[1], &l.b, error);
    }
    ok = ok && read_number(file, line, "latency", tok[2], &l.ms, error);
    if (ok && l.a == l.b)
      ok = fail(error, file, line, "a link from node %s to itself", tok[0]);
    l.ms *= unit_ms;
    if (ok)
      g_array_append_val(links, l);
  }
  if (ok && links->len == 0)
    ok = fail(error, file, line, "no link (only a header, comments or blank lines)");
  if (!ok) {
    g_array_unref(links);
    return NULL;
  }
  return links;
}

/* Labels 0..n-1 stay node ids; any other labelling is numbered by first
 * appearance (source, then target, line by line), as the graph loader
 * numbers the same file. */
static guint32 number_nodes(RawLink *l, gsize m) {
  GHashTable *ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  guint64 max = 0;
  for (gsize i = 0; i < m; i++)
    for (int s = 0; s < 2; s++) {
      guint64 label = s ? l[i].b : l[i].a;
      max = MAX(max, label);
      if (!g_hash_table_contains(ids, &label)) {
        guint64 *key = g_new(guint64, 1);
        *key = label;
        g_hash_table_insert(ids, key, GSIZE_TO_POINTER(g_hash_table_size(ids)));
      }
    }
  guint32 n = g_hash_table_size(ids);
  if (max >= n)
    for (gsize i = 0; i < m; i++) {
      l[i].a = GPOINTER_TO_SIZE(g_hash_table_lookup(ids, &l[i].a));
      l[i].b = GPOINTER_TO_SIZE(g_hash_table_lookup(ids, &l[i].b));
    }
  g_hash_table_unref(ids);
  return n;
}

/* The link u -> v's index, or -1. O(log degree). */
static gssize find_link(const SimLatencyData *d, guint32 u, guint32 v) {
  if (u >= d->n_nodes)
    return -1;
  gsize lo = d->row[u], hi = d->row[u + 1];
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (d->to[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < d->row[u + 1] && d->to[lo] == v ? (gssize)lo : -1;
}

gboolean sim_data_file_read(const char *path, gsize max, char **text, gsize *len, GError **error) {
  GError *e = NULL;
  if (max > 0 ? spec_file_read_text_max(path, max, text, len, &e)
              : spec_file_read_text(path, text, len, &e))
    return TRUE;
  /* INVAL: what was read is not a text of lines (a cut or corrupt gzip, a
   * line too long, too big a table); anything else, opening or reading. */
  gboolean content = g_error_matches(e, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_set_error_literal(error, SIM_ERROR, content ? SIM_ERROR_FILE : SIM_ERROR_IO, e->message);
  g_error_free(e);
  return FALSE;
}

static SimLatencyData *load_links(const SimLatency *lat, const SimNodeNames *names,
                                  GError **error) {
  char *text = NULL;
  gsize len = 0;
  if (!sim_data_file_read(lat->file, 0, &text, &len, error))
    return NULL;
  /* Per line at most: its RawLink in a doubling array (x 2), two new labels
   * in the numbering table (a heap key and a slot each, 64 bytes with the
   * table's doubling) and the link in the CSR arrays. */
  if (!spec_check_text_rows(lat->file, text, len,
                            2 * sizeof(RawLink) + 2 * 64 + sizeof(gsize) + sizeof(guint32) +
                                sizeof(SimTime),
                            0, "use a smaller links file", SIM_ERROR, SIM_ERROR_CAPACITY, error)) {
    g_free(text);
    return NULL;
  }
  GArray *raw = read_links(lat->file, text, len, lat->unit_ms, names, error);
  g_free(text);
  if (raw == NULL)
    return NULL;
  RawLink *l = (RawLink *)(void *)raw->data;
  gsize m = raw->len;
  if (m > G_MAXUINT32 / 2) {
    fail(error, lat->file, l[m - 1].line, "more than 2^31 links");
    g_array_unref(raw);
    return NULL;
  }
  /* The graph's ids, or the file's own numbering without a graph. */
  guint32 n = 0;
  if (names->find != NULL)
    for (gsize i = 0; i < m; i++)
      n = MAX(n, (guint32)MAX(l[i].a, l[i].b) + 1);
  else
    n = number_nodes(l, m);
  qsort(l, m, sizeof *l, (int (*)(const void *, const void *))compare_links);
  for (gsize i = 1; i < m; i++)
    if (l[i].a == l[i - 1].a && l[i].b == l[i - 1].b) {
      fail(error, lat->file, l[i].line,
           "the link of line %" G_GSIZE_FORMAT " again: give each directed link once",
           l[i - 1].line);
      g_array_unref(raw);
      return NULL;
    }
  SimLatencyData *d = data_new(SIM_LATENCY_LINKS, lat->file);
  d->n_nodes = n;
  d->n_links = m;
  d->row = g_new0(gsize, (gsize)n + 1);
  d->to = g_new(guint32, m);
  d->ns = g_new(SimTime, m);
  for (gsize i = 0; i < m; i++) {
    d->row[l[i].a + 1]++;
    d->to[i] = (guint32)l[i].b;
    d->ns[i] = sim_ms_to_ns(l[i].ms);
  }
  for (guint32 u = 0; u < n; u++)
    d->row[u + 1] += d->row[u];
  g_array_unref(raw);
  for (guint32 u = 0; u < n; u++)
    for (gsize k = d->row[u]; k < d->row[u + 1]; k++)
      d->both += find_link(d, d->to[k], u) >= 0;
  return d;
}

/* ---- country: ---- */

/* The log-normal of @s's mean and std, and the CDF range [min, max] maps to.
 * A single ping, a zero spread or a range the fit gives no mass to is the
 * mean itself (clamped to [min, max]: the table's mean of one ping can sit
 * below its minimum by float rounding). */
static void fit_stat(SimRttStat *s) {
  s->mean = CLAMP(s->mean, s->min, s->max);
  s->sigma = 0;
  s->mu = s->mean > 0 ? log(s->mean) : -INFINITY;
  s->p_lo = s->p_hi = 0;
  if (!(s->std > 0 && s->mean > 0 && s->max > s->min))
    return;
  double cv = s->std / s->mean;
  double sigma2 = log1p(cv * cv);
  double sigma = sqrt(sigma2), mu = log(s->mean) - 0.5 * sigma2;
  double p_lo = s->min > 0 ? gsl_cdf_ugaussian_P((log(s->min) - mu) / sigma) : 0.0;
  double p_hi = gsl_cdf_ugaussian_P((log(s->max) - mu) / sigma);
  if (!(p_hi - p_lo > 1e-12))
    return;
  s->mu = mu;
  s->sigma = sigma;
  s->p_lo = p_lo;
  s->p_hi = p_hi;
}

/* The statistics fields of a row, from its tokens count, avg, std, min, max. */
static gboolean read_stat(const char *file, gsize line, char **tok, SimRttStat *s,
                          GError **error) {
  double count;
  *s = (SimRttStat){0};
  if (!read_number(file, line, "rtt_cnt", tok[0], &count, error))
    return FALSE;
  if (count < 1 || count != floor(count) || count > 9e15)
    return fail(error, file, line, "rtt_cnt '%s' is not a positive integer", tok[0]);
  s->count = (guint64)count;
  if (!read_number(file, line, "rtt_avg", tok[1], &s->mean, error))
    return FALSE;
  if (*tok[2] == '\0' && s->count > 1)
    return fail(error, file, line, "rtt_std is empty but rtt_cnt is %s: only a single ping has "
                "no standard deviation", tok[0]);
  if (*tok[2] != '\0' && !read_number(file, line, "rtt_std", tok[2], &s->std, error))
    return FALSE;
  if (!read_number(file, line, "rtt_min", tok[3], &s->min, error) ||
      !read_number(file, line, "rtt_max", tok[4], &s->max, error))
    return FALSE;
  if (s->min > s->max)
    return fail(error, file, line, "rtt_min %s > rtt_max %s", tok[3], tok[4]);
  double slack = 1e-6 * s->max + 1e-9; /* float rounding of the upstream sums */
  if (s->mean < s->min - slack || s->mean > s->max + slack)
    return fail(error, file, line, "rtt_avg %s is outside [rtt_min, rtt_max] = [%s, %s]", tok[1],
                tok[3], tok[4]);
  fit_stat(s);
  return TRUE;
}

/* Splits a CSV line (NUL-terminated, no newline) on commas into exactly
 * @want fields; fields may be empty. */
static gboolean split_csv(const char *file, gsize line, char *p, char **tok, guint want,
                          GError **error) {
  guint n = 0;
  for (;;) {
    char *comma = strchr(p, ',');
    if (n < want)
      tok[n] = g_strstrip(p);
    n++;
    if (comma == NULL)
      break;
    *comma = '\0';
    p = comma + 1;
  }
  return n == want || fail(error, file, line, "%u fields, expected %u", n, want);
}

/* Iterates the lines of @text: NUL-terminates each (dropping '\r'). */
static char *next_line(char **p, char *end) {
  if (*p >= end)
    return NULL;
  char *s = *p, *eol = memchr(s, '\n', (gsize)(end - s));
  if (eol == NULL)
    eol = end;
  *eol = '\0';
  if (eol > s && eol[-1] == '\r')
    eol[-1] = '\0';
  *p = eol + 1;
  return s;
}

static gboolean check_header(const char *file, char *line, const char *want, GError **error) {
  if (line != NULL && g_str_equal(g_strstrip(line), want))
    return TRUE;
  const char *got = line != NULL ? line : "";
  return spec_error_token(error, SIM_ERROR, SIM_ERROR_FILE, file, 1, "header", got,
                          (gssize)MIN(strlen(got), 80), ", expected '%s'", want);
}

static gboolean read_intra(const char *file, SimRttStat *out, GError **error) {
  char *text = NULL;
  gsize len = 0;
  if (!sim_data_file_read(file, RTT_TABLE_MAX, &text, &len, error))
    return FALSE;
  char *p = text, *end = text + len, *tok[5];
  gboolean ok = check_header(file, next_line(&p, end), INTRA_HEADER, error);
  char *row = ok ? next_line(&p, end) : NULL;
  if (ok && (row == NULL || *g_strstrip(row) == '\0'))
    ok = fail(error, file, 2, "no data row");
  ok = ok && split_csv(file, 2, row, tok, 5, error) && read_stat(file, 2, tok, out, error);
  for (char *extra; ok && (extra = next_line(&p, end)) != NULL;)
    if (*g_strstrip(extra) != '\0')
      ok = fail(error, file, 3, "a second data row: the same-AS table has one row");
  g_free(text);
  return ok;
}

/* Two ASCII capital letters: an ISO 3166 code ("None", "Unknown": no country). */
static gboolean is_country(const char *c) {
  return g_ascii_isupper(c[0]) && g_ascii_isupper(c[1]) && c[2] == '\0';
}

/* The table as read: listed countries, their weights, the pairs present. */
typedef struct {
  GHashTable *index; /* code -> index + 1 */
  GPtrArray *codes;  /* owned strings */
  GArray *weight;    /* double per country */
  GHashTable *pairs; /* (i << 32 | j), i <= j -> SimRttStat* (owned) */
} RttTable;

static void rtt_table_clear(RttTable *t) {
  g_clear_pointer(&t->index, g_hash_table_unref);
  g_clear_pointer(&t->codes, g_ptr_array_unref);
  g_clear_pointer(&t->weight, g_array_unref);
  g_clear_pointer(&t->pairs, g_hash_table_unref);
}

static guint country_index(RttTable *t, const char *code) {
  gpointer v = g_hash_table_lookup(t->index, code);
  if (v != NULL)
    return GPOINTER_TO_UINT(v) - 1;
  char *own = g_strdup(code);
  g_ptr_array_add(t->codes, own);
  double zero = 0;
  g_array_append_val(t->weight, zero);
  g_hash_table_insert(t->index, own, GUINT_TO_POINTER(t->codes->len));
  return t->codes->len - 1;
}

static gint64 *pair_key(guint i, guint j) {
  gint64 *k = g_new(gint64, 1);
  *k = (gint64)(((guint64)MIN(i, j) << 32) | MAX(i, j));
  return k;
}

static const SimRttStat *pair_of(const RttTable *t, guint i, guint j) {
  gint64 k = (gint64)(((guint64)MIN(i, j) << 32) | MAX(i, j));
  return g_hash_table_lookup(t->pairs, &k);
}

static gboolean read_rtt(const char *file, RttTable *t, GError **error) {
  char *text = NULL;
  gsize len = 0;
  if (!sim_data_file_read(file, RTT_TABLE_MAX, &text, &len, error))
    return FALSE;
  t->index = g_hash_table_new(g_str_hash, g_str_equal);
  t->codes = g_ptr_array_new_with_free_func(g_free);
  t->weight = g_array_new(FALSE, FALSE, sizeof(double));
  t->pairs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  GHashTable *lines = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  char *p = text, *end = text + len, *row, *tok[7];
  gboolean ok = check_header(file, next_line(&p, end), RTT_HEADER, error);
  for (gsize line = 2; ok && (row = next_line(&p, end)) != NULL; line++) {
    if (*g_strstrip(row) == '\0')
      continue;
    SimRttStat s;
    ok = split_csv(file, line, row, tok, 7, error) && read_stat(file, line, tok + 2, &s, error);
    if (!ok)
      break;
    if (!is_country(tok[0]) || !is_country(tok[1]))
      continue; /* addresses without a country */
    guint i = country_index(t, tok[0]), j = country_index(t, tok[1]);
    gint64 key = (gint64)(((guint64)MIN(i, j) << 32) | MAX(i, j));
    gpointer seen = g_hash_table_lookup(lines, &key);
    if (seen != NULL) {
      ok = fail(error, file, line, "the pair %s,%s again (line %" G_GSIZE_FORMAT "): the table "
                "lists each pair once, in either order", tok[0], tok[1], GPOINTER_TO_SIZE(seen));
      break;
    }
    g_hash_table_insert(lines, pair_key(i, j), GSIZE_TO_POINTER(line));
    g_hash_table_insert(t->pairs, pair_key(i, j), g_memdup2(&s, sizeof s));
    g_array_index(t->weight, double, i) += (double)s.count;
    if (i != j)
      g_array_index(t->weight, double, j) += (double)s.count;
  }
  if (ok && t->codes->len == 0)
    ok = fail(error, file, 1, "no row between two countries (two-letter codes)");
  g_hash_table_unref(lines);
  g_free(text);
  return ok;
}

static gint compare_weight(gconstpointer pa, gconstpointer pb, gpointer table) {
  const RttTable *t = table;
  guint a = *(const guint *)pa, b = *(const guint *)pb;
  double wa = g_array_index(t->weight, double, a), wb = g_array_index(t->weight, double, b);
  if (wa != wb)
    return wa > wb ? -1 : 1;
  return strcmp(g_ptr_array_index(t->codes, a), g_ptr_array_index(t->codes, b));
}

/*
 * The countries a node may be drawn into: heaviest first (weight: the pings
 * the country takes part in), a country joins when it has a same-country row
 * (its own, or the same-AS row when given) and a row with every country
 * already kept, so that every link's pair is measured. The kept weights are
 * the draw's probabilities.
 */
static void keep_countries(SimLatencyData *d, const RttTable *t, const SimRttStat *intra) {
  guint n = t->codes->len, k = 0;
  guint *order = g_new(guint, n), *kept = g_new(guint, n);
  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data(order, (gint)n, sizeof *order, compare_weight, (gpointer)t);
  double total = 0, kept_w = 0;
  for (guint x = 0; x < n; x++) {
    guint c = order[x];
    total += g_array_index(t->weight, double, c);
    gboolean ok = pair_of(t, c, c) != NULL || intra != NULL;
    for (guint y = 0; ok && y < k; y++)
      ok = pair_of(t, c, kept[y]) != NULL;
    if (ok) {
      kept[k++] = c;
      kept_w += g_array_index(t->weight, double, c);
    }
  }
  d->n_listed = n;
  d->n_countries = k;
  d->kept_share = kept_w / total;
  d->code = g_malloc0_n(k, sizeof *d->code);
  d->cum = g_new(double, k);
  d->pairs = g_new(SimRttStat, (gsize)k * k);
  double acc = 0;
  for (guint x = 0; x < k; x++) {
    memcpy(d->code[x], g_ptr_array_index(t->codes, kept[x]), 2);
    acc += g_array_index(t->weight, double, kept[x]);
    d->cum[x] = acc / kept_w;
    for (guint y = 0; y < k; y++) {
      const SimRttStat *s = pair_of(t, kept[x], kept[y]);
      d->pairs[(gsize)x * k + y] = s != NULL ? *s : *intra;
    }
  }
  if (k > 0)
    d->cum[k - 1] = 1.0; /* rounding must not leave u > cum[k - 1] */
  g_free(order);
  g_free(kept);
}

static SimLatencyData *load_country(const SimLatency *lat, GError **error) {
  SimRttStat intra;
  RttTable t = {0};
  if ((lat->intra != NULL && !read_intra(lat->intra, &intra, error)) ||
      !read_rtt(lat->file, &t, error)) {
    rtt_table_clear(&t);
    return NULL;
  }
  SimLatencyData *d = data_new(SIM_LATENCY_COUNTRY, lat->file);
  d->seed = lat->seed;
  d->intra = lat->intra != NULL;
  keep_countries(d, &t, lat->intra != NULL ? &intra : NULL);
  rtt_table_clear(&t);
  if (d->n_countries == 0) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_FILE,
                "%s: no country has a same-country row: give the same-AS table (intra=PATH)",
                lat->file);
    sim_latency_data_unref(d);
    return NULL;
  }
  return d;
}

SimLatencyData *sim_latency_data_load(const SimLatency *lat, GError **error) {
  return sim_latency_data_load_named(lat, NULL, NULL, error);
}

SimLatencyData *sim_latency_data_load_named(const SimLatency *lat, SimNodeFind find,
                                            gconstpointer graph, GError **error) {
  g_return_val_if_fail(lat != NULL, NULL);
  SimNodeNames names = {find, graph};
  if (!SIM_LATENCY_IS_MEASURED(lat) || lat->file == NULL) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "sim_latency_data_load: not a measured latency model (links:, country: or geo:)");
    return NULL;
  }
  if (lat->kind == SIM_LATENCY_GEO) {
    SimGeoNodes *geo = sim_geo_nodes_load(lat, &names, error);
    if (geo == NULL)
      return NULL;
    SimLatencyData *d = data_new(SIM_LATENCY_GEO, lat->file);
    d->geo = geo;
    return d;
  }
  return lat->kind == SIM_LATENCY_LINKS ? load_links(lat, &names, error) : load_country(lat, error);
}

/* ---- Delays ---- */

/* SplitMix64's finalizer: a bijection of 64-bit words with full avalanche. */
static inline guint64 mix64(guint64 x) {
  x ^= x >> 30;
  x *= G_GUINT64_CONSTANT(0xBF58476D1CE4E5B9);
  x ^= x >> 27;
  x *= G_GUINT64_CONSTANT(0x94D049BB133111EB);
  return x ^ (x >> 31);
}

/* A uniform in (0, 1) from (seed, stream, x): the 53 high bits, centred. */
static inline double hash_unit(guint64 seed, guint64 stream, guint64 x) {
  guint64 h = mix64(mix64(seed ^ mix64(stream)) ^ x);
  return ((double)(h >> 11) + 0.5) * 0x1p-53;
}

enum { STREAM_COUNTRY = 1, STREAM_PAIR = 2 };

gint sim_latency_data_country(const SimLatencyData *d, guint32 node, const char **code) {
  g_return_val_if_fail(d != NULL, -1);
  if (d->kind != SIM_LATENCY_COUNTRY)
    return -1;
  double u = hash_unit(d->seed, STREAM_COUNTRY, node);
  guint lo = 0, hi = d->n_countries - 1;
  while (lo < hi) { /* the first country whose cumulative weight reaches u */
    guint mid = lo + (hi - lo) / 2;
    if (d->cum[mid] < u)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (code != NULL)
    *code = d->code[lo];
  return (gint)lo;
}

gboolean sim_latency_data_pair(const SimLatencyData *d, guint a, guint b, SimRttStat *out) {
  g_return_val_if_fail(d != NULL && out != NULL, FALSE);
  if (d->kind != SIM_LATENCY_COUNTRY || a >= d->n_countries || b >= d->n_countries)
    return FALSE;
  *out = d->pairs[(gsize)a * d->n_countries + b];
  return TRUE;
}

gboolean sim_latency_data_delay(const SimLatencyData *d, guint32 from, guint32 to, SimTime *ns) {
  g_return_val_if_fail(d != NULL && ns != NULL, FALSE);
  if (d->kind == SIM_LATENCY_GEO)
    return sim_geo_nodes_delay(d->geo, from, to, ns);
  if (d->kind == SIM_LATENCY_LINKS) {
    gssize k = find_link(d, from, to);
    if (k < 0)
      k = find_link(d, to, from);
    if (k < 0)
      return FALSE;
    *ns = d->ns[k];
    return TRUE;
  }
  guint32 lo = MIN(from, to), hi = MAX(from, to);
  guint a = (guint)sim_latency_data_country(d, lo, NULL);
  guint b = (guint)sim_latency_data_country(d, hi, NULL);
  const SimRttStat *s = &d->pairs[(gsize)a * d->n_countries + b];
  double rtt = s->mean;
  if (s->sigma > 0) {
    /* The log-normal truncated to [min, max] by inverting its CDF on the
     * range [p_lo, p_hi] the table's extremes map to. */
    double u = hash_unit(d->seed, STREAM_PAIR, ((guint64)lo << 32) | hi);
    double p = s->p_lo + (s->p_hi - s->p_lo) * u;
    rtt = CLAMP(exp(s->mu + s->sigma * gsl_cdf_ugaussian_Pinv(p)), s->min, s->max);
  }
  *ns = sim_ms_to_ns(0.5 * rtt);
  return TRUE;
}

gboolean sim_latency_data_position(const SimLatencyData *d, guint32 node, double *lon,
                                   double *lat) {
  g_return_val_if_fail(d != NULL && lon != NULL && lat != NULL, FALSE);
  return d->kind == SIM_LATENCY_GEO && sim_geo_nodes_position(d->geo, node, lon, lat);
}

char *sim_latency_data_describe(const SimLatencyData *d) {
  g_return_val_if_fail(d != NULL, NULL);
  if (d->kind == SIM_LATENCY_GEO)
    return sim_geo_nodes_describe(d->geo);
  if (d->kind == SIM_LATENCY_LINKS)
    return g_strdup_printf("links: %" G_GSIZE_FORMAT " directed links over %u nodes from %s, %"
                           G_GSIZE_FORMAT " of them listed both ways; a direction the file "
                           "omits takes its reverse's latency",
                           d->n_links, d->n_nodes, d->file, d->both);
  return g_strdup_printf("country: nodes drawn into %u of %u countries (those whose pairs are all "
                         "measured, %.1f%% of the pings) from %s, seed %" G_GUINT64_FORMAT
                         "; a link's one-way delay is RTT / 2, the RTT drawn once from a "
                         "log-normal matched to its pair's mean and std, truncated to "
                         "[min, max]%s",
                         d->n_countries, d->n_listed, 100.0 * d->kept_share, d->file, d->seed,
                         d->intra ? "; same-country pairs without a row use the same-AS row"
                                  : "");
}
