/* mf/error.c: the MF_ERROR domain. */
#include "mf/base.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-mf-error-quark, mf_error)
/* clang-format on */
