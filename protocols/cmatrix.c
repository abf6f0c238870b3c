/*
 * protocols/cmatrix.c: the local noise correlation C_local of MF-D-SGD
 * (paper Alg. 1 with C = C_local kron I_n): the named families, Mafalda's
 * optimized matrix for the run's graph, or a CSV file (proto_c_local,
 * account_plan.c); and the triangular inverse the nodes stream their noise
 * from.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"

double *proto_cmatrix_load_csv(const char *path, guint T, GError **error) {
  GError *sub = NULL;
  double *C = mf_read_c(path, T, &sub);
  if (C == NULL) {
    g_set_error(error, PROTO_ERROR,
                sub->domain == G_FILE_ERROR ? PROTO_ERROR_IO : PROTO_ERROR_FORMAT, "%s%s",
                sub->domain == G_FILE_ERROR ? "cannot read C: " : "", sub->message);
    g_error_free(sub);
  }
  return C;
}

gboolean proto_cmatrix_load_cset(const char *path, guint T, guint n, MfCSet *set, GError **error) {
  GError *sub = NULL;
  if (mf_cset_read(path, T, n, set, &sub))
    return TRUE;
  g_set_error(error, PROTO_ERROR, sub->domain == G_FILE_ERROR ? PROTO_ERROR_IO : PROTO_ERROR_FORMAT,
              "%s%s", sub->domain == G_FILE_ERROR ? "cannot read C: " : "", sub->message);
  g_error_free(sub);
  return FALSE;
}

double *proto_cmatrix_lower_inverse(const double *C, guint T) {
  /* Column by column forward substitution: C X = I, on C's band only (a
   * banded C of long horizon: O(T^2 bw) rather than O(T^3)). */
  guint bw = proto_cmatrix_bandwidth(C, T);
  double *X = g_new0(double, (gsize)T *T);
  for (guint j = 0; j < T; j++) {
    X[(gsize)j * T + j] = 1.0 / C[(gsize)j * T + j];
    for (guint i = j + 1; i < T; i++) {
      double s = 0.0;
      for (guint k = MAX(j, i > bw ? i - bw : 0); k < i; k++)
        s += C[(gsize)i * T + k] * X[(gsize)k * T + j];
      X[(gsize)i * T + j] = -s / C[(gsize)i * T + i];
    }
  }
  return X;
}

guint proto_cmatrix_bandwidth(const double *M, guint T) {
  guint bw = 0;
  for (guint t = 0; t < T; t++)
    for (guint s = 0; s < t && t - s > bw; s++)
      if (M[(gsize)t * T + s] != 0.0) {
        bw = t - s;
        break;
      }
  return bw;
}

struct ProtoCCache {
  GMutex lock;
  GHashTable *fits; /* key (g_free) -> GBytes of doubles */
  guint n_fits;
};

ProtoCCache *proto_c_cache_new(void) {
  ProtoCCache *c = g_new0(ProtoCCache, 1);
  g_mutex_init(&c->lock);
  c->fits = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_bytes_unref);
  return c;
}

void proto_c_cache_free(ProtoCCache *c) {
  if (c == NULL)
    return;
  g_hash_table_unref(c->fits);
  g_mutex_clear(&c->lock);
  g_free(c);
}

guint proto_c_cache_fits(const ProtoCCache *c) {
  return c != NULL ? c->n_fits : 0;
}

/* The memo's key of recipe @r (its topology is the cache's; an
 * asynchronous mode's C depends on the delivery records of its seed). */
static char *cache_key(const ProtoCRecipe *r) {
  gboolean records = r->mode != NULL && !g_str_equal(r->mode, "sync");
  return g_strdup_printf("%s|%u|%u|%u|%u|%u|%u|%" G_GUINT64_FORMAT "|%s|%s|%s|%u", r->spec, r->T,
                         r->k, r->b, r->band, r->buffers, r->probes,
                         r->probes || records ? r->seed : 0, records ? r->mode : "",
                         records && r->latency ? r->latency : "", records && r->loss ? r->loss : "",
                         records ? r->samples : 0);
}

/* The fit of @r from @ctx's memo, or computed by @fit into @len doubles at
 * @out (allocated here, g_free) and remembered; without a memo, computed.
 * The lock is held while fitting: the runs waiting would fit the same. */
typedef gboolean (*FitFunc)(const ProtoCRecipe *r, double **out, gsize *len, GError **error);

static gboolean cached_fit(ProtoContext *ctx, const ProtoCRecipe *r, FitFunc fit, double **out,
                           gsize *len, GError **error) {
  ProtoCCache *c = ctx->c_cache;
  if (c == NULL || !proto_c_spec_fits_graph(r->spec))
    return fit(r, out, len, error);
  char *key = cache_key(r);
  g_mutex_lock(&c->lock);
  GBytes *got = g_hash_table_lookup(c->fits, key);
  gboolean ok = TRUE;
  if (got != NULL) {
    gsize bytes;
    const void *data = g_bytes_get_data(got, &bytes);
    *out = g_memdup2(data, bytes);
    *len = bytes / sizeof(double);
    g_free(key);
  } else if ((ok = fit(r, out, len, error))) {
    g_hash_table_insert(c->fits, key, g_bytes_new(*out, *len * sizeof(double)));
    c->n_fits++;
  } else {
    g_free(key);
  }
  g_mutex_unlock(&c->lock);
  return ok;
}

static gboolean fit_c(const ProtoCRecipe *r, double **out, gsize *len, GError **error) {
  *out = proto_c_local(r, error);
  *len = (gsize)r->T * r->T;
  return *out != NULL;
}

double *proto_cmatrix_build(ProtoContext *ctx, const char *spec, guint band, guint buffers,
                            guint probes, guint samples, GError **error) {
  ProtoCRecipe r = {.spec = spec,
                    .T = ctx->T,
                    .k = ctx->k,
                    .b = ctx->b,
                    .band = band,
                    .buffers = buffers,
                    .graph = ctx->graph, /* the delivery records' topology: graph or schedule */
                    .gossip = ctx->gossip,
                    .schedule = ctx->schedule, /* "static" for a graph */
                    .probes = probes,
                    .seed = ctx->c_seed,
                    .mode = ctx->mode_spec,
                    .latency = ctx->latency_spec,
                    .loss = ctx->loss_spec,
                    .samples = samples};
  double *C = NULL;
  gsize len = 0;
  return cached_fit(ctx, &r, fit_c, &C, &len, error) ? C : NULL;
}

/* The recipe's static gossip matrix (n x n, g_free), or NULL with @error
 * set naming @what (a time-varying schedule, the gossip's errors). */
static double *static_gossip(const ProtoCRecipe *r, const char *what, guint *n, GError **error) {
  if (r->schedule != NULL && !topo_schedule_is_static(r->schedule)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s: the fit needs a static gossip (the schedule changes W)", what);
    return NULL;
  }
  GError *sub = NULL;
  if (!proto_c_check_memory(r, r->schedule ? topo_schedule_n(r->schedule)
                                           : topo_graph_n_nodes(r->graph),
                            &sub)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "%s", sub->message);
    g_error_free(sub);
    return NULL;
  }
  if (r->schedule != NULL) {
    *n = topo_schedule_n(r->schedule);
    return proto_schedule_gossip_dense(r->schedule, 0, error);
  }
  TopoGossip *w = topo_gossip_new(r->graph, r->gossip, error);
  *n = topo_graph_n_nodes(r->graph);
  double *W = w ? topo_gossip_dense(w) : NULL;
  topo_gossip_free(w);
  return W;
}

/* The Frobenius form of @r's static gossip from its sketch (@r->probes >
 * 0), or NULL with @error set naming @what. */
static MfGramSpectral *sketch_form(const ProtoCRecipe *r, const char *what, GError **error) {
  if (r->schedule != NULL && !topo_schedule_is_static(r->schedule)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s: the fit needs a static gossip (the schedule changes W)", what);
    return NULL;
  }
  double *H = NULL;
  MfGramSpectral *g = NULL;
  proto_c_sketch(r, &H, &g, error);
  g_free(H);
  return g;
}

/* The lower-triangular Toeplitz T x T matrix of first column @c[0 .. @w). */
static double *toeplitz_matrix(const double *c, guint w, guint T) {
  double *C = g_new0(double, (gsize)T * T);
  for (gsize i = 0; i < T; i++)
    for (gsize j = i + 1 > w ? i + 1 - w : 0; j <= i; j++)
      C[i * T + j] = c[i - j];
  return C;
}

/* The BLT fit as one array: theta, then w (buffers each). */
static gboolean fit_blt(const ProtoCRecipe *r, double **out, gsize *len, GError **error) {
  *len = 2 * (gsize)MAX(r->buffers, 1);
  *out = g_new0(double, *len);
  if (proto_cmatrix_blt_fit(r, *out, *out + *len / 2, error))
    return TRUE;
  g_clear_pointer(out, g_free);
  return FALSE;
}

gboolean proto_cmatrix_build_blt(ProtoContext *ctx, guint buffers, guint probes, double *theta,
                                 double *w, GError **error) {
  ProtoCRecipe r = {.spec = "blt",
                    .T = ctx->T,
                    .k = ctx->k,
                    .b = ctx->b,
                    .buffers = buffers,
                    .schedule = ctx->schedule,
                    .probes = probes,
                    .seed = ctx->c_seed};
  double *fit = NULL;
  gsize len = 0;
  if (!cached_fit(ctx, &r, fit_blt, &fit, &len, error))
    return FALSE;
  memcpy(theta, fit, buffers * sizeof(double));
  memcpy(w, fit + len / 2, buffers * sizeof(double));
  g_free(fit);
  return TRUE;
}

double *proto_cmatrix_toeplitz(const ProtoCRecipe *r, GError **error) {
  /* Before anything of the band's size is allocated. */
  if (r->band > r->T) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=toeplitz: band=%u must be between 1 and T = %u (0: b = %u)", r->band, r->T,
                r->b);
    return NULL;
  }
  guint n = 0;
  GError *sub = NULL;
  double *C = NULL;
  if (r->probes > 0) {
    MfGramSpectral *g = sketch_form(r, "toeplitz", error);
    if (g == NULL)
      return NULL;
    guint w = r->band ? r->band : r->b;
    double *c = g_new(double, MAX(w, 1));
    if (mf_mafalda_toeplitz_spectral(g, r->k, r->b, w, c, NULL, &sub))
      C = toeplitz_matrix(c, w, r->T);
    g_free(c);
    mf_gram_spectral_free(g);
  } else {
    double *W = static_gossip(r, "toeplitz", &n, error);
    if (W == NULL)
      return NULL;
    C = mf_mafalda_toeplitz_c(W, n, r->T, r->k, r->b, r->band ? r->band : r->b, &sub);
    g_free(W);
  }
  if (C == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "C=toeplitz for this graph: %s",
                sub->message);
    g_error_free(sub);
  }
  return C;
}

/* The buffers check and the static W of a blt recipe (NULL: @error set). */
static double *blt_gossip(const ProtoCRecipe *r, guint *n, GError **error) {
  if (r->buffers == 0 || r->buffers > MF_BLT_MAX_BUFFERS) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=blt: buffers=%u must be between 1 and %d", r->buffers, MF_BLT_MAX_BUFFERS);
    return NULL;
  }
  return static_gossip(r, "blt", n, error);
}

/* Carries the fit's error @sub into @error as PROTO_ERROR_FAILED. */
static void blt_failed(GError *sub, GError **error) {
  g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "C=blt for this graph: %s", sub->message);
  g_error_free(sub);
}

gboolean proto_cmatrix_blt_fit(const ProtoCRecipe *r, double *theta, double *w, GError **error) {
  if (r->probes > 0) {
    if (r->buffers == 0 || r->buffers > MF_BLT_MAX_BUFFERS) {
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "C=blt: buffers=%u must be between 1 and %d", r->buffers, MF_BLT_MAX_BUFFERS);
      return FALSE;
    }
    MfGramSpectral *g = sketch_form(r, "blt", error);
    if (g == NULL)
      return FALSE;
    GError *sub = NULL;
    gboolean ok = mf_mafalda_blt_spectral(g, r->k, r->b, r->buffers, theta, w, NULL, &sub);
    mf_gram_spectral_free(g);
    if (!ok)
      blt_failed(sub, error);
    return ok;
  }
  guint n = 0;
  double *W = blt_gossip(r, &n, error);
  if (W == NULL)
    return FALSE;
  GError *sub = NULL;
  gboolean ok = mf_mafalda_blt(W, n, r->k, r->b, r->buffers, theta, w, NULL, &sub);
  g_free(W);
  if (!ok)
    blt_failed(sub, error);
  return ok;
}

double *proto_cmatrix_blt(const ProtoCRecipe *r, GError **error) {
  if (r->probes > 0) {
    double th[MF_BLT_MAX_BUFFERS], ww[MF_BLT_MAX_BUFFERS];
    if (!proto_cmatrix_blt_fit(r, th, ww, error))
      return NULL;
    double *c = g_new(double, r->T);
    mf_blt_coefficients(th, ww, r->buffers, r->T, c);
    double *C = toeplitz_matrix(c, r->T, r->T);
    g_free(c);
    return C;
  }
  guint n = 0;
  double *W = blt_gossip(r, &n, error);
  if (W == NULL)
    return NULL;
  GError *sub = NULL;
  double *C = mf_mafalda_blt_c(W, n, r->T, r->k, r->b, r->buffers, NULL, NULL, &sub);
  g_free(W);
  if (C == NULL)
    blt_failed(sub, error);
  return C;
}
