/* plot/clip.c: segment and polygon clipping against a rectangle.
 *
 * cairo clips exactly, but its coordinates are 24.8 fixed point: a data
 * point far outside the limits would overflow them and bend the visible part
 * of a line. Geometry is therefore clipped here, before cairo sees it, to a
 * rectangle a little larger than the panel. */
#include "plot/internal.h"

gboolean plot_clip_segment(double *x0, double *y0, double *x1, double *y1, double xmin, double ymin,
                           double xmax, double ymax) {
  double dx = *x1 - *x0, dy = *y1 - *y0;
  double p[4] = {-dx, dx, -dy, dy};
  double q[4] = {*x0 - xmin, xmax - *x0, *y0 - ymin, ymax - *y0};
  double u0 = 0.0, u1 = 1.0;
  for (int i = 0; i < 4; i++) {
    if (p[i] == 0) {
      if (q[i] < 0)
        return FALSE; /* parallel and outside */
      continue;
    }
    double u = q[i] / p[i];
    if (p[i] < 0) {
      if (u > u1)
        return FALSE;
      if (u > u0)
        u0 = u;
    } else {
      if (u < u0)
        return FALSE;
      if (u < u1)
        u1 = u;
    }
  }
  double ax = *x0, ay = *y0;
  if (u1 < 1.0) {
    *x1 = ax + u1 * dx;
    *y1 = ay + u1 * dy;
  }
  if (u0 > 0.0) {
    *x0 = ax + u0 * dx;
    *y0 = ay + u0 * dy;
  }
  return TRUE;
}

/* One Sutherland-Hodgman pass against the half-plane
 * sign * (coord(axis) - bound) <= 0. */
static gsize clip_edge(const double *in, gsize n, int axis, double bound, double sign,
                       double *out) {
  gsize m = 0;
  for (gsize i = 0; i < n; i++) {
    const double *a = in + 2 * i, *b = in + 2 * ((i + 1) % n);
    double da = sign * (a[axis] - bound), db = sign * (b[axis] - bound);
    gboolean ina = da <= 0, inb = db <= 0;
    if (ina) {
      out[2 * m] = a[0];
      out[2 * m + 1] = a[1];
      m++;
    }
    if (ina != inb) {
      double u = da / (da - db);
      out[2 * m] = a[0] + u * (b[0] - a[0]);
      out[2 * m + 1] = a[1] + u * (b[1] - a[1]);
      m++;
    }
  }
  return m;
}

double *plot_clip_polygon(const double *xy, gsize n, double xmin, double ymin, double xmax,
                          double ymax, gsize *n_out) {
  /* A pass emits at most two vertices per edge, so each output buffer gets
   * twice its input's size (bands are not convex: the 2n + 4 bound of
   * convex polygons does not hold). */
  double *cur = g_memdup2(xy, 2 * n * sizeof(double));
  gsize m = n;
  const int axis[4] = {0, 0, 1, 1};
  const double bound[4] = {xmin, xmax, ymin, ymax}, sign[4] = {-1.0, 1.0, -1.0, 1.0};
  for (int e = 0; e < 4 && m >= 3; e++) {
    double *next = g_new(double, 4 * m);
    m = clip_edge(cur, m, axis[e], bound[e], sign[e], next);
    g_free(cur);
    cur = next;
  }
  if (m < 3) {
    g_free(cur);
    *n_out = 0;
    return NULL;
  }
  *n_out = m;
  return cur;
}
