/* plot/error.c: the PLOT_ERROR domain. */
#include "plot/plot.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-plot-error-quark, plot_error)
/* clang-format on */
