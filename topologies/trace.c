/*
 * topologies/trace.c: session traces (the STUNner format and
 * "node,online_from,online_until" lines), read whole, checked line by line
 * and turned into one step function of time per trace user: the instants
 * its state toggles. A file either loads completely or not at all.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "topologies/internal.h"

/* STUNner records start at a UTC midnight and cover whole days. */
#define MS_PER_DAY G_GINT64_CONSTANT(86400000)

struct TopoTrace {
  guint n_users;
  gsize *off;    /* n_users + 1 offsets into t */
  double *t;     /* per user: 0 = t_0 < t_1 < ... < t_K = its period, seconds */
  guint8 *first; /* state on [t_0, t_1) */
  guint64 *ids;  /* sessions format: the user's node id (increasing); else NULL */
  gsize *lines;  /* sessions format: the line of the user's first session */
};

void topo_trace_free(TopoTrace *tr) {
  if (tr == NULL)
    return;
  g_free(tr->off);
  g_free(tr->t);
  g_free(tr->first);
  g_free(tr->ids);
  g_free(tr->lines);
  g_free(tr);
}

guint topo_trace_n_users(const TopoTrace *tr) {
  return tr->n_users;
}

double topo_trace_period(const TopoTrace *tr, guint user) {
  return tr->t[tr->off[user + 1] - 1];
}

gboolean topo_trace_online(const TopoTrace *tr, guint user, double x) {
  const double *t = tr->t + tr->off[user];
  gsize k = tr->off[user + 1] - tr->off[user]; /* boundaries, >= 2 */
  double p = t[k - 1];
  x = fmod(x, p); /* exact: the trace replays with period p */
  if (x < 0)
    x += p;
  /* The segment [t_i, t_i+1) holding x: i = (boundaries <= x) - 1. */
  gsize lo = 1, hi = k - 1;
  while (lo < hi) {
    gsize mid = lo + (hi - lo) / 2;
    if (t[mid] <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (tr->first[user] ^ ((lo - 1) & 1)) != 0;
}

guint64 topo_trace_user_id(const TopoTrace *tr, guint user, gsize *line) {
  if (line != NULL)
    *line = tr->lines != NULL ? tr->lines[user] : (gsize)user + 1;
  return tr->ids != NULL ? tr->ids[user] : user;
}

guint topo_trace_user_of_id(const TopoTrace *tr, guint64 id) {
  if (tr->ids == NULL)
    return id < tr->n_users ? (guint)id : G_MAXUINT;
  guint lo = 0, hi = tr->n_users;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (tr->ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < tr->n_users && tr->ids[lo] == id ? lo : G_MAXUINT;
}

/* --- reading ----------------------------------------------------------- */

/* The whole file, inflated when gzipped (spec_file_read_text's limits); a
 * corrupt or truncated gzip stream is an error, never a shorter text. */
static char *read_text(const char *path, GError **error) {
  char *text = NULL;
  gsize len = 0;
  GError *local = NULL;
  if (!spec_file_read_text(path, &text, &len, &local)) {
    /* INVAL: what was read is not a text of lines (cut or corrupt gzip, a
     * line too long, not a regular file); anything else, opening or reading. */
    gboolean content = g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_INVAL);
    g_set_error(error, TOPO_ERROR, content ? TOPO_ERROR_FILE : TOPO_ERROR_IO,
                "cannot read trace file: %s", local->message);
    g_error_free(local);
    return NULL;
  }
  if (memchr(text, '\0', len) != NULL) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_FILE, "%s: a NUL byte: not a text trace", path);
    g_free(text);
    return NULL;
  }
  return text;
}

/* Users under construction: boundaries appended user after user. */
typedef struct {
  GArray *off, *t, *first, *ids, *lines;
} Builder;

static void builder_init(Builder *b, gboolean with_ids) {
  b->off = g_array_new(FALSE, FALSE, sizeof(gsize));
  b->t = g_array_new(FALSE, FALSE, sizeof(double));
  b->first = g_array_new(FALSE, FALSE, sizeof(guint8));
  b->ids = with_ids ? g_array_new(FALSE, FALSE, sizeof(guint64)) : NULL;
  b->lines = with_ids ? g_array_new(FALSE, FALSE, sizeof(gsize)) : NULL;
  gsize zero = 0;
  g_array_append_val(b->off, zero);
}

static void builder_clear(Builder *b) {
  g_array_unref(b->off);
  g_array_unref(b->t);
  g_array_unref(b->first);
  if (b->ids != NULL)
    g_array_unref(b->ids);
  if (b->lines != NULL)
    g_array_unref(b->lines);
}

static void builder_end_user(Builder *b, guint8 first) {
  gsize end = b->t->len;
  g_array_append_val(b->off, end);
  g_array_append_val(b->first, first);
}

static TopoTrace *builder_finish(Builder *b) {
  TopoTrace *tr = g_new0(TopoTrace, 1);
  tr->n_users = b->first->len;
  tr->off = (gsize *)(void *)g_array_free(b->off, FALSE);
  tr->t = (double *)(void *)g_array_free(b->t, FALSE);
  tr->first = (guint8 *)g_array_free(b->first, FALSE);
  tr->ids = b->ids != NULL ? (guint64 *)(void *)g_array_free(b->ids, FALSE) : NULL;
  tr->lines = b->lines != NULL ? (gsize *)(void *)g_array_free(b->lines, FALSE) : NULL;
  return tr;
}

/* The tokens of @line between @seps, pointers into @line (g_ptr_array_unref). */
static GPtrArray *split(char *line, const char *seps) {
  GPtrArray *tok = g_ptr_array_new();
  char *save = NULL;
  for (char *p = strtok_r(line, seps, &save); p != NULL; p = strtok_r(NULL, seps, &save))
    g_ptr_array_add(tok, p);
  return tok;
}

/* TOPO_ERROR_FILE "PATH:LINE: ..." (always FALSE). */
#define bad_line(error, path, line, ...)                                                           \
  spec_error_at(error, TOPO_ERROR, TOPO_ERROR_FILE, path, line, __VA_ARGS__)

static gboolean int_token(const char *tok, gint64 min, gint64 max, gint64 *out) {
  return g_ascii_string_to_signed(tok, 10, min, max, out, NULL);
}

/* --- STUNner ------------------------------------------------------------ */

#define STUNNER_FIELDS "'user state(0|1) start_ms utc_offset_h length_ms...'"

/* One user-week: its alternating session lengths become boundaries. */
static gboolean stunner_line(Builder *b, char *text, const char *path, gsize line, GError **error) {
  GPtrArray *toks = split(text, " \t\r");
  char **tok = (char **)toks->pdata;
  guint nt = toks->len;
  if (nt == 0) {
    g_ptr_array_unref(toks);
    return TRUE;
  }
  gboolean ok = TRUE;
  gint64 state, start, tz, len, sum = 0;
  if (nt < 5)
    ok = bad_line(error, path, line,
                  "%u field%s, expected " STUNNER_FIELDS
                  " with one length at least (a truncated line?)",
                  nt, nt == 1 ? "" : "s");
  else if (!int_token(tok[1], 0, 1, &state))
    ok = bad_line(error, path, line, "state '%.32s' is not 0 or 1 (fields " STUNNER_FIELDS ")",
                  tok[1]);
  else if (!int_token(tok[2], 0, G_MAXINT64, &start) || start % MS_PER_DAY != 0)
    ok = bad_line(error, path, line,
                  "start '%.32s' is not a UTC midnight in milliseconds since the epoch", tok[2]);
  else if (!int_token(tok[3], -24, 24, &tz))
    ok = bad_line(error, path, line,
                  "UTC offset '%.32s' is not a whole number of hours in "
                  "-24..24",
                  tok[3]);
  if (ok) {
    double zero = 0.0;
    g_array_append_val(b->t, zero);
  }
  for (guint i = 4; ok && i < nt; i++) {
    if (!int_token(tok[i], 1, 100 * 365 * MS_PER_DAY, &len)) {
      ok = bad_line(error, path, line,
                    "session %u: length '%.32s' is not a positive number of milliseconds "
                    "(sessions must follow each other in time)",
                    i - 3, tok[i]);
      break;
    }
    sum += len;
    double at = (double)sum / 1000.0;
    g_array_append_val(b->t, at);
  }
  if (ok && sum % MS_PER_DAY != 0)
    ok = bad_line(error, path, line,
                  "the %u sessions last %" G_GINT64_FORMAT
                  " ms, not a whole number of days: the line is truncated or corrupt",
                  nt - 4, sum);
  if (ok)
    builder_end_user(b, (guint8)state);
  g_ptr_array_unref(toks);
  return ok;
}

static TopoTrace *load_stunner(const char *path, char *text, GError **error) {
  Builder b;
  builder_init(&b, FALSE);
  gboolean ok = TRUE;
  gsize line = 1;
  for (char *p = text; ok && *p != '\0'; line++) {
    char *nl = strchr(p, '\n');
    if (nl != NULL)
      *nl = '\0';
    ok = stunner_line(&b, p, path, line, error);
    p = nl != NULL ? nl + 1 : p + strlen(p);
  }
  if (ok && b.first->len == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_FILE, "%s: no user-week in the trace", path);
    ok = FALSE;
  }
  if (!ok) {
    builder_clear(&b);
    return NULL;
  }
  return builder_finish(&b);
}

/* --- node,online_from,online_until ------------------------------------- */

typedef struct {
  guint64 id;
  double from, until;
  gsize line;
} Session;

static gboolean time_token(const char *tok, double *out) {
  char *end;
  errno = 0;
  double v = g_ascii_strtod(tok, &end);
  if (end == tok || *end != '\0' || errno != 0 || !isfinite(v) || v < 0)
    return FALSE;
  *out = v;
  return TRUE;
}

#define SESSION_FIELDS "'node,online_from,online_until'"

static gboolean session_line(GArray *out, char *text, const char *path, gsize line,
                             GError **error) {
  char *hash = strchr(text, '#');
  if (hash != NULL)
    *hash = '\0';
  GPtrArray *toks = split(text, ", \t\r");
  guint nt = toks->len;
  char *tok[3] = {NULL};
  for (guint i = 0; i < MIN(nt, 3); i++)
    tok[i] = g_ptr_array_index(toks, i);
  g_ptr_array_unref(toks);
  if (nt == 0)
    return TRUE;
  Session s = {0, 0, 0, line};
  gint64 id;
  if (nt != 3)
    return bad_line(error, path, line,
                    "%u field%s, expected " SESSION_FIELDS " (seconds; format=stunner for a "
                    "STUNner trace)",
                    nt, nt == 1 ? "" : "s");
  if (!int_token(tok[0], 0, G_MAXUINT - 1, &id))
    return bad_line(error, path, line, "node '%.32s' is not a non-negative integer below %u",
                    tok[0], G_MAXUINT);
  s.id = (guint64)id;
  if (!time_token(tok[1], &s.from) || !time_token(tok[2], &s.until))
    return bad_line(error, path, line,
                    "online_from '%.32s' and online_until '%.32s' must be "
                    "non-negative finite seconds",
                    tok[1], tok[2]);
  if (s.until <= s.from)
    return bad_line(error, path, line, "online_until %g is not after online_from %g", s.until,
                    s.from);
  g_array_append_val(out, s);
  return TRUE;
}

static gint cmp_session(gconstpointer a, gconstpointer b) {
  const Session *x = a, *y = b;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* One user from its sessions (sorted by line): boundaries 0, ..., period. */
static gboolean session_user(Builder *b, const Session *s, gsize k, double period, const char *path,
                             GError **error) {
  guint8 first = s[0].from == 0.0;
  double zero = 0.0;
  g_array_append_val(b->t, zero);
  for (gsize i = 0; i < k; i++) {
    if (i > 0 && s[i].from < s[i - 1].until)
      return bad_line(error, path, s[i].line,
                      "node %" G_GUINT64_FORMAT " is online from %g, before its session of line "
                      "%" G_GSIZE_FORMAT " ends (%g): a node's sessions must be listed in time "
                      "order without overlap",
                      s[i].id, s[i].from, s[i - 1].line, s[i - 1].until);
    double *last = &g_array_index(b->t, double, b->t->len - 1);
    if (i > 0 && s[i].from == *last)
      b->t->len--; /* back to back: one session */
    else if (s[i].from > 0.0)
      g_array_append_val(b->t, s[i].from);
    g_array_append_val(b->t, s[i].until);
  }
  if (s[k - 1].until < period)
    g_array_append_val(b->t, period);
  g_array_append_val(b->ids, s[0].id);
  g_array_append_val(b->lines, s[0].line);
  builder_end_user(b, first);
  return TRUE;
}

static TopoTrace *load_sessions(const char *path, char *text, GError **error) {
  GArray *all = g_array_new(FALSE, FALSE, sizeof(Session));
  gboolean ok = TRUE;
  gsize line = 1;
  for (char *p = text; ok && *p != '\0'; line++) {
    char *nl = strchr(p, '\n');
    if (nl != NULL)
      *nl = '\0';
    ok = session_line(all, p, path, line, error);
    p = nl != NULL ? nl + 1 : p + strlen(p);
  }
  if (ok && all->len == 0) {
    g_set_error(error, TOPO_ERROR, TOPO_ERROR_FILE, "%s: no session in the trace", path);
    ok = FALSE;
  }
  TopoTrace *tr = NULL;
  if (ok) {
    double period = 0;
    for (guint i = 0; i < all->len; i++)
      period = MAX(period, g_array_index(all, Session, i).until);
    g_array_sort(all, cmp_session);
    Builder b;
    builder_init(&b, TRUE);
    const Session *s = (const Session *)(void *)all->data;
    for (gsize i = 0, j; ok && i < all->len; i = j) {
      for (j = i + 1; j < all->len && s[j].id == s[i].id; j++)
        ;
      ok = session_user(&b, s + i, j - i, period, path, error);
    }
    if (ok)
      tr = builder_finish(&b);
    else
      builder_clear(&b);
  }
  g_array_unref(all);
  return tr;
}

TopoTrace *topo_trace_load(const char *path, gboolean stunner, GError **error) {
  char *text = read_text(path, error);
  if (text == NULL)
    return NULL;
  /* Per line at most, arrays doubling (x 2): a session (sessions format) or
   * a user-week's first two boundaries (STUNner), three boundaries, and a
   * user's offset, first state and id. A STUNner line's further lengths
   * take two bytes of text at least each: one boundary (x 2) per two
   * bytes. */
  gsize per_line = 2 * (sizeof(Session) + 3 * sizeof(double) + sizeof(gsize) + 1 + sizeof(guint64));
  if (!spec_check_text_rows(path, text, strlen(text), per_line, stunner ? sizeof(double) : 0,
                            "use a smaller trace file", TOPO_ERROR, TOPO_ERROR_INVALID_ARGUMENT,
                            error)) {
    g_free(text);
    return NULL;
  }
  TopoTrace *tr = stunner ? load_stunner(path, text, error) : load_sessions(path, text, error);
  g_free(text);
  return tr;
}
