/* learning/error.c: the LEARN_ERROR domain and the layer's warnings. */
#include "learning/internal.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-learning-error-quark, learn_error)
/* clang-format on */

/* The front end's handler: set once at startup, before any load. */
static LearnWarningFunc warning_func;
static gpointer warning_data;

void learn_set_warning_handler(LearnWarningFunc func, gpointer data) {
  warning_func = func;
  warning_data = data;
}

void learn_warning(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  char *message = g_strdup_vprintf(format, ap);
  va_end(ap);
  if (warning_func != NULL)
    warning_func(message, warning_data);
  else
    g_log(LEARN_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "warning: %s", message);
  g_free(message);
}
