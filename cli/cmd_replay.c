/*
 * cli/cmd_replay.c: `dpgossip replay FILE.trace --publish ADDR`: publishes a
 * recorded event stream again, body for body, without re-running anything.
 *
 * Pacing: --speed N plays N rounds per wall-clock second. The trace is cut
 * into segments that end at a round event (or every SEGMENT_MAX events in
 * traces without rounds); each segment lasts 1/N s and its events are spread
 * over it in proportion to their simulated times, so a round's messages
 * flash in the order and rhythm they happened. --speed max sends as fast as
 * the subscribers take it. A replay never drops on its own: it waits (up to
 * a second per event) for a slow subscriber instead.
 *
 * A damaged trace is replayed up to its first bad record, then the error
 * (record index, byte offset, what is wrong) is printed and the exit status
 * is 1.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/sim.h"
#include "stream/stream.h"

#define SEGMENT_MAX 65536
#define BLOCK_MS 1000
#define POLL_US (100 * 1000)

typedef struct {
  char *topic;
  char *body;
  gsize len;
  SimTime t;
} Pending;

typedef struct {
  Stream *stream;
  double speed; /* rounds per second; 0: max */
  gint64 from;  /* first round to show (0: all) */
  gboolean skipping;
  GArray *segment; /* Pending */
  SimTime seg_t0;  /* simulated time the segment starts at */
  gint64 wall0;    /* monotonic time the segment starts at */
  guint64 published, skipped;
  gint64 first_round, last_round;
} Replay;

static void pending_clear(gpointer p) {
  Pending *e = p;
  g_free(e->topic);
  g_free(e->body);
}

/* Sleeps until @when (monotonic us), noticing new subscribers meanwhile. */
static void sleep_until(Replay *r, gint64 when) {
  for (;;) {
    gint64 now = g_get_monotonic_time();
    if (now >= when)
      return;
    g_usleep((gulong)MIN(when - now, (gint64)POLL_US));
    stream_poll(r->stream);
  }
}

static gboolean send_one(Replay *r, const char *topic, const char *body, gsize len,
                         GError **error) {
  if (!stream_publish_raw(r->stream, topic, body, len, error))
    return FALSE;
  r->published++;
  return TRUE;
}

/* Publishes the buffered segment over 1/speed seconds. */
static gboolean flush_segment(Replay *r, GError **error) {
  GArray *seg = r->segment;
  if (seg->len == 0)
    return TRUE;
  double span_s = 1.0 / r->speed;
  SimTime t_end = g_array_index(seg, Pending, seg->len - 1).t;
  SimTime t0 = MIN(r->seg_t0, g_array_index(seg, Pending, 0).t);
  double sim_span = (double)(t_end - t0);
  for (guint i = 0; i < seg->len; i++) {
    Pending *e = &g_array_index(seg, Pending, i);
    double frac = sim_span > 0 ? (double)(e->t - t0) / sim_span : (double)(i + 1) / seg->len;
    sleep_until(r, r->wall0 + (gint64)(frac * span_s * 1e6));
    if (!send_one(r, e->topic, e->body, e->len, error))
      return FALSE;
  }
  r->wall0 += (gint64)(span_s * 1e6);
  /* Do not let a slow subscriber make the next segments rush to catch up. */
  r->wall0 = MAX(r->wall0, g_get_monotonic_time());
  r->seg_t0 = t_end;
  g_array_set_size(seg, 0);
  return TRUE;
}

static gboolean handle(Replay *r, const StreamTraceRecord *rec, GError **error) {
  gboolean is_round = strcmp(rec->topic, "round") == 0;
  if (r->skipping) {
    if (is_round && rec->round >= r->from) {
      r->skipping = FALSE;
      r->wall0 = g_get_monotonic_time();
      r->seg_t0 = rec->t_ns;
    } else if (strcmp(rec->topic, "run") == 0 || strcmp(rec->topic, "topology") == 0) {
      /* What a viewer needs to draw round --from: the graph and its changes. */
      return send_one(r, rec->topic, rec->body, rec->body_len, error);
    } else {
      r->skipped++;
      return TRUE;
    }
  }
  if (is_round) {
    if (r->first_round < 0)
      r->first_round = rec->round;
    r->last_round = rec->round;
  }
  if (r->speed == 0)
    return send_one(r, rec->topic, rec->body, rec->body_len, error);
  Pending e = {g_strdup(rec->topic), g_strndup(rec->body, rec->body_len), rec->body_len, rec->t_ns};
  g_array_append_val(r->segment, e);
  if (is_round || r->segment->len >= SEGMENT_MAX)
    return flush_segment(r, error);
  return TRUE;
}

static gboolean parse_speed(const char *text, double *speed, GError **error) {
  if (text == NULL) {
    *speed = 2.0;
    return TRUE;
  }
  if (strcmp(text, "max") == 0) {
    *speed = 0;
    return TRUE;
  }
  char *end = NULL;
  double v = g_ascii_strtod(text, &end);
  /* Below 1e-6 rounds/s, 1/speed in microseconds would overflow the clock
   * arithmetic (1e-15 played at full speed). */
  if (end != text && *end == '\0' && isfinite(v) && v >= 1e-6 && v <= 1e6) {
    *speed = v;
    return TRUE;
  }
  g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
              "--speed: '%s' is neither a number of rounds per second in [1e-6, 1e6] nor 'max'",
              text);
  return FALSE;
}

/* --check: reads the whole trace and reports what it holds. */
static int check_trace(StreamTraceReader *reader, const char *path) {
  GHashTable *counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  StreamTraceRecord rec;
  GError *error = NULL;
  int rc;
  guint64 n = 0;
  gint64 last_round = -1;
  SimTime last_t = 0;
  while ((rc = stream_trace_reader_next(reader, &rec, &error)) == 1) {
    n++;
    gpointer old = g_hash_table_lookup(counts, rec.topic);
    g_hash_table_replace(counts, g_strdup(rec.topic), GSIZE_TO_POINTER(GPOINTER_TO_SIZE(old) + 1));
    if (strcmp(rec.topic, "round") == 0)
      last_round = rec.round;
    last_t = rec.t_ns;
  }
  printf("%s: %" G_GUINT64_FORMAT " events, last round %" G_GINT64_FORMAT
         ", simulated time %.6f s\n",
         path, n, last_round, last_t / 1e9);
  GList *keys = g_list_sort(g_hash_table_get_keys(counts), (GCompareFunc)strcmp);
  for (GList *k = keys; k != NULL; k = k->next)
    printf("  %-9s %zu\n", (char *)k->data, GPOINTER_TO_SIZE(g_hash_table_lookup(counts, k->data)));
  g_list_free(keys);
  g_hash_table_unref(counts);
  if (rc < 0)
    return cli_fail("replay", error, CLI_EXIT_FAILURE);
  printf("  the trace is complete and every record checks\n");
  return CLI_EXIT_OK;
}

int cli_cmd_replay(int argc, char **argv) {
  char *publish = NULL, *speed_text = NULL;
  gint64 from = 0;
  double wait_s = 1.0;
  gboolean check = FALSE;
  GOptionEntry entries[] = {
      {"publish", 0, 0, G_OPTION_ARG_STRING, &publish,
       "ZeroMQ endpoint to publish on (what 'dpgossip viz --subscribe' listens to)",
       "tcp://127.0.0.1:5556"},
      {"speed", 0, 0, G_OPTION_ARG_STRING, &speed_text,
       "rounds per second in [1e-6, 1e6] (default 2), or max", "N|max"},
      {"from", 0, 0, G_OPTION_ARG_INT64, &from,
       "start at this round (the run start and topology changes before it are still sent)",
       "ROUND"},
      {"publish-wait", 0, 0, G_OPTION_ARG_DOUBLE, &wait_s,
       "wait up to this long for a first subscriber (default 1)", "SECONDS"},
      {"check", 0, 0, G_OPTION_ARG_NONE, &check,
       "only read and check the trace, print what it holds", NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  const CliOptionsSpec spec = {.parameter = "FILE.trace - publish a recorded run again",
                               .entries = entries,
                               .operands = TRUE};
  GError *error = NULL;
  double speed = 0;
  gboolean ok = cli_options_parse(&spec, &argc, &argv);
  if (!ok) {
    g_free(publish);
    g_free(speed_text);
    return CLI_EXIT_USAGE;
  }
  if (ok && argc != 2)
    error = g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                        argc < 2 ? "which trace? (dpgossip replay FILE.trace --publish ADDR)"
                                 : "one trace at a time");
  else if (ok && !check && publish == NULL)
    error = g_error_new_literal(G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                                "--publish ADDR is required (or --check)");
  else if (ok && (from < 0 || wait_s < 0 || wait_s > 3600))
    error = g_error_new_literal(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                "--from must be >= 0 and --publish-wait in [0, 3600]");
  else if (ok)
    parse_speed(speed_text, &speed, &error);
  if (error != NULL) {
    fprintf(stderr, "dpgossip replay: %s\n(run 'dpgossip replay --help' for the options)\n",
            error->message);
    g_error_free(error);
    g_free(publish);
    g_free(speed_text);
    return CLI_EXIT_USAGE;
  }
  const char *path = argv[1];
  int status = CLI_EXIT_OK;
  StreamTraceReader *reader = stream_trace_reader_open(path, &error);
  if (reader == NULL) {
    status = cli_fail("replay", error, CLI_EXIT_FAILURE);
    goto out;
  }
  if (check) {
    status = check_trace(reader, path);
    goto out;
  }

  Replay r = {
      .speed = speed, .from = from, .skipping = from > 0, .first_round = -1, .last_round = -1};
  StreamOptions o = {.publish = publish, .wait_ms = (guint)(wait_s * 1000), .block_ms = BLOCK_MS};
  if (wait_s > 0)
    fprintf(stderr, "dpgossip replay: waiting up to %.1f s for a subscriber...\n", wait_s);
  r.stream = stream_new(&o, &error);
  if (r.stream == NULL) {
    status = cli_fail("replay", error, CLI_EXIT_FAILURE);
    goto out;
  }
  /* --speed is a number of rounds per second: say so, whatever was typed. */
  char speed_label[64];
  if (speed == 0)
    g_strlcpy(speed_label, "full speed (--speed max)", sizeof speed_label);
  else
    g_snprintf(speed_label, sizeof speed_label, "%g round%s per second", speed,
               speed == 1 ? "" : "s");
  fprintf(stderr, "dpgossip replay: publishing %s on %s at %s\n", path, stream_endpoint(r.stream),
          speed_label);
  r.segment = g_array_new(FALSE, FALSE, sizeof(Pending));
  g_array_set_clear_func(r.segment, pending_clear);
  r.wall0 = g_get_monotonic_time();
  StreamTraceRecord rec;
  GError *trace_error = NULL;
  int rc;
  while ((rc = stream_trace_reader_next(reader, &rec, &trace_error)) == 1)
    if (!handle(&r, &rec, &error))
      break;
  /* Whatever was read before an error is valid: send it too. */
  if (error == NULL && r.speed > 0)
    flush_segment(&r, &error);
  StreamStats st;
  stream_get_stats(r.stream, &st);
  GError *finish_error = NULL;
  stream_finish(r.stream, &finish_error);
  g_clear_error(&finish_error);
  fprintf(stderr,
          "dpgossip replay: %" G_GUINT64_FORMAT " events published (rounds %" G_GINT64_FORMAT
          " to %" G_GINT64_FORMAT "), %" G_GUINT64_FORMAT " skipped before round %" G_GINT64_FORMAT
          ", %" G_GUINT64_FORMAT " dropped by slow subscribers\n",
          r.published, r.first_round, r.last_round, r.skipped, from, st.dropped);
  stream_free(r.stream);
  g_array_unref(r.segment);
  if (error != NULL) {
    g_clear_error(&trace_error);
    status = cli_fail("replay", error, CLI_EXIT_FAILURE);
  } else if (rc < 0) {
    status = cli_fail("replay", trace_error, CLI_EXIT_FAILURE);
  }
out:
  stream_trace_reader_free(reader);
  g_free(publish);
  g_free(speed_text);
  return status;
}
