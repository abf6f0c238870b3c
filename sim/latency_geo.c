/*
 * sim/latency_geo.c: the geo: latency model: nodes placed at the longitude
 * and latitude of a node file, each link's one-way delay from the
 * great-circle distance between its two ends.
 *
 * Distance explains a line, base + per_km x km; what it does not (routes,
 * access links, the hosts) is a log-normal factor of mean 1 drawn once per
 * unordered pair, the delay capped at the largest one measured (the
 * log-normal's tail has no such bound). As in the country model, the draw is a hash of the seed
 * and the two ids, not a random stream: no storage per link, and the same
 * delays in every run, thread count and MPI rank.
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "sim/link_internal.h"
#include "sim/sim.h"
#include "spec/spec.h"

/* The hash purpose of a pair's factor (sim_rng_stream_seed), apart from
 * the engine's streams. */
#define GEO_PURPOSE 0x67656f /* "geo" */

struct SimGeoNodes {
  char *file;
  guint32 n, placed; /* nodes 0..n-1; those the file places (NaN: not) */
  double *deg;  /* 2n: longitude, latitude in degrees, as the file gives them */
  double *rad;  /* 3n: longitude, latitude in radians, cos(latitude) */
  double base_ms, per_km_ms, jitter, max_ms;
  guint64 seed;
  guint32 distinct, crowd; /* distinct positions; most nodes at one position */
};

/* The haversine distance between points given in radians with the cosines
 * of their latitudes: 2 R asin(sqrt(h)), h clamped to 1 against rounding. */
static double haversine_km(const double *a, const double *b) {
  double s_lat = sin(0.5 * (b[1] - a[1])), s_lon = sin(0.5 * (b[0] - a[0]));
  double h = s_lat * s_lat + a[2] * b[2] * s_lon * s_lon;
  return 2.0 * SIM_EARTH_RADIUS_KM * asin(sqrt(MIN(h, 1.0)));
}

static void to_radians(double lon, double lat, double *out) {
  out[0] = lon * (G_PI / 180.0);
  out[1] = lat * (G_PI / 180.0);
  out[2] = cos(out[1]);
}

double sim_great_circle_km(double lon1, double lat1, double lon2, double lat2) {
  double a[3], b[3];
  to_radians(lon1, lat1, a);
  to_radians(lon2, lat2, b);
  return haversine_km(a, b);
}

void sim_geo_nodes_free(SimGeoNodes *g) {
  if (g == NULL)
    return;
  g_free(g->file);
  g_free(g->deg);
  g_free(g->rad);
  g_free(g);
}

/* ---- The node file ---- */

/* SIM_ERROR_FILE "FILE:LINE: MESSAGE" (always FALSE). */
static gboolean bad_line(GError **error, const char *file, gsize line, char *message) {
  g_set_error(error, SIM_ERROR, SIM_ERROR_FILE, "%s:%" G_GSIZE_FORMAT ": %s", file, line, message);
  g_free(message);
  return FALSE;
}

/* The columns the header names: id (-1: none), longitude, latitude. */
typedef struct {
  gint id, lon, lat;
  guint n_fields;
} GeoColumns;

static gboolean find_columns(const char *file, gsize line, char **fields, GeoColumns *c,
                             GError **error) {
  static const char *const names[3][3] = {
      {"index", "id", "node"}, {"long", "lon", "longitude"}, {"lat", "latitude", NULL}};
  gint *col[3] = {&c->id, &c->lon, &c->lat};
  c->id = c->lon = c->lat = -1;
  c->n_fields = g_strv_length(fields);
  for (guint f = 0; f < c->n_fields; f++)
    for (guint r = 0; r < 3; r++)
      for (guint k = 0; k < 3 && names[r][k] != NULL; k++) {
        if (g_ascii_strcasecmp(g_strstrip(fields[f]), names[r][k]) != 0)
          continue;
        if (*col[r] >= 0)
          return bad_line(error, file, line,
                          g_strdup_printf("columns %d and %u both name the node's %s", *col[r] + 1,
                                          f + 1, r == 0 ? "id" : r == 1 ? "longitude" : "latitude"));
        *col[r] = (gint)f;
      }
  if (c->lon >= 0 && c->lat >= 0)
    return TRUE;
  return bad_line(error, file, line,
                  g_strdup_printf("the header names no %s column (expected a header such as "
                                  "'index,long,lat': %s)",
                                  c->lon < 0 ? "longitude" : "latitude",
                                  c->lon < 0 ? "long, lon or longitude" : "lat or latitude"));
}

/* A coordinate in [-@limit, @limit] degrees. */
static gboolean read_degrees(const char *file, gsize line, const char *what, const char *tok,
                             double limit, double *out, GError **error) {
  char *end = NULL;
  errno = 0;
  double v = g_ascii_strtod(tok, &end);
  if (end != tok && *end == '\0' && errno != ERANGE && isfinite(v) && fabs(v) <= limit) {
    *out = v;
    return TRUE;
  }
  char *shown = spec_escape(tok, MIN((gssize)strlen(tok), 64));
  char *msg = g_strdup_printf("%s '%s' is not a number of degrees in [-%g, %g]", what, shown,
                              limit, limit);
  g_free(shown);
  return bad_line(error, file, line, msg);
}

static gboolean read_id(const char *file, gsize line, const char *tok, guint64 *out,
                        GError **error) {
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(tok, &end, 10);
  if (*tok >= '0' && *tok <= '9' && *end == '\0' && errno != ERANGE && v < G_MAXUINT32) {
    *out = v;
    return TRUE;
  }
  char *shown = spec_escape(tok, MIN((gssize)strlen(tok), 64));
  char *msg = g_strdup_printf("node id '%s' is not an integer in [0, 2^32 - 2]", shown);
  g_free(shown);
  return bad_line(error, file, line, msg);
}

typedef struct {
  guint64 id;
  double lon, lat;
  gsize line;
} GeoRow;

/* The id column as the graph's labels: the node's id in the graph. */
static gboolean read_label(const SimNodeNames *names, const char *file, gsize line, const char *tok,
                           GeoRow *row, GError **error) {
  guint32 id;
  if (!sim_node_names_find(names, file, line, tok, &id, error))
    return FALSE;
  row->id = id;
  return TRUE;
}

/* One data line (NUL-terminated, stripped) into @row. */
static gboolean read_row(const char *file, gsize line, char *text, const GeoColumns *c,
                         const SimNodeNames *names, GeoRow *row, GError **error) {
  gchar **f = g_strsplit(text, ",", -1);
  guint n = g_strv_length(f);
  gboolean ok = n == c->n_fields ||
                bad_line(error, file, line,
                         g_strdup_printf("%u fields, expected %u as the header", n, c->n_fields));
  for (guint i = 0; ok && i < n; i++)
    g_strstrip(f[i]);
  row->line = line;
  ok = ok && read_degrees(file, line, "longitude", f[c->lon], 180, &row->lon, error) &&
       read_degrees(file, line, "latitude", f[c->lat], 90, &row->lat, error) &&
       (c->id < 0 || (names->find != NULL ? read_label(names, file, line, f[c->id], row, error)
                                          : read_id(file, line, f[c->id], &row->id, error)));
  g_strfreev(f);
  return ok;
}

/* The rows of the file in file order, ids set from the row order when the
 * header has no id column. */
static GArray *read_rows(const char *file, char *text, gsize len, const SimNodeNames *names,
                         GError **error) {
  GArray *rows = g_array_new(FALSE, FALSE, sizeof(GeoRow));
  GeoColumns cols = {0};
  gboolean header = FALSE, ok = TRUE;
  gsize line = 0;
  for (char *p = text, *end = text + len; ok && p < end;) {
    char *eol = memchr(p, '\n', (gsize)(end - p));
    if (eol == NULL)
      eol = end;
    *eol = '\0';
    char *s = g_strstrip(p);
    p = eol + 1;
    line++;
    if (*s == '\0' || *s == '#')
      continue;
    if (!header) {
      gchar **fields = g_strsplit(s, ",", -1);
      ok = find_columns(file, line, fields, &cols, error);
      g_strfreev(fields);
      header = TRUE;
      continue;
    }
    GeoRow row = {.id = rows->len};
    ok = read_row(file, line, s, &cols, names, &row, error);
    if (ok)
      g_array_append_val(rows, row);
  }
  if (ok && !header)
    ok = bad_line(error, file, 1, g_strdup("no header (expected one such as 'index,long,lat')"));
  if (ok && rows->len == 0)
    ok = bad_line(error, file, line, g_strdup("no node (only a header, comments or blank lines)"));
  if (!ok) {
    g_array_unref(rows);
    return NULL;
  }
  return rows;
}

/* Ids below @n, each once: rows[k] goes to node rows[k].id; without a
 * graph's names the @m rows place nodes 0..m-1 (n = m). */
static gboolean place_rows(const char *file, const GeoRow *rows, guint32 m, guint32 n, double *deg,
                           GError **error) {
  gsize *line_of = g_new0(gsize, n);
  gboolean ok = TRUE;
  for (guint32 k = 0; ok && k < m; k++) {
    guint64 id = rows[k].id;
    if (id >= n)
      ok = bad_line(error, file, rows[k].line,
                    g_strdup_printf("node id %" G_GUINT64_FORMAT " but the file places %u nodes: "
                                    "ids must be 0..%u, each once",
                                    id, n, n - 1));
    else if (line_of[id] != 0)
      ok = bad_line(error, file, rows[k].line,
                    g_strdup_printf("the node of line %" G_GSIZE_FORMAT " again", line_of[id]));
    else {
      line_of[id] = rows[k].line;
      deg[2 * id] = rows[k].lon;
      deg[2 * id + 1] = rows[k].lat;
    }
  }
  g_free(line_of);
  return ok;
}

static gint compare_positions(gconstpointer pa, gconstpointer pb) {
  const double *a = pa, *b = pb;
  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Distinct positions and the most nodes sharing one: a placeholder position
 * (nodes without a location) shows as a crowd. O(n log n). */
static void count_positions(SimGeoNodes *g) {
  double *sorted = g_memdup2(g->deg, 2 * sizeof(double) * g->n);
  /* Placed nodes only: the unplaced (NaN) sort... nowhere, so drop them. */
  guint32 m = 0;
  for (guint32 k = 0; k < g->n; k++)
    if (!isnan(g->deg[2 * (gsize)k])) {
      sorted[2 * (gsize)m] = g->deg[2 * (gsize)k];
      sorted[2 * (gsize)m + 1] = g->deg[2 * (gsize)k + 1];
      m++;
    }
  g->placed = m;
  qsort(sorted, m, 2 * sizeof(double), (int (*)(const void *, const void *))compare_positions);
  guint32 run = 0;
  g->distinct = g->crowd = 0;
  for (guint32 k = 0; k < m; k++) {
    gboolean same = k > 0 && compare_positions(sorted + 2 * k, sorted + 2 * (k - 1)) == 0;
    run = same ? run + 1 : 1;
    g->distinct += !same;
    g->crowd = MAX(g->crowd, run);
  }
  g_free(sorted);
}

SimGeoNodes *sim_geo_nodes_load(const SimLatency *lat, const SimNodeNames *names, GError **error) {
  g_return_val_if_fail(lat != NULL && lat->kind == SIM_LATENCY_GEO && lat->file != NULL, NULL);
  char *text = NULL;
  gsize len = 0;
  if (!sim_data_file_read(lat->file, 0, &text, &len, error))
    return NULL;
  /* Per line at most: its GeoRow in a doubling array (x 2), then the
   * positions in degrees (2 doubles) and radians (3), the line of each node
   * and the sorted copy of the degrees (2) while the rows are still held. */
  if (!spec_check_text_rows(lat->file, text, len, 2 * sizeof(GeoRow) + 8 * sizeof(double), 0,
                            "use a smaller geo file", SIM_ERROR, SIM_ERROR_CAPACITY, error)) {
    g_free(text);
    return NULL;
  }
  GArray *rows = read_rows(lat->file, text, len, names, error);
  g_free(text);
  if (rows == NULL)
    return NULL;
  SimGeoNodes *g = g_new0(SimGeoNodes, 1);
  g->file = g_strdup(lat->file);
  const GeoRow *r = (const GeoRow *)(void *)rows->data;
  /* Labelled ids may leave nodes of the graph unplaced (NaN): their links
   * have no delay, which the run's setup refuses naming the link. */
  g->n = rows->len;
  for (guint32 k = 0; names->find != NULL && k < rows->len; k++)
    g->n = MAX(g->n, (guint32)r[k].id + 1);
  g->deg = g_new(double, 2 * (gsize)g->n);
  for (gsize k = 0; k < 2 * (gsize)g->n; k++)
    g->deg[k] = NAN;
  if (!place_rows(lat->file, r, rows->len, g->n, g->deg, error)) {
    g_array_unref(rows);
    sim_geo_nodes_free(g);
    return NULL;
  }
  g_array_unref(rows);
  g->rad = g_new(double, 3 * (gsize)g->n);
  for (guint32 k = 0; k < g->n; k++)
    to_radians(g->deg[2 * k], g->deg[2 * k + 1], g->rad + 3 * (gsize)k);
  g->base_ms = lat->base_ms;
  g->per_km_ms = lat->per_km_ms;
  g->jitter = lat->jitter;
  g->max_ms = lat->max_ms;
  g->seed = lat->seed;
  count_positions(g);
  return g;
}

/* ---- Delays ---- */

gboolean sim_geo_nodes_delay(const SimGeoNodes *g, guint32 from, guint32 to, SimTime *ns) {
  g_return_val_if_fail(g != NULL && ns != NULL, FALSE);
  if (from >= g->n || to >= g->n || isnan(g->deg[2 * (gsize)from]) || isnan(g->deg[2 * (gsize)to]))
    return FALSE;
  guint32 lo = MIN(from, to), hi = MAX(from, to);
  double km = haversine_km(g->rad + 3 * (gsize)lo, g->rad + 3 * (gsize)hi);
  double ms = g->base_ms + g->per_km_ms * km;
  if (g->jitter > 0) {
    guint64 h = sim_rng_stream_seed(sim_rng_stream_seed(g->seed, lo, GEO_PURPOSE), hi,
                                    GEO_PURPOSE);
    double u = ((double)(h >> 11) + 0.5) * 0x1p-53;
    ms *= exp(g->jitter * gsl_cdf_ugaussian_Pinv(u) - 0.5 * g->jitter * g->jitter);
  }
  *ns = sim_ms_to_ns(MIN(ms, g->max_ms));
  return TRUE;
}

gboolean sim_geo_nodes_position(const SimGeoNodes *g, guint32 node, double *lon, double *lat) {
  g_return_val_if_fail(g != NULL && lon != NULL && lat != NULL, FALSE);
  if (node >= g->n || isnan(g->deg[2 * (gsize)node]))
    return FALSE;
  *lon = g->deg[2 * (gsize)node];
  *lat = g->deg[2 * (gsize)node + 1];
  return TRUE;
}

char *sim_geo_nodes_describe(const SimGeoNodes *g) {
  g_return_val_if_fail(g != NULL, NULL);
  return g_strdup_printf("geo: %u nodes placed by %s (%u distinct positions, at most %u nodes at "
                         "one); a link's one-way delay is (%g ms + %g ms/km x great-circle km) x "
                         "a log-normal factor of mean 1 and sigma %g drawn once per node pair, "
                         "at most %g ms, seed %" G_GUINT64_FORMAT,
                         g->placed, g->file, g->distinct, g->crowd, g->base_ms, g->per_km_ms,
                         g->jitter, g->max_ms, g->seed);
}
