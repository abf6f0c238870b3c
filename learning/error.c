/* learning/error.c: the LEARN_ERROR domain. */
#include "learning/learning.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-learning-error-quark, learn_error)
/* clang-format on */
