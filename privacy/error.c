/* privacy/error.c: the PRIV_ERROR domain. */
#include "privacy/privacy.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-privacy-error-quark, priv_error)
/* clang-format on */
