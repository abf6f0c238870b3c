/*
 * cli/account_common.c: what `dpgossip figure` parses of an accounting
 * (see account_common.h); the accounting itself is the protocols' request.
 */
#include <errno.h>
#include <string.h>

#include "cli/account_common.h"

gboolean cli_parse_uint(const char *s, guint *out) {
  if (!s || !g_ascii_isdigit(*s))
    return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(s, &end, 10);
  if (errno || *end != '\0' || v > G_MAXUINT - 1)
    return FALSE;
  *out = (guint)v;
  return TRUE;
}

gboolean cli_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                   GError **error) {
  return proto_account_check_numbers(sigma, clip, alpha, delta, error);
}
