/* plot/error.c: the PLOT_ERROR domain. */
#include "plot/plot.h"

G_DEFINE_QUARK(dpgossip-plot-error-quark, plot_error)
