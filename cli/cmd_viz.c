/*
 * cli/cmd_viz.c: `dpgossip viz`: serves the live visualizer page and feeds
 * it the event stream a run (or a replay) publishes. Runs until Ctrl-C or
 * SIGTERM.
 */
#include <stdio.h>

#include <gio/gio.h>
#include <glib-unix.h>

#include "cli/cli.h"
#include "viz/viz.h"

static gboolean on_signal(gpointer loop) {
  g_main_loop_quit(loop);
  return G_SOURCE_CONTINUE; /* removed after the loop, with its twin */
}

static gboolean is_loopback(const char *listen) {
  guint16 port = 0;
  char *host = viz_parse_listen(listen, &port, NULL);
  if (host == NULL)
    return TRUE; /* the server reports the error */
  GInetAddress *a = g_inet_address_new_from_string(host);
  gboolean lo = a != NULL && g_inet_address_get_is_loopback(a);
  if (a != NULL)
    g_object_unref(a);
  g_free(host);
  return lo;
}

int cli_cmd_viz(int argc, char **argv) {
  char *listen = NULL, *subscribe = NULL, *web = NULL;
  gboolean allow_remote = FALSE;
  GOptionEntry entries[] = {
      {"listen", 0, 0, G_OPTION_ARG_STRING, &listen,
       "HTTP address to serve the page on (default " VIZ_DEFAULT_LISTEN "; port 0: any free)",
       "HOST:PORT"},
      {"subscribe", 0, 0, G_OPTION_ARG_STRING, &subscribe,
       "ZeroMQ endpoint a run or replay publishes on (default " VIZ_DEFAULT_SUBSCRIBE ")",
       "ENDPOINT"},
      {"web", 0, 0, G_OPTION_ARG_FILENAME, &web,
       "serve the page from this folder instead of the installed one", "DIR"},
      {"allow-remote", 0, 0, G_OPTION_ARG_NONE, &allow_remote,
       "allow a --listen address beyond loopback (anyone who can reach it can watch your "
       "runs; requests must then name the server by IP address)",
       NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  const CliOptionsSpec spec = {
      .parameter = "- watch runs live in a web browser",
      .entries = entries,
      .description = "Start it, open the printed address in a browser, then run for instance\n"
                     "  dpgossip demo --publish " VIZ_DEFAULT_SUBSCRIBE " --pace 300\n"
                     "or replay a recorded run:\n"
                     "  dpgossip replay run.trace --publish " VIZ_DEFAULT_SUBSCRIBE "\n"
                     "\n"
                     "It listens on loopback only (a non-loopback --listen is refused unless\n"
                     "--allow-remote is given) and answers only requests addressed to localhost,\n"
                     "127.0.0.1 or [::1], so no web page can read the stream by DNS rebinding.\n"};
  if (!cli_options_parse(&spec, &argc, &argv)) {
    g_free(listen);
    g_free(subscribe);
    g_free(web);
    return CLI_EXIT_USAGE;
  }

  GError *error = NULL;
  VizServerOptions o = {
      .listen = listen, .subscribe = subscribe, .web_dir = web, .allow_remote = allow_remote};
  VizServer *server = viz_server_new(&o, &error);
  int status = CLI_EXIT_OK;
  if (server == NULL) {
    gboolean usage = g_error_matches(error, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT);
    status = cli_fail("viz", error, usage ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE);
  } else {
    char *url = viz_server_url(server);
    if (!is_loopback(listen != NULL ? listen : VIZ_DEFAULT_LISTEN))
      fprintf(stderr, "dpgossip viz: warning: listening on a non-loopback address: anyone "
                      "who can reach it can watch your runs\n");
    printf("dpgossip viz: serving %s (page from %s), subscribed to %s\n", url,
           viz_server_web_dir(server), subscribe != NULL ? subscribe : VIZ_DEFAULT_SUBSCRIBE);
    printf("dpgossip viz: press Ctrl-C to stop\n");
    fflush(stdout);
    g_free(url);
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    guint sigint = g_unix_signal_add(SIGINT, on_signal, loop);
    guint sigterm = g_unix_signal_add(SIGTERM, on_signal, loop);
    g_main_loop_run(loop);
    g_source_remove(sigint);
    g_source_remove(sigterm);
    g_main_loop_unref(loop);
    VizServerStats st;
    viz_server_get_stats(server, &st);
    fprintf(stderr,
            "dpgossip viz: %" G_GUINT64_FORMAT " events received (%" G_GUINT64_FORMAT
            " malformed), %" G_GUINT64_FORMAT " runs, %" G_GUINT64_FORMAT " browsers served\n",
            st.received, st.malformed, st.runs, st.clients_total);
    viz_server_free(server);
  }
  g_free(listen);
  g_free(subscribe);
  g_free(web);
  return status;
}
