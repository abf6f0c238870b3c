/*
 * viz/path.c: which file a request may see, where the page lives, and what
 * a listen address means. Kept apart from the server so the rules can be
 * tested one by one.
 *
 * Request paths are checked twice: segment by segment after decoding (no
 * "..", "." or hidden names, no encoded '/'), then the real path of the
 * result must still lie under the web folder, which catches symlinks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "viz/viz.h"

static gboolean forbidden(GError **error, const char *path, const char *why) {
  g_set_error(error, VIZ_ERROR, VIZ_ERROR_FORBIDDEN, "'%s': %s", path, why);
  return FALSE;
}

/* Checks the decoded segments; fills @rel with the relative path. */
static gboolean check_segments(const char *path, const char *decoded, GString *rel,
                               GError **error) {
  char **segs = g_strsplit(decoded + 1, "/", -1);
  gboolean ok = TRUE;
  guint n = g_strv_length(segs);
  for (guint i = 0; ok && i < n; i++) {
    const char *s = segs[i];
    if (s[0] == '\0') {
      if (i + 1 == n) /* a trailing '/': the folder's index */
        break;
      ok = forbidden(error, path, "empty path segment");
    } else if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
      ok = forbidden(error, path, "dot segments are not allowed");
    } else if (s[0] == '.') {
      ok = forbidden(error, path, "hidden files are not served");
    } else {
      if (rel->len)
        g_string_append_c(rel, '/');
      g_string_append(rel, s);
    }
  }
  g_strfreev(segs);
  return ok;
}

char *viz_resolve_path(const char *web_dir, const char *path, GError **error) {
  g_return_val_if_fail(web_dir != NULL && path != NULL, NULL);
  if (path[0] != '/') {
    forbidden(error, path, "not an absolute path");
    return NULL;
  }
  /* NULL for a bad escape or an escaped '/' (which would hide a segment). */
  char *decoded = g_uri_unescape_string(path, "/");
  if (decoded == NULL) {
    forbidden(error, path, "bad or forbidden percent-escape");
    return NULL;
  }
  if (strchr(decoded, '\\') != NULL) {
    g_free(decoded);
    forbidden(error, path, "backslashes are not allowed");
    return NULL;
  }
  GString *rel = g_string_new(NULL);
  if (!check_segments(path, decoded, rel, error)) {
    g_string_free(rel, TRUE);
    g_free(decoded);
    return NULL;
  }
  g_free(decoded);
  char *file = g_build_filename(web_dir, rel->len ? rel->str : "index.html", NULL);
  gboolean want_dir = rel->len > 0 && g_str_has_suffix(path, "/");
  g_string_free(rel, TRUE);
  if (want_dir && !g_file_test(file, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_NOT_FOUND, "'%s': no such folder", path);
    g_free(file);
    return NULL;
  }
  if (g_file_test(file, G_FILE_TEST_IS_DIR)) {
    char *index = g_build_filename(file, "index.html", NULL);
    g_free(file);
    file = index;
  }
  char *real = realpath(file, NULL);
  if (real == NULL || !g_file_test(real, G_FILE_TEST_IS_REGULAR)) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_NOT_FOUND, "'%s': no such file", path);
    free(real);
    g_free(file);
    return NULL;
  }
  g_free(file);
  gsize dl = strlen(web_dir);
  if (strncmp(real, web_dir, dl) != 0 || real[dl] != '/') {
    free(real);
    forbidden(error, path, "resolves outside the web folder");
    return NULL;
  }
  char *out = g_strdup(real);
  free(real);
  return out;
}

static char *canonical_with_index(const char *dir) {
  char *real = realpath(dir, NULL);
  if (real == NULL)
    return NULL;
  char *index = g_build_filename(real, "index.html", NULL);
  gboolean ok = g_file_test(index, G_FILE_TEST_IS_REGULAR);
  g_free(index);
  char *out = ok ? g_strdup(real) : NULL;
  free(real);
  return out;
}

char *viz_web_dir_find(GError **error) {
  GPtrArray *tried = g_ptr_array_new_with_free_func(g_free);
  const char *env = g_getenv("DPG_VIZ_WEB");
  if (env != NULL && env[0] != '\0') {
    g_ptr_array_add(tried, g_strdup(env));
  } else {
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe != NULL) {
      char *bindir = g_path_get_dirname(exe);
      g_ptr_array_add(tried, g_build_filename(bindir, "..", DPG_VIZ_WEB_RELATIVE_DIR, NULL));
      g_free(bindir);
      g_free(exe);
    }
    g_ptr_array_add(tried, g_strdup(DPG_VIZ_WEB_INSTALL_DIR));
    g_ptr_array_add(tried, g_strdup(DPG_VIZ_WEB_SOURCE_DIR));
  }
  for (guint i = 0; i < tried->len; i++) {
    char *dir = canonical_with_index(tried->pdata[i]);
    if (dir != NULL) {
      g_ptr_array_unref(tried);
      return dir;
    }
  }
  GString *list = g_string_new(NULL);
  for (guint i = 0; i < tried->len; i++)
    g_string_append_printf(list, "%s%s", i ? ", " : "", (char *)tried->pdata[i]);
  g_set_error(error, VIZ_ERROR, VIZ_ERROR_NOT_FOUND,
              "no web folder with an index.html (tried %s%s); set DPG_VIZ_WEB or --web", list->str,
              env != NULL && env[0] ? " from DPG_VIZ_WEB" : "");
  g_string_free(list, TRUE);
  g_ptr_array_unref(tried);
  return NULL;
}

char *viz_parse_listen(const char *listen, guint16 *port, GError **error) {
  g_return_val_if_fail(listen != NULL && port != NULL, NULL);
  char *host = NULL;
  const char *port_text = NULL;
  if (listen[0] == '[') {
    const char *close = strchr(listen, ']');
    if (close != NULL && close[1] == ':') {
      host = g_strndup(listen + 1, (gsize)(close - listen - 1));
      port_text = close + 2;
    }
  } else {
    const char *colon = strrchr(listen, ':');
    if (colon != NULL && strchr(listen, ':') == colon) {
      host = g_strndup(listen, (gsize)(colon - listen));
      port_text = colon + 1;
    }
  }
  char *end = NULL;
  errno = 0;
  guint64 p = port_text != NULL && *port_text >= '0' && *port_text <= '9'
                  ? g_ascii_strtoull(port_text, &end, 10)
                  : G_MAXUINT64;
  if (host == NULL || end == NULL || *end != '\0' || errno != 0 || p > 65535) {
    g_free(host);
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT,
                "listen address '%s' is not HOST:PORT (e.g. 127.0.0.1:8080, [::1]:8080; "
                "port 0 picks a free one)",
                listen);
    return NULL;
  }
  if (g_ascii_strcasecmp(host, "localhost") == 0) {
    g_free(host);
    host = g_strdup("127.0.0.1");
  }
  GInetAddress *addr = g_inet_address_new_from_string(host);
  if (addr == NULL) {
    g_set_error(error, VIZ_ERROR, VIZ_ERROR_INVALID_ARGUMENT,
                "listen address '%s': '%s' is not an IP address (names other than "
                "localhost are not resolved)",
                listen, host);
    g_free(host);
    return NULL;
  }
  g_object_unref(addr);
  *port = (guint16)p;
  return host;
}

/* @text (@len bytes) as an IP literal; NULL when it is not one. */
static GInetAddress *ip_literal(const char *text, gsize len) {
  char *t = g_strndup(text, len);
  GInetAddress *a = g_inet_address_new_from_string(t);
  g_free(t);
  return a;
}

gboolean viz_host_allowed(const char *host, gboolean any_ip) {
  if (host == NULL)
    return FALSE;
  const char *name = host, *port = NULL;
  gsize len = strlen(host);
  if (host[0] == '[') { /* "[v6]" or "[v6]:port" */
    const char *close = strchr(host, ']');
    if (close == NULL || (close[1] != '\0' && close[1] != ':'))
      return FALSE;
    name = host + 1;
    len = (gsize)(close - name);
    port = close[1] == ':' ? close + 2 : NULL;
  } else {
    const char *colon = strchr(host, ':');
    if (colon != NULL && strchr(colon + 1, ':') == NULL) { /* "name:port" */
      len = (gsize)(colon - host);
      port = colon + 1;
    } /* else a name, or a bare IPv6 literal (a URI's host) */
  }
  if (port != NULL) {
    gsize digits = strspn(port, "0123456789");
    if (digits == 0 || digits > 5 || port[digits] != '\0')
      return FALSE;
  }
  if (len == strlen("localhost") && g_ascii_strncasecmp(name, "localhost", len) == 0)
    return TRUE;
  GInetAddress *a = ip_literal(name, len);
  if (a == NULL)
    return FALSE; /* a DNS name: exactly what rebinding abuses */
  gboolean ok = any_ip || g_inet_address_get_is_loopback(a);
  g_object_unref(a);
  return ok;
}
