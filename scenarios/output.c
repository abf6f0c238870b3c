/*
 * scenarios/output.c: the files of a point. Each goes to a temporary name in
 * its folder and is renamed into place, and summary.json is written last, so
 * a run stopped at any moment leaves no file that looks complete and an
 * unfinished point is recognised by its missing summary.json. No wall-clock
 * time goes into any file: equal scenarios and seeds give equal bytes.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "scenarios/internal.h"

/* A file being written: a temporary name in the target's folder, renamed
 * onto it by scen_file_out_commit. */
struct ScenFileOut {
  char *path, *tmp;
  int fd;
  GString *buf; /* written out past 1 MiB: a sweep's tables stay off the heap */
};

ScenFileOut *scen_file_out_new(const char *path, GError **error) {
  char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
  char *tmp = g_strdup_printf("%s/.%s.tmp-XXXXXX", dir, base);
  g_free(dir);
  g_free(base);
  int fd = g_mkstemp(tmp);
  if (fd < 0) {
    int saved = errno;
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot write %s: %s", path, g_strerror(saved));
    g_free(tmp);
    return NULL;
  }
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) {
    /* keep the private mode: not worth failing for */
  }
  ScenFileOut *f = g_new0(ScenFileOut, 1);
  f->path = g_strdup(path);
  f->tmp = tmp;
  f->fd = fd;
  f->buf = g_string_new(NULL);
  return f;
}

/* Writes the buffer out; errno on failure. */
static gboolean flush(ScenFileOut *f) {
  gsize done = 0;
  while (done < f->buf->len) {
    ssize_t w = write(f->fd, f->buf->str + done, f->buf->len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return FALSE;
    done += (gsize)w;
  }
  g_string_truncate(f->buf, 0);
  return TRUE;
}

void scen_file_out_abort(ScenFileOut *f) {
  if (f == NULL)
    return;
  close(f->fd);
  g_unlink(f->tmp);
  g_string_free(f->buf, TRUE);
  g_free(f->tmp);
  g_free(f->path);
  g_free(f);
}

gboolean scen_file_out_write(ScenFileOut *f, const char *data, gsize len, GError **error) {
  g_string_append_len(f->buf, data, (gssize)len);
  if (f->buf->len < (1u << 20) || flush(f))
    return TRUE;
  int saved = errno;
  g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot write %s: %s", f->path, g_strerror(saved));
  return FALSE;
}

gboolean scen_file_out_commit(ScenFileOut *f, GError **error) {
  gboolean ok = flush(f);
  int saved = errno;
  if (close(f->fd) != 0 && ok) {
    ok = FALSE;
    saved = errno;
  }
  f->fd = -1;
  if (ok && g_rename(f->tmp, f->path) != 0) {
    ok = FALSE;
    saved = errno;
  }
  if (!ok) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot write %s: %s", f->path,
                g_strerror(saved));
    g_unlink(f->tmp);
  }
  g_string_free(f->buf, TRUE);
  g_free(f->tmp);
  g_free(f->path);
  g_free(f);
  return ok;
}

gboolean scen_write_file(const char *path, const char *data, gsize len, GError **error) {
  ScenFileOut *f = scen_file_out_new(path, error);
  if (f == NULL)
    return FALSE;
  /* Straight through: one write(2) of the whole, as before the buffer. */
  if (!scen_file_out_write(f, data, len, error)) {
    scen_file_out_abort(f);
    return FALSE;
  }
  return scen_file_out_commit(f, error);
}

static void num(JsonBuilder *jb, const char *key, double x) {
  json_builder_set_member_name(jb, key);
  if (isfinite(x))
    json_builder_add_double_value(jb, x);
  else
    json_builder_add_null_value(jb);
}

static void str(JsonBuilder *jb, const char *key, const char *v) {
  json_builder_set_member_name(jb, key);
  if (v)
    json_builder_add_string_value(jb, v);
  else
    json_builder_add_null_value(jb);
}

static void integer(JsonBuilder *jb, const char *key, gint64 v) {
  json_builder_set_member_name(jb, key);
  json_builder_add_int_value(jb, v);
}

/* Means over nodes at each evaluated step (metrics are sorted by step). */
static void curve(JsonBuilder *jb, const ScenRunOutput *o, double final[3]) {
  json_builder_set_member_name(jb, "curve");
  json_builder_begin_array(jb);
  final[0] = final[1] = final[2] = NAN;
  for (guint i = 0; i < o->n_metrics;) {
    guint step = o->metrics[i].step, n = 0;
    double tr = 0, te = 0, acc = 0;
    for (; i < o->n_metrics && o->metrics[i].step == step; i++, n++) {
      tr += o->metrics[i].train_loss;
      te += o->metrics[i].test_loss;
      acc += o->metrics[i].test_accuracy;
    }
    json_builder_begin_object(jb);
    integer(jb, "round", step);
    num(jb, "train_loss", tr / n);
    num(jb, "test_loss", te / n);
    num(jb, "test_accuracy", acc / n);
    json_builder_end_object(jb);
    final[0] = tr / n;
    final[1] = te / n;
    final[2] = acc / n;
  }
  json_builder_end_array(jb);
}

JsonNode *scen_point_summary(const ScenConfig *c, const ScenRunOutput *o) {
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  str(jb, "name", c->name);
  json_builder_set_member_name(jb, "seed");
  json_builder_add_int_value(jb, (gint64)c->seed);
  integer(jb, "nodes", c->n);
  integer(jb, "edges", c->g ? topo_graph_n_edges(c->g) : 0);
  str(jb, "graph", c->graph ? c->graph : c->generate);
  /* What loading the graph file dropped or renamed (null: generated). */
  const TopoLoadReport *lr = c->g ? topo_graph_load_report(c->g) : NULL;
  json_builder_set_member_name(jb, "graph_load");
  if (lr != NULL) {
    json_builder_begin_object(jb);
    integer(jb, "self_loops_dropped", (gint64)lr->self_loops);
    integer(jb, "duplicate_edges_dropped", (gint64)lr->duplicates);
    json_builder_set_member_name(jb, "renumbered");
    json_builder_add_boolean_value(jb, lr->renumbered);
    json_builder_end_object(jb);
  } else {
    json_builder_add_null_value(jb);
  }
  str(jb, "gossip", topo_gossip_kind_name(c->gossip));
  str(jb, "schedule", c->schedule);
  str(jb, "mode", c->mode);
  str(jb, "protocol", c->protocol);
  integer(jb, "rounds", o->T);
  integer(jb, "epochs", o->k);
  integer(jb, "batches", o->b);
  integer(jb, "participation_interval", c->b);
  num(jb, "sigma", o->sigma_used);
  num(jb, "mu_target", c->has_mu ? c->mu : NAN);
  num(jb, "clip", c->clip);
  num(jb, "lr", c->lr);
  str(jb, "dataset", c->has_task ? c->dataset : NULL);
  str(jb, "model", c->has_task ? c->model : NULL);
  json_builder_set_member_name(jb, "stats");
  json_builder_begin_object(jb);
  num(jb, "sim_time_ms", (double)o->stats.sim_time / 1e6);
  integer(jb, "messages_sent", (gint64)o->stats.engine.messages_sent);
  integer(jb, "messages_delivered", (gint64)o->stats.engine.messages_delivered);
  integer(jb, "messages_dropped", (gint64)o->stats.engine.messages_dropped);
  integer(jb, "gathers", (gint64)o->stats.gathers);
  integer(jb, "partial_gathers", (gint64)o->stats.partial_gathers);
  integer(jb, "late_discarded", (gint64)o->stats.late_discarded);
  integer(jb, "stale_inputs", (gint64)o->stats.stale_inputs);
  integer(jb, "noise_variables", o->stats.n_noise);
  json_builder_end_object(jb);
  if (o->eval.sampled) {
    /* Which nodes: metrics.csv's; the means are over them. */
    json_builder_set_member_name(jb, "evaluation");
    json_builder_begin_object(jb);
    integer(jb, "nodes", o->eval.nodes);
    integer(jb, "of_nodes", o->eval.n_nodes);
    integer(jb, "test_rows", (gint64)o->eval.rows);
    integer(jb, "of_test_rows", (gint64)o->eval.n_rows);
    json_builder_set_member_name(jb, "seed");
    json_builder_add_int_value(jb, (gint64)o->eval.seed);
    json_builder_end_object(jb);
  }
  double final[3];
  curve(jb, o, final);
  json_builder_set_member_name(jb, "final");
  json_builder_begin_object(jb);
  num(jb, "train_loss", final[0]);
  num(jb, "test_loss", final[1]);
  num(jb, "test_accuracy", final[2]);
  json_builder_end_object(jb);
  json_builder_set_member_name(jb, "privacy");
  json_builder_add_value(jb, json_node_copy(o->privacy_summary));
  json_builder_end_object(jb);
  JsonNode *root = json_builder_get_root(jb);
  g_object_unref(jb);
  return root;
}

static gboolean write_in(const char *dir, const char *name, const char *data, gsize len,
                         GError **error) {
  char *p = g_build_filename(dir, name, NULL);
  gboolean ok = scen_write_file(p, data, len, error);
  g_free(p);
  return ok;
}

gboolean scen_write_point(const char *dir, const ScenConfig *c, const char *resolved_ini,
                          const ScenRunOutput *o, JsonNode *summary, gboolean plots,
                          GError **error) {
  if (g_mkdir_with_parents(dir, 0777) != 0) {
    g_set_error(error, SCEN_ERROR, SCEN_ERROR_IO, "cannot create %s: %s", dir, g_strerror(errno));
    return FALSE;
  }
  /* A rerun rewrites a point: drop the old completion mark first. */
  char *sum = g_build_filename(dir, "summary.json", NULL);
  g_unlink(sum);
  g_free(sum);
  GString *m = g_string_new(SCEN_METRICS_CSV_COLUMNS "\n");
  GString *mm = g_string_new(SCEN_METRICS_MEAN_CSV_COLUMNS "\n");
  scen_metrics_csv_rows(m, mm, c->seed, o->metrics, o->n_metrics, c->g);
  gboolean ok = write_in(dir, "metrics.csv", m->str, m->len, error) &&
                write_in(dir, "metrics_mean.csv", mm->str, mm->len, error);
  g_string_free(m, TRUE);
  g_string_free(mm, TRUE);
  if (ok) {
    GString *p = g_string_new(SCEN_PRIVACY_CSV_COLUMNS "\n");
    g_string_append_len(p, o->privacy_csv->str, (gssize)o->privacy_csv->len);
    ok = write_in(dir, "privacy.csv", p->str, p->len, error);
    g_string_free(p, TRUE);
  }
  if (ok && o->audit_csv != NULL) {
    GString *a = g_string_new(SCEN_AUDIT_CSV_COLUMNS "\n");
    g_string_append_len(a, o->audit_csv->str, (gssize)o->audit_csv->len);
    ok = write_in(dir, "audit.csv", a->str, a->len, error);
    g_string_free(a, TRUE);
  }
  ok = ok && write_in(dir, "scenario.resolved.ini", resolved_ini, strlen(resolved_ini), error);
  ok = ok && (!plots || scen_plot_point(dir, c, o, error));
  if (ok) {
    char *text = sim_json_write(summary, 1);
    char *s = g_strconcat(text, "\n", NULL);
    ok = write_in(dir, "summary.json", s, strlen(s), error);
    g_free(s);
    g_free(text);
  }
  return ok;
}
