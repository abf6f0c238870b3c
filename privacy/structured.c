/*
 * privacy/structured.c: the structured fast path (docs/design.md, "Structured fast
 * paths"): per-victim blocks of synchronous D-SGD, Muffliato(K) and
 * MF-D-SGD(C_local) runs from the W-product structure of their messages,
 * checked against the observer path by the tests.
 */
#include "privacy/structured_internal.h"

#include <math.h>
#include <string.h>

static gboolean fail(GError **error, const char *msg) {
  g_set_error_literal(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, msg);
  return FALSE;
}

gboolean priv_check_nodes(const PrivStructuredProblem *p, guint *n, GError **error) {
  g_return_val_if_fail(p != NULL && p->gossip != NULL && p->n_gossip > 0 && n != NULL, FALSE);
  *n = p->gossip[0] ? topo_gossip_n(p->gossip[0]) : 0;
  for (guint i = 0; i < p->n_gossip; i++)
    if (!p->gossip[i] || topo_gossip_n(p->gossip[i]) != *n)
      return fail(error, "every gossip matrix must have the same number of nodes");
  if (!p->attackers || p->n_attackers == 0)
    return fail(error, "the attacker set is empty");
  gboolean *seen = g_new0(gboolean, *n);
  gboolean ok = TRUE;
  for (guint i = 0; i < p->n_attackers && ok; i++) {
    guint a = p->attackers[i];
    if (a >= *n || seen[a]) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  a >= *n ? "attacker %u is out of range (the graph has %u nodes)"
                          : "attacker %u appears twice in the set (%u nodes)",
                  a, *n);
      ok = FALSE;
    } else {
      seen[a] = TRUE;
    }
  }
  g_free(seen);
  return ok;
}

static gboolean check_problem(const PrivStructuredProblem *p, guint *K, GError **error) {
  if (p->protocol != PRIV_PROTOCOL_DSGD && p->protocol != PRIV_PROTOCOL_MUFFLIATO &&
      p->protocol != PRIV_PROTOCOL_MFDSGD && p->protocol != PRIV_PROTOCOL_DECOR)
    return fail(error, "unknown protocol");
  *K = p->K ? p->K : 1;
  if (*K != 1 && p->protocol != PRIV_PROTOCOL_MUFFLIATO)
    return fail(error, "K (gossip rounds per step) applies to Muffliato only");
  if (p->T == 0)
    return fail(error, "the number of steps T must be at least 1");
  if (p->trust != PRIV_TRUST_LDP && p->trust != PRIV_TRUST_PNDP && p->trust != PRIV_TRUST_SECLDP) {
    /* A model of the trust table without a closed form here yet: the
     * observer path accounts any model from its row. */
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "trust %s has no structured accounting (ldp, pndp and secldp have): use the "
                "observer path (--path observer; privacy.path = observer)",
                priv_trust_name(p->trust));
    return FALSE;
  }
  if (!(p->sigma >= 0) || !isfinite(p->sigma))
    return fail(error, "the noise multiplier sigma must be finite and >= 0");
  if (!p->gossip || p->n_gossip == 0 || !p->gossip[0])
    return fail(error, "a gossip matrix is needed");
  guint64 R = (guint64)*K * p->T;
  if (R > G_MAXUINT / 2)
    return fail(error, "too many gossip rounds (K x T)");
  if (p->n_gossip != 1 && p->n_gossip != R) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                "%u gossip matrices given: expected 1 (static) or K x T = %" G_GUINT64_FORMAT
                " (one per gossip round)",
                p->n_gossip, R);
    return FALSE;
  }
  guint n;
  if (!priv_check_nodes(p, &n, error))
    return FALSE;
  if (p->n_delayed > 0) {
    /* Stale mode: the matrices act on the nodes and the delayed slots. */
    if (p->n_delayed >= n)
      return fail(error, "the delayed slots (n_delayed) must be fewer than the gossip "
                         "matrices' dimension");
    n -= p->n_delayed;
    if (p->messages == NULL)
      return fail(error, "a delay-augmented state (n_delayed > 0) needs the run's messages");
    if (p->protocol != PRIV_PROTOCOL_DSGD && p->protocol != PRIV_PROTOCOL_MUFFLIATO &&
        p->protocol != PRIV_PROTOCOL_MFDSGD && p->protocol != PRIV_PROTOCOL_DECOR)
      return fail(error, "a delay-augmented state (stale mode) is accounted for D-SGD, "
                         "Muffliato, MF-D-SGD and DECOR only");
    if (p->engine != PRIV_ENGINE_AUTO && p->engine != PRIV_ENGINE_KALMAN &&
        p->engine != PRIV_ENGINE_KALMAN_DENSE)
      return fail(error, "a delay-augmented state (stale mode) needs a Kalman engine");
    for (guint i = 0; i < p->n_attackers; i++)
      if (p->attackers[i] >= n) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                    "attacker %u is out of range (the graph has %u nodes)", p->attackers[i], n);
        return FALSE;
      }
  }
  if (p->protocol == PRIV_PROTOCOL_MFDSGD) {
    if (!p->C_local && !p->C_class)
      return fail(error, "MF-D-SGD needs its T x T matrix C_local");
    guint b = p->b ? p->b : 1;
    if (p->T % b != 0)
      return fail(error, "the participation interval b must divide T");
    const double *C = p->C_class ? p->C_set : p->C_local;
    gsize count = (gsize)p->T * p->T * (p->C_class ? p->n_C : 1);
    if (p->C_class && (p->C_set == NULL || p->n_C == 0))
      return fail(error, "a C per class of nodes needs the classes' matrices (C_set, n_C)");
    for (gsize i = 0; i < count; i++)
      if (!isfinite(C[i]))
        return fail(error, "C_local has a non-finite entry");
    for (guint u = 0; p->C_class && u < n; u++)
      if (p->C_class[u] >= p->n_C) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                    "node %u's class of C is %u, but there are %u classes", u, p->C_class[u],
                    p->n_C);
        return FALSE;
      }
  } else if (p->C_class) {
    return fail(error, "a C per class of nodes is MF-D-SGD's");
  }
  if (p->engine == PRIV_ENGINE_KALMAN_DENSE && p->protocol == PRIV_PROTOCOL_MFDSGD)
    return fail(error, "the dense-propagator Kalman engine needs white noise: use the Kalman "
                       "(with the noise's state), W-power or dense engine for MF-D-SGD");
  if (p->protocol == PRIV_PROTOCOL_DECOR) {
    if (!(p->sigma_secret >= 0) || !isfinite(p->sigma_secret))
      return fail(error, "DECOR's secret noise multiplier sigma_secret must be finite and >= 0");
    if (p->sigma_secret > 0 && p->sigma == 0)
      return fail(error, "DECOR with edge secrets but no local noise (sigma = 0 < sigma_secret): "
                         "the structured path accounts in units of the local noise; use the "
                         "observer path");
    double ratio = p->sigma_secret > 0 ? p->sigma_secret / p->sigma : 0.0;
    if (!isfinite(ratio * ratio))
      return fail(error, "DECOR: sigma_secret / sigma is too large to account (its square "
                         "overflows)");
    if (p->sigma_secret > 0 && (p->engine == PRIV_ENGINE_POWERS || p->engine == PRIV_ENGINE_DENSE))
      return fail(error, "the W-power and dense engines assume noise independent across nodes: "
                         "use the Kalman engine for DECOR's edge secrets");
    if (p->sigma_secret > 0 && p->messages != NULL && p->secret_gossip == NULL)
      return fail(error, "DECOR on a run's messages needs the schedule's gossip "
                         "(secret_gossip): the secrets are on its edges, late and lost messages' "
                         "included, not on the W_r the gathers applied");
    if (p->secret_gossip != NULL) {
      guint n = topo_gossip_n(p->gossip[0]) - p->n_delayed;
      if (p->n_secret_gossip != 1 && p->n_secret_gossip != R)
        return fail(error, "DECOR's secret gossip: expected 1 (static) or K x T matrices");
      for (guint i = 0; i < p->n_secret_gossip; i++)
        if (p->secret_gossip[i] == NULL || topo_gossip_n(p->secret_gossip[i]) != n)
          return fail(error, "DECOR's secret gossip must be on the run's nodes (the gossip "
                             "matrices' dimension less the delayed slots)");
    }
  }
  if (p->messages != NULL) {
    if (p->n_gossip != R)
      return fail(error, "a run's messages need one gossip matrix per round (K x T)");
    for (guint r = 0; r < R; r++) {
      const PrivRoundMessages *m = &p->messages[r];
      if (m->ptr == NULL || m->ptr[0] != 0 || (m->ptr[n] > 0 && (!m->from || !m->delivered)))
        return fail(error, "a round's messages need their row offsets, senders and deliveries");
      for (guint u = 0; u < n; u++) {
        if (m->ptr[u + 1] < m->ptr[u])
          return fail(error, "a round's message offsets decrease");
        for (guint i = m->ptr[u]; i < m->ptr[u + 1]; i++)
          if (m->from[i] >= n || m->from[i] == u ||
              (i > m->ptr[u] && m->from[i] <= m->from[i - 1])) {
            g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                        "round %u's messages to node %u: senders out of range, out of order "
                        "or the node itself",
                        r, u);
            return FALSE;
          }
      }
    }
  }
  if (p->n_relays > 0) {
    /* A relay stands for a state that the attackers observe as one sum of
     * its inputs (docs/local-bounds.md): only PNDP attackers see less than
     * every message, and a run's record keeps no such state. */
    if (p->relays == NULL)
      return fail(error, "relays: n_relays is set but the list is missing");
    if (p->trust != PRIV_TRUST_PNDP)
      return fail(error, "relays (nodes whose injections are known but which observe nothing) "
                         "are for PNDP attackers only: LDP and SecLDP attackers see every "
                         "message");
    if (p->messages != NULL)
      return fail(error, "relays are for synchronous runs: a run's delivery record keeps none");
    guint n = topo_gossip_n(p->gossip[0]);
    gboolean *seen = g_new0(gboolean, n);
    for (guint i = 0; i < p->n_attackers; i++)
      seen[p->attackers[i]] = TRUE;
    gboolean ok = TRUE;
    for (guint i = 0; i < p->n_relays && ok; i++) {
      guint v = p->relays[i];
      if (v >= n || seen[v]) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                    v >= n ? "relay %u is out of range (the graph has %u nodes)"
                           : "relay %u appears twice or is an attacker (%u nodes)",
                    v, n);
        ok = FALSE;
      } else {
        seen[v] = TRUE;
      }
    }
    g_free(seen);
    if (!ok)
      return FALSE;
  }
  if (p->engine == PRIV_ENGINE_POWERS && p->n_gossip != 1)
    return fail(error, "the W-power engine needs a static gossip matrix");
  if (p->engine != PRIV_ENGINE_AUTO && p->engine != PRIV_ENGINE_KALMAN &&
      p->engine != PRIV_ENGINE_DENSE && p->engine != PRIV_ENGINE_KALMAN_DENSE &&
      p->engine != PRIV_ENGINE_POWERS)
    return fail(error, "unknown engine");
  return TRUE;
}

/* Cinv = C^{-1} (T x T) by LU; NULL with PRIV_ERROR_NUMERICAL when singular. */
static double *invert(const double *C, guint T, GError **error) {
  double *inv = g_memdup2(C, sizeof(double) * T * T);
  lapack_int *ipiv = g_new(lapack_int, T);
  lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, (lapack_int)T, (lapack_int)T, inv,
                                   (lapack_int)T, ipiv);
  double amax = 0.0, umin = INFINITY;
  for (gsize i = 0; i < (gsize)T * T; i++)
    amax = MAX(amax, fabs(C[i]));
  for (guint i = 0; info == 0 && i < T; i++)
    umin = MIN(umin, fabs(inv[(gsize)i * T + i]));
  /* A zero (or negligible) pivot: the noise would not cover every step. */
  if (info == 0 && !(umin > 1e-13 * amax))
    info = 1;
  if (info == 0)
    info = LAPACKE_dgetri(LAPACK_ROW_MAJOR, (lapack_int)T, inv, (lapack_int)T, ipiv);
  g_free(ipiv);
  if (info != 0) {
    g_free(inv);
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                "C_local is singular (LAPACK info %d): MF-D-SGD needs an invertible "
                "correlation matrix",
                (int)info);
    return NULL;
  }
  return inv;
}

/* Whether node u sends in round r: some other node's row of W_r lists it. */
static void senders(const TopoGossip *w, gboolean *out) {
  guint n = topo_gossip_n(w);
  memset(out, 0, sizeof(gboolean) * n);
  for (guint v = 0; v < n; v++) {
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(w, v, &cols, &vals);
    for (guint j = 0; j < len; j++)
      if (cols[j] != v)
        out[cols[j]] = TRUE;
  }
}

/* Whether u sends in round r of a run's messages @m: some node's row lists it. */
static void senders_of(const PrivRoundMessages *m, guint n, gboolean *out) {
  memset(out, 0, sizeof(gboolean) * n);
  for (guint i = 0; i < m->ptr[n]; i++)
    out[m->from[i]] = TRUE;
}

/*
 * recv(r): the messages the attackers see in round r. PNDP: those of the
 * W_r-neighbours of the attackers (their rows' supports), less the attackers
 * themselves. LDP: every node that sends. SecLDP: every node that sends, less
 * the attackers (their messages follow from what they know).
 */
static void build_recv(PrivStructCtx *c, PrivTrust trust, const guint *attackers,
                       guint n_attackers) {
  GArray *all = g_array_new(FALSE, FALSE, sizeof(guint));
  c->recv_start = g_new(guint, c->R + 1);
  gboolean *mark = g_new0(gboolean, c->n);
  c->max_recv = 0;
  for (guint r = 0; r < c->R; r++) {
    c->recv_start[r] = all->len;
    const TopoGossip *w = priv_struct_gossip(c, r);
    const PrivRoundMessages *msg = c->messages ? &c->messages[r] : NULL;
    if (trust == PRIV_TRUST_PNDP && msg != NULL) {
      /* What reached the attackers, late messages too: the run delivers
       * them, only the average leaves them out. */
      for (guint i = 0; i < n_attackers; i++)
        for (guint e = msg->ptr[attackers[i]]; e < msg->ptr[attackers[i] + 1]; e++)
          if (msg->delivered[e] && !c->attacker[msg->from[e]])
            mark[msg->from[e]] = TRUE;
    } else if (trust == PRIV_TRUST_PNDP) {
      for (guint i = 0; i < n_attackers; i++) {
        const guint *cols;
        const double *vals;
        guint len = topo_gossip_row(w, attackers[i], &cols, &vals);
        for (guint j = 0; j < len; j++)
          if (!c->attacker[cols[j]])
            mark[cols[j]] = TRUE;
      }
    } else {
      if (msg != NULL)
        senders_of(msg, c->n_nodes, mark);
      else
        senders(w, mark);
      if (trust == PRIV_TRUST_SECLDP)
        for (guint v = 0; v < c->n; v++)
          mark[v] = mark[v] && !c->attacker[v];
    }
    /* Increasing node order, whatever the attackers' order. */
    guint cnt = 0;
    for (guint v = 0; v < c->n; v++)
      if (mark[v]) {
        g_array_append_val(all, v);
        mark[v] = FALSE;
        cnt++;
      }
    c->max_recv = MAX(c->max_recv, cnt);
  }
  c->recv_start[c->R] = all->len;
  c->recv = (guint *)g_array_free(all, FALSE);
  g_free(mark);
}

/* sigma = 0: a victim is unprotected iff one of its injections reaches a
 * message the attackers see. reach_r = the nodes whose round-r state flows
 * into a message received at round >= r. */
static void noiseless_status(const PrivStructCtx *c, PrivBlocks *blocks) {
  gboolean *reach = g_new0(gboolean, c->n), *next = g_new0(gboolean, c->n);
  gboolean *exposed = g_new0(gboolean, c->n);
  for (guint r = c->R; r-- > 0;) {
    /* next = reach_{r+1} (in `reach`); reach_r = recv(r) U {v : W_r[w,v] != 0, w in reach_{r+1}} */
    memset(next, 0, sizeof(gboolean) * c->n);
    if (r + 1 < c->R) {
      const TopoGossip *w = priv_struct_gossip(c, r);
      for (guint x = 0; x < c->n; x++) {
        if (!reach[x])
          continue;
        const guint *cols;
        const double *vals;
        guint len = topo_gossip_row(w, x, &cols, &vals);
        for (guint j = 0; j < len; j++)
          if (vals[j] != 0.0)
            next[cols[j]] = TRUE;
      }
    }
    for (guint e = c->recv_start[r]; e < c->recv_start[r + 1]; e++)
      next[c->recv[e]] = TRUE;
    memcpy(reach, next, sizeof(gboolean) * c->n);
    if (r % c->K == 0)
      for (guint v = 0; v < c->n; v++)
        exposed[v] |= reach[v];
  }
  for (guint v = 0; v < c->n_nodes; v++)
    if (blocks->status[v] != PRIV_NODE_ATTACKER && exposed[v])
      blocks->status[v] = PRIV_NODE_UNPROTECTED;
  g_free(reach);
  g_free(next);
  g_free(exposed);
}

/* An engine AUTO weighs: its estimated work and memory, whether that fits. */
typedef struct {
  PrivEngine engine;
  double work;
  gsize bytes;
  gboolean fits;
} Candidate;

static Candidate candidate(const PrivStructCtx *c, PrivEngine e, double work, gsize bytes) {
  return (Candidate){e, work, bytes, priv_check_budget(bytes, c->max_bytes, "", NULL)};
}

/* Whether @a is a better choice than @b: fits when @b does not, else the
 * cheaper when both fit, the smaller when neither does. */
static gboolean better(Candidate a, Candidate b) {
  if (a.fits != b.fits)
    return a.fits;
  return a.fits ? a.work < b.work : a.bytes < b.bytes;
}

/*
 * AUTO's engine. White noise: POWERS on a static W when its estimated cost
 * is below KALMAN's, else KALMAN. Correlated noise (MF-D-SGD): of DENSE
 * (the reference: any C, time-varying W), POWERS (a static W) and KALMAN
 * with the noise's state (when c->noise: a C whose inverse has a low-order
 * state-space form), the cheapest in estimated work among those whose
 * memory fits the budget (DENSE on ties), else the smallest. O(R q).
 */
static PrivEngine choose_engine(const PrivStructCtx *c, gboolean correlated) {
  gboolean powers = priv_struct_powers_applies(c);
  if (!correlated)
    return powers && priv_struct_powers_work(c, FALSE) < priv_struct_kalman_work(c)
               ? PRIV_ENGINE_POWERS
               : PRIV_ENGINE_KALMAN;
  Candidate best = candidate(c, PRIV_ENGINE_DENSE, priv_struct_dense_work(c, TRUE),
                             priv_struct_dense_bytes(c));
  if (powers) {
    Candidate pw = candidate(c, PRIV_ENGINE_POWERS, priv_struct_powers_work(c, TRUE),
                             priv_struct_powers_bytes(c));
    if (better(pw, best))
      best = pw;
  }
  if (c->noise) {
    Candidate k = candidate(c, PRIV_ENGINE_KALMAN, priv_struct_kalman_work(c),
                            priv_struct_kalman_bytes(c));
    if (better(k, best))
      best = k;
  }
  return best.engine;
}

/* Whether every node sends in every round of @p (a static W or each W_r;
 * a run's messages when given). */
static gboolean every_round_all_send(const PrivStructuredProblem *p, guint n) {
  gboolean *snd = g_new(gboolean, n), all = TRUE;
  for (guint i = 0; all && i < p->n_gossip; i++) {
    if (p->messages)
      senders_of(&p->messages[i], n, snd);
    else
      senders(p->gossip[i], snd);
    for (guint u = 0; all && u < n; u++)
      all = snd[u];
  }
  g_free(snd);
  return all;
}

/*
 * The Kalman engine's realizations of @n classes' noise (priv_noise_state_of
 * of each normalized C_c in @Cs and its inverse in @Cis, T x T each), class
 * c's outputs h_k, d_k scaled by @ratio[c] (NULL: 1): n states (free each
 * with priv_noise_state_clear, then the array), or NULL with @error set,
 * the class named when there are several. O(n T^4 / 12).
 */
static PrivNoiseState *noise_states(const double *Cs, const double *Cis, const double *ratio,
                                    guint n, guint T, GError **error) {
  PrivNoiseState *s = g_new0(PrivNoiseState, n);
  for (guint k = 0; k < n; k++) {
    gsize at = (gsize)k * T * T;
    if (!priv_noise_state_of(Cs + at, Cis + at, T, PRIV_NOISE_STATE_MAX, &s[k], error)) {
      if (n > 1)
        g_prefix_error(error, "class %u: ", k);
      for (guint j = 0; j < k; j++)
        priv_noise_state_clear(&s[j]);
      g_free(s);
      return NULL;
    }
    double r = ratio ? ratio[k] : 1.0;
    for (gsize i = 0; ratio && i < (gsize)T * MAX(s[k].p, 1u); i++)
      s[k].h[i] *= r;
    for (guint i = 0; ratio && i < T; i++)
      s[k].d[i] *= r;
  }
  return s;
}

gboolean priv_structured_noise_state_fits(const double *C_local, guint T, GError **why) {
  g_return_val_if_fail(C_local != NULL && T > 0, FALSE);
  double *C = mf_normalized_copy(C_local, (gsize)T * T), *Cinv = invert(C, T, why);
  PrivNoiseState s = {0};
  gboolean ok = Cinv != NULL && priv_noise_state_of(C, Cinv, T, PRIV_NOISE_STATE_MAX, &s, why);
  priv_noise_state_clear(&s);
  g_free(C);
  g_free(Cinv);
  return ok;
}

gsize priv_structured_bytes_least(guint n, guint T, guint n_gossip, PrivProtocol protocol,
                                  double sigma) {
  gsize blocks = spec_size_mul(spec_size_mul(n, T), T);
  gboolean kalman = n_gossip > 1 && sigma > 0 &&
                    (protocol == PRIV_PROTOCOL_DSGD || protocol == PRIV_PROTOCOL_MUFFLIATO);
  gsize count = priv_size_sum3(blocks, 1, kalman ? 2 : 0, spec_size_mul(n, n), 0, 0);
  return spec_size_add(mf_doubles_bytes(count), spec_size_mul(n, sizeof(PrivNodeStatus)));
}

PrivBlocks *priv_structured_blocks(const PrivStructuredProblem *problem, GError **error) {
  g_return_val_if_fail(problem != NULL, NULL);
  guint K;
  if (!check_problem(problem, &K, error))
    return NULL;
  /* DECOR without secrets is D-SGD. */
  PrivStructuredProblem pd = *problem;
  if (pd.protocol == PRIV_PROTOCOL_DECOR && pd.sigma_secret == 0)
    pd.protocol = PRIV_PROTOCOL_DSGD;
  const PrivStructuredProblem *p = &pd;
  gboolean decor = p->protocol == PRIV_PROTOCOL_DECOR;
  /* N: the state (the nodes, then stale mode's delayed slots). */
  guint N = topo_gossip_n(p->gossip[0]), n = N - p->n_delayed, T = p->T;
  PrivBlocks *blocks = priv_blocks_new(n, T, error);
  if (!blocks)
    return NULL;
  gboolean *attacker = g_new0(gboolean, N), *relay = NULL, *known = NULL;
  for (guint i = 0; i < p->n_attackers; i++) {
    attacker[p->attackers[i]] = TRUE;
    blocks->status[p->attackers[i]] = PRIV_NODE_ATTACKER;
  }
  if (p->n_relays > 0) {
    /* A relay's injections are known: no block, and no cover either. */
    relay = g_new0(gboolean, N);
    for (guint i = 0; i < p->n_relays; i++) {
      relay[p->relays[i]] = TRUE;
      blocks->status[p->relays[i]] = PRIV_NODE_ATTACKER;
    }
  }

  double *Cinv = NULL, *C = NULL, *Cinv_set = NULL;
  gboolean *noisy = NULL;
  /* The blocks are computed for unit noise (in units of Delta), X / sigma^2
   * is left to priv_blocks_set_scale: 1 / sigma^2 overflows for sigma =
   * 1e-200 (and inf x 0 = NaN), underflows to a zero block for sigma = 1e200.
   * MF-D-SGD's noise nu' = sigma sens(C) C^-1 z: the factor 1 / sens^2 of
   * the normalized C (sens^2 in [1/4, T^3]) goes into the engines. */
  double unit = 1.0;
  gboolean ok = FALSE;
  PrivStructCtx c = {0};
  /* MF-D-SGD on the Kalman engine: each class's noise realization (one
   * without classes). */
  PrivNoiseState *noise = NULL;
  guint *noise_slot = NULL;
  /* A C per class: each class's C^T C / sens^2, normalized C_c, C_c^-1 and
   * r_c (below). */
  double *CtC_set = NULL, *Cn_set = NULL, *Ci_set = NULL, *ratio = NULL;
  if (p->protocol == PRIV_PROTOCOL_MFDSGD && p->C_class) {
    /* Node v's noise sigma sens(C_c) C_c^-1 z_v = sigma sens(C_0) r_c C_c^-1
     * z_v, r_c = sens(C_c) / sens(C_0): the engines take the factors
     * F_c = r_c C_c^-1 (of the normalized C_c) and class 0's unit
     * 1 / sens(C_0)^2, so that a set of one class (r_0 = 1: products by
     * 1.0) is the one C to the bit. The Kalman engine's realization of
     * C_c^-1 has its outputs h_k, d_k scaled by r_c likewise. */
    guint b = p->b ? p->b : 1;
    double s2_0 = 1.0;
    Cinv_set = g_new(double, (gsize)p->n_C *T *T);
    CtC_set = g_new(double, (gsize)p->n_C *T *T);
    Cn_set = g_new(double, (gsize)p->n_C *T *T);
    Ci_set = g_new(double, (gsize)p->n_C *T *T);
    ratio = g_new(double, p->n_C);
    for (guint k = 0; k < p->n_C; k++) {
      double *Ck = mf_normalized_copy(p->C_set + (gsize)k * T * T, (gsize)T * T);
      double s2 = mf_sensitivity2(Ck, T, T / b, b), *Fk = NULL;
      if (!(s2 > 0) || !isfinite(s2)) {
        g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                    "class %u's C_local has zero sensitivity: it cannot calibrate any noise", k);
        g_free(Ck);
        goto out;
      }
      if (!(Fk = invert(Ck, T, error))) {
        g_prefix_error(error, "class %u: ", k);
        g_free(Ck);
        goto out;
      }
      if (k == 0) {
        s2_0 = s2;
        unit = 1.0 / s2;
      }
      double r = ratio[k] = sqrt(s2 / s2_0);
      memcpy(Cn_set + (gsize)k * T * T, Ck, sizeof(double) * T * T);
      memcpy(Ci_set + (gsize)k * T * T, Fk, sizeof(double) * T * T);
      for (gsize i = 0; i < (gsize)T * T; i++)
        Fk[i] *= r;
      memcpy(Cinv_set + (gsize)k * T * T, Fk, sizeof(double) * T * T);
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)T, (int)T, (int)T, 1.0 / s2, Ck,
                  (int)T, Ck, (int)T, 0.0, CtC_set + (gsize)k * T * T, (int)T);
      g_free(Fk);
      g_free(Ck);
    }
  } else if (p->protocol == PRIV_PROTOCOL_MFDSGD) {
    guint b = p->b ? p->b : 1;
    /* C and any positive multiple of it are the same mechanism. */
    C = mf_normalized_copy(p->C_local, (gsize)T * T);
    double s2 = mf_sensitivity2(C, T, T / b, b);
    if (!(s2 > 0) || !isfinite(s2)) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL,
                  "C_local has zero sensitivity: it cannot calibrate any noise");
      goto out;
    }
    unit = 1.0 / s2;
    if (!(Cinv = invert(C, T, error)))
      goto out;
  }

  /* LDP and SecLDP on a static W where every node sends: each node's own
   * message at an injection round (identity block of W_T) reveals
   * g + nu' (C^-1 z) given the previous round's messages, the rest is
   * post-processing: X_u = I / sigma^2, or C^T C / nu'^2 for MF-D-SGD.
   * SecLDP adds nothing (these protocols have no edge secrets; the
   * attackers' own gradients and noise only concern their own columns).
   * Otherwise (time-varying W, silent nodes) the engines below apply. */
  gboolean all_send = FALSE;
  if (p->trust != PRIV_TRUST_PNDP && (p->n_gossip == 1 || p->messages != NULL) &&
      !decor) {
    /* A run's messages: the same argument whatever W_r the run applied,
     * when every node sends in every round (its state is a combination of
     * the previous round's messages, all seen). */
    gboolean *snd = g_new(gboolean, n);
    all_send = TRUE;
    for (guint r = 0; all_send && r < (p->messages ? p->n_gossip : 1); r++) {
      if (p->messages)
        senders_of(&p->messages[r], n, snd);
      else
        senders(p->gossip[0], snd);
      for (guint u = 0; u < n; u++)
        all_send = all_send && snd[u];
    }
    g_free(snd);
  }
  if (all_send) {
    const double *first = NULL; /* every node's block is the same */
    for (guint u = 0; u < n; u++) {
      if (attacker[u])
        continue;
      if (p->sigma == 0) {
        blocks->status[u] = PRIV_NODE_UNPROTECTED;
        continue;
      }
      double *X = blocks->X + (gsize)u * T * T;
      if (CtC_set != NULL) /* node u's own C */
        memcpy(X, CtC_set + (gsize)p->C_class[u] * T * T, (gsize)T * T * sizeof(double));
      else if (first != NULL)
        memcpy(X, first, (gsize)T * T * sizeof(double));
      else if (p->protocol == PRIV_PROTOCOL_MFDSGD)
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)T, (int)T, (int)T, unit, C,
                    (int)T, C, (int)T, 0.0, X, (int)T);
      else
        for (guint t = 0; t < T; t++)
          X[(gsize)t * T + t] = 1.0;
      first = X;
    }
    ok = TRUE;
    goto out;
  }

  c.n = N;
  c.n_nodes = n;
  c.T = T;
  c.K = K;
  c.R = K * T;
  c.gossip = p->gossip;
  c.n_gossip = p->n_gossip;
  c.messages = p->messages;
  c.attacker = attacker;
  c.relay = relay;
  c.max_bytes = p->max_bytes;
  c.threads = MAX(p->threads, 1);
  c.progress = p->progress;
  c.progress_data = p->progress_data;
  c.cinv_set = Cinv_set;
  c.cinv_class = Cinv_set ? p->C_class : NULL;
  c.n_cinv = Cinv_set ? p->n_C : 0;
  /* Under LDP nothing is known, the attackers' noise included. */
  noisy = g_new0(gboolean, N);
  for (guint u = 0; u < n; u++)
    noisy[u] = (p->trust == PRIV_TRUST_LDP || !attacker[u]) && !(relay && relay[u]);
  c.noisy = noisy;
  c.victims = g_new(guint, n);
  c.noisy_nodes = g_new(guint, n);
  for (guint u = 0; u < n; u++) {
    if (blocks->status[u] != PRIV_NODE_ATTACKER)
      c.victims[c.n_victims++] = u;
    if (noisy[u])
      c.noisy_nodes[c.n_noisy++] = u;
  }
  if (decor) {
    /* In units of the local noise; the attackers know the secrets of
     * their edges except under LDP. */
    double ratio = p->sigma_secret / p->sigma;
    c.secret_var = ratio * ratio;
    c.secret_known = p->trust == PRIV_TRUST_LDP ? NULL : attacker;
    if (relay != NULL) {
      /* A relay's injection is known whole, its edges' secrets with it. */
      known = g_memdup2(attacker, sizeof(gboolean) * N);
      for (guint v = 0; v < N; v++)
        known[v] = known[v] || relay[v];
      c.secret_known = known;
    }
    c.secret_gossip = p->secret_gossip;
    c.n_secret_gossip = p->n_secret_gossip;
  }
  build_recv(&c, p->trust, p->attackers, p->n_attackers);
  if (p->sigma == 0) {
    noiseless_status(&c, blocks);
    ok = TRUE;
    goto out;
  }
  PrivEngine engine = p->engine;
  if (decor && p->trust != PRIV_TRUST_PNDP && engine == PRIV_ENGINE_AUTO &&
      every_round_all_send(p, n)) {
    /* Every message seen: each step's injection is known (see
     * priv_struct_decor_closed; an engine asked for computes the same
     * blocks the long way). */
    ok = priv_struct_decor_closed(&c, unit, blocks, error);
    goto out;
  }
  if (engine == PRIV_ENGINE_AUTO && decor)
    engine = PRIV_ENGINE_KALMAN;
  if (p->protocol == PRIV_PROTOCOL_MFDSGD &&
      (engine == PRIV_ENGINE_AUTO || engine == PRIV_ENGINE_KALMAN)) {
    /* The Kalman engine carries the noise's state when every class's C^-1
     * has a low-order one (banded C, BLT), each noisy node its own class's
     * (noise_slot); AUTO weighs it, KALMAN asked for without one is
     * refused with the reason. */
    GError *no_state = NULL;
    noise = Cinv_set ? noise_states(Cn_set, Ci_set, ratio, p->n_C, T, &no_state)
                     : noise_states(C, Cinv, NULL, 1, T, &no_state);
    if (noise != NULL) {
      c.noise = noise;
      noise_slot = g_new(guint, c.n_noisy + 1);
      noise_slot[0] = 0;
      for (guint i = 0; i < c.n_noisy; i++)
        noise_slot[i + 1] = noise_slot[i] + priv_struct_noise_of(&c, c.noisy_nodes[i])->p;
      c.noise_slot = noise_slot;
    } else if (engine == PRIV_ENGINE_KALMAN || p->n_delayed > 0) {
      g_propagate_prefixed_error(error, no_state,
                                 p->n_delayed > 0
                                     ? "stale mode's delay-augmented state needs the Kalman "
                                       "engine, which cannot carry this C's noise (use the "
                                       "observer path): "
                                     : "the Kalman engine cannot carry MF-D-SGD's noise: ");
      goto out;
    } else {
      g_clear_error(&no_state);
    }
  }
  /* Stale mode: only the Kalman engine carries the delayed slots (beside
   * MF-D-SGD's noise state). */
  if (engine == PRIV_ENGINE_AUTO)
    engine = p->n_delayed > 0 ? PRIV_ENGINE_KALMAN
                              : choose_engine(&c, p->protocol == PRIV_PROTOCOL_MFDSGD);
  if (engine == PRIV_ENGINE_POWERS)
    ok = priv_struct_powers(&c, Cinv, unit, blocks, error);
  else if (engine == PRIV_ENGINE_KALMAN)
    ok = priv_struct_kalman(&c, unit, blocks, error);
  else if (engine == PRIV_ENGINE_KALMAN_DENSE)
    ok = priv_struct_kalman_dense(&c, unit, blocks, error);
  else
    ok = priv_struct_dense(&c, Cinv, unit, blocks, error);
out:
  if (ok && p->sigma > 0)
    priv_blocks_set_scale(blocks, p->sigma);
  g_free(attacker);
  g_free(relay);
  g_free(known);
  g_free(C);
  g_free(Cinv);
  g_free(Cinv_set);
  g_free(CtC_set);
  g_free(noisy);
  g_free(c.victims);
  g_free(c.noisy_nodes);
  g_free(c.recv_start);
  g_free(c.recv);
  for (guint k = 0; noise != NULL && k < (Cinv_set ? p->n_C : 1); k++)
    priv_noise_state_clear(&noise[k]);
  g_free(noise);
  g_free(noise_slot);
  g_free(Cn_set);
  g_free(Ci_set);
  g_free(ratio);
  if (!ok) {
    priv_blocks_free(blocks);
    return NULL;
  }
  return blocks;
}
