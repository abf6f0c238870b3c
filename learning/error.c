/* learning/error.c: the LEARN_ERROR domain. */
#include "learning/learning.h"

G_DEFINE_QUARK(dpgossip-learning-error-quark, learn_error)
