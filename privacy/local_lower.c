/*
 * privacy/local_lower.c: certified LOWER bounds of the local path
 * (docs/local-bounds.md, "The lower bound"). An attacker that knows less
 * can only learn less: any function f(Y) of the attackers' view Y has
 * mu(f(Y)) <= mu(Y). We take linear functions of Y that do not depend on
 * anything beyond the ball B_r, so their Fisher information is computable
 * from the ball alone and is Loewner-below the exact X_u.
 *
 * PNDP: the view is Y = M g + M_z z + N phi, where phi is what flows into
 * the ball's edge nodes from the shell in each round (it depends on
 * everything, the victim included). Projecting Y onto the orthogonal
 * complement of range(N) kills phi; the projected view depends on the
 * ball's gradients and noise only, through the ball's own rows of W_r
 * (on a stale-mode record, and the rows of its slots: a slot holding a
 * ball node's message is state, one holding a shell node's takes phi).
 *
 * LDP and SecLDP: the attackers see every message in the graph, so the
 * victim's own injection g + noise is the difference of its message and
 * the weighted messages of its row one round earlier; that statistic alone
 * gives the lower bound (the exact value when every node sends).
 *
 * Covariance domination (dominated_blocks, every trust model): the view
 * plus independent Gaussian noise that tops its covariance up to a
 * computable Sigma' >= Cov(view), with the exact full-graph mean. Sigma'
 * keeps the inflow as noise: (1 + c) Cov(ball's own noise) + (1 + 1/c)
 * (an energy bound on the outside states' covariance, propagated). The
 * printed mu_lower is the largest of the bounds computed.
 */
#include "privacy/local_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define FAR G_MAXUINT

/* The ball's state rows of one W_k, only the state's columns (original
 * weights). The state: the ball's nodes, then on a recorded stale-mode run
 * the record's slots (docs/local-bounds.md, "The lower bound of a recorded
 * run"): a slot row copies a node's message (e_v), or keeps its content
 * (itself). A column outside the state (a shell node) is inflow. */
typedef struct {
  guint *ptr, *col;
  double *val;
  gboolean *edge; /* the row lists a column outside the state: inflow enters it */
  /* The slots (0 .. L-1) whose row is not "keep": the others keep their
   * content in place (propagate), so a round costs the ball's rows and
   * these. read_slot: one of these rows reads a slot's column. */
  guint *chg, n_chg;
  gboolean read_slot;
} BallRows;

/* @row: the @nx state rows' indices in @w (the ball's @nb nodes, then the
 * slots); @state: index in @w -> state index (FAR: outside). */
static void ball_rows(const TopoGossip *w, const guint *row, guint nb, guint nx, const guint *state,
                      BallRows *out) {
  GArray *col = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *val = g_array_new(FALSE, FALSE, sizeof(double));
  out->ptr = g_new(guint, nx + 1);
  out->edge = g_new0(gboolean, nx);
  for (guint i = 0; i < nx; i++) {
    out->ptr[i] = col->len;
    const guint *c;
    const double *v;
    guint len = topo_gossip_row(w, row[i], &c, &v);
    for (guint j = 0; j < len; j++) {
      if (state[c[j]] == FAR) {
        out->edge[i] = TRUE;
        continue;
      }
      g_array_append_val(col, state[c[j]]);
      g_array_append_val(val, v[j]);
    }
  }
  out->ptr[nx] = col->len;
  out->col = (guint *)(void *)g_array_free(col, FALSE);
  out->val = (double *)(void *)g_array_free(val, FALSE);
  /* A slot's row keeps its content iff it is itself with weight 1 exactly:
   * then 0 + 1 x = x bit for bit (no -0 arises: every sum starts at +0),
   * what the product over every row gave, so the slot is left in place. */
  out->chg = g_new(guint, nx - nb);
  out->n_chg = 0;
  out->read_slot = FALSE;
  for (guint i = nb; i < nx; i++) {
    guint e = out->ptr[i];
    if (!out->edge[i] && out->ptr[i + 1] == e + 1 && out->col[e] == i && out->val[e] == 1.0)
      continue;
    out->chg[out->n_chg++] = i - nb;
    for (; e < out->ptr[i + 1]; e++)
      out->read_slot = out->read_slot || out->col[e] >= nb;
  }
}

static void ball_rows_clear(BallRows *b) {
  g_free(b->ptr);
  g_free(b->col);
  g_free(b->val);
  g_free(b->edge);
  g_free(b->chg);
}

/* A propagated block of the state, width columns (row-major): the ball's
 * nodes' rows double-buffered (cur, this round's; next), the slots' rows
 * (slot, L x width) updated in place, since most keep their content from
 * one round to the next. @tmp: a changing slot row's scratch (chg_max x
 * width) when one reads a slot (never on a record: a slot row copies a
 * node's message). */
typedef struct {
  double *cur, *next, *slot, *tmp;
  guint nb, L, width;
} Prop;

static void prop_init(Prop *s, guint nb, guint L, guint chg_max, guint width) {
  s->nb = nb;
  s->L = L;
  s->width = width;
  s->cur = g_new(double, (gsize)nb *width);
  s->next = g_new(double, (gsize)nb *width);
  s->slot = g_new(double, (gsize)L *width);
  s->tmp = g_new(double, (gsize)chg_max *width);
}

static void prop_clear(Prop *s) {
  g_free(s->cur);
  g_free(s->next);
  g_free(s->slot);
  g_free(s->tmp);
}

/* Zeroes the state's first @width columns, the width of the next pass. */
static void prop_zero(Prop *s, guint width) {
  s->width = width;
  memset(s->cur, 0, sizeof(double) * s->nb * width);
  if (s->L > 0)
    memset(s->slot, 0, sizeof(double) * s->L * width);
}

/* State row @i (a node's, then the slots'). */
static double *prop_row(const Prop *s, guint i) {
  return i < s->nb ? s->cur + (gsize)i * s->width : s->slot + (gsize)(i - s->nb) * s->width;
}

/* @y = state row @i of W_ball x, x the state in @s. */
static void row_product(const BallRows *w, guint i, const Prop *s, double *y) {
  guint width = s->width;
  memset(y, 0, sizeof(double) * width);
  for (guint e = w->ptr[i]; e < w->ptr[i + 1]; e++) {
    const double *xj = prop_row(s, w->col[e]);
    double a = w->val[e];
    for (guint k = 0; k < width; k++)
      y[k] += a * xj[k];
  }
}

/* x <- W_ball x on the state in @s: the nodes' rows into next (then
 * swapped), then the changing slots' rows, in place once nothing reads
 * their old content. A kept slot is not touched. */
static void apply(const BallRows *w, Prop *s) {
  guint nb = s->nb, width = s->width;
  for (guint i = 0; i < nb; i++)
    row_product(w, i, s, s->next + (gsize)i * width);
  if (w->read_slot) {
    for (guint j = 0; j < w->n_chg; j++)
      row_product(w, nb + w->chg[j], s, s->tmp + (gsize)j * width);
    for (guint j = 0; j < w->n_chg; j++)
      memcpy(s->slot + (gsize)w->chg[j] * width, s->tmp + (gsize)j * width, sizeof(double) * width);
  } else {
    for (guint j = 0; j < w->n_chg; j++)
      row_product(w, nb + w->chg[j], s, s->slot + (gsize)w->chg[j] * width);
  }
  double *t = s->cur;
  s->cur = s->next;
  s->next = t;
}

/* The ball problem: nodes (sub indices 0 .. nb-1), rounds, seen messages;
 * its state: the nodes, then on a recorded stale-mode run the slots (nx). */
typedef struct {
  guint nb, nx, T, K, R, n_w;
  BallRows *w;
  guint chg_max;            /* the most changing slots of a W_r whose row reads a slot (Prop.tmp) */
  guint *recv_start, *recv; /* PNDP: per round, the attackers' neighbours (ball indices) */
  guint *noisy;
  guint nz;
  const gboolean *attacker; /* ball indices */
  /* DECOR: the secrets' variance in units of the local noise's (0: none),
   * the full problem (its rows list the nodes beyond the ball) and the
   * ball's node ids. */
  double secret_var;
  const PrivStructuredProblem *p;
  const guint *ball, *sub; /* ball index -> node, node -> ball index (FAR outside) */
} Ball;

/* MF-D-SGD's noise in the structured path's units: node v's noise over its
 * steps is F(v) z_v, the blocks then scaled by @unit (priv_structured_blocks:
 * one C's C^-1 and 1 / sens(C)^2; a C per class, class c's r_c C_c^-1,
 * r_c = sens(C_c) / sens(C_0), and 1 / sens(C_0)^2). */
typedef struct {
  const double *F;  /* T x T per class (one without classes); NULL: white noise */
  const guint *cls; /* node of the problem -> its class (NULL: every node F) */
  guint n_F, T;
  double unit;
} NoiseF;

/* Node @v's noise factor (NULL: white noise). */
static const double *factor_of(const NoiseF *f, guint v) {
  return f->F && f->cls ? f->F + (gsize)f->cls[v] * f->T * f->T : f->F;
}

static const BallRows *ball_w(const Ball *b, guint r) {
  return &b->w[b->n_w == 1 ? 0 : r];
}

/* Copies rows of Phi (nb x width) seen in round r into rows e of out. */
static void collect(const Ball *b, guint r, const double *Phi, guint width, double *out, gsize ld,
                    gsize row0) {
  for (guint e = b->recv_start[r]; e < b->recv_start[r + 1]; e++)
    memcpy(out + (e - row0) * ld, Phi + (gsize)b->recv[e] * width, sizeof(double) * width);
}

/* Relative pivot below which a projected message counts as noiseless and is
 * dropped. Dropping a message is post-processing, so any threshold is sound;
 * this one keeps the solve L^-1 M well conditioned (errors of rounding in M
 * amplified by at most 1 / sqrt(1e-9) ~ 3e4). */
#define LOWER_PIVOT_TOL 1e-9

/* The messages both bounds keep: a pivoted Cholesky of the p x p symmetric
 * @K (row-major, lower triangle read and overwritten by its factor) down to
 * LOWER_PIVOT_TOL of its largest diagonal entry; dpstrf stops at the first
 * pivot below it, so the rows beyond *@rank are dropped (a sub-statistic,
 * which can only lower the bound). *@rank = 0 when @K is zero. *@piv
 * (g_free) holds the pivots, or NULL when @K is zero. FALSE with
 * PRIV_ERROR_NUMERICAL when LAPACK rejects its arguments. */
static gboolean lower_kept_messages(double *K, gsize p, lapack_int **piv, lapack_int *rank,
                                    GError **error) {
  double dmax = 0.0;
  for (gsize i = 0; i < p; i++)
    dmax = MAX(dmax, K[i * p + i]);
  *rank = 0;
  if (dmax == 0.0)
    return TRUE;
  *piv = g_new(lapack_int, p);
  lapack_int info = LAPACKE_dpstrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)p, K, (lapack_int)p, *piv,
                                   rank, LOWER_PIVOT_TOL * dmax);
  if (info < 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the local lower bound: the pivoted Cholesky factorization failed "
                "(LAPACK info %d)",
                (int)info);
    return FALSE;
  }
  return TRUE;
}

/* Whether the attackers know the secrets of @v's edges: PNDP and SecLDP
 * attackers know their own edges' secrets, LDP ones none. O(attackers). */
static gboolean secret_known(const PrivStructuredProblem *p, guint v) {
  if (p->trust == PRIV_TRUST_LDP)
    return FALSE;
  for (guint a = 0; a < p->n_attackers; a++)
    if (p->attackers[a] == v)
      return TRUE;
  return FALSE;
}

/* DECOR: the gossip whose support carries round @r's secrets: the
 * schedule's (secret_gossip) on a recorded run, whose W_r lists only the
 * messages a gather used; else W_r. */
static const TopoGossip *secret_w(const PrivStructuredProblem *p, guint r) {
  if (p->secret_gossip != NULL)
    return p->secret_gossip[p->n_secret_gossip == 1 ? 0 : r];
  return p->gossip[p->n_gossip == 1 ? 0 : r];
}

/* DECOR: secret_var over the local noise variance, 0 when the run has no
 * edge secrets. */
static double decor_secret_var(const PrivStructuredProblem *p) {
  if (p->protocol != PRIV_PROTOCOL_DECOR || !(p->sigma_secret > 0) || !(p->sigma > 0))
    return 0.0;
  double ratio = p->sigma_secret / p->sigma;
  return ratio * ratio;
}

/*
 * DECOR: Y := Mq Cov, where Mq (p x nz T, column (i, k): noisy node i's
 * unit injection at step k) and Cov = I + secret_var sum_e d_e d_e^T over
 * the secrets the attackers do not know: per step k, each edge of W_{kK}'s
 * support without an end whose secrets they know, d_e = e_(a,k) - e_(b,k)
 * (+ at one end, - at the other; the sign convention does not change the
 * covariance). An edge to a node beyond the ball has one end in the ball:
 * d_e = e_(a,k), the secret's other side is in the inflow (or not seen at
 * all); it stays noise here, which is what the original attackers face.
 * @nidx: ball index -> noisy index (FAR: not noisy). O(T edges p).
 */
static void secret_cov_apply(const Ball *b, const guint *nidx, const double *Mq, gsize p,
                             double *Y) {
  const guint *sub = b->sub;
  guint T = b->T, K = b->K;
  gsize cols = (gsize)b->nz * T;
  memcpy(Y, Mq, sizeof(double) * p * cols);
  double s2 = b->secret_var;
  for (guint k = 0; k < T; k++) {
    guint r = k * K;
    const TopoGossip *w = secret_w(b->p, r);
    for (guint i = 0; i < b->nb; i++) {
      guint ia = nidx[i], va = b->ball[i];
      if (ia == FAR || secret_known(b->p, va))
        continue;
      const guint *c;
      const double *x;
      guint len = topo_gossip_row(w, va, &c, &x);
      for (guint j = 0; j < len; j++) {
        guint vb = c[j], jb = sub[vb];
        /* Each ball-ball edge once (from its smaller end); by the
         * symmetric support both ends list it. */
        if (vb == va || (jb != FAR && jb < i) || secret_known(b->p, vb))
          continue;
        guint ib = jb == FAR ? FAR : nidx[jb];
        gsize ca = (gsize)ia * T + k, cb = ib == FAR ? 0 : (gsize)ib * T + k;
        for (gsize row = 0; row < p; row++) {
          const double *m = Mq + row * cols;
          double d = s2 * (m[ca] - (ib == FAR ? 0.0 : m[cb]));
          Y[row * cols + ca] += d;
          if (ib != FAR)
            Y[row * cols + cb] -= d;
        }
      }
    }
  }
}

/* (Sec)LDP: the dense projected view of every ball message only up to this
 * many messages (its m x m matrices; the injection statistic covers the
 * rest). */
#define LOWER_DENSE_LDP_MAX 3000

/* Column (i, k) of @M (m x nz T, zeroed by the caller): noisy node i's unit
 * injection at step k propagated through the ball's own rows of W_r, read
 * at the seen messages. @s: the state's scratch, nz columns at least. */
static void ball_response(const Ball *b, double *M, Prop *s) {
  guint T = b->T, K = b->K, R = b->R, nz = b->nz;
  gsize cols = (gsize)nz * T;
  for (guint k = 0; k < T; k++) {
    prop_zero(s, nz);
    for (guint i = 0; i < nz; i++)
      s->cur[(gsize)b->noisy[i] * nz + i] = 1.0;
    for (guint r = k * K; r < R; r++) {
      for (guint e = b->recv_start[r]; e < b->recv_start[r + 1]; e++) {
        const double *src = s->cur + (gsize)b->recv[e] * nz;
        double *dst = M + (gsize)e * cols + k;
        for (guint i = 0; i < nz; i++)
          dst[(gsize)i * T] = src[i];
      }
      if (r + 1 < R)
        apply(ball_w(b, r), s);
    }
  }
}

/*
 * The projected lower blocks (unit noise; @unit scales them as in
 * priv_structured_blocks): X[i] for every ball node i (T x T, zero for
 * attackers). See the file comment and docs/local-bounds.md.
 */
static gboolean projected_blocks(const Ball *b, const NoiseF *nf, double *X, gsize max_bytes,
                                 GError **error) {
  guint nb = b->nb, nx = b->nx, T = b->T, R = b->R, nz = b->nz;
  gsize m = b->recv_start[R], cols = (gsize)nz * T;
  if (m == 0 || nz == 0)
    return TRUE;
  /* The most state rows inflow enters in one round (nd below). */
  guint nd_max = 0;
  for (guint s = 1; s < R; s++) {
    const BallRows *w = ball_w(b, s - 1);
    guint nd = 0;
    for (guint i = 0; i < nx; i++)
      nd += w->edge[i];
    nd_max = MAX(nd_max, nd);
  }
  guint width = MAX(nz, nd_max);
  /* M, the projected M, its noise version (MF-D-SGD) and Z (m x cols
   * each at most), an inflow block (m x nd_max), G, its eigenvalues and
   * K (m x m each), the propagated state (Prop: 2 nb + L + chg_max rows
   * of width). */
  gsize count = priv_size_sum3(m, cols * (nf->F || b->secret_var > 0 ? 4 : 3) + nd_max, m, 3 * m,
                               2 * (gsize)nb + (nx - nb) + b->chg_max, width);
  if (!priv_check_budget(mf_doubles_bytes(count), max_bytes, "the local lower bound", error))
    return FALSE;
  gboolean ok = FALSE;
  double *M = g_new0(double, m *cols);
  Prop st;
  prop_init(&st, nb, nx - nb, b->chg_max, width);
  double *G = g_new0(double, m *m), *lam = g_new(double, m);
  double *Mp = NULL, *Mn = NULL, *Km = NULL, *Z = NULL, *Ns = NULL;
  lapack_int *piv = NULL;

  /* Column (i, k): noisy node i's injection at step k through the ball. */
  ball_response(b, M, &st);

  /* G = sum_s N_s N_s^T / |N_s|^2: the span of the inflow's effect on the
   * messages. N_s: a unit inflow into each edge row of the state in round
   * s (into x_s), s >= 1, propagated: a ball node whose row reads the
   * shell, or a slot that starts holding a shell node's message. Each
   * round is scaled to unit norm (the span does not change) so that
   * early, attenuated rounds keep their weight in the rank decision below.
   * Inflow into every edge row separately spans at least what the shell's
   * states can send (more nuisance: sound). */
  gboolean any = FALSE;
  for (guint s = 1; s < R; s++) {
    const BallRows *w = ball_w(b, s - 1);
    guint nd = 0;
    for (guint i = 0; i < nx; i++)
      nd += w->edge[i];
    gsize rows = m - b->recv_start[s];
    if (nd == 0 || rows == 0)
      continue;
    prop_zero(&st, nd);
    for (guint i = 0, j = 0; i < nx; i++)
      if (w->edge[i])
        prop_row(&st, i)[j++] = 1.0;
    Ns = g_renew(double, Ns, rows *nd);
    for (guint r = s; r < R; r++) {
      collect(b, r, st.cur, nd, Ns, nd, b->recv_start[s]);
      if (r + 1 < R)
        apply(ball_w(b, r), &st);
    }
    double f = 0.0;
    for (gsize i = 0; i < rows * nd; i++)
      f += Ns[i] * Ns[i];
    if (f == 0.0)
      continue;
    any = TRUE;
    gsize o = b->recv_start[s];
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)rows, (int)nd, 1.0 / f, Ns, (int)nd,
                1.0, G + o * m + o, (int)m);
  }

  /* Q: the eigenvectors of G whose eigenvalue is numerically zero, i.e.
   * at most 16 m eps lambda_max (the rounding of the products and of the
   * eigensolver). Anything above is treated as inflow and projected out:
   * killing more directions is still post-processing, so the decision errs
   * on the sound side; a direction kept carries inflow of relative weight
   * at most sqrt(16 m eps), below what double precision resolves. */
  gsize p = m;
  const double *Mq = M;
  if (any) {
    lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)m, G, (lapack_int)m,
                                    lam);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the local lower bound: the eigensolver failed on the inflow's span "
                  "(LAPACK info %d)",
                  (int)info);
      goto out;
    }
    double thr = 16.0 * (double)m * DBL_EPSILON * lam[m - 1];
    p = 0;
    while (p < m && lam[p] <= thr)
      p++;
    if (p == 0) {
      ok = TRUE; /* the inflow spans every message: nothing is certified */
      goto out;
    }
    /* Mp = Q^T M, Q = the first p columns of the eigenvectors (ascending). */
    Mp = g_new(double, p *cols);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)p, (int)cols, (int)m, 1.0, G, (int)m,
                M, (int)cols, 0.0, Mp, (int)cols);
    Mq = Mp;
  }

  /* As the dense engine: K = (projected noise columns) Gram, pivoted
   * Cholesky, X_u = (L^-1 M_u)^T (L^-1 M_u). */
  const double *Mnoise = Mq;
  if (nf->F) {
    /* Each node's own (class's) factor. */
    Mn = g_new(double, p *cols);
    for (guint i = 0; i < nz; i++)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)p, (int)T, (int)T, 1.0,
                  Mq + (gsize)i * T, (int)cols, factor_of(nf, b->ball[b->noisy[i]]), (int)T, 0.0,
                  Mn + (gsize)i * T, (int)cols);
    Mnoise = Mn;
  }
  Km = g_new0(double, p *p);
  if (b->secret_var > 0) {
    /* DECOR: K = Mq Cov Mq^T, Cov the local noise plus the unknown
     * secrets (white in time, so no Cinv). */
    guint *nidx = g_new(guint, nb);
    memset(nidx, 0xff, sizeof(guint) * nb);
    for (guint i = 0; i < nz; i++)
      nidx[b->noisy[i]] = i;
    Mn = g_new(double, p *cols);
    secret_cov_apply(b, nidx, Mq, p, Mn);
    g_free(nidx);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)p, (int)p, (int)cols, 1.0, Mn,
                (int)cols, Mq, (int)cols, 0.0, Km, (int)p);
  } else {
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)p, (int)cols, 1.0, Mnoise, (int)cols,
                0.0, Km, (int)p);
  }
  lapack_int rank = 0;
  if (!lower_kept_messages(Km, p, &piv, &rank, error))
    goto out;
  if (rank == 0) {
    ok = TRUE;
    goto out;
  }
  Z = g_new(double, (gsize)rank *cols);
  for (lapack_int i = 0; i < rank; i++)
    memcpy(Z + (gsize)i * cols, Mq + (gsize)(piv[i] - 1) * cols, sizeof(double) * cols);
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)rank,
              (int)cols, 1.0, Km, (int)p, Z, (int)cols);
  for (guint i = 0; i < nz; i++) {
    guint u = b->noisy[i];
    if (b->attacker[u])
      continue;
    double *Xu = X + (gsize)u * T * T;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)T, (int)rank, nf->unit,
                Z + (gsize)i * T, (int)cols, 0.0, Xu, (int)T);
    mf_fill_upper_from_lower(Xu, T);
  }
  ok = TRUE;
out:
  g_free(M);
  prop_clear(&st);
  g_free(G);
  g_free(lam);
  g_free(Mp);
  g_free(Mn);
  g_free(Km);
  g_free(Z);
  g_free(Ns);
  g_free(piv);
  return ok;
}

/* ||W||_2 <= sqrt(max absolute row sum x max absolute column sum) (Holder:
 * ||W||_2^2 <= ||W||_1 ||W||_inf): 1 for a doubly stochastic W. @colsum: n
 * scratch. O(nnz). */
static double norm2_bound(const TopoGossip *w, double *colsum) {
  guint n = topo_gossip_n(w);
  double rmax = 0.0, cmax = 0.0;
  memset(colsum, 0, sizeof(double) * n);
  for (guint i = 0; i < n; i++) {
    const guint *c;
    const double *v;
    guint len = topo_gossip_row(w, i, &c, &v);
    double rs = 0.0;
    for (guint j = 0; j < len; j++) {
      rs += fabs(v[j]);
      colsum[c[j]] += fabs(v[j]);
    }
    rmax = MAX(rmax, rs);
  }
  for (guint i = 0; i < n; i++)
    cmax = MAX(cmax, colsum[i]);
  /* Each sum of len terms is rounded by at most len eps relative; 1e-12
   * covers rows of up to 4,000 entries with room. */
  return sqrt(rmax * cmax) * (1.0 + 1e-12);
}

/* W[i, j], 0 when row i does not list j (rows are sorted). */
static double entry(const TopoGossip *w, guint i, guint j) {
  const guint *c;
  const double *v;
  guint len = topo_gossip_row(w, i, &c, &v);
  gsize at = sim_sorted_search(c, 0, len, j);
  return at < len && c[at] == j ? v[at] : 0.0;
}

/* Whether @w is nonnegative, row-stochastic and reversible with respect to
 * @pi (pi_i W[i, j] = pi_j W[j, i]; pi = NULL: all ones, W symmetric), each
 * to 1e-12 relative. O(nnz log degree). */
static gboolean reversible(const TopoGossip *w, const double *pi) {
  guint n = topo_gossip_n(w);
  for (guint i = 0; i < n; i++) {
    const guint *c;
    const double *v;
    guint len = topo_gossip_row(w, i, &c, &v);
    double rs = 0.0;
    for (guint j = 0; j < len; j++) {
      if (!(v[j] >= 0.0))
        return FALSE;
      rs += v[j];
      double pij = (pi ? pi[i] : 1.0) * v[j], pji = (pi ? pi[c[j]] : 1.0) * entry(w, c[j], i);
      if (fabs(pij - pji) > 1e-12 * MAX(pij, pji))
        return FALSE;
    }
    if (fabs(rs - 1.0) > 1e-12)
      return FALSE;
  }
  return TRUE;
}

/*
 * lambda and omega: Cov(s) <= lambda diag(omega) (x I over rounds) for the
 * noise part s of the states x_q, q = 0 .. R - 2, of ANY set of nodes (the
 * ones next to the ball), in units of one injection's variance
 * (docs/local-bounds.md, "Covariance domination"). x_q = sum_{k: kK <= q}
 * P_{q,kK} xi_k, P = W_{q-1} ... W_{kK}, so for a = (a_q)
 * |F^T a| <= sum_k (sum_{q >= kK} |P_{q,kK}^T a_q|)^2 and:
 * - every W_r nonnegative, row-stochastic and reversible for one pi
 *   (symmetric: pi = 1; uniform weights on a static graph: pi_i = its row's
 *   length): P P^T <= pi_max Pi^-1, so |P^T a_q|^2 <= sum_t omega_t a_qt^2
 *   with omega_t = pi_max / pi_t, and lambda = lambda_max(G), G[q, q'] the
 *   number of steps k with kK <= min(q, q');
 * - otherwise |P^T| <= prod rho_i (Holder, norm2_bound), omega = 1 and G
 *   carries the products.
 * Then sum_k (...)^2 = beta^T G beta <= lambda |beta|^2, beta_q = |omega^1/2 a_q|.
 * @omega: n values (written). O(R^3 + n_gossip nnz log degree).
 */
static gboolean energy_bound(const PrivStructuredProblem *p, guint K, guint R, double *out,
                             double *omega, GError **error) {
  guint n = topo_gossip_n(p->gossip[0]);
  guint Q = R - 1; /* outside rounds 0 .. R - 2 feed inflows 1 .. R - 1 */
  double *colsum = g_new(double, n), *rho = g_new(double, MAX(Q, 1u));
  double *G = g_new0(double, (gsize)Q *Q), *lam = g_new(double, Q), *pi = g_new(double, Q);
  guint nw = MIN(p->n_gossip, Q);
  gboolean rev = TRUE;
  for (guint i = 0; i < nw && rev; i++)
    rev = reversible(p->gossip[i], NULL);
  for (guint i = 0; i < n; i++)
    omega[i] = 1.0;
  if (!rev) { /* pi_i = the length of row i of W_0 */
    double pmax = 0.0;
    for (guint i = 0; i < n; i++) {
      const guint *c;
      const double *v;
      colsum[i] = topo_gossip_row(p->gossip[0], i, &c, &v);
      pmax = MAX(pmax, colsum[i]);
    }
    rev = TRUE;
    for (guint i = 0; i < nw && rev; i++)
      rev = reversible(p->gossip[i], colsum);
    /* 1e-9 covers the 1e-12 tolerance of the reversibility check. */
    for (guint i = 0; rev && i < n; i++)
      omega[i] = pmax / colsum[i] * (1.0 + 1e-9);
  }
  for (guint i = 0; i < Q; i++)
    rho[i] = rev                         ? 1.0
             : i == 0 || p->n_gossip > 1 ? norm2_bound(p->gossip[p->n_gossip == 1 ? 0 : i], colsum)
                                         : rho[0];
  for (guint k = 0; k * K < Q; k++) {
    /* pi[q] = prod_{i = kK}^{q - 1} rho_i for q >= kK. */
    double acc = 1.0;
    for (guint q = k * K; q < Q; q++) {
      pi[q] = acc;
      acc *= rho[q];
    }
    cblas_dsyr(CblasRowMajor, CblasLower, (int)(Q - k * K), 1.0, pi + k * K, 1,
               G + (gsize)(k * K) * Q + k * K, (int)Q);
  }
  lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', (lapack_int)Q, G, (lapack_int)Q, lam);
  gboolean ok = info == 0;
  if (!ok)
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the local lower bound: the eigensolver failed on the inflow's energy bound "
                "(LAPACK info %d)",
                (int)info);
  else /* dsyev's error is a few Q eps lambda_max (backward stable). */
    *out = lam[Q - 1] * (1.0 + 16.0 * Q * DBL_EPSILON);
  g_free(colsum);
  g_free(rho);
  g_free(G);
  g_free(lam);
  g_free(pi);
  return ok;
}

/* Flops beyond which the full-graph mean response (R nnz m / 2) is not
 * computed and the covariance-domination bound is skipped (the projection
 * bound stands): about a minute on one core. */
#define LOWER_DOMINATION_MAX_FLOPS 5e10

/* Grid of c for (1 + c) Cov(a) + (1 + 1/c) Cov(b): 10^-6 .. 10^3 by tenths of a decade. */
#define LOWER_C_GRID 91

/*
 * The covariance-domination lower blocks (docs/local-bounds.md): the seen
 * messages are Y = A g + M z_B + N s, A the FULL graph's response to the
 * gradients (exact), M z_B the ball's own noise through the ball's rows, s
 * the noise part of the states beyond the ball in rounds 0 .. R - 2, N its
 * response through the ball. Cov(Y) <= Sigma_c = (1 + c) Cov(M z_B) +
 * (1 + 1/c) lambda N N^T (energy_bound), so Y plus independent Gaussian
 * noise of covariance Sigma_c - Cov(Y) (a post-processing) has Fisher
 * information A_u^T Sigma_c^-1 A_u <= X_u for every c > 0. Writes X3[i]
 * for every ball index i (unit noise, scaled by @unit); leaves it zero when
 * the full-graph response would exceed the memory budget or
 * LOWER_DOMINATION_MAX_FLOPS. Errors: PRIV_ERROR_MEMORY (the ball's dense
 * matrices), PRIV_ERROR_NUMERICAL (LAPACK).
 * Cost: O(R nnz m) propagation on the full graph (m seen messages),
 * O(R^2 nnz_B (nz + ns) + R m^2 ns + m^2 nz T + m^3) on the ball (ns
 * outside neighbours of the ball), O(n m + m (m + nz T)) memory.
 */
static gboolean dominated_blocks(const PrivStructuredProblem *p, const Ball *b, const guint *ball,
                                 const guint *sub, const NoiseF *nf, double *X3, GError **error) {
  guint nb = b->nb, T = b->T, K = b->K, R = b->R, nz = b->nz;
  guint n = topo_gossip_n(p->gossip[0]);
  gsize m = b->recv_start[R], cols = (gsize)nz * T;
  if (m == 0 || nz == 0)
    return TRUE;
  gsize nnz = 0;
  for (guint k = 0; k < p->n_gossip; k++)
    for (guint i = 0; i < n; i++) {
      const guint *c;
      const double *v;
      nnz += topo_gossip_row(p->gossip[k], i, &c, &v);
    }
  if (p->n_gossip == 1)
    nnz *= R;
  if ((double)nnz * (double)m / 2 > LOWER_DOMINATION_MAX_FLOPS)
    return TRUE;
  /* Full graph: two n x m propagation buffers and an n outside index; the
   * ball: M and A (m x cols), Sigma_a, Sigma_b, C (m x m), the inflow's
   * propagation (nb x ns and its seen rows, ns <= n). */
  gsize count = priv_size_sum3(2 * (gsize)n + 2 * nb, m, m, 2 * cols + 3 * m, 2, n);
  GError *budget = NULL;
  if (!priv_check_budget(mf_doubles_bytes(count), p->max_bytes, "", &budget)) {
    g_error_free(budget); /* the projection bound stands */
    return TRUE;
  }
  double lambda = 0.0;
  double *omega = g_new(double, n);
  if (R > 1 && !energy_bound(p, K, R, &lambda, omega, error)) {
    g_free(omega);
    return FALSE;
  }
  gboolean ok = FALSE;
  double *A = g_new0(double, m *cols), *M = g_new0(double, m *cols);
  double *Sa = g_new0(double, m *m), *Sb = g_new0(double, m *m), *Cm = NULL;
  double *H = g_new0(double, (gsize)n *m),
         *H2 = g_new0(double, (gsize)n *m); /* columns below lo stay 0 */
  Prop st;                                  /* no slots here (the caller's condition) */
  prop_init(&st, nb, 0, 0, MAX(nz, 1u));
  guint *oidx = g_new(guint, n);
  double *Ns = NULL, *Mn = NULL, *lam = NULL, *Z = NULL, *Zw = NULL;
  lapack_int *piv = NULL;
  memset(oidx, 0xff, sizeof(guint) * n);

  /* A: backwards on the full graph. Column e of H at round q is row v_e of
   * W_{r_e - 1} ... W_q (message e = x_{r_e}[v_e]); messages are sorted by
   * round, so only columns lo .. m - 1 are non-zero at round q. */
  for (guint q = R; q-- > 0;) {
    gsize lo = b->recv_start[q];
    for (gsize e = lo; e < b->recv_start[q + 1]; e++)
      H[(gsize)ball[b->recv[e]] * m + e] = 1.0;
    if (q % K == 0)
      for (guint i = 0; i < nz; i++) {
        const double *h = H + (gsize)ball[b->noisy[i]] * m;
        for (gsize e = lo; e < m; e++)
          A[e * cols + (gsize)i * T + q / K] = h[e];
      }
    if (q == 0)
      break;
    const TopoGossip *w = p->gossip[p->n_gossip == 1 ? 0 : q - 1];
    for (guint j = 0; j < n; j++)
      memset(H2 + (gsize)j * m + lo, 0, sizeof(double) * (m - lo));
    for (guint j = 0; j < n; j++) {
      const guint *c;
      const double *v;
      guint len = topo_gossip_row(w, j, &c, &v);
      const double *hj = H + (gsize)j * m;
      for (guint t = 0; t < len; t++) {
        double *dst = H2 + (gsize)c[t] * m, a = v[t];
        for (gsize e = lo; e < m; e++)
          dst[e] += a * hj[e];
      }
    }
    double *t = H;
    H = H2;
    H2 = t;
  }
  g_clear_pointer(&H, g_free);
  g_clear_pointer(&H2, g_free);

  /* Sigma_a = M (I x Cinv Cinv^T) M^T: the ball's own noise through the ball. */
  ball_response(b, M, &st);
  const double *Mnoise = M;
  if (nf->F) {
    Mn = g_new(double, m *cols);
    for (guint i = 0; i < nz; i++)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)T, (int)T, 1.0,
                  M + (gsize)i * T, (int)cols, factor_of(nf, ball[b->noisy[i]]), (int)T, 0.0,
                  Mn + (gsize)i * T, (int)cols);
    Mnoise = Mn;
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)m, (int)cols, 1.0, Mnoise, (int)cols,
              0.0, Sa, (int)m);
  g_clear_pointer(&Mn, g_free);

  /* Sigma_b / lambda = sum_s N_s N_s^T: N_s the seen messages' response to
   * a unit state at each outside node t in round s - 1, entering the ball
   * as the column W_{s-1}[B, t] in round s. */
  for (guint s = 1; s < R && lambda > 0; s++) {
    const TopoGossip *w = p->gossip[p->n_gossip == 1 ? 0 : s - 1];
    guint ns = 0;
    GArray *outs = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < nb; i++) {
      const guint *c;
      const double *v;
      guint len = topo_gossip_row(w, ball[i], &c, &v);
      for (guint j = 0; j < len; j++)
        if (sub[c[j]] == FAR && oidx[c[j]] == FAR) {
          oidx[c[j]] = ns++;
          g_array_append_val(outs, c[j]);
        }
    }
    gsize rows = m - b->recv_start[s];
    if (ns > 0 && rows > 0) {
      Prop in;
      prop_init(&in, nb, 0, 0, ns);
      prop_zero(&in, ns);
      Ns = g_renew(double, Ns, rows *ns);
      for (guint i = 0; i < nb; i++) {
        const guint *c;
        const double *v;
        guint len = topo_gossip_row(w, ball[i], &c, &v);
        for (guint j = 0; j < len; j++)
          if (sub[c[j]] == FAR)
            in.cur[(gsize)i * ns + oidx[c[j]]] = v[j] * sqrt(omega[c[j]]);
      }
      for (guint r = s; r < R; r++) {
        collect(b, r, in.cur, ns, Ns, ns, b->recv_start[s]);
        if (r + 1 < R)
          apply(ball_w(b, r), &in);
      }
      gsize o = b->recv_start[s];
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)rows, (int)ns, 1.0, Ns, (int)ns,
                  1.0, Sb + o * m + o, (int)m);
      prop_clear(&in);
    }
    for (guint j = 0; j < outs->len; j++)
      oidx[g_array_index(outs, guint, j)] = FAR;
    g_array_free(outs, TRUE);
  }
  /* The noise per injection is I (white) or F F^T <= |F|_2^2 I, the
   * largest over the classes (any outside node may be of any class). */
  double cn = nf->F ? 0.0 : 1.0;
  lapack_int info = 0;
  for (guint c = 0; nf->F && c < nf->n_F && info == 0; c++) {
    double *CC = g_new(double, (gsize)T *T), *ev = g_new(double, T);
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)T, (int)T, 1.0,
                nf->F + (gsize)c * T * T, (int)T, 0.0, CC, (int)T);
    info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', (lapack_int)T, CC, (lapack_int)T, ev);
    cn = info == 0 ? MAX(cn, ev[T - 1] * (1.0 + 16.0 * T * DBL_EPSILON)) : NAN;
    g_free(CC);
    g_free(ev);
  }
  if (info != 0) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "the local lower bound: the eigensolver failed on C^-1 (LAPACK info %d)",
                (int)info);
    goto out;
  }

  /* Messages kept: dropping messages is post-processing. */
  lapack_int rank = 0;
  if (!lower_kept_messages(Sa, m, &piv, &rank, error))
    goto out;
  if (rank == 0) {
    ok = TRUE;
    goto out;
  }
  gsize rk = (gsize)rank;
  /* C = L^-1 Sigma_b[J, J] L^-T (scaled by lambda cn), into M's storage. */
  Cm = g_new(double, rk *rk);
  for (gsize i = 0; i < rk; i++)
    for (gsize j = 0; j < rk; j++) {
      gsize a = (gsize)piv[i] - 1, c = (gsize)piv[j] - 1;
      Cm[i * rk + j] = lambda * cn * (a >= c ? Sb[a * m + c] : Sb[c * m + a]);
    }
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)rk, (int)rk,
              1.0, Sa, (int)m, Cm, (int)rk);
  cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)rk, (int)rk,
              1.0, Sa, (int)m, Cm, (int)rk);
  lam = g_new(double, rk);
  double lmax = 0.0;
  if (lambda > 0) {
    lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int)rk, Cm, (lapack_int)rk, lam);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the local lower bound: the eigensolver failed on the inflow's covariance "
                  "(LAPACK info %d)",
                  (int)info);
      goto out;
    }
    lmax = MAX(lam[rk - 1], 0.0);
    /* Rounding of the whitening and of the eigensolver: every eigenvalue
     * raised by 16 rk eps lambda_max (a larger bound is still a bound). */
    for (gsize i = 0; i < rk; i++)
      lam[i] = MAX(lam[i], 0.0) + 16.0 * (double)rk * DBL_EPSILON * lmax;
  }
  /* Z = Q^T L^-1 A[J, :] (Q = I when there is no inflow). */
  Z = g_new(double, rk *cols);
  for (gsize i = 0; i < rk; i++)
    memcpy(Z + i * cols, A + ((gsize)piv[i] - 1) * cols, sizeof(double) * cols);
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)rk, (int)cols,
              1.0, Sa, (int)m, Z, (int)cols);
  if (lmax > 0) {
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)rk, (int)cols, (int)rk, 1.0, Cm,
                (int)rk, Z, (int)cols, 0.0, A, (int)cols);
    memcpy(Z, A, sizeof(double) * rk * cols);
  }
  /* Per victim: c from the grid maximizing max(trace, 1^T X 1) (any c is
   * sound; this picks a good one cheaply), then X = Z_u^T D_c Z_u. */
  Zw = g_new(double, rk *T);
  double *nrm = g_new(double, rk), *sum = g_new(double, rk);
  for (guint i = 0; i < nz; i++) {
    guint u = b->noisy[i];
    if (b->attacker[u])
      continue;
    for (gsize j = 0; j < rk; j++) {
      const double *z = Z + j * cols + (gsize)i * T;
      nrm[j] = cblas_ddot((int)T, z, 1, z, 1);
      sum[j] = 0.0;
      for (guint t = 0; t < T; t++)
        sum[j] += z[t];
    }
    double best = -1.0, cbest = 0.0;
    for (guint g = 0; lmax > 0 && g < LOWER_C_GRID; g++) {
      double c = pow(10.0, -6.0 + 0.1 * g), tr = 0.0, all = 0.0;
      for (gsize j = 0; j < rk; j++) {
        double wj = 1.0 / ((1.0 + c) + (1.0 + 1.0 / c) * lam[j]);
        tr += wj * nrm[j];
        all += wj * sum[j] * sum[j];
      }
      if (MAX(tr, all) > best) {
        best = MAX(tr, all);
        cbest = c;
      }
    }
    for (gsize j = 0; j < rk; j++) {
      double wj = lmax > 0 ? 1.0 / ((1.0 + cbest) + (1.0 + 1.0 / cbest) * lam[j]) : 1.0;
      double sw = sqrt(wj);
      const double *z = Z + j * cols + (gsize)i * T;
      for (guint t = 0; t < T; t++)
        Zw[j * T + t] = sw * z[t];
    }
    double *Xu = X3 + (gsize)u * T * T;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)T, (int)rk, nf->unit, Zw, (int)T, 0.0,
                Xu, (int)T);
    mf_fill_upper_from_lower(Xu, T);
  }
  g_free(nrm);
  g_free(sum);
  ok = TRUE;
out:
  g_free(A);
  g_free(M);
  g_free(Sa);
  g_free(Sb);
  g_free(Cm);
  g_free(H);
  g_free(H2);
  prop_clear(&st);
  g_free(oidx);
  g_free(omega);
  g_free(Ns);
  g_free(Mn);
  g_free(lam);
  g_free(Z);
  g_free(Zw);
  g_free(piv);
  return ok;
}

/* Whether node v's round-r state is known to LDP/SecLDP attackers: it sends
 * (every message is seen), or it is an attacker under SecLDP (its own). */
static gboolean known_state(const TopoGossip *w, guint v, gboolean own) {
  if (own)
    return TRUE;
  const guint *c;
  const double *x;
  guint len = topo_gossip_row(w, v, &c, &x);
  /* By the symmetric support (checked), v sends iff its row lists another node. */
  for (guint j = 0; j < len; j++)
    if (c[j] != v)
      return TRUE;
  return FALSE;
}

/* Whether LDP/SecLDP attackers know node @u's step-@k injection g + noise:
 * x_{kK}[u] - sum_v W_{kK-1}[u, v] x_{kK-1}[v], every state of which is
 * known (x_0 = the common start at k = 0). O(row length attackers). */
static gboolean injection_seen(const PrivStructuredProblem *p, guint K, guint u, guint k) {
  gboolean secldp = p->trust == PRIV_TRUST_SECLDP;
  guint r = k * K;
  const TopoGossip *w = p->gossip[p->n_gossip == 1 ? 0 : r];
  gboolean seen = known_state(w, u, FALSE);
  if (seen && r > 0) {
    const TopoGossip *w0 = p->gossip[p->n_gossip == 1 ? 0 : r - 1];
    const guint *c;
    const double *x;
    guint len = topo_gossip_row(w0, u, &c, &x);
    guint first_slot = topo_gossip_n(w0) - p->n_delayed;
    for (guint j = 0; j < len && seen; j++) {
      /* A recorded run's slot (stale mode) holds a message some node sent
       * in an earlier round, which these attackers saw (they see every
       * message sent); its row in W says what it holds next, not now. */
      if (c[j] >= first_slot)
        continue;
      /* Another node's input with a weight was a message u received:
       * sent, so seen. Its own row need not say so: a recorded run's
       * shell row is a stand-in (itself only). */
      if (c[j] != u && x[j] != 0.0)
        continue;
      /* A node is an attacker iff it is in p->attackers (few). */
      gboolean own = FALSE;
      for (guint a = 0; secldp && a < p->n_attackers; a++)
        own = own || p->attackers[a] == c[j];
      seen = x[j] == 0.0 || known_state(w0, c[j], own);
    }
  }
  return seen;
}

/*
 * DECOR under LDP and SecLDP: X[u][k, k] = ((I + secret_var L_S)^-1)_uu,
 * the information of the seen injections of the ball's noisy nodes S at
 * step k (S: those injection_seen, not the SecLDP attackers, whose own
 * noise and secrets they know) on g_{u,k}. Their noise is the local noise
 * plus, per edge of W_{kK}'s support whose secret the attackers do not
 * know, +s at one end and -s at the other: covariance I + secret_var L_S,
 * L_S the rows and columns S of that Laplacian over the WHOLE graph (a
 * node's degree counts its edges beyond the ball too). Other nodes'
 * injections are dropped (post-processing); with every node in S it is the
 * exact closed form of the structured path. White in time: X[u] is
 * diagonal. One Cholesky per distinct (W_{kK}, S): O(|S|^3 / 3) each,
 * |S|^2 doubles.
 */
static gboolean decor_injection_blocks(const PrivStructuredProblem *p, guint K, const guint *ball,
                                       guint nb, const guint *sub, const gboolean *att_node,
                                       double unit, double *X, GError **error) {
  guint T = p->T;
  double s2 = decor_secret_var(p);
  if (!priv_check_budget(mf_doubles_bytes((gsize)nb * nb + 2 * (gsize)nb), p->max_bytes,
                         "the local lower bound of DECOR (the ball's injection covariance)", error))
    return FALSE;
  guint *S = g_new(guint, MAX(nb, 1)), *prevS = g_new(guint, MAX(nb, 1));
  guint *idx = g_new(guint, MAX(nb, 1)); /* ball index -> position in S */
  double *Q = g_new(double, (gsize)MAX(nb, 1) * MAX(nb, 1)), *d = g_new(double, MAX(nb, 1));
  guint ns = 0, nprev = 0;
  const TopoGossip *wprev = NULL;
  gboolean ok = TRUE;
  for (guint k = 0; k < T && ok; k++) {
    guint r = k * K;
    const TopoGossip *w = secret_w(p, r);
    ns = 0;
    for (guint i = 0; i < nb; i++) {
      idx[i] = FAR;
      if ((att_node[i] && p->trust == PRIV_TRUST_SECLDP) || !injection_seen(p, K, ball[i], k))
        continue;
      idx[i] = ns;
      S[ns++] = i;
    }
    if (ns == 0)
      continue;
    if (w != wprev || ns != nprev || memcmp(S, prevS, sizeof(guint) * ns) != 0) {
      memset(Q, 0, sizeof(double) * ns * ns);
      for (guint a = 0; a < ns; a++) {
        guint va = ball[S[a]];
        Q[(gsize)a * ns + a] += 1.0;
        if (secret_known(p, va))
          continue;
        const guint *c;
        const double *x;
        guint len = topo_gossip_row(w, va, &c, &x);
        for (guint j = 0; j < len; j++) {
          guint vb = c[j];
          if (vb == va || secret_known(p, vb))
            continue;
          Q[(gsize)a * ns + a] += s2;
          guint jb = sub[vb];
          if (jb != FAR && idx[jb] != FAR)
            Q[(gsize)a * ns + idx[jb]] -= s2; /* both triangles; dpotrf reads the lower */
        }
      }
      /* Q's eigenvalues lie in [1, 1 + 2 s2 max degree] (Gershgorin):
       * well conditioned. (Q^-1)_aa = |column a of L^-1|^2. */
      lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)ns, Q, (lapack_int)ns);
      if (info == 0)
        info = LAPACKE_dtrtri(LAPACK_ROW_MAJOR, 'L', 'N', (lapack_int)ns, Q, (lapack_int)ns);
      if (info != 0) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                    "the local lower bound of DECOR: step %u's noise covariance (%u nodes): "
                    "LAPACK failed (info %d)",
                    k, ns, (int)info);
        ok = FALSE;
        break;
      }
      memset(d, 0, sizeof(double) * ns);
      for (guint a = 0; a < ns; a++)
        for (guint c2 = 0; c2 <= a; c2++)
          d[c2] += Q[(gsize)a * ns + c2] * Q[(gsize)a * ns + c2];
      wprev = w;
      nprev = ns;
      memcpy(prevS, S, sizeof(guint) * ns);
    }
    for (guint a = 0; a < ns; a++)
      if (!att_node[S[a]])
        X[((gsize)S[a] * T + k) * T + k] = unit * d[a];
  }
  g_free(S);
  g_free(prevS);
  g_free(idx);
  g_free(Q);
  g_free(d);
  return ok;
}

/*
 * LDP and SecLDP: X[u] = the Fisher information of u's injections at the
 * steps k where x_{kK}[u] and every state in row u of W_{kK-1} are known:
 * g_{u,k} + noise, noise covariance I (white) or F F^T (MF-D-SGD, F u's
 * own class's factor).
 */
static gboolean injection_blocks(const PrivStructuredProblem *p, guint K, const guint *ball,
                                 guint nb, const gboolean *att_node, const NoiseF *nf, double *X,
                                 GError **error) {
  double unit = nf->unit;
  guint T = p->T;
  guint *obs = g_new(guint, T);
  double *S = g_new(double, (gsize)T *T);
  gboolean ok = TRUE;
  for (guint i = 0; i < nb && ok; i++) {
    guint u = ball[i];
    if (att_node[i])
      continue;
    guint no = 0;
    for (guint k = 0; k < T; k++)
      if (injection_seen(p, K, u, k))
        obs[no++] = k;
    if (no == 0)
      continue;
    double *Xu = X + (gsize)i * T * T;
    const double *Cinv = factor_of(nf, u);
    if (!Cinv) {
      for (guint a = 0; a < no; a++)
        Xu[(gsize)obs[a] * T + obs[a]] = unit;
      continue;
    }
    /* S = (Cinv Cinv^T)[obs, obs], inverted by Cholesky. */
    for (guint a = 0; a < no; a++)
      for (guint c2 = 0; c2 < no; c2++)
        S[(gsize)a * no + c2] = cblas_ddot((int)T, Cinv + (gsize)obs[a] * T, 1,
                                           Cinv + (gsize)obs[c2] * T, 1);
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)no, S, (lapack_int)no);
    if (info == 0)
      info = LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'L', (lapack_int)no, S, (lapack_int)no);
    if (info != 0) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "the local lower bound: the noise covariance of node %u's steps is singular "
                  "(LAPACK info %d)",
                  u, (int)info);
      ok = FALSE;
      break;
    }
    for (guint a = 0; a < no; a++)
      for (guint c2 = 0; c2 <= a; c2++) {
        double v = unit * S[(gsize)a * no + c2];
        Xu[(gsize)obs[a] * T + obs[c2]] = v;
        Xu[(gsize)obs[c2] * T + obs[a]] = v;
      }
  }
  g_free(obs);
  g_free(S);
  return ok;
}

/* C^{-1} by LU (C already checked invertible by the structured path). */
static double *inverse(const double *C, guint T) {
  double *inv = g_memdup2(C, sizeof(double) * T * T);
  lapack_int *ipiv = g_new(lapack_int, T);
  lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)T, (lapack_int)T, inv,
                                   (lapack_int)T, ipiv);
  if (info == 0)
    info = LAPACKE_dgetri(LAPACK_ROW_MAJOR, (lapack_int)T, inv, (lapack_int)T, ipiv);
  g_free(ipiv);
  if (info != 0)
    g_clear_pointer(&inv, g_free);
  return inv;
}

gboolean priv_sens2_lower(const double *X, guint T, guint b, double *out, GError **error) {
  guint k = T / b;
  double *Xj = g_new(double, (gsize)k *k), best = 0.0;
  gboolean ok = TRUE;
  for (guint j = 0; j < b && ok; j++) {
    gboolean zero = TRUE;
    for (guint s = 0; s < k; s++)
      for (guint t = 0; t < k; t++) {
        Xj[(gsize)s * k + t] = X[(gsize)(j + s * b) * T + (j + t * b)];
        zero = zero && Xj[(gsize)s * k + t] == 0.0;
      }
    if (zero)
      continue;
    MfSdpInfo info;
    double v = mf_sdp_max(Xj, k, 1e-7, &info, error);
    if (isnan(v)) {
      ok = FALSE;
      break;
    }
    best = MAX(best, info.lower);
  }
  g_free(Xj);
  *out = best;
  return ok;
}

gboolean priv_local_lower(const PrivStructuredProblem *p, const guint *ball, guint nb,
                          PrivLocalLower which, PrivReport *report, GError **error) {
  guint T = p->T, K = p->K ? p->K : 1, bpart = report->b ? report->b : 1;
  guint n = topo_gossip_n(p->gossip[0]);
  if (!priv_check_budget(sizeof(guint) * (gsize)n, p->max_bytes,
                         "the ball indices of the local lower bound", error))
    return FALSE;
  guint *sub = g_new(guint, n);
  memset(sub, 0xff, sizeof(guint) * n);
  for (guint i = 0; i < nb; i++)
    sub[ball[i]] = i;
  guint *mark = g_new0(guint, nb);
  gboolean *att = g_new0(gboolean, nb);
  for (guint i = 0; i < p->n_attackers; i++)
    att[sub[p->attackers[i]]] = TRUE;
  double unit = 1.0, *C = NULL, *Cinv = NULL;
  NoiseF nf = {.n_F = 1, .T = T, .unit = 1.0};
  gboolean ok = TRUE;
  if (p->protocol == PRIV_PROTOCOL_MFDSGD && p->C_class) {
    /* The structured path's units for a C per class (priv_structured_blocks):
     * class c's factor r_c C_c^-1 of the normalized C_c, r_c =
     * sens(C_c) / sens(C_0), the blocks scaled by 1 / sens(C_0)^2. The
     * classes are public: each node's noise is its own class's. */
    guint bb = p->b ? p->b : 1;
    double s2_0 = 1.0;
    Cinv = g_new(double, (gsize)p->n_C *T *T);
    for (guint c = 0; c < p->n_C && ok; c++) {
      double *Cc = mf_normalized_copy(p->C_set + (gsize)c * T * T, (gsize)T * T);
      double s2 = mf_sensitivity2(Cc, T, T / bb, bb), *Fc = inverse(Cc, T);
      if (c == 0)
        s2_0 = s2;
      double r = sqrt(s2 / s2_0);
      ok = Fc != NULL && s2 > 0 && isfinite(s2) && isfinite(r);
      for (gsize i = 0; ok && i < (gsize)T * T; i++)
        Cinv[(gsize)c * T * T + i] = r * Fc[i];
      if (!ok)
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                    "the local lower bound: class %u's C_local cannot be inverted", c);
      g_free(Cc);
      g_free(Fc);
    }
    unit = 1.0 / s2_0;
    nf = (NoiseF){.F = Cinv, .cls = p->C_class, .n_F = p->n_C, .T = T, .unit = unit};
  } else if (p->protocol == PRIV_PROTOCOL_MFDSGD) {
    /* The structured path's units: C / 2^e, noise nu' = sigma sens(C) C^-1 z. */
    C = mf_normalized_copy(p->C_local, (gsize)T * T);
    unit = 1.0 / mf_sensitivity2(C, T, T / (p->b ? p->b : 1), p->b ? p->b : 1);
    Cinv = inverse(C, T);
    if (!Cinv || !isfinite(unit)) {
      g_set_error_literal(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                          "the local lower bound: C_local cannot be inverted");
      ok = FALSE;
    }
    nf = (NoiseF){.F = Cinv, .n_F = 1, .T = T, .unit = unit};
  }
  double *X = NULL;
  if (ok && !priv_check_budget(mf_doubles_bytes((gsize)nb * T * T), p->max_bytes,
                               "the local lower bound's blocks", error))
    ok = FALSE;
  if (ok)
    X = g_new0(double, (gsize)nb *T *T);
  gboolean noiseless = p->sigma == 0;
  /* PNDP: the projected view. (Sec)LDP: the victims' own injections and,
   * when the ball's messages are few enough for the dense algebra, the
   * projected view of the ball's messages too (the better of the two
   * lower bounds is one). */
  double *X2 = NULL, *X3 = NULL;
  if (ok && p->trust != PRIV_TRUST_PNDP && which != PRIV_LOCAL_LOWER_DOMINATION) {
    ok = decor_secret_var(p) > 0 ? decor_injection_blocks(p, K, ball, nb, sub, att, unit, X, error)
                                 : injection_blocks(p, K, ball, nb, att, &nf, X, error);
    for (gsize i = 0; noiseless && ok && i < (gsize)nb * T * T; i++)
      if (X[i] != 0.0)
        X[i] = INFINITY;
  }
  if (ok && !noiseless) {
    /* The state: the ball's nodes, then a recorded stale-mode run's slots.
     * A slot holding a ball node's message is a known function of the
     * ball's states (its row copies e_v, then keeps it), so it is carried
     * as state; only a slot that starts holding a shell node's message
     * takes inflow (its row reads a column outside the state). */
    guint L = p->n_delayed, first_slot = n - L;
    Ball b = {.nb = nb,
              .nx = nb + L,
              .T = T,
              .K = K,
              .R = K * T,
              .n_w = p->n_gossip,
              .attacker = att,
              .secret_var = decor_secret_var(p),
              .p = p,
              .ball = ball,
              .sub = sub};
    guint *row = g_new(guint, b.nx), *state = sub;
    memcpy(row, ball, sizeof(guint) * nb);
    for (guint j = 0; j < L; j++)
      row[nb + j] = first_slot + j;
    if (L > 0) {
      state = g_memdup2(sub, sizeof(guint) * n);
      for (guint j = 0; j < L; j++)
        state[first_slot + j] = nb + j;
    }
    b.w = g_new0(BallRows, p->n_gossip);
    for (guint k = 0; k < p->n_gossip; k++)
      ball_rows(p->gossip[k], row, nb, b.nx, state, &b.w[k]);
    for (guint k = 0; k < p->n_gossip; k++)
      if (b.w[k].read_slot)
        b.chg_max = MAX(b.chg_max, b.w[k].n_chg);
    g_free(row);
    if (state != sub)
      g_free(state);
    /* Seen: PNDP, the attackers' neighbours in each round (within one
     * hop); (Sec)LDP, every ball node that sends (SecLDP: not the
     * attackers, whose states they know); the messages from beyond the
     * ball are dropped (post-processing). */
    GArray *all = g_array_new(FALSE, FALSE, sizeof(guint));
    b.recv_start = g_new(guint, b.R + 1);
    for (guint r = 0; r < b.R; r++) {
      b.recv_start[r] = all->len;
      const TopoGossip *w = p->gossip[p->n_gossip == 1 ? 0 : r];
      if (p->trust == PRIV_TRUST_PNDP) {
        for (guint a = 0; a < p->n_attackers; a++) {
          const guint *c;
          const double *x;
          guint len = topo_gossip_row(w, p->attackers[a], &c, &x);
          /* A recorded run's attacker row may read a slot (stale mode: a
           * delayed message): not a node; the attacker heard it in its own
           * round, delivered to it (below). */
          for (guint j = 0; j < len; j++)
            if (sub[c[j]] != FAR && !att[sub[c[j]]])
              mark[sub[c[j]]] = r + 1;
          /* A recorded run: the round-r messages delivered to the
           * attacker after its gather too (late ones: heard, not used). */
          const PrivRoundMessages *m = p->messages ? &p->messages[r] : NULL;
          for (guint e = m ? m->ptr[p->attackers[a]] : 0; m && e < m->ptr[p->attackers[a] + 1]; e++)
            if (m->delivered[e] && sub[m->from[e]] != FAR && !att[sub[m->from[e]]])
              mark[sub[m->from[e]]] = r + 1;
        }
      } else {
        for (guint i = 0; i < nb; i++)
          if (known_state(w, ball[i], FALSE) && !(att[i] && p->trust == PRIV_TRUST_SECLDP))
            mark[i] = r + 1;
      }
      for (guint i = 0; i < nb; i++)
        if (mark[i] == r + 1)
          g_array_append_val(all, i);
    }
    b.recv_start[b.R] = all->len;
    b.recv = (guint *)(void *)g_array_free(all, FALSE);
    b.noisy = g_new(guint, nb);
    for (guint i = 0; i < nb; i++)
      if (!att[i] || p->trust == PRIV_TRUST_LDP)
        b.noisy[b.nz++] = i;
    gboolean proj = which != PRIV_LOCAL_LOWER_DOMINATION;
    /* Covariance domination bounds the outside's noise as white
     * (kappa I per step); DECOR's secrets correlate neighbours, and that
     * bound is not derived for them: no domination bound (the others
     * stand). Nor with slots: its full-graph pass knows no slot rows (a
     * record takes the projection alone, priv_local_report_record). */
    gboolean dom = which != PRIV_LOCAL_LOWER_PROJECTION && b.secret_var == 0 && L == 0;
    if (p->trust == PRIV_TRUST_PNDP) {
      if (proj)
        ok = projected_blocks(&b, &nf, X, p->max_bytes, error);
    } else if (b.recv_start[b.R] <= LOWER_DENSE_LDP_MAX) {
      X2 = g_new0(double, (gsize)nb *T *T);
      if (proj)
        ok = projected_blocks(&b, &nf, X2, p->max_bytes, error);
    } else {
      dom = FALSE; /* too many messages for the dense algebra */
    }
    if (ok && dom) {
      X3 = g_new0(double, (gsize)nb *T *T);
      ok = dominated_blocks(p, &b, ball, sub, &nf, X3, error);
    }
    for (guint k = 0; k < p->n_gossip; k++)
      ball_rows_clear(&b.w[k]);
    g_free(b.w);
    g_free(b.recv_start);
    g_free(b.recv);
    g_free(b.noisy);
  } else if (ok && p->trust == PRIV_TRUST_PNDP) {
    /* Without noise, a victim heard in round 0 shows g_{u,0} itself
     * (nothing else is unknown then): mu = inf. Otherwise 0 is sound. */
    const TopoGossip *w = p->gossip[0];
    for (guint a = 0; a < p->n_attackers; a++) {
      const guint *c;
      const double *x;
      guint len = topo_gossip_row(w, p->attackers[a], &c, &x);
      for (guint j = 0; j < len; j++)
        if (!att[sub[c[j]]])
          X[(gsize)sub[c[j]] * T * T] = INFINITY;
    }
  }
  /* mu_lower = sqrt(primal sens^2) / sigma, never above the upper bound
   * (both enclose the exact value; the min only removes rounding). */
  for (guint v = 0; ok && v < report->n_victims; v++) {
    PrivVictim *pv = &report->victims[v];
    const double *Xu = X + (gsize)sub[pv->node] * T * T;
    gboolean inf = FALSE;
    for (gsize i = 0; i < (gsize)T * T; i++)
      inf = inf || isinf(Xu[i]);
    double s2 = 0.0, s2b = 0.0;
    if (inf)
      s2 = INFINITY;
    else if (!noiseless)
      ok = priv_sens2_lower(Xu, T, bpart, &s2, error);
    if (ok && X2 && !inf) {
      ok = priv_sens2_lower(X2 + (gsize)sub[pv->node] * T * T, T, bpart, &s2b, error);
      s2 = MAX(s2, s2b);
    }
    if (ok && X3 && !inf) {
      ok = priv_sens2_lower(X3 + (gsize)sub[pv->node] * T * T, T, bpart, &s2b, error);
      s2 = MAX(s2, s2b);
    }
    double low = noiseless ? s2 : sqrt(s2) / p->sigma;
    if (!(low >= 0))
      low = 0.0; /* NaN from an overflow: claim nothing */
    pv->mu_lower = MIN(low, pv->mu);
  }
  g_free(X);
  g_free(X2);
  g_free(X3);
  g_free(C);
  g_free(Cinv);
  g_free(mark);
  g_free(att);
  g_free(sub);
  return ok;
}
