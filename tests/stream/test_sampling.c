/*
 * tests/stream/test_sampling.c: message sampling of the event stream
 * (--publish-messages every:N / none / all), read back from the trace the
 * stream records.
 *
 * docs/events.md: every:N publishes "the 1st, (N+1)st, ... transmission of
 * the run". The reference is every transmission of the same run, recorded
 * by an unsampled bus subscriber in a separate run of the same engine
 * (runs are deterministic). Checked: the message events are exactly the
 * transmissions at positions 0, N, 2N, ... (every field of the body against
 * the engine's event), the end body's counters equal the engine's
 * (messages_seen = messages_sent, messages_sampled_out = sent - published
 * message events), and so do stream_get_stats; the same when the
 * stream is attached mid-run, detached mid-run, outlives its engine, or
 * follows two engines in turn.
 */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sim/sim.h"
#include "stream/stream.h"

#include "tests/common/files.h"
#include "tests/sim/lossy_gossip.h"

static void run_to(SimEngine *e, SimTime until) {
  GError *err = NULL;
  g_assert_cmpint(sim_engine_run(e, until, &err), !=, SIM_RUN_ERROR);
  g_assert_no_error(err);
}

static guint64 n_sent(SimEngine *e) {
  SimEngineStats es;
  sim_engine_get_stats(e, &es);
  return es.messages_sent;
}

/* ---- The reference: every transmission ---- */

typedef struct {
  guint32 from, to, round;
  guint64 tag, bytes;
  SimTime time, arrival;
  SimDropReason reason;
} Tx;

static void record(const SimBusEvent *ev, gpointer data) {
  GArray *tx = data;
  if (ev->kind == SIM_BUS_MESSAGE_SENT) {
    Tx t = {ev->from, ev->to, ev->round, ev->tag, ev->bytes, ev->time, ev->arrival, SIM_DROP_NONE};
    g_array_append_val(tx, t);
  } else {
    g_array_index(tx, Tx, tx->len - 1).reason = ev->reason;
  }
}

static GArray *reference(void) {
  GArray *tx = g_array_new(FALSE, TRUE, sizeof(Tx));
  SimEngine *e = lossy_gossip_engine(23);
  g_assert_cmpuint(sim_bus_subscribe_kinds(sim_engine_bus(e),
                                           SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_SENT) |
                                               SIM_BUS_KIND_BIT(SIM_BUS_MESSAGE_DROPPED),
                                           record, tx, NULL, NULL),
                   >, 0);
  run_to(e, SIM_TIME_NEVER);
  SimEngineStats es;
  sim_engine_get_stats(e, &es);
  g_assert_cmpuint(tx->len, ==, es.messages_sent);
  g_assert_cmpuint(es.messages_sent, >, 900);
  g_assert_cmpuint(es.dropped_loss, >, 0);
  g_assert_cmpuint(es.dropped_link_down, >, 0);
  sim_engine_free(e);
  return tx;
}

/* ---- Reading the trace back ---- */

typedef struct {
  GPtrArray *messages; /* JsonObject of each message body, in order */
  GArray *floor;       /* per message: the largest t_ns published before it */
  guint rounds, topologies, records;
  JsonObject *end; /* the last run end body */
  GPtrArray *parsers;
} Trace;

static gint64 member_int(JsonObject *o, const char *k) {
  g_assert_true(json_object_has_member(o, k));
  JsonNode *n = json_object_get_member(o, k);
  g_assert_true(JSON_NODE_HOLDS_VALUE(n));
  g_assert_cmpint(json_node_get_value_type(n), ==, G_TYPE_INT64);
  return json_node_get_int(n);
}

static gboolean member_null(JsonObject *o, const char *k) {
  g_assert_true(json_object_has_member(o, k));
  return JSON_NODE_HOLDS_NULL(json_object_get_member(o, k));
}

static void trace_read(Trace *t, const char *path) {
  memset(t, 0, sizeof *t);
  t->messages = g_ptr_array_new();
  t->floor = g_array_new(FALSE, FALSE, sizeof(gint64));
  gint64 max_t = 0;
  t->parsers = g_ptr_array_new_with_free_func(g_object_unref);
  GError *err = NULL;
  StreamTraceReader *r = stream_trace_reader_open(path, &err);
  g_assert_no_error(err);
  StreamTraceRecord rec;
  int rc;
  while ((rc = stream_trace_reader_next(r, &rec, &err)) == 1) {
    g_assert_cmpuint(rec.seq, ==, rec.index); /* no gap: nothing dropped */
    JsonParser *p = json_parser_new();
    g_assert_true(json_parser_load_from_data(p, rec.body, (gssize)rec.body_len, &err));
    g_ptr_array_add(t->parsers, p);
    JsonObject *o = json_node_get_object(json_parser_get_root(p));
    t->records++;
    gint64 t_ns = member_int(o, "t_ns");
    if (strcmp(rec.topic, "message") == 0) {
      g_ptr_array_add(t->messages, o);
      g_array_append_val(t->floor, max_t);
    } else if (strcmp(rec.topic, "round") == 0)
      t->rounds++;
    else if (strcmp(rec.topic, "topology") == 0)
      t->topologies++;
    else if (strcmp(rec.topic, "run") == 0 &&
             strcmp(json_object_get_string_member(o, "event"), "end") == 0)
      t->end = o;
    max_t = MAX(max_t, t_ns);
  }
  g_assert_no_error(err);
  g_assert_cmpint(rc, ==, 0);
  stream_trace_reader_free(r);
  g_assert_nonnull(t->end);
}

static void trace_clear(Trace *t) {
  g_ptr_array_unref(t->messages);
  g_array_unref(t->floor);
  g_ptr_array_unref(t->parsers);
}

/* Message event @i of @t is transmission @want. */
static void assert_message(Trace *t, guint i, const Tx *want) {
  JsonObject *o = g_ptr_array_index(t->messages, i);
  g_assert_cmpint(member_int(o, "v"), ==, STREAM_VERSION);
  g_assert_cmpint(member_int(o, "from"), ==, want->from);
  g_assert_cmpint(member_int(o, "to"), ==, want->to);
  g_assert_cmpint(member_int(o, "round"), ==, want->round);
  g_assert_cmpint(member_int(o, "tag"), ==, (gint64)want->tag);
  g_assert_cmpint(member_int(o, "bytes"), ==, (gint64)want->bytes);
  g_assert_cmpint(member_int(o, "sent_ns"), ==, (gint64)want->time);
  /* t_ns never decreases along the stream (a second engine starts at 0) */
  g_assert_cmpint(member_int(o, "t_ns"), ==,
                  MAX((gint64)want->time, g_array_index(t->floor, gint64, i)));
  if (want->reason == SIM_DROP_NONE) {
    g_assert_cmpint(member_int(o, "arrival_ns"), ==, (gint64)want->arrival);
    g_assert_true(member_null(o, "dropped"));
  } else {
    g_assert_true(member_null(o, "arrival_ns"));
    g_assert_cmpstr(json_object_get_string_member(o, "dropped"), ==,
                    sim_drop_reason_name(want->reason));
  }
}

/* The message events of @t from @from on are all[first], all[first +
 * every], ... below @end (none when @every is 0). Returns the next index. */
static guint assert_sampled(Trace *t, guint from, GArray *all, guint first, guint every,
                            guint end) {
  guint k = from;
  for (guint i = first; every != 0 && i < end; i += every) {
    g_assert_cmpuint(k, <, t->messages->len);
    assert_message(t, k++, &g_array_index(all, Tx, i));
  }
  return k;
}

static void assert_end_counts(Trace *t, guint every, guint64 seen, guint64 published_messages,
                              gboolean with_engine, guint64 engine_sent) {
  JsonObject *st = json_object_get_object_member(t->end, "stream");
  g_assert_cmpint(member_int(st, "messages_every"), ==, every);
  g_assert_cmpint(member_int(st, "messages_seen"), ==, (gint64)seen);
  g_assert_cmpint(member_int(st, "messages_sampled_out"), ==, (gint64)(seen - published_messages));
  g_assert_cmpint(member_int(st, "published"), ==, t->records - 1); /* all before the end */
  g_assert_cmpint(member_int(st, "dropped"), ==, 0);
  g_assert_cmpint(json_object_has_member(t->end, "engine"), ==, with_engine);
  if (with_engine)
    g_assert_cmpint(member_int(json_object_get_object_member(t->end, "engine"), "messages_sent"),
                    ==, (gint64)engine_sent);
}

static Stream *sampled_stream(const char *spec, const char *path) {
  GError *err = NULL;
  StreamOptions o = {.record = path, .messages = spec};
  Stream *s = stream_new(&o, &err);
  g_assert_no_error(err);
  StreamRun run = {.name = "sampling", .n_nodes = N};
  g_assert_true(stream_begin_run(s, &run, &err));
  g_assert_no_error(err);
  return s;
}

static void sampled_stream_end(Stream *s, SimTime t, StreamStats *st) {
  GError *err = NULL;
  g_assert_true(stream_end_run(s, t, "ok", &err));
  g_assert_true(stream_finish(s, &err));
  g_assert_no_error(err);
  stream_get_stats(s, st);
  stream_free(s);
}

typedef struct {
  char *dir, *path;
  GArray *all;
} Fixture;

static void fixture_set_up(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = test_tmpdir("stream-sampling");
  g_assert_nonnull(f->dir);
  f->path = g_build_filename(f->dir, "run.trace", NULL);
  f->all = reference();
}

static void fixture_tear_down(Fixture *f, gconstpointer data) {
  (void)data;
  g_unlink(f->path);
  g_rmdir(f->dir);
  g_free(f->path);
  g_free(f->dir);
  g_array_unref(f->all);
}

/* ---- Tests ---- */

/* A whole run under each sampling spec. */
static void test_specs(Fixture *f, gconstpointer data) {
  (void)data;
  const struct {
    const char *spec;
    guint every;
  } cases[] = {{"all", 1},     {"every:1", 1},     {"every:3", 3},
               {"every:7", 7}, {"every:250", 250}, {"every:1000000", 1000000},
               {"none", 0}};
  guint total = f->all->len;
  for (gsize c = 0; c < G_N_ELEMENTS(cases); c++) {
    SimEngine *e = lossy_gossip_engine(23);
    Stream *s = sampled_stream(cases[c].spec, f->path);
    g_assert_cmpuint(stream_message_every(s), ==, cases[c].every);
    GError *err = NULL;
    g_assert_true(stream_attach(s, e, &err));
    run_to(e, SIM_TIME_NEVER);
    g_assert_cmpuint(n_sent(e), ==, total);
    StreamStats st;
    sampled_stream_end(s, sim_engine_now(e), &st);
    sim_engine_free(e);

    Trace t;
    trace_read(&t, f->path);
    guint every = cases[c].every;
    guint expect = every ? (total + every - 1) / every : 0;
    g_assert_cmpuint(t.messages->len, ==, expect);
    g_assert_cmpuint(assert_sampled(&t, 0, f->all, 0, every, total), ==, expect);
    /* the other events are not sampled */
    g_assert_cmpuint(t.rounds, ==, ROUNDS);
    g_assert_cmpuint(t.topologies, ==, 2);
    assert_end_counts(&t, every, total, expect, TRUE, total);
    g_assert_cmpuint(st.messages_seen, ==, total);
    g_assert_cmpuint(st.messages_sampled_out, ==, total - expect);
    g_assert_cmpuint(st.published, ==, t.records);
    g_assert_cmpuint(st.recorded, ==, t.records);
    trace_clear(&t);
  }
}

/* Attached mid-run and detached mid-run: it counts, and samples from, its
 * own stretch of the run only. */
static void test_attach_detach(Fixture *f, gconstpointer data) {
  (void)data;
  SimEngine *e = lossy_gossip_engine(23);
  run_to(e, 97 * MS);
  guint k1 = (guint)n_sent(e);
  Stream *s = sampled_stream("every:4", f->path);
  GError *err = NULL;
  g_assert_true(stream_attach(s, e, &err));
  run_to(e, 181 * MS);
  guint k2 = (guint)n_sent(e);
  stream_detach(s);
  stream_detach(s); /* no-op */
  run_to(e, SIM_TIME_NEVER);
  g_assert_cmpuint(n_sent(e), ==, f->all->len);
  g_assert_cmpuint(0, <, k1);
  g_assert_cmpuint(k1, <, k2);
  g_assert_cmpuint(k2, <, f->all->len);
  StreamStats st;
  sampled_stream_end(s, sim_engine_now(e), &st);
  sim_engine_free(e);

  Trace t;
  trace_read(&t, f->path);
  guint expect = (k2 - k1 + 3) / 4;
  g_assert_cmpuint(t.messages->len, ==, expect);
  assert_sampled(&t, 0, f->all, k1, 4, k2);
  assert_end_counts(&t, 4, k2 - k1, expect, FALSE, 0);
  g_assert_cmpuint(st.messages_seen, ==, k2 - k1);
  g_assert_cmpuint(st.messages_sampled_out, ==, k2 - k1 - expect);
  trace_clear(&t);
}

/* The engine goes first: the stream keeps the counts it had. */
static void test_engine_freed_first(Fixture *f, gconstpointer data) {
  (void)data;
  SimEngine *e = lossy_gossip_engine(23);
  Stream *s = sampled_stream("every:3", f->path);
  GError *err = NULL;
  g_assert_true(stream_attach(s, e, &err));
  run_to(e, SIM_TIME_NEVER);
  SimTime end = sim_engine_now(e);
  sim_engine_free(e);
  guint total = f->all->len, expect = (total + 2) / 3;
  StreamStats st;
  stream_get_stats(s, &st);
  g_assert_cmpuint(st.messages_seen, ==, total);
  g_assert_cmpuint(st.messages_sampled_out, ==, total - expect);
  sampled_stream_end(s, end, &st);

  Trace t;
  trace_read(&t, f->path);
  g_assert_cmpuint(t.messages->len, ==, expect);
  assert_sampled(&t, 0, f->all, 0, 3, total);
  assert_end_counts(&t, 3, total, expect, FALSE, 0);
  trace_clear(&t);
}

/* Two engines in turn: each is a run of its own for sampling, and the
 * counts add up. */
static void test_two_engines(Fixture *f, gconstpointer data) {
  (void)data;
  Stream *s = sampled_stream("every:5", f->path);
  GError *err = NULL;
  SimEngine *a = lossy_gossip_engine(23);
  g_assert_true(stream_attach(s, a, &err));
  run_to(a, 60 * MS); /* stops inside a period: the second engine restarts it */
  guint ka = (guint)n_sent(a);
  g_assert_cmpuint(ka % 5, !=, 1);
  stream_detach(s);
  SimEngine *b = lossy_gossip_engine(23);
  g_assert_true(stream_attach(s, b, &err));
  run_to(b, SIM_TIME_NEVER);
  guint total = f->all->len;
  StreamStats st;
  sampled_stream_end(s, sim_engine_now(b), &st);
  sim_engine_free(a);
  sim_engine_free(b);

  Trace t;
  trace_read(&t, f->path);
  guint ea = (ka + 4) / 5, eb = (total + 4) / 5;
  g_assert_cmpuint(t.messages->len, ==, ea + eb);
  guint k = assert_sampled(&t, 0, f->all, 0, 5, ka);
  g_assert_cmpuint(k, ==, ea);
  assert_sampled(&t, k, f->all, 0, 5, total);
  assert_end_counts(&t, 5, ka + total, ea + eb, TRUE, total);
  g_assert_cmpuint(st.messages_seen, ==, ka + total);
  trace_clear(&t);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  lossy_gossip_rounds = TRUE;
  g_test_add("/stream-sampling/specs", Fixture, NULL, fixture_set_up, test_specs,
             fixture_tear_down);
  g_test_add("/stream-sampling/attach-detach", Fixture, NULL, fixture_set_up, test_attach_detach,
             fixture_tear_down);
  g_test_add("/stream-sampling/engine-freed-first", Fixture, NULL, fixture_set_up,
             test_engine_freed_first, fixture_tear_down);
  g_test_add("/stream-sampling/two-engines", Fixture, NULL, fixture_set_up, test_two_engines,
             fixture_tear_down);
  return g_test_run();
}
