/*
 * spec/error_at.c: the one form of an error found at a place in an input
 * file, "PATH:LINE: what", so that every reader names the place the same
 * way and the path is escaped like any other input.
 */
#include "spec/spec.h"

gboolean spec_error_at(GError **error, GQuark domain, gint code, const char *path, gsize line,
                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *esc = spec_escape(path, -1);
  if (line > 0)
    g_set_error(error, domain, code, "%s:%" G_GSIZE_FORMAT ": %s", esc, line, msg);
  else
    g_set_error(error, domain, code, "%s: %s", esc, msg);
  g_free(esc);
  g_free(msg);
  return FALSE;
}

gboolean spec_error_token(GError **error, GQuark domain, gint code, const char *path, gsize line,
                          const char *what, const char *token, gssize len, const char *why_fmt,
                          ...) {
  g_return_val_if_fail(what != NULL && token != NULL && why_fmt != NULL, FALSE);
  va_list ap;
  va_start(ap, why_fmt);
  char *why = g_strdup_vprintf(why_fmt, ap);
  va_end(ap);
  char *shown = spec_escape(token, len); /* file bytes: no raw escapes */
  spec_error_at(error, domain, code, path, line, "%s '%s'%s", what, shown, why);
  g_free(shown);
  g_free(why);
  return FALSE;
}
