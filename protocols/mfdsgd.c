/*
 * protocols/mfdsgd.c: MF-D-SGD(C_local) (paper Alg. 1 with C = C_local kron
 * I_n): node u's noise at step t is nu * sum_s (C_local^-1)[t,s] z_{s,u},
 * nu = sigma * Delta * sens_Pi(C_local), so each node is (1/sigma)-GDP under
 * LDP whatever C_local (docs/design.md "Protocols"). Registered three times:
 *   mfdsgd:C=identity|antipgd|sr|bsr|mafalda|toeplitz|blt|FILE[,band=w][,buffers=d]
 *          [,probes=K] (default identity; probes: a fitted C from a sketch);
 *          FILE a C or a C-set (mf_cset_read: one C per class of nodes, each
 *          node streaming its own class's noise)
 *   antipgd   C = lower-triangular ones: noise z_t - z_{t-1} (Koloskova et al.)
 *   mafalda[:C=FILE][,band=w][,probes=K][,samples=N]  C optimized for this
 *          graph (paper Alg. 2); in deadline and stale modes for the gossip
 *          of N delivery records drawn from the run's seed (proto_c_local)
 *
 * Streaming the correlated noise needs the node's past. Either form is
 * exact: the direct one, sum_s C^-1[t,s] z_s over the past samples, or the
 * recursive one, n_t = (z_t - sum_{s<t} C[t,s] n_s) / C[t,t] over the past
 * noise linvecs. The run picks the one whose matrix has the smaller band,
 * so AntiPGD keeps one past sample (C^-1 is bidiagonal) and banded BSR keeps
 * band-many noises (C is banded, C^-1 is not).
 *
 * A wide direct band (Mafalda's C^-1 is dense) would cost one d-long pass
 * over every past sample at every step: O(T^2 d) memory traffic per node,
 * which no cache holds once the network is large. So the samples are drawn
 * a block of steps ahead and the block's noises come from one matrix product
 * C^-1[block, band] Z[band] (the samples are read once per block, not once
 * per step); the provenance still gets every term, one coefficient each.
 *
 * C=blt (buffered-linear-Toeplitz, c_0 = 1, c_j = sum_i w_i theta_i^(j-1),
 * fitted to the run's static gossip by mf_mafalda_blt) has neither band:
 * its noise comes from d buffers per node whatever T, n_t = z_t - sum_i w_i
 * s_i then s_i <- theta_i s_i + n_t, and no T x T matrix is made.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <float.h>
#include <math.h>

#include <cblas.h>

#include "protocols/internal.h"

/* The band from which the blocked direct form pays (below it, a few d-long
 * passes per step cost less than a product), and the automatic block: as
 * many steps as fit in MF_BLOCK_BYTES of combined noises per node (longer
 * blocks read the past samples fewer times), between 8 and 128 steps. */
#define MF_BLOCK_MIN_BAND 8
#define MF_BLOCK_BYTES ((gsize)1 << 20)

static guint mf_auto_block(gsize d) {
  gsize fit = d > 0 ? MF_BLOCK_BYTES / (d * sizeof(double)) : 128;
  return (guint)CLAMP(fit, 8, 128);
}

typedef struct MfRun {
  double nu;   /* noise std: sigma Delta sens_Pi(C_local) */
  double sens; /* sens_Pi(C_local) */
  gboolean direct;
  guint block; /* direct: steps whose noises are combined together (1: none) */
  double *M;   /* C^-1 (direct) or C (recursive), T x T */
  guint T, bw; /* bandwidth of M: each node keeps bw + 1 past terms */
  guint ring;  /* past terms kept: bw + 1 (bw + block samples when blocked) */
  guint blt;   /* C=blt: its buffers d (M is NULL), else 0 */
  double theta[MF_BLT_MAX_BUFFERS], w[MF_BLT_MAX_BUFFERS];
  /* C=FILE a C-set of several classes: each class's run (the fields above
   * unused), node u's at classes[node_class[u]]; else NULL. */
  struct MfRun *classes;
  guint n_classes;
  guint *node_class;
} MfRun;

typedef struct {
  SimNoiseId *ids; /* direct: ring of noise ids, step u at u % ring */
  double *z;       /* direct: their samples; recursive: the current sample */
  SimLinvec **n;   /* recursive: ring of bw + 1 noise linvecs; blt: d buffers, then n_t */
  double *block;   /* blocked: sum_u C^-1[t,u] z_u for the block's steps t */
  double *coeffs;  /* blocked: scratch for one step's bw + 1 terms */
  SimNoiseId *term_ids;
} MfNode;

static const ProtoParamSpec mfdsgd_params[] = {
    {"C", PROTO_PARAM_STRING, "identity", 1, 0,
     "C_local: identity, antipgd, sr, bsr, mafalda, toeplitz (banded Toeplitz fitted to this "
     "graph), blt (buffered-linear-Toeplitz fitted to it), or a CSV file (T x T lower "
     "triangular, or a C-set: one C per class of nodes, as `mafalda --classes` writes)"},
    {"band", PROTO_PARAM_INT, "0", 0, 1e9,
     "bsr, toeplitz: band (0: the number of batches b; toeplitz: at most b); mafalda: band "
     "of C (0: none)"},
    {"buffers", PROTO_PARAM_INT, "4", 1, MF_BLT_MAX_BUFFERS,
     "blt: buffers d of the fitted BLT C_local: d noise vectors per node, any T"},
    {"block", PROTO_PARAM_INT, "0", 0, 1e6,
     "steps whose correlated noises are computed in one product (0: automatic, 8 to 128 "
     "when C^-1 is wide; 1: every step on its own); the numbers agree to rounding"},
    {"probes", PROTO_PARAM_INT, "0", 0, 1e6,
     "mafalda, toeplitz, blt: fit C on the mean of K Hutchinson probes of the workload's Gram "
     "matrix over the sparse gossip, seeded by the run's seed (0: exactly, on the dense n x n "
     "W; K: no n x n matrix, for large graphs)"},
    {"samples", PROTO_PARAM_INT, "0", 0, 1e6,
     "mafalda in deadline or stale mode: the delivery records C is fitted to, drawn from the "
     "run's seed, never its own (0: 16); the C of `dpgossip mafalda --mode ... --seed S "
     "--samples N`"},
};

static const ProtoParamSpec mafalda_params[] = {
    {"C", PROTO_PARAM_STRING, "mafalda", 1, 0,
     "mafalda (optimized for this graph and participation; in deadline and stale modes for "
     "the gossip the delivery records apply, samples=), toeplitz (banded Toeplitz fitted "
     "to it: band - 1 past noises per node, any T), blt (buffered-linear-Toeplitz fitted to "
     "it: d buffers per node, any T) or a CSV file (a C, or a C-set: one C per class of nodes)"},
    {"band", PROTO_PARAM_INT, "0", 0, 1e9,
     "band of the optimized C (0: none); toeplitz: its band (0: b)"},
    {"buffers", PROTO_PARAM_INT, "4", 1, MF_BLT_MAX_BUFFERS,
     "blt: buffers d of the fitted BLT C_local: d noise vectors per node, any T"},
    {"block", PROTO_PARAM_INT, "0", 0, 1e6,
     "steps whose correlated noises are computed in one product (0: automatic, 8 to 128 "
     "when C^-1 is wide; 1: every step on its own); the numbers agree to rounding"},
    {"probes", PROTO_PARAM_INT, "0", 0, 1e6,
     "mafalda, toeplitz, blt: fit C on the mean of K Hutchinson probes of the workload's Gram "
     "matrix over the sparse gossip, seeded by the run's seed (0: exactly, on the dense n x n "
     "W; K: no n x n matrix, for large graphs)"},
    {"samples", PROTO_PARAM_INT, "0", 0, 1e6,
     "mafalda in deadline or stale mode: the delivery records C is fitted to, drawn from the "
     "run's seed, never its own (0: 16); the C of `dpgossip mafalda --mode ... --seed S "
     "--samples N`"},
};

/* The noise std for sens_Pi(C)^2 = @sens2; FALSE with @error set when it
 * is not positive and finite or the std leaves the doubles. */
static gboolean mf_std(ProtoContext *ctx, const char *spec, double sens2, MfRun *r,
                       GError **error) {
  if (!(sens2 > 0.0 && isfinite(sens2))) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s: its sensitivity under (%u,%u)-participation is %g", spec,
                proto_context_epochs(ctx), proto_context_batches(ctx), sens2);
    return FALSE;
  }
  r->sens = sqrt(sens2);
  r->nu = proto_context_sigma(ctx) * proto_context_clip(ctx) * r->sens;
  if (proto_context_sigma(ctx) > 0.0 && !(r->nu >= DBL_MIN && r->nu <= DBL_MAX)) {
    /* Less noise than sigma says (underflow) or none (overflow). */
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s: the noise std sigma x clip x sens(C) = %g leaves the range of doubles", spec,
                r->nu);
    return FALSE;
  }
  return TRUE;
}

/* C=blt: the fit and its closed-form sensitivity, no T x T matrix. */
static gboolean mf_setup_blt(ProtoContext *ctx, guint buffers, guint probes, gpointer *run_state,
                             GError **error) {
  MfRun *r = g_new0(MfRun, 1);
  r->T = proto_context_steps(ctx);
  r->blt = buffers;
  if (!proto_cmatrix_build_blt(ctx, buffers, probes, r->theta, r->w, error) ||
      !mf_std(ctx, "blt",
              mf_sensitivity2_blt(r->theta, r->w, buffers, r->T, proto_context_epochs(ctx),
                                  proto_context_batches(ctx), NULL),
              r, error)) {
    g_free(r);
    return FALSE;
  }
  r->block = 1;
  *run_state = r;
  return TRUE;
}

/* C^-1 within doubles: a C whose inverse overflows (a diagonal tiny against
 * the entries below it) is singular to double precision, said with the
 * spec that gave it instead of a solver's code later. O(T^2). */
static gboolean cinv_finite(const char *spec, const double *C, const double *Cinv, guint T,
                            GError **error) {
  for (gsize e = 0; e < (gsize)T * T; e++) {
    if (isfinite(Cinv[e]))
      continue;
    double dmin = G_MAXDOUBLE, amax = 0.0;
    for (gsize i = 0; i < T; i++)
      dmin = MIN(dmin, fabs(C[i * T + i]));
    for (gsize k = 0; k < (gsize)T * T; k++)
      amax = MAX(amax, fabs(C[k]));
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s: C_local is singular to double precision: its inverse overflows at "
                "[%" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT "] (smallest diagonal entry %g, largest "
                "entry %g); give a better-conditioned C (diagonal entries not tiny against the "
                "others)",
                spec, e / T, e % T, dmin, amax);
    return FALSE;
  }
  return TRUE;
}

/* The run @r (zeroed) of the T x T lower-triangular @C (taken: freed or
 * kept): its noise std, and the direct or recursive form. */
static gboolean mf_setup_c(ProtoContext *ctx, const char *spec, double *C, guint block, MfRun *r,
                           GError **error) {
  guint T = proto_context_steps(ctx);
  double sens2 = mf_sensitivity2(C, T, proto_context_epochs(ctx), proto_context_batches(ctx));
  if (!mf_std(ctx, spec, sens2, r, error)) {
    g_free(C);
    return FALSE;
  }
  double *Cinv = proto_cmatrix_lower_inverse(C, T);
  if (!cinv_finite(spec, C, Cinv, T, error)) {
    g_free(Cinv);
    g_free(C);
    return FALSE;
  }
  guint bw_inv = proto_cmatrix_bandwidth(Cinv, T), bw_c = proto_cmatrix_bandwidth(C, T);
  r->T = T;
  r->direct = bw_inv <= bw_c;
  if (r->direct) {
    r->M = Cinv;
    r->bw = bw_inv;
    r->block = block                         ? block
               : bw_inv >= MF_BLOCK_MIN_BAND ? mf_auto_block(proto_context_dim(ctx))
                                             : 1;
    r->ring = r->block > 1 ? MIN(T, bw_inv + r->block) : bw_inv + 1;
    g_free(C);
  } else {
    r->M = C;
    r->bw = bw_c;
    r->ring = bw_c + 1;
    r->block = 1;
    g_free(Cinv);
  }
  return TRUE;
}

static void mf_finish(gpointer run_state);

/* C=FILE a C-set (mf_cset_read): one run per class; a single class is the
 * run of its C alone, the same as the one C's file. */
static gboolean mf_setup_cset(ProtoContext *ctx, const char *spec, guint block, gpointer *run_state,
                              GError **error) {
  guint T = proto_context_steps(ctx);
  MfCSet set;
  if (!proto_cmatrix_load_cset(spec, T, proto_context_n_nodes(ctx), &set, error))
    return FALSE;
  MfRun *r = g_new0(MfRun, 1);
  gboolean ok = TRUE;
  if (set.n_classes == 1) {
    ok = mf_setup_c(ctx, spec, g_memdup2(set.C, (gsize)T * T * sizeof(double)), block, r, error);
  } else {
    r->T = T;
    r->n_classes = set.n_classes;
    r->classes = g_new0(MfRun, set.n_classes);
    r->node_class = g_steal_pointer(&set.node_class);
    for (guint c = 0; ok && c < set.n_classes; c++) {
      char *what = g_strdup_printf("%s (class %u)", spec, c);
      ok = mf_setup_c(ctx, what, g_memdup2(set.C + (gsize)c * T * T, (gsize)T * T * sizeof(double)),
                      block, &r->classes[c], error);
      g_free(what);
    }
    /* sigma = 0 leaves every class noiseless: the step handler asks r->nu. */
    r->nu = r->classes[0].nu;
  }
  mf_cset_clear(&set);
  if (!ok) {
    mf_finish(r);
    return FALSE;
  }
  *run_state = r;
  return TRUE;
}

static gboolean mf_setup(ProtoContext *ctx, const char *spec, guint band, guint buffers,
                         guint block, guint probes, guint samples, gpointer *run_state,
                         GError **error) {
  if (samples > 0 && (!g_str_equal(spec, "mafalda") || ctx->mode.kind == PROTO_MODE_SYNC)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "samples=%u: the delivery records C=mafalda is fitted to in deadline or stale "
                "mode; %s (drop samples=)",
                samples,
                g_str_equal(spec, "mafalda")
                    ? "this run is synchronous (give --mode deadline:ms=D or stale:s=S)"
                    : "this C is not fitted to them");
    return FALSE;
  }
  if (probes > 0 && !proto_c_spec_fits_graph(spec)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "C=%s: probes=%u sketches the gossip a fitted C (mafalda, toeplitz, blt) is "
                "fitted to; C=%s is not fitted (drop probes=)",
                spec, probes, spec);
    return FALSE;
  }
  if (g_strcmp0(spec, "blt") == 0)
    return mf_setup_blt(ctx, buffers, probes, run_state, error);
  if (proto_c_spec_is_cset(spec))
    return mf_setup_cset(ctx, spec, block, run_state, error);
  double *C = proto_cmatrix_build(ctx, spec, band, buffers, probes, samples, error);
  if (C == NULL)
    return FALSE;
  MfRun *r = g_new0(MfRun, 1);
  if (!mf_setup_c(ctx, spec, C, block, r, error)) {
    g_free(r);
    return FALSE;
  }
  *run_state = r;
  return TRUE;
}

static gboolean mfdsgd_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                            GError **error) {
  return mf_setup(ctx, proto_params_get_string(params, "C"),
                  (guint)proto_params_get_int(params, "band"),
                  (guint)proto_params_get_int(params, "buffers"),
                  (guint)proto_params_get_int(params, "block"),
                  (guint)proto_params_get_int(params, "probes"),
                  (guint)proto_params_get_int(params, "samples"), run_state, error);
}

static gboolean antipgd_init(ProtoContext *ctx, const ProtoParams *params, gpointer *run_state,
                             GError **error) {
  (void)params;
  return mf_setup(ctx, "antipgd", 0, 0, 1, 0, 0, run_state, error);
}

static void mf_finish(gpointer run_state) {
  MfRun *r = run_state;
  for (guint c = 0; c < r->n_classes; c++)
    g_free(r->classes[c].M);
  g_free(r->classes);
  g_free(r->node_class);
  g_free(r->M);
  g_free(r);
}

/* The run of @node's own C: its class's under a C-set. */
static const MfRun *mf_run_of(const MfRun *r, const ProtoNode *node) {
  return r->classes ? &r->classes[r->node_class[proto_node_id(node)]] : r;
}

static gboolean mf_node_init(ProtoNode *node, gpointer run_state, gpointer *node_state,
                             GError **error) {
  (void)error;
  const MfRun *r = mf_run_of(run_state, node);
  ProtoContext *ctx = proto_node_context(node);
  gsize d = proto_context_dim(ctx), ring = r->ring;
  MfNode *s = g_new0(MfNode, 1);
  if (r->blt) { /* d buffers and n_t, NULL-terminated */
    s->z = d ? g_new(double, d) : NULL;
    s->n = g_new0(SimLinvec *, r->blt + 2);
    for (guint i = 0; i <= r->blt; i++)
      s->n[i] = sim_linvec_new(proto_context_space(ctx));
  } else if (r->direct) {
    s->ids = g_new(SimNoiseId, ring);
    s->z = d ? g_new(double, ring *d) : NULL;
    if (r->block > 1) {
      s->block = d ? g_new(double, (gsize)r->block *d) : NULL;
      s->coeffs = g_new(double, (gsize)r->bw + 1);
      s->term_ids = g_new(SimNoiseId, (gsize)r->bw + 1);
    }
  } else {
    s->z = d ? g_new(double, d) : NULL;
    s->n = g_new0(SimLinvec *, ring + 1); /* NULL-terminated */
    for (gsize i = 0; i < ring; i++)
      s->n[i] = sim_linvec_new(proto_context_space(ctx));
  }
  *node_state = s;
  return TRUE;
}

static void mf_node_free(gpointer node_state) {
  MfNode *s = node_state;
  if (s->n != NULL) {
    /* The ring size is not stored per node: its linvecs end at the first NULL. */
    for (gsize i = 0; s->n[i] != NULL; i++)
      sim_linvec_free(s->n[i]);
  }
  g_free(s->n);
  g_free(s->ids);
  g_free(s->z);
  g_free(s->block);
  g_free(s->coeffs);
  g_free(s->term_ids);
  g_free(s);
}

/* At the first step t0 of a block: draws the block's samples and computes
 * block[t - t0] = sum_u C^-1[t,u] z_u for its steps t, one product per
 * contiguous stretch of the sample ring. */
static gboolean mf_fill_block(ProtoNode *node, const MfRun *r, MfNode *s, guint t0,
                              GError **error) {
  gsize d = proto_context_dim(proto_node_context(node));
  guint t1 = MIN(t0 + r->block, r->T), ring = r->ring;
  if (d == 0)
    return TRUE;
  for (guint u = t0; u < t1;) {
    guint p = u % ring, len = MIN(t1 - u, ring - p);
    if (!proto_node_noise_draw(node, s->z + (gsize)p * d, len, error))
      return FALSE;
    u += len;
  }
  guint lo = t0 > r->bw ? t0 - r->bw : 0;
  double beta = 0.0;
  for (guint u = lo; u < t1;) {
    guint p = u % ring, len = MIN(t1 - u, ring - p);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(t1 - t0), (int)d, (int)len, 1.0,
                r->M + (gsize)t0 * r->T + u, (int)r->T, s->z + (gsize)p * d, (int)d, beta, s->block,
                (int)d);
    beta = 1.0;
    u += len;
  }
  return TRUE;
}

/* Stores sample id @k of step @t in the ring: the ring's ids are added again
 * at later steps, so they stay retained (sim_noise_retain) until replaced. */
static void ring_keep(ProtoContext *ctx, MfNode *s, guint t, guint ring, SimNoiseId k) {
  SimNoiseRegistry *reg = proto_context_noise(ctx);
  if (t >= ring)
    sim_noise_release(reg, s->ids[t % ring]);
  s->ids[t % ring] = k;
  sim_noise_retain(reg, k);
}

static gboolean mf_noise_blocked(ProtoNode *node, const MfRun *r, MfNode *s, guint t,
                                 GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  double lr = proto_context_step_size(ctx);
  if (t % r->block == 0 && !mf_fill_block(node, r, s, t, error))
    return FALSE;
  SimNoiseId k = proto_node_noise_register_local(node, r->nu, t, error);
  if (k == SIM_NOISE_ID_INVALID)
    return FALSE;
  ring_keep(ctx, s, t, r->ring, k);
  const double *row = r->M + (gsize)t * r->T;
  guint count = 0;
  for (guint u = t > r->bw ? t - r->bw : 0; u <= t; u++)
    if (row[u] != 0.0) {
      s->coeffs[count] = -lr * row[u];
      s->term_ids[count++] = s->ids[u % r->ring];
    }
  gsize d = proto_context_dim(ctx);
  const double *sum = d ? s->block + (gsize)(t % r->block) * d : NULL;
  return sim_linvec_add_noise_sum(proto_node_model(node), count, s->coeffs, s->term_ids,
                                  -lr * r->nu, sum, error);
}

/* C=blt: n_t = z_t - sum_i w_i s_i, the model gets -eta n_t, then
 * s_i <- theta_i s_i + n_t. */
static gboolean mf_noise_blt(ProtoNode *node, const MfRun *r, MfNode *s, guint t, GError **error) {
  ProtoContext *ctx = proto_node_context(node);
  SimNoiseId k = proto_node_noise_local(node, r->nu, t, s->z, error);
  if (k == SIM_NOISE_ID_INVALID)
    return FALSE;
  SimLinvec *nt = s->n[r->blt];
  sim_linvec_zero(nt);
  if (!sim_linvec_add_noise(nt, 1.0, k, s->z, error))
    return FALSE;
  for (guint i = 0; i < r->blt; i++)
    if (r->w[i] != 0.0 && !sim_linvec_axpy(nt, -r->w[i], s->n[i], error))
      return FALSE;
  if (!sim_linvec_axpy(proto_node_model(node), -proto_context_step_size(ctx), nt, error))
    return FALSE;
  for (guint i = 0; i < r->blt; i++)
    if (!sim_linvec_scale(s->n[i], r->theta[i], error) || !sim_linvec_axpy(s->n[i], 1.0, nt, error))
      return FALSE;
  return TRUE;
}

/* Adds -eta * nu * sum_s C^-1[t,s] z_s to the model. */
static gboolean mf_noise(ProtoNode *node, const MfRun *r, MfNode *s, guint t, GError **error) {
  if (r->blt)
    return mf_noise_blt(node, r, s, t, error);
  if (r->block > 1)
    return mf_noise_blocked(node, r, s, t, error);
  ProtoContext *ctx = proto_node_context(node);
  gsize d = proto_context_dim(ctx);
  guint ring = r->ring;
  double lr = proto_context_step_size(ctx);
  SimLinvec *model = proto_node_model(node);
  const double *row = r->M + (gsize)t * r->T;
  guint first = t > r->bw ? t - r->bw : 0;
  if (r->direct) {
    double *zt = d ? s->z + (gsize)(t % ring) * d : NULL;
    SimNoiseId k = proto_node_noise_local(node, r->nu, t, zt, error);
    if (k == SIM_NOISE_ID_INVALID)
      return FALSE;
    ring_keep(ctx, s, t, ring, k);
    for (guint u = first; u <= t; u++)
      if (row[u] != 0.0 && !sim_linvec_add_noise(model, -lr * row[u], s->ids[u % ring],
                                                 d ? s->z + (gsize)(u % ring) * d : NULL, error))
        return FALSE;
    return TRUE;
  }
  SimNoiseId k = proto_node_noise_local(node, r->nu, t, s->z, error);
  if (k == SIM_NOISE_ID_INVALID)
    return FALSE;
  SimLinvec *nt = s->n[t % ring];
  double diag = row[t];
  sim_linvec_zero(nt);
  if (!sim_linvec_add_noise(nt, 1.0 / diag, k, s->z, error))
    return FALSE;
  for (guint u = first; u < t; u++)
    if (row[u] != 0.0 && !sim_linvec_axpy(nt, -row[u] / diag, s->n[u % ring], error))
      return FALSE;
  return sim_linvec_axpy(model, -lr, nt, error);
}

/* The noise handler: the rest of the step is the runtime's. */
static gboolean mf_step_noise(ProtoNode *node, guint t, GError **error) {
  const MfRun *r = mf_run_of(proto_context_run_state(proto_node_context(node)), node);
  return !(r->nu > 0.0) || mf_noise(node, r, proto_node_state(node), t, error);
}

static void mf_shape(const ProtoParams *params, ProtoShape *shape) {
  shape->kind = PROTO_SHAPE_CORRELATED;
  shape->C = proto_params_get_string(params, "C");
  shape->band = (guint)proto_params_get_int(params, "band");
  shape->buffers = (guint)proto_params_get_int(params, "buffers");
  shape->probes = (guint)proto_params_get_int(params, "probes");
}

static void antipgd_shape(const ProtoParams *params, ProtoShape *shape) {
  (void)params;
  shape->kind = PROTO_SHAPE_CORRELATED;
  shape->C = "antipgd";
}

#define MF_HANDLERS                                                                                \
  .node_init = mf_node_init, .node_free = mf_node_free, .finish = mf_finish, .noise = mf_step_noise

const ProtoVTable proto_mfdsgd_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "mfdsgd",
    .summary = "MF-D-SGD: local noise correlated over time by C_local, std "
               "sigma*Delta*sens(C_local)",
    .params = mfdsgd_params,
    .n_params = G_N_ELEMENTS(mfdsgd_params),
    .init = mfdsgd_init,
    MF_HANDLERS,
    .accounting_shape = mf_shape,
};

const ProtoVTable proto_antipgd_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "antipgd",
    .summary = "AntiPGD: MF-D-SGD with C_local = lower-triangular ones (noise z_t - z_{t-1})",
    .init = antipgd_init,
    MF_HANDLERS,
    .accounting_shape = antipgd_shape,
};

const ProtoVTable proto_mafalda_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = "mafalda",
    .summary = "Mafalda-SGD: MF-D-SGD with C_local optimized for this graph and participation",
    .params = mafalda_params,
    .n_params = G_N_ELEMENTS(mafalda_params),
    .init = mfdsgd_init,
    MF_HANDLERS,
    .accounting_shape = mf_shape,
};
