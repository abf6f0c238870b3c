/* privacy/error.c: the PRIV_ERROR domain. */
#include "privacy/privacy.h"

G_DEFINE_QUARK(dpgossip-privacy-error-quark, priv_error)
