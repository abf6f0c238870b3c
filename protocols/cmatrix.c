/*
 * protocols/cmatrix.c: the local noise correlation C_local of MF-D-SGD
 * (paper Alg. 1 with C = C_local kron I_n): the named families, Mafalda's
 * optimized matrix for the run's graph, or a CSV file; and the triangular
 * inverse the nodes stream their noise from.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <math.h>
#include <string.h>

#include "protocols/internal.h"

double *proto_cmatrix_load_csv(const char *path, guint T, GError **error) {
  GError *sub = NULL;
  double *C = priv_mf_read_c(path, T, &sub);
  if (C == NULL) {
    g_set_error(error, PROTO_ERROR,
                sub->domain == G_FILE_ERROR ? PROTO_ERROR_IO : PROTO_ERROR_FORMAT,
                "%s%s", sub->domain == G_FILE_ERROR ? "cannot read C: " : "", sub->message);
    g_error_free(sub);
  }
  return C;
}

double *proto_cmatrix_lower_inverse(const double *C, guint T) {
  /* Column by column forward substitution: C X = I. */
  double *X = g_new0(double, (gsize)T * T);
  for (guint j = 0; j < T; j++) {
    X[(gsize)j * T + j] = 1.0 / C[(gsize)j * T + j];
    for (guint i = j + 1; i < T; i++) {
      double s = 0.0;
      for (guint k = j; k < i; k++)
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

/* Gives priv_gram_time_varying the dense W_t of the run's schedule. */
typedef struct {
  ProtoContext *ctx;
  double *W;
  GError *error;
} GossipAt;

static const double *gossip_at(guint t, gpointer data) {
  GossipAt *g = data;
  g_free(g->W);
  g->W = NULL;
  if (g->error == NULL)
    g->W = proto_context_gossip_dense(g->ctx, t, &g->error);
  if (g->W == NULL) /* keep the recursion defined; the error is reported after */
    g->W = g_new0(double, (gsize)g->ctx->n * g->ctx->n);
  return g->W;
}

/* Mafalda: C optimized for this graph's post-average workload (paper
 * Alg. 2; DESIGN.md "Mafalda"). */
static double *mafalda(ProtoContext *ctx, guint band, GError **error) {
  GError *sub = NULL;
  double *C = NULL;
  if (ctx->is_static) {
    double *W = proto_context_gossip_dense(ctx, 0, error);
    if (W == NULL)
      return NULL;
    C = priv_mafalda_c(ctx->n, ctx->T, ctx->k, ctx->b, band, W, NULL, NULL, &sub);
    g_free(W);
  } else {
    GossipAt g = {ctx, NULL, NULL};
    C = priv_mafalda_c(ctx->n, ctx->T, ctx->k, ctx->b, band, NULL, gossip_at, &g, &sub);
    g_free(g.W);
    if (g.error != NULL) {
      g_free(C);
      g_clear_error(&sub);
      g_propagate_error(error, g.error);
      return NULL;
    }
  }
  if (C == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED,
                "Mafalda's correlation for this graph: %s", sub->message);
    g_error_free(sub);
  }
  return C;
}

double *proto_cmatrix_build(ProtoContext *ctx, const char *spec, guint band, GError **error) {
  static const struct {
    const char *name;
    PrivBaseline which;
  } families[] = {{"identity", PRIV_BASELINE_IDENTITY},
                  {"antipgd", PRIV_BASELINE_ANTIPGD},
                  {"sr", PRIV_BASELINE_SR},
                  {"bsr", PRIV_BASELINE_BSR}};
  guint T = ctx->T;
  if (spec == NULL || *spec == '\0') {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C: give a family (identity, antipgd, sr, bsr, mafalda) or a CSV file");
    return NULL;
  }
  for (guint i = 0; i < G_N_ELEMENTS(families); i++)
    if (strcmp(spec, families[i].name) == 0) {
      guint w = families[i].which == PRIV_BASELINE_BSR ? (band ? band : ctx->b) : 0;
      GError *sub = NULL;
      double *C = priv_mf_baseline(families[i].which, T, w, &sub);
      if (C == NULL) {
        g_set_error(error, PROTO_ERROR, PROTO_ERROR_FAILED, "C=%s: %s", spec, sub->message);
        g_error_free(sub);
      }
      return C;
    }
  if (strcmp(spec, "mafalda") == 0)
    return mafalda(ctx, band, error);
  if (!g_file_test(spec, G_FILE_TEST_EXISTS)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_IO,
                "C=%s: neither a family (identity, antipgd, sr, bsr, mafalda) nor an existing "
                "file",
                spec);
    return NULL;
  }
  return proto_cmatrix_load_csv(spec, T, error);
}
