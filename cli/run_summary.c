/*
 * cli/run_summary.c: the few lines `dpgossip run` prints after a run, read
 * back from the files it wrote (so what is printed is what is on disk): for a
 * sweep, a row per group over seeds (noise, mu under LDP, each trust model's
 * worst epsilon, test loss), then each group's privacy by hop distance from
 * the attackers; for a single point, privacy by distance.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run_summary.h"
#include "privacy/privacy.h"
#include "scenarios/scenarios.h"

static gboolean is_number(const char *v, double *x) {
  char *end = NULL;
  *x = g_ascii_strtod(v, &end);
  return *v != '\0' && end != NULL && *end == '\0';
}

/* A number as the tables print it: 4 significant digits, "inf" spelled so. */
static char *num(double x) {
  return isinf(x) ? g_strdup(x > 0 ? "inf" : "-inf") : g_strdup_printf("%.4g", x);
}

/* A privacy number as the tables print it: @digits significant digits,
 * rounded up, so the printed guarantee is never smaller than the computed
 * one (beyond double precision's own 1e-12 relative). */
static char *num_up(double x, int digits) {
  if (!isfinite(x))
    return num(x);
  char *s = g_strdup_printf("%.*g", digits, x);
  double v = g_ascii_strtod(s, NULL);
  if (v < x - 1e-12 * fabs(x)) {
    double step = pow(10, floor(log10(fabs(x))) - digits + 1);
    g_free(s);
    s = g_strdup_printf("%.*g", digits, v + step);
  }
  return s;
}

/* What a trust model lets the attackers see, for the summary's last lines
 * (its row in privacy/trust.c), or NULL for a name no row has. */
static const char *trust_meaning(const char *trust) {
  PrivTrust t;
  if (!priv_trust_parse(trust, &t, NULL))
    return NULL;
  return priv_trust_model(t)->meaning;
}

/* The sweep as the summary reads it: groups.csv's rows, which group each
 * point of points.csv belongs to, and privacy.csv's rows. */
typedef struct {
  GPtrArray *groups, *points, *privacy; /* CSV rows, row 0 the header */
  int n_axes;                           /* groups.csv: axis columns 1..n_axes (before "seeds") */
  GHashTable *group_of;                 /* point name -> group row (1-based) */
  guint rounds;                         /* T: the last round in aggregate.csv */
} Sweep;

/* Maps each point (points.csv's dir, after "points/") to the group row whose
 * axis values (groups.csv's columns between "group" and "seeds") it has. */
static void map_points(Sweep *s) {
  s->group_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  if (s->points == NULL)
    return;
  char **gh = g_ptr_array_index(s->groups, 0), **ph = g_ptr_array_index(s->points, 0);
  int cdir = scen_csv_column(ph, "dir");
  for (guint p = 1; p < s->points->len; p++) {
    char **prow = g_ptr_array_index(s->points, p);
    const char *dir = scen_csv_cell(prow, cdir), *slash = strrchr(dir, '/');
    for (guint g = 1; g < s->groups->len; g++) {
      char **grow = g_ptr_array_index(s->groups, g);
      gboolean same = TRUE;
      for (int a = 1; a <= s->n_axes && same; a++)
        same = strcmp(scen_csv_cell(grow, a), scen_csv_cell(prow, scen_csv_column(ph, gh[a]))) == 0;
      if (same) {
        g_hash_table_insert(s->group_of, g_strdup(slash ? slash + 1 : dir), GUINT_TO_POINTER(g));
        break;
      }
    }
  }
}

/* The largest value of privacy.csv's column @col over group @g's rows of
 * trust @trust; NAN when there is none. */
static double group_max(const Sweep *s, guint g, const char *trust, const char *col) {
  if (s->privacy == NULL)
    return NAN;
  char **h = g_ptr_array_index(s->privacy, 0);
  int cp = scen_csv_column(h, "point"), ct = scen_csv_column(h, "trust"),
      cv = scen_csv_column(h, col);
  double m = NAN, x;
  for (guint r = 1; cv >= 0 && r < s->privacy->len; r++) {
    char **row = g_ptr_array_index(s->privacy, r);
    if (GPOINTER_TO_UINT(g_hash_table_lookup(s->group_of, scen_csv_cell(row, cp))) == g &&
        strcmp(scen_csv_cell(row, ct), trust) == 0 && is_number(scen_csv_cell(row, cv), &x))
      m = isnan(m) ? x : MAX(m, x);
  }
  return m;
}

/* The accounting of an epsilon_TRUST_COLLUSION column: its trust model
 * (newly allocated) and collusion set (in @h). */
static char *eps_trust(const char *h, const char **collusion) {
  const char *trust = h + strlen("epsilon_"), *us = strchr(trust, '_');
  *collusion = us ? us + 1 : "?";
  return us ? g_strndup(trust, (gsize)(us - trust)) : g_strdup(trust);
}

/* "attacker node 0 ([collusion.NAME])", or "attackers 0+8 (...)", for
 * collusion set @set, its nodes as privacy.csv's attackers column writes
 * them. Newly allocated. */
static char *attackers_of(const Sweep *s, const char *set) {
  const char *nodes = "?";
  if (s->privacy != NULL) {
    char **h = g_ptr_array_index(s->privacy, 0);
    int cc = scen_csv_column(h, "collusion"), ca = scen_csv_column(h, "attackers");
    for (guint r = 1; r < s->privacy->len; r++) {
      char **row = g_ptr_array_index(s->privacy, r);
      if (strcmp(scen_csv_cell(row, cc), set) == 0) {
        nodes = scen_csv_cell(row, ca);
        break;
      }
    }
  }
  gboolean many = strpbrk(nodes, ";+ ") != NULL;
  return g_strdup_printf("%s %s ([collusion.%s])", many ? "attackers" : "attacker node", nodes,
                         set);
}

/* The columns of groups.csv that print_groups shows. */
typedef struct {
  char **header;
  int cseeds, csigma, cfinal, ctail, cacc; /* -1: not shown */
  gboolean any_acc, any_ldp;
  GArray *eps; /* int: the epsilon_ columns */
  gboolean one_set; /* the epsilon columns share one collusion set, set0 */
  const char *set0;
  const char *delta;
} GroupCols;

static void group_cols(const Sweep *s, GroupCols *c) {
  char **header = g_ptr_array_index(s->groups, 0);
  *c = (GroupCols){.header = header,
                   .cseeds = scen_csv_column(header, "seeds"),
                   .csigma = scen_csv_column(header, "sigma"),
                   .cfinal = scen_csv_column(header, "final_test_loss_mean"),
                   .ctail = scen_csv_column(header, "test_loss_last50_mean"),
                   .cacc = scen_csv_column(header, "final_test_accuracy_mean"),
                   .eps = g_array_new(FALSE, FALSE, sizeof(int)),
                   .one_set = TRUE};
  /* The last-50-rounds window only when it is the run's last quarter at
   * most: on a shorter run it reaches back to the start. */
  if (s->rounds < 4 * 50)
    c->ctail = -1;
  gboolean any_loss = FALSE;
  for (guint r = 1; r < s->groups->len; r++) {
    c->any_acc |= scen_csv_cell(g_ptr_array_index(s->groups, r), c->cacc)[0] != '\0';
    any_loss |= scen_csv_cell(g_ptr_array_index(s->groups, r), c->cfinal)[0] != '\0';
  }
  if (!any_loss) /* accounting only: no training, no loss columns */
    c->cfinal = c->ctail = -1;
  if (s->privacy != NULL) {
    int ct = scen_csv_column(g_ptr_array_index(s->privacy, 0), "trust");
    for (guint r = 1; r < s->privacy->len && !c->any_ldp; r++)
      c->any_ldp = strcmp(scen_csv_cell(g_ptr_array_index(s->privacy, r), ct), "ldp") == 0;
  }
  /* Epsilon columns: named by their trust model when they share one
   * collusion set, else numbered with a legend. */
  for (int h = 0; header[h] != NULL; h++)
    if (g_str_has_prefix(header[h], "epsilon_")) {
      const char *set;
      g_free(eps_trust(header[h], &set));
      c->one_set &= c->set0 == NULL || strcmp(set, c->set0) == 0;
      c->set0 = c->set0 ? c->set0 : set;
      g_array_append_val(c->eps, h);
    }
  c->delta = scen_csv_cell(g_ptr_array_index(s->groups, 1),
                           scen_csv_column(header, "delta"));
}

/* The table's header: the axes, sigma, mu_ldp, the epsilons, the losses. */
static void group_header(const Sweep *s, const GroupCols *c, CliTable *t) {
  cli_table_row(t);
  for (int a = 1; a <= s->n_axes; a++)
    cli_table_cell(t, "%s", strcmp(c->header[a], "name") == 0 ? "method" : c->header[a]);
  cli_table_cell(t, "sigma");
  if (c->any_ldp)
    cli_table_cell(t, "mu_ldp");
  for (guint e = 0; e < c->eps->len; e++) {
    const char *set;
    char *trust = eps_trust(c->header[g_array_index(c->eps, int, e)], &set);
    if (c->one_set)
      cli_table_cell(t, "eps_%s", trust);
    else
      cli_table_cell(t, "epsilon%u", e + 1);
    g_free(trust);
  }
  if (c->cfinal >= 0)
    cli_table_cell(t, "test_loss");
  if (c->ctail >= 0)
    cli_table_cell(t, "last50_loss");
  if (c->any_acc)
    cli_table_cell(t, "accuracy");
}

/* Group @r's row. */
static void group_row(const Sweep *s, const GroupCols *c, guint r, CliTable *t) {
  char **row = g_ptr_array_index(s->groups, r);
  cli_table_row(t);
  for (int a = 1; a <= s->n_axes; a++)
    cli_table_cell(t, "%s", scen_csv_cell(row, a));
  double x;
  char *v = is_number(scen_csv_cell(row, c->csigma), &x) ? num(x) : g_strdup("");
  cli_table_cell(t, "%s", v);
  g_free(v);
  if (c->any_ldp) {
    /* Enough digits to check it against the asked mu. */
    double mu = group_max(s, r, "ldp", "mu");
    v = isnan(mu) ? g_strdup("") : num_up(mu, 6);
    cli_table_cell(t, "%s", v);
    g_free(v);
  }
  for (guint e = 0; e < c->eps->len; e++) {
    v = is_number(scen_csv_cell(row, g_array_index(c->eps, int, e)), &x) ? num_up(x, 4)
                                                                          : g_strdup("");
    cli_table_cell(t, "%s", v);
    g_free(v);
  }
  int tail[] = {c->cfinal, c->ctail, c->any_acc ? c->cacc : -1};
  for (guint k = 0; k < G_N_ELEMENTS(tail); k++) {
    if (tail[k] < 0)
      continue;
    v = is_number(scen_csv_cell(row, tail[k]), &x) ? num(x) : g_strdup("");
    cli_table_cell(t, "%s", v);
    g_free(v);
  }
}

/* What each column is. */
static void group_legend(const Sweep *s, const GroupCols *c) {
  printf("sigma: noise multiplier%s%s\n",
         c->cfinal >= 0 ? "; test_loss: final test loss, mean over nodes and seeds" : "",
         c->ctail >= 0 ? "; last50_loss: over the last 50 rounds" : "");
  for (guint e = 0; e < c->eps->len; e++) {
    const char *h = c->header[g_array_index(c->eps, int, e)], *set;
    char *trust = eps_trust(h, &set);
    if (!c->one_set)
      printf("epsilon%u = %s: the worst victim's epsilon at delta = %s, trust %s, collusion %s\n",
             e + 1, h, c->delta, trust, set);
    g_free(trust);
  }
  if (c->any_ldp)
    printf("mu_ldp: the worst victim's mu-GDP under LDP\n");
  if (c->one_set && c->eps->len > 0) {
    char *who = attackers_of(s, c->set0);
    printf("eps_TRUST: the worst victim's epsilon under trust model TRUST, %s\n", who);
    g_free(who);
  }
}

/* Two notes at most: the largest finite epsilon above the threshold, and
 * inf (some victim without any protection), each naming its columns. */
static void group_notes(const Sweep *s, const GroupCols *c) {
  double worst = -INFINITY;
  GString *loose = g_string_new(NULL), *open = g_string_new(NULL);
  for (guint e = 0; e < c->eps->len; e++) {
    int col = g_array_index(c->eps, int, e);
    double m = -INFINITY, x;
    gboolean inf = FALSE;
    for (guint r = 1; r < s->groups->len; r++)
      if (is_number(scen_csv_cell(g_ptr_array_index(s->groups, r), col), &x)) {
        inf |= isinf(x);
        if (isfinite(x))
          m = MAX(m, x);
      }
    worst = MAX(worst, m);
    if (m > SCEN_EPSILON_MEANINGFUL)
      g_string_append_printf(loose, "%s%s", loose->len ? ", " : "", c->header[col]);
    if (inf)
      g_string_append_printf(open, "%s%s", open->len ? ", " : "", c->header[col]);
  }
  double d = g_ascii_strtod(c->delta, NULL);
  char *note = scen_privacy_epsilon_note(worst, d);
  if (note != NULL)
    printf("note: %s above %d; %s\n", loose->str, SCEN_EPSILON_MEANINGFUL, note);
  g_free(note);
  note = open->len ? scen_privacy_epsilon_note(INFINITY, d) : NULL;
  if (note != NULL)
    printf("note: %s: %s\n", open->str, note);
  g_free(note);
  g_string_free(open, TRUE);
  g_string_free(loose, TRUE);
}

/* One row per group: its axis values, sigma, mu under LDP (the worst
 * victim's, from privacy.csv), each accounting's worst epsilon, the final
 * test loss and, when the run is long enough for it, the tail window's;
 * then what the epsilon columns are and a note when one offers no
 * meaningful protection. */
static void print_groups(const Sweep *s) {
  GroupCols c;
  group_cols(s, &c);
  CliTable *t = cli_table_new((guint)s->n_axes);
  group_header(s, &c, t);
  guint shown = MIN(s->groups->len, 31);
  for (guint r = 1; r < shown; r++)
    group_row(s, &c, r, t);
  guint n_seeds = (guint)g_ascii_strtoull(
      scen_csv_cell(g_ptr_array_index(s->groups, 1), c.cseeds), NULL, 10);
  printf("\nmeans over %u seed%s (groups.csv); privacy of the worst victim at delta = %s:\n",
         n_seeds, n_seeds == 1 ? "" : "s", c.delta);
  cli_table_print(t);
  cli_table_free(t);
  if (s->groups->len > shown)
    printf("  ... (%u groups)\n", s->groups->len - 1);
  group_legend(s, &c);
  group_notes(s, &c);
  g_array_unref(c.eps);
}

/* Mean RDP and epsilon per (collusion, trust, distance) of a point's
 * privacy.csv, pooled by scenarios/distance_stats.c. */
static void print_privacy(GPtrArray *rows) {
  char **header = g_ptr_array_index(rows, 0);
  const char *need[] = {"collusion", "trust", "distance", "rdp", "epsilon"};
  for (guint i = 0; i < G_N_ELEMENTS(need); i++)
    if (scen_csv_column(header, need[i]) < 0)
      return;
  ScenDistCsv *p = scen_dist_csv_new();
  scen_dist_csv_add(p, rows, NULL, NULL);
  if (p->n_unresolved)
    fprintf(stderr, "dpgossip run: warning: %u victim%s in privacy.csv: %s (status unresolved)\n",
            p->n_unresolved, p->n_unresolved == 1 ? "" : "s", PRIV_UNRESOLVED_NOTE);
  printf("\nprivacy by hop distance (privacy.csv; means over victims):\n");
  printf("  %-14s %-7s %8s %8s %12s %12s\n", "collusion", "trust", "distance", "victims", "rdp",
         "epsilon");
  for (guint i = 0; i < p->accs->len; i++) {
    const ScenDistAcc *a = g_ptr_array_index(p->accs, i);
    for (guint d = 0; d <= p->max_distance; d++) {
      const ScenDistStat *sr = scen_dist_csv_stat(a, d, TRUE),
                         *se = scen_dist_csv_stat(a, d, FALSE);
      if (se == NULL)
        continue;
      char *rdp = num_up(scen_dist_stat_mean(sr), 4), *eps = num_up(scen_dist_stat_mean(se), 4);
      printf("  %-14.14s %-7.7s %8u %8u %12s %12s\n", a->collusion, a->trust, d,
             scen_dist_stat_total(se), rdp, eps);
      g_free(rdp);
      g_free(eps);
    }
  }
  scen_dist_csv_free(p);
  /* A local accounting's values are upper bounds (docs/local-bounds.md):
   * say so where they are read. */
  gint bound = scen_csv_column(header, "bound");
  for (guint r = 1; bound >= 0 && r < rows->len; r++)
    if (g_strcmp0(scen_csv_cell(g_ptr_array_index(rows, r), bound), "local") == 0) {
      printf("  (local: certified upper bounds; privacy.csv holds each victim's mu_lower too)\n");
      break;
    }
}

/* The sweep's accountings, by group then first appearance in privacy.csv. */
static gint cmp_acc(gconstpointer a, gconstpointer b) {
  const ScenDistAcc *x = *(ScenDistAcc *const *)a, *y = *(ScenDistAcc *const *)b;
  if (x->group != y->group)
    return x->group < y->group ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* privacy.csv's epsilons by (group, collusion, trust) and distance
 * (scenarios/distance_stats.c's pool), in the table's row order. */
typedef struct {
  ScenDistCsv *pool;
  GPtrArray *rows;    /* the pool's ScenDistAcc (borrowed), sorted */
  ScenDistCsv *first; /* the first point's rows: its first accounting counts the victims */
  gboolean one_set;   /* a single collusion set */
} DistTable;

static void dist_table_clear(DistTable *dt) {
  g_ptr_array_unref(dt->rows);
  scen_dist_csv_free(dt->pool);
  scen_dist_csv_free(dt->first);
}

/* How many victims the first point's first accounting has at distance @d. */
static guint dist_victims(const DistTable *dt, guint d) {
  const ScenDistAcc *a = dt->first->accs->len ? g_ptr_array_index(dt->first->accs, 0) : NULL;
  const ScenDistStat *st = a ? scen_dist_csv_stat(a, d, FALSE) : NULL;
  return st ? scen_dist_stat_total(st) : 0;
}

/* Pools privacy.csv into @dt; FALSE (nothing allocated) without it or
 * without any victim at a distance. */
static gboolean dist_collect(const Sweep *s, DistTable *dt) {
  if (s->privacy == NULL || s->privacy->len < 2 ||
      scen_csv_column(g_ptr_array_index(s->privacy, 0), "point") < 0)
    return FALSE;
  ScenDistCsv *pool = scen_dist_csv_new();
  scen_dist_csv_add(pool, s->privacy, s->group_of, NULL);
  if (pool->accs->len == 0) {
    scen_dist_csv_free(pool);
    return FALSE;
  }
  char **h = g_ptr_array_index(s->privacy, 0);
  const char *point0 = scen_csv_cell(g_ptr_array_index(s->privacy, 1), scen_csv_column(h, "point"));
  *dt = (DistTable){pool, g_ptr_array_new(), scen_dist_csv_new(), TRUE};
  scen_dist_csv_add(dt->first, s->privacy, NULL, point0);
  for (guint i = 0; i < pool->accs->len; i++) {
    ScenDistAcc *a = g_ptr_array_index(pool->accs, i);
    g_ptr_array_add(dt->rows, a);
    dt->one_set &= strcmp(a->collusion,
                          ((ScenDistAcc *)g_ptr_array_index(pool->accs, 0))->collusion) == 0;
  }
  g_ptr_array_sort(dt->rows, cmp_acc);
  return TRUE;
}

/* The table from distance @d0 on (the attackers themselves, at distance 0,
 * are no victims); the trust models shown go to @trusts (borrowed). */
static CliTable *dist_table(const Sweep *s, const DistTable *dt, guint d0, GPtrArray *trusts) {
  char **gh = g_ptr_array_index(s->groups, 0);
  int n_axes = s->n_axes;
  guint dmax = dt->pool->max_distance;
  guint n_text = (guint)n_axes + (dt->one_set ? 1 : 2);
  CliTable *t = cli_table_new(n_text);
  cli_table_row(t);
  for (int a = 1; a <= n_axes; a++)
    cli_table_cell(t, "%s", strcmp(gh[a], "name") == 0 ? "method" : gh[a]);
  if (!dt->one_set)
    cli_table_cell(t, "attackers");
  cli_table_cell(t, "trust");
  for (guint d = d0; d <= dmax; d++)
    cli_table_cell(t, "d=%u", d);
  /* How many victims each distance has (one attacker set: several have
   * their own). */
  if (dt->one_set) {
    cli_table_row(t);
    cli_table_cell(t, "victims");
    for (guint c = 1; c < n_text; c++)
      cli_table_cell(t, "%s", "");
    for (guint d = d0; d <= dmax; d++)
      cli_table_cell(t, "%u", dist_victims(dt, d));
  }
  for (guint i = 0; i < dt->rows->len && i < 40; i++) {
    const ScenDistAcc *dr = g_ptr_array_index(dt->rows, i);
    cli_table_row(t);
    char **grow = dr->group ? g_ptr_array_index(s->groups, dr->group) : NULL;
    for (int a = 1; a <= n_axes; a++)
      cli_table_cell(t, "%s", grow ? scen_csv_cell(grow, a) : "?");
    if (!dt->one_set)
      cli_table_cell(t, "%s", dr->attackers);
    cli_table_cell(t, "%s", dr->trust);
    gboolean seen = FALSE;
    for (guint k = 0; k < trusts->len; k++)
      seen |= strcmp(g_ptr_array_index(trusts, k), dr->trust) == 0;
    if (!seen)
      g_ptr_array_add(trusts, dr->trust);
    for (guint d = d0; d <= dmax; d++) {
      const ScenDistStat *st = scen_dist_csv_stat(dr, d, FALSE);
      char *v = st ? num_up(scen_dist_stat_mean(st), 4) : g_strdup("");
      cli_table_cell(t, "%s", v);
      g_free(v);
    }
  }
  return t;
}

static void print_distance(const Sweep *s) {
  DistTable dt;
  if (!dist_collect(s, &dt))
    return;
  guint d0 = 0; /* the attackers themselves (distance 0) are no victims */
  while (dt.first->accs->len > 0 && d0 <= dt.first->max_distance && dist_victims(&dt, d0) == 0)
    d0++;
  GPtrArray *trusts = g_ptr_array_new();
  CliTable *t = dist_table(s, &dt, d0, trusts);
  const ScenDistAcc *first = g_ptr_array_index(dt.rows, 0);
  char **h = g_ptr_array_index(s->privacy, 0);
  const char *delta =
      scen_csv_cell(g_ptr_array_index(s->privacy, 1), scen_csv_column(h, "delta"));
  if (dt.one_set) {
    char *who = attackers_of(s, first->collusion);
    printf("\nprivacy by hop distance d from %s (privacy.csv):\n", who);
    g_free(who);
  } else {
    printf("\nprivacy by hop distance d from each attacker set (privacy.csv):\n");
  }
  printf("epsilon at delta = %s, mean over the victims at each distance and the seeds\n", delta);
  cli_table_print(t);
  if (dt.rows->len > 40)
    printf("  ... (%u rows)\n", dt.rows->len);
  for (guint k = 0; k < trusts->len; k++) {
    const char *m = trust_meaning(g_ptr_array_index(trusts, k));
    if (m != NULL)
      printf("%s: %s\n", (char *)g_ptr_array_index(trusts, k), m);
  }
  g_ptr_array_unref(trusts);
  cli_table_free(t);
  dist_table_clear(&dt);
}

void cli_run_print_summary(const char *out_dir) {
  GPtrArray *groups = scen_csv_read(out_dir, "groups.csv");
  if (groups != NULL && groups->len > 1) {
    Sweep s = {groups,
               scen_csv_read(out_dir, "points.csv"),
               scen_csv_read(out_dir, "privacy.csv"),
               MAX(scen_csv_column(g_ptr_array_index(groups, 0), "seeds") - 1, 0),
               NULL,
               0};
    GPtrArray *agg = scen_csv_read(out_dir, "aggregate.csv");
    int cr = agg ? scen_csv_column(g_ptr_array_index(agg, 0), "round") : -1;
    for (guint r = 1; agg && r < agg->len; r++)
      s.rounds = MAX(s.rounds, (guint)g_ascii_strtoull(scen_csv_cell(g_ptr_array_index(agg, r), cr),
                                                       NULL, 10));
    map_points(&s);
    print_groups(&s);
    print_distance(&s);
    g_hash_table_unref(s.group_of);
    if (agg)
      g_ptr_array_unref(agg);
    if (s.points)
      g_ptr_array_unref(s.points);
    if (s.privacy)
      g_ptr_array_unref(s.privacy);
    g_ptr_array_unref(groups);
    return;
  }
  if (groups != NULL)
    g_ptr_array_unref(groups);
  GPtrArray *privacy = scen_csv_read(out_dir, "privacy.csv");
  if (privacy != NULL) {
    print_privacy(privacy);
    g_ptr_array_unref(privacy);
  }
}

/* The graph_load object of DIR/summary.json, or NULL (parser in *@parser). */
static JsonObject *graph_load_of(const char *dir, JsonParser **parser) {
  char *path = g_build_filename(dir, "summary.json", NULL);
  *parser = json_parser_new();
  gboolean ok = json_parser_load_from_file(*parser, path, NULL);
  g_free(path);
  JsonNode *root = ok ? json_parser_get_root(*parser) : NULL;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
    return NULL;
  JsonNode *n = json_object_get_member(json_node_get_object(root), "graph_load");
  return n != NULL && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

void cli_run_graph_notice(const char *out_dir) {
  JsonParser *parser = NULL;
  JsonObject *o = graph_load_of(out_dir, &parser);
  if (o == NULL) {
    /* A sweep: its first point's summary (points.csv, row 1, column dir). */
    GPtrArray *rows = scen_csv_read(out_dir, "points.csv");
    if (rows != NULL && rows->len > 1 && g_strv_length(g_ptr_array_index(rows, 1)) > 1) {
      char *dir = g_build_filename(out_dir, ((char **)g_ptr_array_index(rows, 1))[1], NULL);
      g_object_unref(parser);
      o = graph_load_of(dir, &parser);
      g_free(dir);
    }
    if (rows != NULL)
      g_ptr_array_unref(rows);
  }
  if (o != NULL) {
    gint64 loops = json_object_get_int_member_with_default(o, "self_loops_dropped", 0);
    gint64 dups = json_object_get_int_member_with_default(o, "duplicate_edges_dropped", 0);
    gboolean renum = json_object_get_boolean_member_with_default(o, "renumbered", FALSE);
    if (loops > 0 || dups > 0 || renum)
      fprintf(stderr,
              "dpgossip run: the graph file had %" G_GINT64_FORMAT
              " self-loop%s and %" G_GINT64_FORMAT
              " duplicate edge%s (dropped)%s (summary.json: graph_load)\n",
              loops, loops == 1 ? "" : "s", dups, dups == 1 ? "" : "s",
              renum ? "; its node labels are not 0..n-1: kept as the nodes' names" : "");
  }
  g_object_unref(parser);
}
