/*
 * audit/options.c: the checks of an audit's options that need no graph,
 * written once for `dpgossip audit` and dpg_audit (audit/audit.h).
 */
#include <math.h>

#include "audit/internal.h"
#include "plot/plot.h"
#include "protocols/protocols.h"
#include "sim/link.h"

/* A rule on the values broken: the user's option (exit status 2). */
#define BAD(...) (g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, __VA_ARGS__), FALSE)

gboolean audit_options_check(const AuditOptions *o, PrivTrust *trust, GError **error) {
  g_return_val_if_fail(o != NULL && trust != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  if (o->interval < 1 || (o->rounds >= 1 && o->rounds % o->interval != 0))
    return BAD("-b %d: the participation interval must be positive and divide T = %d", o->interval,
               o->rounds);
  *trust = PRIV_TRUST_PNDP;
  if (o->trust != NULL && !priv_trust_parse(o->trust, trust, error)) {
    g_prefix_error(error, "--trust: ");
    return FALSE;
  }
  if (o->rounds < 1 || o->trials < 20 || o->dim < 0 || o->threads < 1 || o->seed < 0 ||
      !(o->sigma >= 0.0) || !isfinite(o->sigma))
    return BAD("-T >= 1, --trials >= 20, --dim >= 0, --threads >= 1, --seed >= 0 and a "
               "finite --sigma >= 0 are required");
  if (!(o->lr == 0 || isnan(o->lr) || (o->lr > 0 && isfinite(o->lr))))
    return BAD("--lr %g: the learning rate must be finite and > 0", o->lr);
  guint need = audit_default_dim((guint)o->rounds);
  if (o->dim > 0 && (guint)o->dim < need)
    return BAD("--dim %d: the canary at T = %d needs models of %u parameters: --dim %u or more "
               "(or leave it out)",
               o->dim, o->rounds, need + 1, need);
  /* Any latency and loss: every run of the audit draws them from the
   * delivery seed (audit/audit.h), so every trial sees the same messages. */
  SimLatency lat;
  if (o->latency != NULL && !sim_latency_parse(o->latency, &lat, error)) {
    g_prefix_error(error, "--latency: ");
    return FALSE;
  }
  double p = 0.0;
  if (o->loss != NULL && !sim_loss_parse(o->loss, &p, error)) {
    g_prefix_error(error, "--loss: ");
    return FALSE;
  }
  ProtoMode mode;
  if (!proto_mode_parse(o->mode, &mode, error)) {
    g_prefix_error(error, "--mode: ");
    return FALSE;
  }
  if (p > 0.0 && mode.kind == PROTO_MODE_SYNC)
    return BAD("--loss %s: a synchronous run waits for every message and a lost one would "
               "block it: give an asynchronous --mode (deadline:ms=D or stale:s=S)",
               o->loss);
  if (!o->has_attackers || !o->has_victims)
    return BAD("--attackers and --victim are required");
  if (o->figure != NULL && !plot_format_from_path(o->figure, NULL))
    return BAD("--figure: unknown extension in '%s' (use .svg, .png or .pdf)", o->figure);
  return TRUE;
}
