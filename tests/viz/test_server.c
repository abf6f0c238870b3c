/*
 * tests/viz/test_server.c: the visualizer's HTTP server, spoken to over
 * plain TCP sockets (so requests can be as malformed as an attacker likes).
 *
 * The server runs in its own thread and main context, as `dpgossip viz`
 * runs it. Checked: the page and its assets are served with the right types
 * and a same-origin content policy; no request target escapes the web
 * folder (dot segments raw and encoded, encoded slashes, absolute paths and
 * absolute-form targets, NUL, backslashes, hidden files, symlinks out);
 * Server-Sent Events carry the stream in order, a late browser gets the
 * run's start and history but no old messages, a repeated run start is
 * ignored until the run ends; a browser that does not read costs at most
 * its buffer (message events are skipped for it, and counted); browsers and
 * publishers come and go; malformed ZeroMQ messages are counted and dropped.
 * Connections: two Host headers get 400; one idle or half-sent is closed
 * after the timeout, a stream being read is not; beyond the cap a
 * connection gets 503; with descriptors exhausted the server accepts again
 * once connections close.
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/sim.h"
#include "stream/stream.h"
#include "tests/common/files.h"
#include "tests/viz/viz_test_util.h"
#include "viz/viz.h"

/* ---- The server in its own thread ---- */

typedef struct {
  GMainContext *ctx;
  GMainLoop *loop;
  GThread *thread;
  VizServer *srv;
  VizServerOptions opt;
  char *subscribe;
  GError *error;
  GMutex lock;
  GCond cond;
  gboolean ready;
  guint16 port;
} Srv;

static gpointer srv_main(gpointer data) {
  Srv *s = data;
  g_main_context_push_thread_default(s->ctx);
  s->srv = viz_server_new(&s->opt, &s->error);
  g_mutex_lock(&s->lock);
  s->port = s->srv ? viz_server_port(s->srv) : 0;
  s->ready = TRUE;
  g_cond_signal(&s->cond);
  g_mutex_unlock(&s->lock);
  if (s->srv != NULL) {
    g_main_loop_run(s->loop);
    viz_server_free(s->srv);
  }
  g_main_context_pop_thread_default(s->ctx);
  return NULL;
}

static char *web_dir(void) {
  const char *src = g_getenv("DPG_SOURCE_DIR");
  g_assert_nonnull(src);
  return g_build_filename(src, "viz", "web", NULL);
}

/* Starts the server of @s (its options set) in its own thread. */
static Srv *srv_launch(Srv *s);

static Srv *srv_start_full(const char *web, const char *subscribe, gsize buffer,
                           gboolean allow_remote) {
  Srv *s = g_new0(Srv, 1);
  s->subscribe = subscribe ? g_strdup(subscribe)
                           : g_strdup_printf("tcp://127.0.0.1:%u", vt_free_port());
  s->opt = (VizServerOptions){.listen = "127.0.0.1:0",
                              .subscribe = s->subscribe,
                              .web_dir = web,
                              .client_buffer = buffer,
                              .keepalive_ms = 100000,
                              .allow_remote = allow_remote};
  return srv_launch(s);
}

/* A server with a connection cap and a connection timeout. */
static Srv *srv_start_limits(const char *web, guint max_connections, guint timeout_s,
                             guint keepalive_ms) {
  Srv *s = g_new0(Srv, 1);
  s->subscribe = g_strdup_printf("tcp://127.0.0.1:%u", vt_free_port());
  s->opt = (VizServerOptions){.listen = "127.0.0.1:0",
                              .subscribe = s->subscribe,
                              .web_dir = web,
                              .keepalive_ms = keepalive_ms,
                              .max_connections = max_connections,
                              .timeout_s = timeout_s};
  return srv_launch(s);
}

static Srv *srv_launch(Srv *s) {
  s->ctx = g_main_context_new();
  s->loop = g_main_loop_new(s->ctx, FALSE);
  g_mutex_init(&s->lock);
  g_cond_init(&s->cond);
  s->thread = g_thread_new("viz", srv_main, s);
  g_mutex_lock(&s->lock);
  while (!s->ready)
    g_cond_wait(&s->cond, &s->lock);
  g_mutex_unlock(&s->lock);
  g_assert_no_error(s->error);
  g_assert_cmpuint(s->port, >, 0);
  return s;
}

static Srv *srv_start(const char *web, const char *subscribe, gsize buffer) {
  return srv_start_full(web, subscribe, buffer, FALSE);
}

static gboolean quit_loop(gpointer data) {
  g_main_loop_quit(data);
  return G_SOURCE_REMOVE;
}

static void srv_stop(Srv *s) {
  g_main_context_invoke(s->ctx, quit_loop, s->loop);
  g_thread_join(s->thread);
  g_main_loop_unref(s->loop);
  g_main_context_unref(s->ctx);
  g_mutex_clear(&s->lock);
  g_cond_clear(&s->cond);
  g_free(s->subscribe);
  g_free(s);
}

/* Runs @fn(@data) in the server's thread and waits for it. */
typedef struct {
  Srv *s;
  void (*fn)(Srv *, gpointer);
  gpointer data;
  gboolean done;
} Call;

static gboolean call_in_server(gpointer p) {
  Call *c = p;
  c->fn(c->s, c->data);
  g_mutex_lock(&c->s->lock);
  c->done = TRUE;
  g_cond_broadcast(&c->s->cond);
  g_mutex_unlock(&c->s->lock);
  return G_SOURCE_REMOVE;
}

static void srv_call(Srv *s, void (*fn)(Srv *, gpointer), gpointer data) {
  Call c = {s, fn, data, FALSE};
  g_main_context_invoke(s->ctx, call_in_server, &c);
  g_mutex_lock(&s->lock);
  while (!c.done)
    g_cond_wait(&s->cond, &s->lock);
  g_mutex_unlock(&s->lock);
}

static void get_stats(Srv *s, gpointer out) {
  viz_server_get_stats(s->srv, out);
}

static VizServerStats stats(Srv *s) {
  VizServerStats st;
  srv_call(s, get_stats, &st);
  return st;
}

typedef struct {
  const char *topic, *body;
} Ev;

static void inject(Srv *s, gpointer data) {
  const Ev *e = data;
  viz_server_inject(s->srv, e->topic, e->body, strlen(e->body));
}

static void srv_inject(Srv *s, const char *topic, const char *body) {
  Ev e = {topic, body};
  srv_call(s, inject, &e);
}

/* ---- A raw HTTP client ---- */

static GSocket *connect_to(guint16 port) {
  GSocket *sock = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                               NULL);
  GInetAddress *lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new(lo, port);
  GError *err = NULL;
  g_assert_true(g_socket_connect(sock, a, NULL, &err));
  g_assert_no_error(err);
  g_object_unref(a);
  g_object_unref(lo);
  g_socket_set_timeout(sock, 10);
  return sock;
}

static void send_all(GSocket *sock, const char *text) {
  gsize len = strlen(text), off = 0;
  while (off < len) {
    gssize n = g_socket_send(sock, text + off, len - off, NULL, NULL);
    g_assert_cmpint(n, >, 0);
    off += (gsize)n;
  }
}

/* Sends a raw request; returns the whole response (Connection: close). */
static char *http_raw(guint16 port, const char *request) {
  GSocket *sock = connect_to(port);
  send_all(sock, request);
  GString *out = g_string_new(NULL);
  char buf[4096];
  for (;;) {
    gssize n = g_socket_receive(sock, buf, sizeof buf, NULL, NULL);
    if (n <= 0)
      break;
    g_string_append_len(out, buf, n);
  }
  g_object_unref(sock);
  return g_string_free(out, FALSE);
}

static char *http_get(guint16 port, const char *method, const char *target) {
  char *req = g_strdup_printf("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                              method, target);
  char *resp = http_raw(port, req);
  g_free(req);
  return resp;
}

static int status_of(const char *resp) {
  int code = 0;
  if (sscanf(resp, "HTTP/1.%*d %d", &code) != 1)
    return -1;
  return code;
}

static const char *body_of(const char *resp) {
  const char *b = strstr(resp, "\r\n\r\n");
  return b ? b + 4 : "";
}

/* ---- Files ---- */

static void test_files(void) {
  char *web = web_dir();
  Srv *s = srv_start(web, NULL, 0);
  char *r = http_get(s->port, "GET", "/");
  g_assert_cmpint(status_of(r), ==, 200);
  g_assert_nonnull(strstr(r, "Content-Type: text/html"));
  g_assert_nonnull(strstr(r, "Content-Security-Policy: default-src 'self'"));
  g_assert_nonnull(strstr(r, "X-Content-Type-Options: nosniff"));
  g_assert_nonnull(strstr(body_of(r), "<canvas id=\"graph\""));
  /* the page fetches nothing from elsewhere */
  g_assert_null(strstr(body_of(r), "http://"));
  g_assert_null(strstr(body_of(r), "https://"));
  g_free(r);
  struct {
    const char *path, *type;
  } assets[] = {{"/app.js", "text/javascript"},
                {"/style.css", "text/css"},
                {"/favicon.svg", "image/svg+xml"},
                {"/index.html", "text/html"}};
  for (gsize i = 0; i < G_N_ELEMENTS(assets); i++) {
    r = http_get(s->port, "GET", assets[i].path);
    g_assert_cmpint(status_of(r), ==, 200);
    char *want = g_strdup_printf("Content-Type: %s", assets[i].type);
    g_assert_nonnull(strstr(r, want));
    g_free(want);
    /* the whole file, byte for byte */
    char *file = g_build_filename(web, assets[i].path + 1, NULL), *data = NULL;
    g_assert_true(g_file_get_contents(file, &data, NULL, NULL));
    g_assert_cmpstr(body_of(r), ==, data);
    g_free(data);
    g_free(file);
    g_free(r);
  }
  r = http_get(s->port, "HEAD", "/");
  g_assert_cmpint(status_of(r), ==, 200);
  g_assert_cmpstr(body_of(r), ==, "");
  g_free(r);
  r = http_get(s->port, "POST", "/");
  g_assert_cmpint(status_of(r), ==, 405);
  g_assert_nonnull(strstr(r, "Allow: GET, HEAD"));
  g_free(r);
  r = http_get(s->port, "GET", "/nope.html");
  g_assert_cmpint(status_of(r), ==, 404);
  g_free(r);
  r = http_get(s->port, "GET", "/status");
  g_assert_cmpint(status_of(r), ==, 200);
  g_assert_nonnull(strstr(body_of(r), "\"clients\":0"));
  g_free(r);
  srv_stop(s);
  g_free(web);
}

static void test_traversal(void) {
  /* A web folder of our own with a hidden file and symlinks leading out. */
  char *dir = test_tmpdir("web");
  char *real = realpath(dir, NULL);
  char *web = g_build_filename(real, "web", NULL);
  char *secret = g_build_filename(real, "secret.txt", NULL);
  g_assert_cmpint(g_mkdir(web, 0700), ==, 0);
  char *p = g_build_filename(web, "index.html", NULL);
  g_assert_true(g_file_set_contents(p, "<p>inside</p>", -1, NULL));
  g_free(p);
  g_assert_true(g_file_set_contents(secret, "TOP-SECRET", -1, NULL));
  p = g_build_filename(web, ".hidden", NULL);
  g_assert_true(g_file_set_contents(p, "TOP-SECRET", -1, NULL));
  g_free(p);
  p = g_build_filename(web, "leak.txt", NULL);
  g_assert_cmpint(symlink(secret, p), ==, 0);
  g_free(p);
  p = g_build_filename(web, "up", NULL);
  g_assert_cmpint(symlink(real, p), ==, 0);
  g_free(p);

  Srv *s = srv_start(web, NULL, 0);
  const char *targets[] = {
      "/../secret.txt",
      "/../../../../etc/passwd",
      "/%2e%2e/secret.txt",
      "/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
      "/.%2e/secret.txt",
      "/..%2fsecret.txt",
      "/%2e%2e%2fsecret.txt",
      "/%2fetc%2fpasswd",
      "//etc/passwd",
      "/etc/passwd",
      "http://127.0.0.1/../secret.txt",
      "http://127.0.0.1/%2e%2e/secret.txt",
      "/..\\secret.txt",
      "/%5c..%5csecret.txt",
      "/index.html%00.txt",
      "/.hidden",
      "/%2ehidden",
      "/leak.txt",
      "/up/secret.txt",
      "/up/web/index.html/../../secret.txt",
      "/%252e%252e/secret.txt",
      "/%",
      "/%zz",
      "secret.txt",
  };
  for (gsize i = 0; i < G_N_ELEMENTS(targets); i++) {
    char *r = http_get(s->port, "GET", targets[i]);
    int code = status_of(r);
    if (!(code == 400 || code == 403 || code == 404) || strstr(r, "TOP-SECRET") != NULL ||
        strstr(r, "root:") != NULL)
      g_error("'%s' gave %d:\n%s", targets[i], code, r);
    g_free(r);
  }
  /* what is inside is still served */
  char *r = http_get(s->port, "GET", "/index.html");
  g_assert_cmpint(status_of(r), ==, 200);
  g_assert_cmpstr(body_of(r), ==, "<p>inside</p>");
  g_free(r);
  srv_stop(s);

  /* The same rules, one by one, on the resolver itself. */
  struct {
    const char *path;
    int code; /* 0: served */
  } cases[] = {
      {"/", 0},
      {"/index.html", 0},
      {"/index.html/", -1},
      {"/%69ndex.html", 0}, /* an encoded ordinary letter is fine */
      {"/../secret.txt", VIZ_ERROR_FORBIDDEN},
      {"/./index.html", VIZ_ERROR_FORBIDDEN},
      {"/%2e%2e/secret.txt", VIZ_ERROR_FORBIDDEN},
      {"/a%2fb", VIZ_ERROR_FORBIDDEN},
      {"/a%00b", VIZ_ERROR_FORBIDDEN},
      {"/a\\b", VIZ_ERROR_FORBIDDEN},
      {"/%5c", VIZ_ERROR_FORBIDDEN},
      {"//index.html", VIZ_ERROR_FORBIDDEN},
      {"/.hidden", VIZ_ERROR_FORBIDDEN},
      {"index.html", VIZ_ERROR_FORBIDDEN},
      {"/%", VIZ_ERROR_FORBIDDEN},
      {"/leak.txt", VIZ_ERROR_FORBIDDEN},
      {"/up/secret.txt", VIZ_ERROR_FORBIDDEN},
      {"/missing", VIZ_ERROR_NOT_FOUND},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    GError *err = NULL;
    char *f = viz_resolve_path(web, cases[i].path, &err);
    if (cases[i].code == 0) {
      g_assert_no_error(err);
      g_assert_true(g_str_has_prefix(f, web));
      g_assert_true(g_str_has_suffix(f, "/index.html"));
    } else if (cases[i].code > 0) {
      if (f != NULL || !g_error_matches(err, VIZ_ERROR, cases[i].code))
        g_error("'%s': expected error %d, got %s", cases[i].path, cases[i].code,
                err ? err->message : f);
    } else {
      g_assert_null(f); /* a file is not a folder */
    }
    g_clear_error(&err);
    g_free(f);
  }
  char *paths[] = {g_build_filename(web, "index.html", NULL),
                   g_build_filename(web, ".hidden", NULL), g_build_filename(web, "leak.txt", NULL),
                   g_build_filename(web, "up", NULL)};
  for (gsize i = 0; i < G_N_ELEMENTS(paths); i++) {
    g_unlink(paths[i]);
    g_free(paths[i]);
  }
  g_rmdir(web);
  g_unlink(secret);
  g_rmdir(real);
  free(real);
  g_free(secret);
  g_free(web);
  g_free(dir);
}

static void test_listen(void) {
  struct {
    const char *text, *host;
    guint16 port;
  } ok[] = {{"127.0.0.1:8080", "127.0.0.1", 8080},
            {"localhost:0", "127.0.0.1", 0},
            {"[::1]:9", "::1", 9},
            {"0.0.0.0:65535", "0.0.0.0", 65535}};
  for (gsize i = 0; i < G_N_ELEMENTS(ok); i++) {
    guint16 port = 1;
    GError *err = NULL;
    char *host = viz_parse_listen(ok[i].text, &port, &err);
    g_assert_no_error(err);
    g_assert_cmpstr(host, ==, ok[i].host);
    g_assert_cmpuint(port, ==, ok[i].port);
    g_free(host);
  }
  const char *bad[] = {
      "8080",          "127.0.0.1",      "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1",
      "127.0.0.1:80x", "example.org:80", "::1:80",     "[::1]80",         ":80"};
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    guint16 port = 7;
    GError *err = NULL;
    g_assert_null(viz_parse_listen(bad[i], &port, &err));
    g_assert_error(err, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull(strstr(err->message, bad[i]));
    g_assert_cmpuint(port, ==, 7);
    g_error_free(err);
  }
  /* The default address is loopback. */
  guint16 port = 0;
  char *host = viz_parse_listen(VIZ_DEFAULT_LISTEN, &port, NULL);
  GInetAddress *a = g_inet_address_new_from_string(host);
  g_assert_true(g_inet_address_get_is_loopback(a));
  g_object_unref(a);
  g_free(host);
  /* A taken port is a clear error. */
  char *web = web_dir();
  Srv *s = srv_start(web, NULL, 0);
  char *listen = g_strdup_printf("127.0.0.1:%u", s->port);
  VizServerOptions o = {.listen = listen, .web_dir = web};
  GError *err = NULL;
  GMainContext *ctx = g_main_context_new();
  g_main_context_push_thread_default(ctx);
  g_assert_null(viz_server_new(&o, &err));
  g_assert_error(err, VIZ_ERROR, VIZ_ERROR_LISTEN);
  g_assert_nonnull(strstr(err->message, listen));
  g_clear_error(&err);
  o.listen = "127.0.0.1:0";
  o.web_dir = "/nonexistent";
  g_assert_null(viz_server_new(&o, &err));
  g_assert_error(err, VIZ_ERROR, VIZ_ERROR_NOT_FOUND);
  g_clear_error(&err);
  o.web_dir = web;
  o.subscribe = "bogus://x";
  g_assert_null(viz_server_new(&o, &err));
  g_assert_error(err, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_main_context_pop_thread_default(ctx);
  g_main_context_unref(ctx);
  g_free(listen);
  srv_stop(s);
  g_free(web);
}

/* ---- DNS rebinding and hostile events ---- */

static void test_host_names(void) {
  const char *loopback[] = {"localhost",       "LocalHost:8080", "127.0.0.1",  "127.0.0.1:80",
                            "127.1.2.3:65535", "[::1]",          "[::1]:8080", "::1"};
  for (gsize i = 0; i < G_N_ELEMENTS(loopback); i++) {
    if (!viz_host_allowed(loopback[i], FALSE))
      g_error("'%s' refused", loopback[i]);
    g_assert_true(viz_host_allowed(loopback[i], TRUE));
  }
  /* Names a rebinding page controls, and literals that are not loopback. */
  const char *other[] = {"evil.example.com",
                         "evil.example.com:8080",
                         "localhost.evil.com",
                         "127.0.0.1.nip.io",
                         "localhost:",
                         "localhost:8080x",
                         "127.0.0.1:123456",
                         "[::1",
                         "[::1]x",
                         "0x7f000001",
                         "2130706433",
                         "",
                         "10.0.0.1:8080",
                         "[fe80::1]:80",
                         "0.0.0.0"};
  for (gsize i = 0; i < G_N_ELEMENTS(other); i++)
    if (viz_host_allowed(other[i], FALSE))
      g_error("'%s' allowed", other[i]);
  g_assert_false(viz_host_allowed(NULL, FALSE));
  /* A server told to listen beyond loopback takes IP literals, still no names. */
  g_assert_true(viz_host_allowed("10.0.0.1:8080", TRUE));
  g_assert_true(viz_host_allowed("[fe80::1]:80", TRUE));
  g_assert_false(viz_host_allowed("evil.example.com", TRUE));
}

static char *http_host(guint16 port, const char *target, const char *host_line) {
  char *req = g_strdup_printf("GET %s HTTP/1.1\r\n%sConnection: close\r\n\r\n", target, host_line);
  char *resp = http_raw(port, req);
  g_free(req);
  return resp;
}

static void test_rebinding(void) {
  char *web = web_dir();
  Srv *s = srv_start(web, NULL, 0);
  struct {
    const char *target, *host_line;
    int status;
  } cases[] = {
      {"/status", "Host: evil.example.com\r\n", 403},
      {"/status", "Host: evil.example.com:8080\r\n", 403},
      {"/", "Host: evil.example.com\r\n", 403},
      {"/events", "Host: evil.example.com\r\n", 403},
      {"/status", "Host: 127.0.0.1.nip.io\r\n", 403},
      {"/status", "Host: 192.168.1.1\r\n", 403},
      {"http://evil.example.com/status", "Host: 127.0.0.1\r\n", 403},
      {"/status", "Host: localhost\r\n", 200},
      {"/status", "Host: LOCALHOST:8080\r\n", 200},
      {"/status", "Host: 127.0.0.1\r\n", 200},
      {"/status", "Host: 127.3.2.1:99\r\n", 200},
      {"/status", "Host: [::1]:8080\r\n", 200},
      {"/", "Host: localhost\r\n", 200},
      /* two Host headers: 400 (RFC 7230, 5.4), whichever they name */
      {"/status", "Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n", 400},
      {"/status", "Host: 127.0.0.1\r\nHost: evil.example.com\r\n", 400},
      {"/events", "Host: evil.example.com\r\nHost: localhost\r\n", 400},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *r = http_host(s->port, cases[i].target, cases[i].host_line);
    if (status_of(r) != cases[i].status)
      g_error("GET %s with %s: got %d, want %d", cases[i].target, cases[i].host_line, status_of(r),
              cases[i].status);
    if (cases[i].status == 403) {
      g_assert_nonnull(strstr(body_of(r), "forbidden host"));
      g_assert_null(strstr(body_of(r), "\"received\""));
    }
    g_free(r);
  }
  /* Without a Host at all (HTTP/1.0): refused too. */
  char *r = http_raw(s->port, "GET /status HTTP/1.0\r\n\r\n");
  g_assert_cmpint(status_of(r), ==, 403);
  g_free(r);
  srv_stop(s);

  /* A server forced beyond loopback takes IP literals, still no names. */
  s = srv_start_full(web, NULL, 0, TRUE);
  r = http_host(s->port, "/status", "Host: 10.1.2.3:8080\r\n");
  g_assert_cmpint(status_of(r), ==, 200);
  g_free(r);
  r = http_host(s->port, "/status", "Host: evil.example.com\r\n");
  g_assert_cmpint(status_of(r), ==, 403);
  g_free(r);
  srv_stop(s);

  /* A non-loopback listen is refused unless forced. */
  VizServerOptions o = {.listen = "0.0.0.0:0", .web_dir = web};
  GError *err = NULL;
  GMainContext *ctx = g_main_context_new();
  g_main_context_push_thread_default(ctx);
  g_assert_null(viz_server_new(&o, &err));
  g_assert_error(err, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull(strstr(err->message, "not loopback"));
  g_assert_nonnull(strstr(err->message, "--allow-remote"));
  g_clear_error(&err);
  o.listen = "[::]:0";
  g_assert_null(viz_server_new(&o, &err));
  g_assert_error(err, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT);
  g_clear_error(&err);
  g_main_context_pop_thread_default(ctx);
  g_main_context_unref(ctx);
  g_free(web);
}

/* A run event nested 300,000 deep is dropped as malformed (json-glib would
 * overflow the stack on it); the server goes on. */
static void test_deep_event(void) {
  char *web = web_dir();
  Srv *s = srv_start(web, NULL, 0);
  GString *deep = g_string_new("{\"event\":\"start\",\"x\":");
  for (int i = 0; i < 300000; i++)
    g_string_append_c(deep, '[');
  for (int i = 0; i < 300000; i++)
    g_string_append_c(deep, ']');
  g_string_append_c(deep, '}');
  srv_inject(s, "run", deep->str);
  g_string_free(deep, TRUE);
  srv_inject(s, "run", "{\"event\":5}"); /* not a string: not a start */
  VizServerStats st = stats(s);
  g_assert_cmpuint(st.received, ==, 2);
  g_assert_cmpuint(st.malformed, ==, 1);
  g_assert_cmpuint(st.runs, ==, 0);
  srv_inject(s, "run", "{\"event\":\"start\",\"x\":[[[[1]]]]}");
  st = stats(s);
  g_assert_cmpuint(st.runs, ==, 1);
  char *r = http_get(s->port, "GET", "/status");
  g_assert_cmpint(status_of(r), ==, 200);
  g_free(r);
  srv_stop(s);
  g_free(web);
}

/* ---- Server-Sent Events ---- */

typedef struct {
  GSocket *sock;
  GString *buf;
  gsize pos; /* parsed up to */
} Sse;

static Sse sse_open(guint16 port) {
  Sse c = {connect_to(port), g_string_new(NULL), 0};
  send_all(c.sock, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
  return c;
}

static void sse_close(Sse *c) {
  g_socket_close(c->sock, NULL);
  g_object_unref(c->sock);
  g_string_free(c->buf, TRUE);
}

/* The next SSE event (topic and data), skipping the HTTP head, chunk
 * framing, comments and the server's own "viz" events; FALSE on timeout. */
static gboolean sse_next(Sse *c, char **topic, char **data, gboolean skip_viz) {
  gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
  for (;;) {
    /* chunked framing: "<hex>\r\n<data>\r\n"; we just look for complete events */
    const char *start = c->buf->str + c->pos;
    const char *ev = strstr(start, "event: ");
    const char *end = ev ? strstr(ev, "\n\n") : NULL;
    if (ev && end) {
      const char *nl = strchr(ev, '\n');
      const char *d = strstr(ev, "\ndata: ");
      g_assert_true(d != NULL && d < end);
      char *t = g_strndup(ev + 7, (gsize)(nl - ev - 7));
      char *b = g_strndup(d + 7, (gsize)(end - d - 7));
      c->pos = (gsize)(end + 2 - c->buf->str);
      if (skip_viz && strcmp(t, "viz") == 0) {
        g_free(t);
        g_free(b);
        continue;
      }
      *topic = t;
      *data = b;
      return TRUE;
    }
    if (g_get_monotonic_time() > deadline)
      return FALSE;
    char buf[8192];
    g_socket_set_timeout(c->sock, 1);
    gssize n = g_socket_receive(c->sock, buf, sizeof buf, NULL, NULL);
    if (n > 0)
      g_string_append_len(c->buf, buf, n);
    else if (n == 0)
      return FALSE;
  }
}

static void expect(Sse *c, const char *topic, const char *body) {
  char *t = NULL, *d = NULL;
  if (!sse_next(c, &t, &d, TRUE))
    g_error("no event (expected %s %s)", topic, body);
  g_assert_cmpstr(t, ==, topic);
  g_assert_cmpstr(d, ==, body);
  g_free(t);
  g_free(d);
}

static void expect_nothing(Sse *c) {
  char *t = NULL, *d = NULL;
  gint64 t0 = g_get_monotonic_time();
  (void)t0;
  /* a short look: anything queued would have arrived by then */
  gboolean got = FALSE;
  g_socket_set_timeout(c->sock, 1);
  char buf[4096];
  g_socket_condition_timed_wait(c->sock, G_IO_IN, 300 * 1000, NULL, NULL);
  if (g_socket_condition_check(c->sock, G_IO_IN)) {
    gssize n = g_socket_receive(c->sock, buf, sizeof buf, NULL, NULL);
    if (n > 0)
      g_string_append_len(c->buf, buf, n);
  }
  const char *ev = strstr(c->buf->str + c->pos, "event: ");
  while (ev) {
    if (!g_str_has_prefix(ev, "event: viz"))
      got = TRUE;
    ev = strstr(ev + 1, "event: ");
  }
  if (got && sse_next(c, &t, &d, TRUE))
    g_error("unexpected event %s %s", t, d);
}

/* Reads up to the next "viz" status event, asserting no stream event comes
 * first, and returns whether it says the browser has caught up. */
static gboolean next_status_caught_up(Sse *c) {
  char *t = NULL, *d = NULL;
  if (!sse_next(c, &t, &d, FALSE))
    g_error("no viz status event");
  g_assert_cmpstr(t, ==, "viz");
  gboolean up = strstr(d, "\"caught_up\":true") != NULL;
  g_assert_true(up || strstr(d, "\"caught_up\":false") != NULL);
  g_free(t);
  g_free(d);
  return up;
}

#define START                                                                                      \
  "{\"v\":1,\"seq\":0,\"t_ns\":0,\"event\":\"start\",\"name\":\"a\",\"graph\":{\"n\":2,\"edges\":" \
  "[[0,1]]}}"
#define R0 "{\"v\":1,\"seq\":1,\"t_ns\":0,\"round\":0}"
#define MSG                                                                                        \
  "{\"v\":1,\"seq\":2,\"t_ns\":5,\"from\":0,\"to\":1,\"round\":0,\"tag\":0,\"bytes\":8,\"sent_"    \
  "ns\":5,\"arrival_ns\":9,\"dropped\":null}"
#define MET "{\"v\":1,\"seq\":3,\"t_ns\":9,\"round\":1,\"nodes\":[0,1],\"test_loss\":[0.5,0.25]}"
#define R1 "{\"v\":1,\"seq\":4,\"t_ns\":9,\"round\":1}"
#define END "{\"v\":1,\"seq\":5,\"t_ns\":9,\"event\":\"end\",\"status\":\"ok\"}"

static void test_sse(void) {
  char *web = web_dir();
  Srv *s = srv_start(web, NULL, 0);
  Sse a = sse_open(s->port);
  /* the response head and the server's hello */
  char *t = NULL, *d = NULL;
  g_assert_true(sse_next(&a, &t, &d, FALSE));
  g_assert_cmpstr(t, ==, "viz");
  g_assert_nonnull(strstr(a.buf->str, "Content-Type: text/event-stream"));
  g_assert_nonnull(strstr(a.buf->str, "Transfer-Encoding: chunked"));
  g_free(t);
  g_free(d);
  srv_inject(s, "run", START);
  srv_inject(s, "round", R0);
  srv_inject(s, "message", MSG);
  srv_inject(s, "metric", MET);
  srv_inject(s, "round", R1);
  expect(&a, "run", START);
  expect(&a, "round", R0);
  expect(&a, "message", MSG);
  expect(&a, "metric", MET);
  expect(&a, "round", R1);
  /* A late browser: the start and the history, not the old message; its
   * hello says it is behind, and a status right after the history says it
   * has caught up (the page counts the seq gaps before it as messages sent
   * before it joined, not as losses). */
  Sse b = sse_open(s->port);
  g_assert_false(next_status_caught_up(&b));
  expect(&b, "run", START);
  expect(&b, "round", R0);
  expect(&b, "metric", MET);
  expect(&b, "round", R1);
  g_assert_true(next_status_caught_up(&b));
  /* The publisher's repeat of the start for late subscribers is ignored. */
  srv_inject(s, "run", START);
  expect_nothing(&a);
  expect_nothing(&b);
  VizServerStats st = stats(s);
  g_assert_cmpuint(st.runs, ==, 1);
  g_assert_cmpuint(st.clients, ==, 2);
  /* Malformed events are dropped and counted. */
  const char *bad[][2] = {{"round", "not json"},    {"Round", R0},
                          {"round", "{\"a\":\n1}"}, {"", R0},
                          {"round", "{}\xff"},      {"run", "{\"v\":1"}};
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++)
    srv_inject(s, bad[i][0], bad[i][1]);
  st = stats(s);
  g_assert_cmpuint(st.malformed, ==, G_N_ELEMENTS(bad));
  /* After the end, the same start is a new run (a replay of the same trace). */
  srv_inject(s, "run", END);
  expect(&a, "run", END);
  srv_inject(s, "run", START);
  expect(&a, "run", START);
  expect(&b, "run", END);
  expect(&b, "run", START);
  st = stats(s);
  g_assert_cmpuint(st.runs, ==, 2);
  sse_close(&a);
  sse_close(&b);
  /* the server notices browsers leaving */
  for (int i = 0; i < 100 && stats(s).clients > 0; i++) {
    srv_inject(s, "round", R0); /* a write makes the server notice */
    g_usleep(10000);
  }
  g_assert_cmpuint(stats(s).clients, ==, 0);
  srv_stop(s);
  g_free(web);
}

static void test_slow_client(void) {
  char *web = web_dir();
  const gsize buffer = 64 * 1024;
  Srv *s = srv_start(web, NULL, buffer);
  /* A browser that never reads, with small socket buffers. */
  GSocket *slow = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                               NULL);
  int small = 4096;
  g_socket_set_option(slow, SOL_SOCKET, SO_RCVBUF, small, NULL);
  GInetAddress *lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
  GSocketAddress *addr = g_inet_socket_address_new(lo, s->port);
  g_assert_true(g_socket_connect(slow, addr, NULL, NULL));
  g_object_unref(addr);
  g_object_unref(lo);
  g_socket_set_timeout(slow, 10);
  send_all(slow, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  Sse fast = sse_open(s->port);
  srv_inject(s, "run", START);
  expect(&fast, "run", START);
  /* 20 MB of message events; the fast browser reads as they come. */
  GString *body = g_string_new(NULL);
  guint sent = 0, seen = 0;
  for (guint i = 0; i < 40000; i++) {
    g_string_printf(
        body,
        "{\"v\":1,\"seq\":%u,\"t_ns\":5,\"from\":0,\"to\":1,\"round\":0,\"tag\":0,"
        "\"bytes\":8,\"sent_ns\":5,\"arrival_ns\":9,\"dropped\":null,\"pad\":\"%0400d\"}",
        i + 1, 0);
    srv_inject(s, "message", body->str);
    sent++;
    char *t = NULL, *d = NULL;
    if (i % 64 == 63) /* let the fast one keep up */
      while (seen < sent && sse_next(&fast, &t, &d, TRUE)) {
        seen++;
        g_free(t);
        g_free(d);
        if (seen + 8 >= sent)
          break;
      }
  }
  VizServerStats st = stats(s);
  /* the slow browser was skipped; nobody's queue grew past its buffer */
  g_assert_cmpuint(st.skipped, >, 30000);
  g_assert_cmpuint(st.max_client_queue, <=, buffer + body->len + 64);
  g_assert_cmpuint(st.history_size, <, 4096); /* messages are not kept */
  g_assert_cmpuint(seen, >, 39000);
  /* the slow one still gets later non-message events once it drains */
  srv_inject(s, "round", R1);
  char buf[65536];
  gboolean got_round = FALSE;
  for (int i = 0; i < 2000 && !got_round; i++) {
    gssize n = g_socket_receive(slow, buf, sizeof buf - 1, NULL, NULL);
    if (n <= 0)
      break;
    buf[n] = '\0';
    got_round = strstr(buf, "event: round") != NULL;
  }
  g_assert_true(got_round);
  g_string_free(body, TRUE);
  g_socket_close(slow, NULL);
  g_object_unref(slow);
  sse_close(&fast);
  srv_stop(s);
  g_free(web);
}

/* ---- ZeroMQ: publishers coming and going, malformed messages ---- */

static void wait_subscribed(Stream *st) {
  StreamStats ss;
  for (int i = 0; i < 500; i++) {
    stream_poll(st);
    stream_get_stats(st, &ss);
    if (ss.subscribers_joined)
      return;
    g_usleep(10000);
  }
  g_error("the viz server never subscribed");
}

static void test_zmq(void) {
  char *web = web_dir();
  char *ep = g_strdup_printf("tcp://127.0.0.1:%u", vt_free_port());
  Srv *s = srv_start(web, ep, 0);
  Sse c = sse_open(s->port);
  for (int run = 0; run < 2; run++) {
    /* a publisher comes, publishes a run and goes */
    GError *err = NULL;
    StreamOptions o = {.publish = ep};
    Stream *st = stream_new(&o, &err);
    g_assert_no_error(err);
    wait_subscribed(st);
    char name[16];
    g_snprintf(name, sizeof name, "run%d", run);
    StreamRun r = {.name = name, .n_nodes = 3};
    g_assert_true(stream_begin_run(st, &r, &err));
    g_assert_true(stream_publish_round(st, 100, 1, &err));
    g_assert_true(stream_end_run(st, 200, "ok", &err));
    char *t = NULL, *d = NULL;
    g_assert_true(sse_next(&c, &t, &d, TRUE));
    g_assert_cmpstr(t, ==, "run");
    g_assert_nonnull(strstr(d, name));
    g_free(t);
    g_free(d);
    expect(&c, "round", "{\"v\":1,\"seq\":1,\"t_ns\":100,\"round\":1}");
    g_assert_true(sse_next(&c, &t, &d, TRUE));
    g_assert_nonnull(strstr(d, "\"event\":\"end\""));
    g_free(t);
    g_free(d);
    stream_free(st);
  }
  /* Someone else's publisher sends junk. */
  void *ctx = zmq_ctx_new(), *pub = zmq_socket(ctx, ZMQ_PUB);
  g_assert_cmpint(zmq_bind(pub, ep), ==, 0);
  g_usleep(300000);                       /* the SUB reconnects */
  zmq_send(pub, "round", 5, 0);           /* one frame */
  zmq_send(pub, "round", 5, ZMQ_SNDMORE); /* three frames */
  zmq_send(pub, "{}", 2, ZMQ_SNDMORE);
  zmq_send(pub, "{}", 2, 0);
  zmq_send(pub, "a-very-long-topic-that-is-not-one-of-ours-at-all", 48, ZMQ_SNDMORE);
  zmq_send(pub, "{}", 2, 0);
  zmq_send(pub, "round", 5, ZMQ_SNDMORE);
  zmq_send(pub, "junk", 4, 0);
  zmq_send(pub, "round", 5, ZMQ_SNDMORE);
  zmq_send(pub, R1, strlen(R1), 0); /* and one good event after them */
  expect(&c, "round", R1);
  VizServerStats st = stats(s);
  g_assert_cmpuint(st.malformed, ==, 4);
  g_assert_cmpuint(st.runs, ==, 2);
  zmq_close(pub);
  zmq_ctx_term(ctx);
  sse_close(&c);
  srv_stop(s);
  g_free(ep);
  g_free(web);
}

static void test_client_churn(void) {
  char *web = web_dir();
  Srv *s = srv_start(web, NULL, 0);
  srv_inject(s, "run", START);
  for (int i = 0; i < 40; i++) {
    Sse c = sse_open(s->port);
    if (i % 2) { /* half read their first event, half leave at once */
      expect(&c, "run", START);
    }
    sse_close(&c);
  }
  for (int i = 0; i < 200 && stats(s).clients > 0; i++) {
    srv_inject(s, "round", R0);
    g_usleep(10000);
  }
  VizServerStats st = stats(s);
  g_assert_cmpuint(st.clients, ==, 0);
  g_assert_cmpuint(st.clients_total, ==, 40);
  char *r = http_get(s->port, "GET", "/");
  g_assert_cmpint(status_of(r), ==, 200);
  g_free(r);
  srv_stop(s);
  g_free(web);
}

/* ---- Connection limits ---- */

/* Whether the server closes @sock within @seconds (data it sends first,
 * such as a 503, is read and dropped). */
static gboolean closed_within(GSocket *sock, double seconds) {
  gint64 end = g_get_monotonic_time() + (gint64)(seconds * G_USEC_PER_SEC);
  char buf[4096];
  g_socket_set_timeout(sock, 0);
  for (gint64 now; (now = g_get_monotonic_time()) < end;) {
    if (!g_socket_condition_timed_wait(sock, G_IO_IN, end - now, NULL, NULL))
      return FALSE;
    if (g_socket_receive(sock, buf, sizeof buf, NULL, NULL) <= 0)
      return TRUE;
  }
  return FALSE;
}

/* Waits (5 s at most) until the server has @n connections open. */
static void wait_connections(Srv *s, guint n) {
  gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
  while (stats(s).connections != n) {
    if (g_get_monotonic_time() > end)
      g_error("the server has %u connections, not %u", stats(s).connections, n);
    g_usleep(10000);
  }
}

/* A connection that sends nothing, or half a request, used to stay open
 * forever; one that reads its event stream must stay. */
static void test_timeout(void) {
  char *web = web_dir();
  Srv *s = srv_start_limits(web, 8, 1, 200);
  GSocket *idle = connect_to(s->port);
  GSocket *half = connect_to(s->port);
  send_all(half, "GET /status HTTP/1.1\r\nHost: 127");
  gint64 t0 = g_get_monotonic_time();
  g_assert_true(closed_within(idle, 5.0));
  g_assert_true(closed_within(half, 5.0));
  g_assert_cmpint(g_get_monotonic_time() - t0, >=, G_USEC_PER_SEC * 9 / 10);
  g_object_unref(idle);
  g_object_unref(half);
  /* a browser reading its stream for 2.5 timeouts keeps getting events */
  Sse a = sse_open(s->port);
  gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC / 2;
  while (g_get_monotonic_time() < end) {
    char *t = NULL, *d = NULL;
    g_assert_true(sse_next(&a, &t, &d, FALSE));
    g_free(t);
    g_free(d);
  }
  g_assert_cmpuint(stats(s).clients, ==, 1);
  sse_close(&a);
  srv_stop(s);
  g_free(web);
}

/* Beyond the cap a connection gets 503 and is closed; once the others go,
 * requests are served again. */
static void test_connection_cap(void) {
  char *web = web_dir();
  Srv *s = srv_start_limits(web, 4, 30, 100000);
  GSocket *held[4];
  for (guint i = 0; i < 4; i++)
    held[i] = connect_to(s->port);
  wait_connections(s, 4);
  char *r = http_get(s->port, "GET", "/status");
  g_assert_cmpint(status_of(r), ==, 503);
  g_free(r);
  g_assert_cmpuint(stats(s).refused, ==, 1);
  for (guint i = 0; i < 4; i++) {
    g_socket_close(held[i], NULL);
    g_object_unref(held[i]);
  }
  wait_connections(s, 0);
  r = http_get(s->port, "GET", "/status");
  g_assert_cmpint(status_of(r), ==, 200);
  g_free(r);
  srv_stop(s);
  g_free(web);
}

static guint open_descriptors(void) {
  GDir *d = g_dir_open("/proc/self/fd", 0, NULL);
  g_assert_nonnull(d);
  guint n = 0;
  while (g_dir_read_name(d) != NULL)
    n++;
  g_dir_close(d);
  return n;
}

/* Descriptors exhausted (a low RLIMIT_NOFILE, in a child process): accepts
 * fail; libsoup's listener stopped for good then, this one resumes once
 * connections close. */
static void test_descriptor_pressure(void) {
  if (!g_test_subprocess()) {
    g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
    return;
  }
  char *web = web_dir();
  Srv *s = srv_start_limits(web, 1000, 30, 100000);
  struct rlimit rl;
  g_assert_cmpint(getrlimit(RLIMIT_NOFILE, &rl), ==, 0);
  rl.rlim_cur = open_descriptors() + 16;
  g_assert_cmpint(setrlimit(RLIMIT_NOFILE, &rl), ==, 0);
  GInetAddress *lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new(lo, s->port);
  GPtrArray *socks = g_ptr_array_new_with_free_func(g_object_unref);
  gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
  while (stats(s).accept_failures == 0 && g_get_monotonic_time() < end) {
    GSocket *c = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                              NULL);
    if (c == NULL) { /* the client's own share is gone: let the server accept */
      g_usleep(20000);
      continue;
    }
    g_assert_true(g_socket_connect(c, a, NULL, NULL));
    g_ptr_array_add(socks, c);
  }
  g_assert_cmpuint(stats(s).accept_failures, >, 0);
  g_ptr_array_unref(socks);
  g_object_unref(a);
  g_object_unref(lo);
  wait_connections(s, 0);
  char *r = http_get(s->port, "GET", "/status");
  g_assert_cmpint(status_of(r), ==, 200);
  g_free(r);
  srv_stop(s);
  g_free(web);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/server/files", test_files);
  g_test_add_func("/server/traversal", test_traversal);
  g_test_add_func("/server/listen", test_listen);
  g_test_add_func("/server/host-names", test_host_names);
  g_test_add_func("/server/rebinding", test_rebinding);
  g_test_add_func("/server/deep-event", test_deep_event);
  g_test_add_func("/server/sse", test_sse);
  g_test_add_func("/server/slow-client", test_slow_client);
  g_test_add_func("/server/zmq", test_zmq);
  g_test_add_func("/server/client-churn", test_client_churn);
  g_test_add_func("/server/timeout", test_timeout);
  g_test_add_func("/server/connection-cap", test_connection_cap);
  g_test_add_func("/server/descriptor-pressure", test_descriptor_pressure);
  return g_test_run();
}
