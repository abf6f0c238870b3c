/*
 * viz/error.c: the VIZ_ERROR domain.
 */
#include "viz/viz.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpg-viz-error-quark, viz_error)
/* clang-format on */
