/*
 * protocols/account_options.c: the option strings of an accounting request
 * (--trust, --link, --mode, --latency, --loss), parsed once for `dpgossip
 * account`, `dpgossip figure`, `dpgossip train` and dpg_account
 * (libdpgossip), so that all of them accept the same strings and refuse the
 * others with the same words.
 */
#include <math.h>
#include <string.h>

#include "protocols/protocols.h"

/* A node id: decimal digits only (no sign or space, which strtoul would
 * take), below G_MAXUINT. */
static gboolean parse_node(const char *s, guint *out) {
  guint64 v;
  if (s == NULL || !g_ascii_isdigit(*s) ||
      !g_ascii_string_to_unsigned(s, 10, 0, G_MAXUINT - 1, &v, NULL))
    return FALSE;
  *out = (guint)v;
  return TRUE;
}

gboolean proto_account_parse_trusts(const char *spec, GArray *out, GError **error) {
  char **parts = g_strsplit(spec, ",", -1);
  gboolean ok = parts[0] != NULL;
  if (!ok)
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--trust: give ldp, pndp or secldp (or a comma-separated list)");
  for (guint i = 0; parts[i] && ok; i++) {
    PrivTrust t;
    if (!priv_trust_parse(g_strstrip(parts[i]), &t, error)) {
      g_prefix_error(error, "--trust: ");
      ok = FALSE;
      break;
    }
    for (guint j = 0; j < out->len; j++)
      if (g_array_index(out, PrivTrust, j) == t) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--trust: %s is listed twice",
                    priv_trust_name(t));
        ok = FALSE;
      }
    g_array_append_val(out, t);
  }
  g_strfreev(parts);
  return ok;
}

gboolean proto_account_parse_link(const char *spec, ProtoAccountLink *out, GError **error) {
  const char *eq = spec ? strchr(spec, '=') : NULL;
  char *ends = eq ? g_strndup(spec, (gsize)(eq - spec)) : NULL;
  char **ft = ends ? g_strsplit(ends, ":", -1) : NULL;
  gboolean ok = ft && g_strv_length(ft) == 2 && parse_node(ft[0], &out->from) &&
                parse_node(ft[1], &out->to) && eq[1] != '\0';
  GError *sub = NULL;
  if (ok) {
    out->down = g_str_equal(eq + 1, "down");
    if (!out->down && !sim_latency_parse(eq + 1, &out->latency, &sub))
      ok = FALSE;
  }
  if (!ok)
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--link: '%s' is not FROM:TO=down or FROM:TO=LATENCY (e.g. 8:1=constant:ms=1000, "
                "the directed link from node 8 to node 1)%s%s",
                spec ? spec : "", sub ? ": " : "", sub ? sub->message : "");
  g_clear_error(&sub);
  g_strfreev(ft);
  g_free(ends);
  return ok;
}

gboolean proto_account_parse_run_options(const char *mode, const char *latency, const char *loss,
                                         ProtoMode *pmode, double *loss_p, GError **error) {
  *pmode = (ProtoMode){.kind = PROTO_MODE_SYNC};
  if (loss_p)
    *loss_p = 0.0;
  SimLatency lat;
  double p = 0.0;
  if (mode && !proto_mode_parse(mode, pmode, error)) {
    g_prefix_error(error, "--mode: ");
    return FALSE;
  }
  if (latency && !sim_latency_parse(latency, &lat, error)) {
    g_prefix_error(error, "--latency: ");
    return FALSE;
  }
  if (loss && !sim_loss_parse(loss, &p, error)) {
    g_prefix_error(error, "--loss: ");
    return FALSE;
  }
  if (p > 0 && pmode->kind == PROTO_MODE_SYNC) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--loss %s needs an asynchronous --mode (deadline:ms=D or stale:s=S): a lost "
                "message would block a synchronous run forever",
                loss);
    return FALSE;
  }
  if (loss_p)
    *loss_p = p;
  return TRUE;
}

void proto_account_protocol_clear(ProtoAccountProtocol *p) {
  if (!p)
    return;
  g_clear_pointer(&p->c_spec, g_free);
}

gboolean proto_account_resolve_protocol(const char *spec, ProtoAccountProtocol *p, GError **error) {
  ProtoParams *params = NULL;
  if (!proto_spec_parse(spec, &p->vt, &params, error)) {
    g_prefix_error(error, "--protocol: ");
    return FALSE;
  }
  const char *name = p->vt->name, *c = NULL;
  p->K = 1;
  p->structured = FALSE;
  p->sigma_secret = NAN;
  if (g_str_equal(name, "dsgd")) {
    p->protocol = PRIV_PROTOCOL_DSGD;
    p->structured = TRUE;
  } else if (g_str_equal(name, "muffliato")) {
    p->protocol = PRIV_PROTOCOL_MUFFLIATO;
    p->K = (guint)proto_params_get_int(params, "K");
    p->structured = TRUE;
  } else if (g_str_equal(name, "decor")) {
    /* Its noise's covariance is sparse and white in time: the structured
     * path's Kalman engine, or its closed form when every message is seen. */
    p->protocol = PRIV_PROTOCOL_DECOR;
    p->structured = TRUE;
    if (proto_params_is_set(params, "sigma_secret"))
      p->sigma_secret = proto_params_get_double(params, "sigma_secret");
  } else if (g_str_equal(name, "antipgd")) {
    c = "antipgd";
  } else if (g_str_equal(name, "mfdsgd") || g_str_equal(name, "mafalda")) {
    /* A C fitted to the run's gossip is built inside the run, where the
     * graph is: observer path only. */
    c = proto_params_get_string(params, "C");
    if (proto_c_spec_fits_graph(c))
      c = NULL;
    p->band = (guint)proto_params_get_int(params, "band");
    p->buffers = (guint)proto_params_get_int(params, "buffers");
  }
  gboolean ok = TRUE;
  if (c && *c == '\0') {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--protocol: %s:C= needs a family (identity, antipgd, sr, bsr, mafalda, toeplitz, "
                "blt) or a CSV file",
                name);
    ok = FALSE;
  } else if (c) {
    p->protocol = PRIV_PROTOCOL_MFDSGD;
    p->c_spec = g_strdup(c);
    p->structured = TRUE;
  }
  proto_params_free(params);
  return ok;
}
