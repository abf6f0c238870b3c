/*
 * viz/error.c: the VIZ_ERROR domain.
 */
#include "viz/viz.h"

G_DEFINE_QUARK(dpg-viz-error-quark, viz_error)
