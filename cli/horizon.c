/*
 * cli/horizon.c: one grammar for the horizon of account, train and
 * mafalda: T = k b, -T (rounds), -k (epochs) and -b (batches, the
 * participation interval) accepted wherever they mean the same, any one
 * derived from the two others and the three checked against each other.
 */
#include "cli/cli.h"

static gboolean positive(gint v) {
  return v != CLI_UNSET && v > 0;
}

gboolean cli_horizon_resolve(gint *T, gint *k, gint *b, GError **error) {
  if (!positive(*T)) {
    /* T from k b; a value not positive is the caller's to refuse. */
    if (*T == CLI_UNSET && positive(*k) && positive(*b)) {
      if ((gint64)*k * *b > G_MAXINT32) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "-k %d x -b %d rounds is too large", *k, *b);
        return FALSE;
      }
      *T = *k * *b;
    }
    return TRUE;
  }
  if (positive(*k) && positive(*b)) {
    if ((gint64)*k * *b != *T) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "-T %d rounds is not -k %d epochs x -b %d (give two of the three)", *T, *k, *b);
      return FALSE;
    }
  } else if (positive(*k) && *b == CLI_UNSET) {
    if (*T % *k != 0) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "-k %d epochs does not divide -T %d rounds", *k, *T);
      return FALSE;
    }
    *b = *T / *k;
  } else if (positive(*b) && *k == CLI_UNSET) {
    if (*T % *b != 0) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "-b %d does not divide -T %d rounds", *b, *T);
      return FALSE;
    }
    *k = *T / *b;
  }
  return TRUE;
}
