/*
 * privacy/local.c: certified local bounds (docs/design.md, "Certified local bounds";
 * docs/local-bounds.md). Every node more than r hops from the attackers
 * colludes with them: more knowledge, so a Loewner-larger Fisher information
 * and a larger exact sensitivity. The colluders know the outside of the ball
 * B_r, so the ball's dynamics with the original rows of W_r and the messages
 * its boundary sends out are the whole problem; the structured path solves
 * it on |B_r| + 1 nodes. Under PNDP the colluders need not hear each
 * boundary message: knowing the outside's randomness and observing each
 * shell node's state is enough, one combination of ball messages per shell
 * node and round, which a relay node carries (docs/local-bounds.md, "The
 * shell heard through its own state").
 */
#include "privacy/local_internal.h"

#include <string.h>

#define FAR G_MAXUINT

static gboolean fail(GError **error, const char *msg) {
  g_set_error_literal(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT, msg);
  return FALSE;
}

/* Whether row @v of @w lists @u (rows are sorted). O(log row length). */
static gboolean lists(const TopoGossip *w, guint v, guint u) {
  const guint *cols;
  const double *vals;
  guint len = topo_gossip_row(w, v, &cols, &vals);
  gsize at = sim_sorted_search(cols, 0, len, u);
  return at < len && cols[at] == u;
}

/* u lists v iff v lists u: hops then mean the same in both directions, so
 * the nodes that hear a ball node are the ones it hears (the shell). */
static gboolean symmetric_support(const TopoGossip *w) {
  guint n = topo_gossip_n(w);
  for (guint u = 0; u < n; u++) {
    const guint *cols;
    const double *vals;
    guint len = topo_gossip_row(w, u, &cols, &vals);
    for (guint j = 0; j < len; j++)
      if (cols[j] != u && !lists(w, cols[j], u))
        return FALSE;
  }
  return TRUE;
}

static gboolean check(const PrivStructuredProblem *p, guint radius, GError **error) {
  if (radius == 0)
    return fail(error, "the radius must be at least 1 (radius 0 holds no victim)");
  if (!p->gossip || p->n_gossip == 0)
    return fail(error, "a gossip matrix is needed");
  guint n;
  gboolean ok = priv_check_nodes(p, &n, error);
  for (guint i = 0; i < p->n_gossip && ok; i++)
    if (!symmetric_support(p->gossip[i])) {
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "gossip matrix %u: its support is not symmetric (a node hears one that does "
                  "not hear it); local bounds count hops on an undirected graph",
                  i);
      ok = FALSE;
    }
  return ok;
}

static int cmp_guint(gconstpointer a, gconstpointer b) {
  guint x = *(const guint *)a, y = *(const guint *)b;
  return x < y ? -1 : x > y;
}

/* Breadth-first hops from the attackers over the union of the rows'
 * supports, up to r + 1: dist (FAR beyond), the ball (hops <= r) and the
 * shell (hops r + 1), both in increasing node order. O(ball edges n_gossip). */
static void hops(const PrivStructuredProblem *p, guint r, guint *dist, GArray *ball,
                 GArray *shell) {
  GArray *queue = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = 0; i < p->n_attackers; i++) {
    dist[p->attackers[i]] = 0;
    g_array_append_val(queue, p->attackers[i]);
  }
  for (guint head = 0; head < queue->len; head++) {
    guint u = g_array_index(queue, guint, head);
    if (dist[u] > r) {
      g_array_append_val(shell, u);
      continue;
    }
    g_array_append_val(ball, u);
    for (guint k = 0; k < p->n_gossip; k++) {
      const guint *cols;
      const double *vals;
      guint len = topo_gossip_row(p->gossip[k], u, &cols, &vals);
      for (guint j = 0; j < len; j++)
        if (dist[cols[j]] == FAR) {
          dist[cols[j]] = dist[u] + 1;
          g_array_append_val(queue, cols[j]);
        }
    }
  }
  g_array_sort(ball, cmp_guint);
  g_array_sort(shell, cmp_guint);
  g_array_free(queue, TRUE);
}

/*
 * MF-D-SGD with a C per class of nodes: the subproblem's classes, node i
 * of it being @p's node @node[i] (FAR: the merged shell, class 0). The
 * merged shell is an attacker whose noise is known (LDP becomes SecLDP
 * when it exists), so its class is never read. NULL without classes.
 * O(@n).
 */
static guint *sub_classes(const PrivStructuredProblem *p, const guint *node, guint n) {
  if (p->C_class == NULL)
    return NULL;
  guint *cls = g_new(guint, MAX(n, 1u));
  for (guint i = 0; i < n; i++)
    cls[i] = node[i] != FAR ? p->C_class[node[i]] : 0;
  return cls;
}

/* The subproblem's nodes and how its rows are made. */
typedef struct {
  const guint *dist;
  guint r;
  PrivLocalShell shell;
  const guint *node;   /* sub index -> node; FAR for the merged shell or the observer */
  const guint *sub;    /* node -> sub index; FAR outside, and for a merged shell node */
  const guint8 *multi; /* node -> 1: a shell node heard through a relay (RELAY_ALL and
                        * OBSERVED: every one hearing several ball nodes); NULL: none */
  guint n_sub, star;   /* star: the merged shell's (or observer's) index, FAR when none */
  guint first_relay;   /* RELAY, RELAY_ALL: the relays are [first_relay, n_sub) */
} Sub;

/* Whether the shell has relays (and a merged observer): RELAY, RELAY_ALL. */
static gboolean relaying(PrivLocalShell shell) {
  return shell == PRIV_LOCAL_SHELL_RELAY || shell == PRIV_LOCAL_SHELL_RELAY_ALL;
}

static gboolean merged_shell(PrivLocalShell shell) {
  return shell == PRIV_LOCAL_SHELL_MERGED || relaying(shell);
}

/* Row @i of the subproblem's W_k: a ball row with its shell columns summed
 * into the merged shell, or, when the shell is kept node by node, a row
 * without its columns beyond the shell (their weight on the diagonal: the
 * state of a shell node is observed (OBSERVED) or a known function of what
 * the attackers hear (FULL), so any weight on it carries nothing new). */
static void sub_row(const Sub *s, const TopoGossip *w, guint i, GArray *cols, GArray *vals) {
  const guint *c;
  const double *v;
  guint len = topo_gossip_row(w, s->node[i], &c, &v);
  double star = 0.0, dropped = 0.0;
  gboolean has_star = FALSE, diag = FALSE;
  gboolean merged = merged_shell(s->shell);
  for (guint j = 0; j < len; j++)
    if (!merged && s->sub[c[j]] == FAR)
      dropped += v[j];
  for (guint j = 0; j < len; j++) {
    if (merged && s->dist[c[j]] > s->r) { /* a ball row: only the shell is outside */
      star += v[j];
      has_star = TRUE;
      continue;
    }
    guint k = s->sub[c[j]];
    if (k == FAR)
      continue;
    if (k > i && !diag && dropped > 0.0) {
      double d = dropped;
      g_array_append_val(cols, i);
      g_array_append_val(vals, d);
      diag = TRUE;
    }
    double x = v[j];
    if (k == i) {
      x += dropped;
      diag = TRUE;
    }
    g_array_append_val(cols, k);
    g_array_append_val(vals, x);
  }
  if (!diag && dropped > 0.0) {
    g_array_append_val(cols, i);
    g_array_append_val(vals, dropped);
  }
  if (has_star) {
    g_array_append_val(cols, s->star);
    g_array_append_val(vals, star);
  }
}

/* Whether ball node @v's row of @w lists a shell node through which the
 * merged shell hears @v directly: any shell node (MERGED), or one without a
 * relay (it lists at most one ball node a round, so its state's new
 * information is that node's message). By symmetry of the support, the
 * shell nodes @v lists are those that hear it. */
static gboolean heard_directly(const Sub *s, const TopoGossip *w, guint v) {
  const guint *c;
  const double *x;
  guint len = topo_gossip_row(w, v, &c, &x);
  for (guint j = 0; j < len; j++)
    if (s->dist[c[j]] == s->r + 1 &&
        !(s->shell != PRIV_LOCAL_SHELL_MERGED && s->multi && s->multi[c[j]]))
      return TRUE;
  return FALSE;
}

/* Appends the columns @mark flags (of @n, increasing) with equal weights,
 * clearing @mark, or only @self when there is none. */
static void equal_row(guint8 *mark, guint n, guint self, GArray *cols, GArray *vals) {
  guint start = cols->len;
  for (guint i = 0; i < n; i++)
    if (mark[i]) {
      g_array_append_val(cols, i);
      mark[i] = 0;
    }
  guint cnt = cols->len - start;
  if (cnt == 0)
    g_array_append_val(cols, self);
  double x = cnt ? 1.0 / cnt : 1.0;
  for (guint j = 0; j < MAX(cnt, 1u); j++)
    g_array_append_val(vals, x);
}

/* The merged shell's row of round k: the boundary nodes it hears directly
 * (heard_directly), then every relay (RELAY), equal weights; only itself
 * when it hears nobody. Its model is a known function of what it hears, so
 * the weights do not matter. */
static void star_row(const Sub *s, const TopoGossip *w, guint8 *mark, GArray *cols, GArray *vals) {
  for (guint i = 0; i < s->star; i++)
    if (s->dist[s->node[i]] == s->r && heard_directly(s, w, s->node[i]))
      mark[i] = 1;
  for (guint i = s->first_relay; relaying(s->shell) && i < s->n_sub; i++)
    mark[i] = 1;
  equal_row(mark, s->n_sub, s->star, cols, vals);
}

/*
 * A relay's row of round k (RELAY, RELAY_ALL): shell node s's weights
 * on the ball nodes, and the rest of its row (itself, the shell, beyond) on
 * the merged shell. Its state is then y_s + known terms, y_s =
 * sum_{j in ball} W_k[s, j] x_k[j], the new information of s's own state;
 * the merged shell's model, a known function of what it hears, stands for
 * the rest (any known term carries nothing).
 */
static void relay_row(const Sub *s, const TopoGossip *w, guint i, GArray *cols, GArray *vals) {
  const guint *c;
  const double *v;
  guint len = topo_gossip_row(w, s->node[i], &c, &v), start = cols->len;
  double rest = 0.0;
  for (guint j = 0; j < len; j++) {
    if (s->dist[c[j]] > s->r) {
      rest += v[j];
      continue;
    }
    double x = v[j];
    g_array_append_val(cols, s->sub[c[j]]);
    g_array_append_val(vals, x);
  }
  if (rest > 0.0 || cols->len == start) {
    g_array_append_val(cols, s->star);
    g_array_append_val(vals, rest);
  }
}

/* The observer's row of round @k (PRIV_LOCAL_SHELL_OBSERVED): every shell
 * node (it observes their states), and in the last round the ball nodes
 * that a shell node without several ball neighbours hears, as the merged
 * shell of RELAY hears them in every round. */
static void observer_row(const Sub *s, const TopoGossip *w, gboolean last, guint8 *mark,
                         GArray *cols, GArray *vals) {
  for (guint i = 0; i < s->n_sub; i++) {
    guint v = s->node[i];
    if (v == FAR)
      continue;
    if (s->dist[v] == s->r + 1 || (last && s->dist[v] == s->r && heard_directly(s, w, v)))
      mark[i] = 1;
  }
  equal_row(mark, s->n_sub, s->star, cols, vals);
}

/* The @n x @n gossip matrix of CSR rows @row_ptr, @cols (guint) and @vals
 * (double), which it frees; @what names it in the error. Its rows come from
 * valid gossip rows, so an error means a bug (PRIV_ERROR_NUMERICAL). */
static TopoGossip *gossip_take_rows(guint n, guint *row_ptr, GArray *cols, GArray *vals,
                                    const char *what, GError **error) {
  GError *sub_error = NULL;
  TopoGossip *out = topo_gossip_new_csr(n, row_ptr, (const guint *)(void *)cols->data,
                                        (const double *)(void *)vals->data, &sub_error);
  if (!out) {
    g_set_error(error, PRIV_ERROR, PRIV_ERROR_NUMERICAL, "%s: %s", what, sub_error->message);
    g_error_free(sub_error);
  }
  g_free(row_ptr);
  g_array_free(cols, TRUE);
  g_array_free(vals, TRUE);
  return out;
}

/* The subproblem's gossip matrix from @w; @last: the run's last round
 * (only the observer's row depends on it). */
static TopoGossip *sub_gossip(const Sub *s, const TopoGossip *w, gboolean last, GError **error) {
  GArray *cols = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  guint *row_ptr = g_new(guint, s->n_sub + 1);
  guint8 *mark = g_new0(guint8, s->n_sub);
  for (guint i = 0; i < s->n_sub; i++) {
    row_ptr[i] = cols->len;
    if (i == s->star && s->shell == PRIV_LOCAL_SHELL_OBSERVED)
      observer_row(s, w, last, mark, cols, vals);
    else if (i == s->star)
      star_row(s, w, mark, cols, vals);
    else if (relaying(s->shell) && i >= s->first_relay)
      relay_row(s, w, i, cols, vals);
    else
      sub_row(s, w, i, cols, vals);
  }
  row_ptr[s->n_sub] = cols->len;
  g_free(mark);
  return gossip_take_rows(s->n_sub, row_ptr, cols, vals, "the ball's gossip matrix", error);
}

/* Union-find root of @i (path halving). */
static guint uf_root(guint *parent, guint i) {
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/*
 * The shell nodes heard through a relay: node -> 1 in the returned array of
 * n (g_free), their number in *@count, increasing in @relays when given;
 * NULL when there is none. Candidates: the shell nodes that hear several
 * ball nodes in some round of @p (its rows list them, by symmetry). @all,
 * or at most twice as many candidates as the @nb ball nodes (the
 * subproblem at most triples): every candidate. Else by cost, with no
 * effect on soundness (hearing a candidate's ball nodes directly is the
 * colluding shell's, more knowledge): the candidates and the ball nodes
 * they hear that no other shell node hears alone (not heard directly
 * anyway) form a bipartite graph; a component gets relays only when it has
 * fewer candidates than such ball nodes, since otherwise its relays'
 * combinations, one per candidate and round, would as a rule determine
 * those messages anyway (all but the last round's), at the price of a node
 * each: on an overlay whose radius-2 ball of 135 nodes has 5,123 shell
 * nodes, 2,451 of them candidates, relaying them all made the subproblem
 * 19 times larger and the accounting's estimate 59 hours.
 * O(shell edges n_gossip + n), n bytes, and 4 n more when there are
 * candidates.
 */
static guint8 *relayed_shell(const PrivStructuredProblem *p, const guint *dist, guint r,
                             const GArray *rim, guint n, guint nb, gboolean all, guint *count,
                             GArray *relays) {
  *count = 0;
  GArray *cand = g_array_new(FALSE, FALSE, sizeof(guint));
  guint8 *flag = NULL;
  for (guint i = 0; i < rim->len; i++) {
    guint v = g_array_index(rim, guint, i);
    gboolean several = FALSE;
    for (guint k = 0; k < p->n_gossip && !several; k++) {
      const guint *c;
      const double *x;
      guint len = topo_gossip_row(p->gossip[k], v, &c, &x), in_ball = 0;
      for (guint j = 0; j < len; j++)
        in_ball += dist[c[j]] <= r;
      several = in_ball >= 2;
    }
    if (several)
      g_array_append_val(cand, v);
  }
  if (cand->len == 0) {
    g_array_free(cand, TRUE);
    return NULL;
  }
  flag = g_new0(guint8, n);
  for (guint i = 0; i < cand->len; i++)
    flag[g_array_index(cand, guint, i)] = 1;
  if (!all && cand->len > 2 * (gsize)nb) {
    /* flag 2: a ball node some non-candidate shell node hears directly. */
    for (guint i = 0; i < rim->len; i++) {
      guint v = g_array_index(rim, guint, i);
      for (guint k = 0; k < p->n_gossip && flag[v] != 1; k++) {
        const guint *c;
        const double *x;
        guint len = topo_gossip_row(p->gossip[k], v, &c, &x);
        for (guint j = 0; j < len; j++)
          if (dist[c[j]] <= r)
            flag[c[j]] = 2;
      }
    }
    /* The bipartite graph: candidates 0 .. m - 1, then the ball nodes they
     * hear that are not heard directly, by first appearance. */
    guint m = cand->len, *idx = g_new(guint, n);
    memset(idx, 0xff, sizeof(guint) * n);
    GArray *parent = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < m; i++)
      g_array_append_val(parent, i);
    for (guint i = 0; i < m; i++) {
      guint v = g_array_index(cand, guint, i);
      for (guint k = 0; k < p->n_gossip; k++) {
        const guint *c;
        const double *x;
        guint len = topo_gossip_row(p->gossip[k], v, &c, &x);
        for (guint j = 0; j < len; j++) {
          if (dist[c[j]] > r || flag[c[j]] == 2)
            continue;
          if (idx[c[j]] == FAR) {
            idx[c[j]] = parent->len;
            g_array_append_val(parent, idx[c[j]]);
          }
          guint *pa = (guint *)(void *)parent->data;
          guint a = uf_root(pa, i), b = uf_root(pa, idx[c[j]]);
          if (a != b)
            pa[MAX(a, b)] = MIN(a, b);
        }
      }
    }
    /* Per component (its root): candidates less ball nodes. */
    guint *pa = (guint *)(void *)parent->data;
    gint *excess = g_new0(gint, parent->len);
    for (guint i = 0; i < parent->len; i++)
      excess[uf_root(pa, i)] += i < m ? 1 : -1;
    for (guint i = 0; i < m; i++)
      if (excess[uf_root(pa, i)] >= 0)
        flag[g_array_index(cand, guint, i)] = 0;
    g_free(excess);
    g_array_free(parent, TRUE);
    g_free(idx);
    /* Only the relayed candidates keep their flag. */
    for (guint v = 0; v < n; v++)
      if (flag[v] == 2)
        flag[v] = 0;
  }
  for (guint i = 0; i < cand->len; i++) {
    guint v = g_array_index(cand, guint, i);
    if (flag[v] != 1)
      continue;
    (*count)++;
    if (relays)
      g_array_append_val(relays, v);
  }
  g_array_free(cand, TRUE);
  if (*count == 0)
    g_clear_pointer(&flag, g_free);
  return flag;
}

/* Whether @p's shell may be heard through relays: PNDP attackers (LDP and
 * SecLDP see every message: the merged shell is no weaker there). */
static gboolean relays_apply(const PrivStructuredProblem *p) {
  return p->trust == PRIV_TRUST_PNDP;
}

PrivReport *priv_local_report_shell(const PrivStructuredProblem *p, guint radius,
                                    const PrivAccountOptions *opt, PrivLocalShell shell,
                                    PrivLocalInfo *info, GError **error) {
  return priv_local_report_lower(p, radius, opt, shell, PRIV_LOCAL_LOWER_BEST, info, error);
}

PrivReport *priv_local_report_lower(const PrivStructuredProblem *p, guint radius,
                                    const PrivAccountOptions *opt, PrivLocalShell shell,
                                    PrivLocalLower lower, PrivLocalInfo *info, GError **error) {
  g_return_val_if_fail(p != NULL && opt != NULL, NULL);
  if (!check(p, radius, error))
    return NULL;
  if (p->messages != NULL) {
    /* A ball would need the full run's deliveries cut to it (issue 41). */
    g_set_error_literal(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                        "the local bound does not take a simulated run's messages yet");
    return NULL;
  }
  if (shell == PRIV_LOCAL_SHELL_OBSERVED && !relays_apply(p)) {
    g_set_error_literal(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                        "an observed shell is for PNDP attackers");
    return NULL;
  }
  if (relaying(shell) && !relays_apply(p))
    shell = PRIV_LOCAL_SHELL_MERGED;
  guint n = topo_gossip_n(p->gossip[0]);
  if (!priv_check_budget((3 * sizeof(guint) + 1) * (gsize)n, p->max_bytes,
                         "the hop counts of the local bound", error))
    return NULL;
  /* Beyond n hops nothing more is reached: r + 1 stays a guint. */
  guint r = MIN(radius, n);
  guint *dist = g_new(guint, n), *sub = g_new(guint, n);
  memset(dist, 0xff, sizeof(guint) * n);
  memset(sub, 0xff, sizeof(guint) * n);
  GArray *ball = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *rim = g_array_new(FALSE, FALSE, sizeof(guint));
  hops(p, r, dist, ball, rim);
  gboolean covered = rim->len == 0;
  GArray *relays = g_array_new(FALSE, FALSE, sizeof(guint));
  guint n_multi = 0;
  guint8 *multi = relaying(shell) || shell == PRIV_LOCAL_SHELL_OBSERVED
                      ? relayed_shell(p, dist, r, rim, n, ball->len,
                                      shell != PRIV_LOCAL_SHELL_RELAY, &n_multi,
                                      relaying(shell) ? relays : NULL)
                      : NULL;

  /* Sub indices follow node order, so every sub row stays sorted; the
   * merged shell (or observer) comes after the nodes, the relays last. */
  GArray *nodes = g_array_sized_new(FALSE, FALSE, sizeof(guint), ball->len + rim->len + 1);
  Sub s = {.dist = dist, .r = r, .shell = shell, .multi = multi, .star = FAR};
  guint far = FAR;
  if (shell == PRIV_LOCAL_SHELL_FULL || shell == PRIV_LOCAL_SHELL_OBSERVED) {
    g_array_append_vals(nodes, ball->data, ball->len);
    g_array_append_vals(nodes, rim->data, rim->len);
    g_array_sort(nodes, cmp_guint);
    if (shell == PRIV_LOCAL_SHELL_OBSERVED && !covered) {
      s.star = nodes->len;
      g_array_append_val(nodes, far);
    }
  } else {
    g_array_append_vals(nodes, ball->data, ball->len);
    if (!covered) {
      s.star = ball->len;
      g_array_append_val(nodes, far);
    }
    s.first_relay = nodes->len;
    g_array_append_vals(nodes, relays->data, relays->len);
  }
  s.node = (const guint *)(void *)nodes->data;
  s.n_sub = nodes->len;
  for (guint i = 0; i < s.n_sub; i++)
    if (s.node[i] != FAR)
      sub[s.node[i]] = i;
  s.sub = sub;

  /* The attackers: the original ones, then the merged shell or observer
   * (FULL: every shell node). The relays: RELAY's, or every shell node of
   * OBSERVED (its state observed, its inputs not). */
  GArray *att = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *rel = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = 0; i < p->n_attackers; i++)
    g_array_append_val(att, sub[p->attackers[i]]);
  if (s.star != FAR)
    g_array_append_val(att, s.star);
  for (guint i = 0; shell == PRIV_LOCAL_SHELL_FULL && i < rim->len; i++)
    g_array_append_val(att, sub[g_array_index(rim, guint, i)]);
  for (guint i = 0; shell == PRIV_LOCAL_SHELL_OBSERVED && i < rim->len; i++)
    g_array_append_val(rel, sub[g_array_index(rim, guint, i)]);
  for (guint i = s.first_relay; relaying(shell) && i < s.n_sub; i++)
    g_array_append_val(rel, i);

  /* The observer's row differs in the last round: one matrix a round. */
  guint K = p->K ? p->K : 1;
  guint n_ws = shell == PRIV_LOCAL_SHELL_OBSERVED && !covered ? K * p->T : p->n_gossip;
  PrivReport *report = NULL;
  PrivBlocks *blocks = NULL;
  TopoGossip **ws = g_new0(TopoGossip *, n_ws);
  guint *cls = sub_classes(p, s.node, s.n_sub);
  gboolean ok = TRUE;
  for (guint k = 0; k < n_ws && ok; k++) {
    const TopoGossip *w = p->gossip[p->n_gossip == 1 ? 0 : k];
    ok = (ws[k] = sub_gossip(&s, w, k + 1 == n_ws, error)) != NULL;
  }
  if (ok) {
    PrivStructuredProblem q = *p;
    q.C_class = cls;
    q.gossip = (const TopoGossip *const *)ws;
    q.n_gossip = n_ws;
    q.attackers = (const guint *)(void *)att->data;
    q.n_attackers = att->len;
    q.relays = (const guint *)(void *)rel->data;
    q.n_relays = rel->len;
    /* LDP colluders would not know their own noise, so the outside would
     * not be known: they get it (SecLDP), which only adds knowledge. */
    if (!covered && q.trust == PRIV_TRUST_LDP)
      q.trust = PRIV_TRUST_SECLDP;
    blocks = priv_structured_blocks(&q, error);
    if (!blocks && error && *error && (*error)->code == PRIV_ERROR_MEMORY)
      g_prefix_error(error,
                     "the ball of radius %u (%u nodes and %u relays; a smaller radius needs "
                     "less): ",
                     radius, ball->len, relays->len);
  }
  if (blocks)
    report = priv_account_report(blocks, NULL, opt, error);
  for (guint i = 0; report && i < report->n_victims; i++) {
    PrivVictim *v = &report->victims[i];
    v->node = s.node[v->node];
    v->distance = (gint)dist[v->node];
  }
  if (report &&
      !priv_local_lower(p, (const guint *)(void *)ball->data, ball->len, lower, report, error))
    g_clear_pointer(&report, priv_report_free);
  if (report && info)
    *info = (PrivLocalInfo){.radius = radius,
                            .ball = ball->len,
                            .shell = rim->len,
                            .relays = relays->len,
                            .sub_nodes = s.n_sub,
                            .covered = covered};
  for (guint k = 0; k < n_ws; k++)
    topo_gossip_free(ws[k]);
  g_free(ws);
  g_free(cls);
  g_free(multi);
  priv_blocks_free(blocks);
  g_array_free(att, TRUE);
  g_array_free(rel, TRUE);
  g_array_free(relays, TRUE);
  g_array_free(nodes, TRUE);
  g_array_free(ball, TRUE);
  g_array_free(rim, TRUE);
  g_free(dist);
  g_free(sub);
  return report;
}

gboolean priv_local_ball(const PrivStructuredProblem *p, guint radius, PrivLocalInfo *info,
                         GError **error) {
  g_return_val_if_fail(p != NULL && info != NULL, FALSE);
  GArray *ball = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *rim = g_array_new(FALSE, FALSE, sizeof(guint));
  guint *dist = priv_local_distances(p, radius, ball, rim, error);
  gboolean ok = dist != NULL;
  guint n_relays = 0;
  if (ok && relays_apply(p))
    g_free(relayed_shell(p, dist, MIN(radius, topo_gossip_n(p->gossip[0])), rim,
                         topo_gossip_n(p->gossip[0]), ball->len, FALSE, &n_relays, NULL));
  if (ok)
    *info = (PrivLocalInfo){.radius = radius,
                            .ball = ball->len,
                            .shell = rim->len,
                            .relays = n_relays,
                            .sub_nodes = ball->len + (rim->len > 0) + n_relays,
                            .covered = rim->len == 0};
  g_array_free(ball, TRUE);
  g_array_free(rim, TRUE);
  g_free(dist);
  return ok;
}

PrivReport *priv_local_report(const PrivStructuredProblem *problem, guint radius,
                              const PrivAccountOptions *opt, PrivLocalInfo *info, GError **error) {
  return priv_local_report_shell(problem, radius, opt, PRIV_LOCAL_SHELL_RELAY, info, error);
}

guint *priv_local_distances(const PrivStructuredProblem *p, guint radius, GArray *ball,
                            GArray *shell, GError **error) {
  g_return_val_if_fail(p != NULL && ball != NULL && shell != NULL, NULL);
  if (!check(p, radius, error))
    return NULL;
  guint n = topo_gossip_n(p->gossip[0]);
  if (!priv_check_budget(sizeof(guint) * (gsize)n, p->max_bytes,
                         "the hop counts of the local bound", error))
    return NULL;
  guint *dist = g_new(guint, n);
  memset(dist, 0xff, sizeof(guint) * n);
  hops(p, MIN(radius, n), dist, ball, shell);
  return dist;
}

/* The record's ball, merged: the ball nodes (their index in the record,
 * increasing), then the merged shell, then the record's slots. */
typedef struct {
  guint m, nb, star, L; /* record nodes, ball nodes, star index (FAR: none), slots */
  const guint *ball;    /* nb record indices */
  guint *sub;           /* record node or slot (m + j) -> merged index */
} Merged;

/* Row @i (a ball node) of the merged W_k: the record's row, its shell
 * columns summed into the merged shell, slots renumbered. The record's
 * columns are increasing, nodes before slots, so the output is too. */
static void merged_ball_row(const Merged *g, const TopoGossip *w, guint i, GArray *cols,
                            GArray *vals) {
  const guint *c;
  const double *v;
  guint len = topo_gossip_row(w, g->ball[i], &c, &v);
  double star = 0.0;
  gboolean has_star = FALSE;
  for (guint j = 0; j < len; j++) {
    guint k = g->sub[c[j]];
    if (k == g->star) {
      star += v[j];
      has_star = TRUE;
      continue;
    }
    if (has_star && c[j] >= g->m) { /* the first slot: the shell comes before */
      g_array_append_val(cols, g->star);
      g_array_append_val(vals, star);
      has_star = FALSE;
    }
    g_array_append_val(cols, k);
    g_array_append_val(vals, v[j]);
  }
  if (has_star) {
    g_array_append_val(cols, g->star);
    g_array_append_val(vals, star);
  }
}

/* The merged W_k: ball rows as above; the merged shell keeps its own state
 * (its messages are what it receives in @messages, whatever its row); a
 * slot row copies a ball node (its message starts being held) or the
 * merged shell (a shell node's late message: known to the colluders), or
 * keeps its content. */
static TopoGossip *merged_gossip(const Merged *g, const TopoGossip *w, GError **error) {
  guint N = g->nb + (g->star != FAR) + g->L;
  GArray *cols = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  guint *row_ptr = g_new(guint, N + 1);
  guint at = 0;
  for (guint i = 0; i < g->nb; i++) {
    row_ptr[at++] = cols->len;
    merged_ball_row(g, w, i, cols, vals);
  }
  if (g->star != FAR) {
    row_ptr[at++] = cols->len;
    double one = 1.0;
    g_array_append_val(cols, g->star);
    g_array_append_val(vals, one);
  }
  for (guint j = 0; j < g->L; j++) {
    row_ptr[at++] = cols->len;
    const guint *c;
    const double *v;
    guint len = topo_gossip_row(w, g->m + j, &c, &v);
    for (guint e = 0; e < len; e++) {
      double x = v[e];
      g_array_append_val(cols, g->sub[c[e]]);
      g_array_append_val(vals, x);
    }
  }
  row_ptr[N] = cols->len;
  return gossip_take_rows(N, row_ptr, cols, vals, "the ball's recorded gossip matrix", error);
}

/* The merged messages of one round: a ball node receives what it received
 * (the shell's messages as one from the merged shell, delivered when one
 * was); the merged shell receives the ball's messages to any shell node. */
typedef struct {
  guint *ptr, *from;
  guint8 *delivered;
} MergedMessages;

static void merged_messages(const Merged *g, const PrivRoundMessages *m, const guint *dist, guint r,
                            guint8 *mark, MergedMessages *out) {
  guint n_sub = g->nb + (g->star != FAR);
  GArray *from = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *del = g_array_new(FALSE, FALSE, sizeof(guint8));
  out->ptr = g_new(guint, n_sub + 1);
  for (guint i = 0; i < g->nb; i++) {
    out->ptr[i] = from->len;
    guint u = g->ball[i];
    guint8 star = 0;
    gboolean has_star = FALSE;
    for (guint e = m->ptr[u]; e < m->ptr[u + 1]; e++) {
      guint k = g->sub[m->from[e]];
      if (k == g->star) {
        has_star = TRUE;
        star |= m->delivered[e];
        continue;
      }
      g_array_append_val(from, k);
      g_array_append_val(del, m->delivered[e]);
    }
    if (has_star) {
      g_array_append_val(from, g->star);
      g_array_append_val(del, star);
    }
  }
  if (g->star != FAR) {
    out->ptr[g->nb] = from->len;
    /* mark[i]: 1 + delivered of ball node i's messages to the shell. */
    memset(mark, 0, g->nb);
    for (guint u = 0; u < g->m; u++) {
      if (dist[u] <= r)
        continue;
      for (guint e = m->ptr[u]; e < m->ptr[u + 1]; e++) {
        guint k = g->sub[m->from[e]];
        if (k < g->nb)
          mark[k] = (guint8)(1 + ((mark[k] == 2) | m->delivered[e]));
      }
    }
    for (guint i = 0; i < g->nb; i++)
      if (mark[i]) {
        guint8 d = mark[i] == 2;
        g_array_append_val(from, i);
        g_array_append_val(del, d);
      }
  }
  out->ptr[n_sub] = from->len;
  out->from = (guint *)(void *)g_array_free(from, FALSE);
  out->delivered = (guint8 *)(void *)g_array_free(del, FALSE);
}

/* DECOR on a ball's record: its secrets' gossip must be on the record's
 * @m nodes (priv_local_record_gossip), one matrix or one per round. */
static gboolean check_record_secrets(const PrivStructuredProblem *p, guint m, GError **error) {
  if (p->secret_gossip == NULL)
    return fail(error, "DECOR on a ball's record needs the schedule's gossip on the record's "
                       "nodes (secret_gossip, priv_local_record_gossip): its secrets are on the "
                       "schedule's edges, late and lost messages' included");
  if (p->n_secret_gossip != 1 && p->n_secret_gossip != p->n_gossip)
    return fail(error, "DECOR's secret gossip on a ball's record: expected 1 (static) or one "
                       "matrix per round");
  for (guint k = 0; k < p->n_secret_gossip; k++)
    if (p->secret_gossip[k] == NULL || topo_gossip_n(p->secret_gossip[k]) != m)
      return fail(error, "DECOR's secret gossip on a ball's record must be on the record's "
                         "nodes (the gossip matrices' dimension less the delayed slots)");
  return TRUE;
}

/* DECOR's secret gossip on the merged ball (its nodes only, no slots): a
 * ball row is the schedule's, its shell columns summed into the merged
 * shell, an attacker, so every ball-shell secret is known to it, as the
 * shell's colluders know their own edges' secrets (docs/local-bounds.md,
 * "Why the bound is sound"); the ball-ball secrets stay as on the whole
 * graph. The merged shell's row is itself: its shell-shell edges carry
 * secrets it knows, which the ball never adds. */
static TopoGossip *merged_secret_gossip(const Merged *g, const TopoGossip *w, GError **error) {
  guint n_sub = g->nb + (g->star != FAR);
  GArray *cols = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  guint *row_ptr = g_new(guint, n_sub + 1);
  for (guint i = 0; i < g->nb; i++) {
    row_ptr[i] = cols->len;
    /* The record's nodes only: merged_ball_row's slot columns never occur. */
    merged_ball_row(g, w, i, cols, vals);
  }
  if (g->star != FAR) {
    row_ptr[g->nb] = cols->len;
    double one = 1.0;
    g_array_append_val(cols, g->star);
    g_array_append_val(vals, one);
  }
  row_ptr[n_sub] = cols->len;
  return gossip_take_rows(n_sub, row_ptr, cols, vals, "the ball's secret gossip matrix", error);
}

TopoGossip *priv_local_record_gossip(const TopoGossip *w, const guint *node, guint m,
                                     const guint *keep, GError **error) {
  g_return_val_if_fail(w != NULL && node != NULL && keep != NULL, NULL);
  GArray *cols = g_array_new(FALSE, FALSE, sizeof(guint));
  GArray *vals = g_array_new(FALSE, FALSE, sizeof(double));
  guint *row_ptr = g_new(guint, m + 1);
  for (guint i = 0; i < m; i++) {
    row_ptr[i] = cols->len;
    const guint *c;
    const double *v;
    guint len = topo_gossip_row(w, node[i], &c, &v);
    /* The columns beyond the record on the diagonal: a row still sums to
     * 1, and only a shell row has any (the ball's neighbours are in it). */
    double dropped = 0.0;
    for (guint j = 0; j < len; j++)
      if (keep[c[j]] == FAR)
        dropped += v[j];
    gboolean diag = FALSE;
    for (guint j = 0; j < len; j++) {
      guint k = keep[c[j]];
      if (k == FAR)
        continue;
      double x = v[j];
      if (!diag && dropped > 0.0 && k >= i) {
        if (k > i) {
          g_array_append_val(cols, i);
          g_array_append_val(vals, dropped);
        } else {
          x += dropped;
        }
        diag = TRUE;
      }
      g_array_append_val(cols, k);
      g_array_append_val(vals, x);
    }
    if (!diag && dropped > 0.0) {
      g_array_append_val(cols, i);
      g_array_append_val(vals, dropped);
    }
  }
  row_ptr[m] = cols->len;
  return gossip_take_rows(m, row_ptr, cols, vals, "the record's secret gossip matrix", error);
}

PrivReport *priv_local_report_record(const PrivStructuredProblem *p, const guint *dist,
                                     guint radius, const PrivAccountOptions *opt,
                                     PrivLocalInfo *info, GError **error) {
  g_return_val_if_fail(p != NULL && dist != NULL && opt != NULL, NULL);
  if (radius == 0) {
    fail(error, "the radius must be at least 1 (radius 0 holds no victim)");
    return NULL;
  }
  if (p->messages == NULL || p->gossip == NULL || p->n_gossip == 0) {
    fail(error, "a ball's record needs its gossip matrices and messages");
    return NULL;
  }
  gboolean secrets = p->protocol == PRIV_PROTOCOL_DECOR && p->sigma_secret > 0;
  guint N = topo_gossip_n(p->gossip[0]);
  if (p->n_delayed >= N) {
    fail(error, "the record has more slots than entries");
    return NULL;
  }
  if (secrets && !check_record_secrets(p, N - p->n_delayed, error))
    return NULL;
  Merged g = {.m = N - p->n_delayed, .L = p->n_delayed, .star = FAR};
  guint *ball = g_new(guint, g.m), n_shell = 0;
  for (guint u = 0; u < g.m; u++) {
    if (dist[u] <= radius)
      ball[g.nb++] = u;
    else if (dist[u] == radius + 1)
      n_shell++;
    else {
      g_free(ball);
      g_set_error(error, PRIV_ERROR, PRIV_ERROR_INVALID_ARGUMENT,
                  "node %u of a ball's record is %u hops away, beyond radius %u + 1", u, dist[u],
                  radius);
      return NULL;
    }
  }
  g.ball = ball;
  gboolean covered = n_shell == 0;
  if (!covered)
    g.star = g.nb;
  guint n_sub = g.nb + !covered;
  g.sub = g_new(guint, N);
  for (guint u = 0, i = 0; u < g.m; u++)
    g.sub[u] = dist[u] <= radius ? i++ : g.star;
  for (guint j = 0; j < g.L; j++)
    g.sub[g.m + j] = n_sub + j;

  GArray *att = g_array_new(FALSE, FALSE, sizeof(guint));
  gboolean ok = TRUE;
  for (guint i = 0; i < p->n_attackers && ok; i++) {
    guint a = p->attackers[i];
    ok = a < g.m && dist[a] == 0;
    if (ok)
      g_array_append_val(att, g.sub[a]);
  }
  if (!ok)
    fail(error, "an attacker of a ball's record is not at distance 0");
  if (g.star != FAR)
    g_array_append_val(att, g.star);

  guint n_sg = secrets ? p->n_secret_gossip : 0;
  TopoGossip **ws = g_new0(TopoGossip *, p->n_gossip), **sg = g_new0(TopoGossip *, MAX(n_sg, 1u));
  for (guint k = 0; k < n_sg && ok; k++)
    ok = (sg[k] = merged_secret_gossip(&g, p->secret_gossip[k], error)) != NULL;
  /* The merged problem's nodes: the ball's record indices, then the shell. */
  guint *merged_node = g_new(guint, n_sub);
  for (guint i = 0; i < n_sub; i++)
    merged_node[i] = i < g.nb ? ball[i] : FAR;
  guint *cls = sub_classes(p, merged_node, n_sub);
  g_free(merged_node);
  MergedMessages *mm = g_new0(MergedMessages, p->n_gossip);
  PrivRoundMessages *msg = g_new0(PrivRoundMessages, p->n_gossip);
  guint8 *mark = g_new(guint8, MAX(g.nb, 1u));
  for (guint k = 0; k < p->n_gossip && ok; k++) {
    ok = (ws[k] = merged_gossip(&g, p->gossip[k], error)) != NULL;
    merged_messages(&g, &p->messages[k], dist, radius, mark, &mm[k]);
    msg[k] = (PrivRoundMessages){mm[k].ptr, mm[k].from, mm[k].delivered};
  }
  PrivReport *report = NULL;
  PrivBlocks *blocks = NULL;
  if (ok) {
    PrivStructuredProblem q = *p;
    q.C_class = cls;
    q.gossip = (const TopoGossip *const *)ws;
    q.messages = msg;
    q.attackers = (const guint *)(void *)att->data;
    q.n_attackers = att->len;
    if (secrets) {
      q.secret_gossip = (const TopoGossip *const *)sg;
      q.n_secret_gossip = n_sg;
    }
    /* As priv_local_report: LDP colluders are given their own noise. */
    if (!covered && q.trust == PRIV_TRUST_LDP)
      q.trust = PRIV_TRUST_SECLDP;
    blocks = priv_structured_blocks(&q, error);
    if (!blocks && error && *error && (*error)->code == PRIV_ERROR_MEMORY)
      g_prefix_error(
          error, "the ball of radius %u (%u nodes; a smaller radius needs less): ", radius, g.nb);
  }
  if (blocks)
    report = priv_account_report(blocks, NULL, opt, error);
  for (guint i = 0; report && i < report->n_victims; i++) {
    PrivVictim *v = &report->victims[i];
    v->node = ball[v->node]; /* the record's index; the caller maps it to the graph */
    v->distance = (gint)dist[v->node];
    v->mu_lower = v->mu; /* covered: the exact value; else replaced below */
  }
  /* The projection lower bound (docs/local-bounds.md, "Asynchronous runs"):
   * the original attackers on the record's own ball and slot rows, the
   * shell as unknown inflow. Not covariance domination: its energy
   * bound reads every row of the graph, and the record's shell rows are
   * stand-ins. */
  if (report && !covered &&
      !priv_local_lower(p, ball, g.nb, PRIV_LOCAL_LOWER_PROJECTION, report, error))
    g_clear_pointer(&report, priv_report_free);
  if (report && info)
    *info = (PrivLocalInfo){.radius = radius,
                            .ball = g.nb,
                            .shell = n_shell,
                            .sub_nodes = n_sub,
                            .covered = covered,
                            .cond = blocks->cond};
  for (guint k = 0; k < p->n_gossip; k++) {
    topo_gossip_free(ws[k]);
    g_free(mm[k].ptr);
    g_free(mm[k].from);
    g_free(mm[k].delivered);
  }
  for (guint k = 0; k < n_sg; k++)
    topo_gossip_free(sg[k]);
  g_free(ws);
  g_free(cls);
  g_free(sg);
  g_free(mm);
  g_free(msg);
  g_free(mark);
  priv_blocks_free(blocks);
  g_array_free(att, TRUE);
  g_free(g.sub);
  g_free(ball);
  return report;
}
