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

/* A node as --link names it: a label (non-empty, no blank or control byte,
 * as spec_attackers_parse takes a member), interned into *@label for
 * proto_account_job_plan to look up in the graph; *@id is the decimal id it
 * spells (digits only, below G_MAXUINT) or G_MAXUINT until then. */
static gboolean parse_node(const char *s, const char **label, guint *id) {
  guint64 v;
  if (s == NULL || *s == '\0')
    return FALSE;
  for (const char *p = s; *p; p++)
    if (g_ascii_isspace(*p) || g_ascii_iscntrl(*p))
      return FALSE;
  *label = g_intern_string(s);
  *id = g_ascii_isdigit(*s) && g_ascii_string_to_unsigned(s, 10, 0, G_MAXUINT - 1, &v, NULL)
            ? (guint)v
            : G_MAXUINT;
  return TRUE;
}

gboolean proto_account_parse_trusts(const char *spec, GArray *out, GError **error) {
  char **parts = g_strsplit(spec, ",", -1);
  gboolean ok = parts[0] != NULL;
  if (!ok) {
    char *models = priv_trust_list(", ", " or ");
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--trust: give %s (or a comma-separated list)", models);
    g_free(models);
  }
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
  gboolean ok = ft && g_strv_length(ft) == 2 && parse_node(ft[0], &out->from_label, &out->from) &&
                parse_node(ft[1], &out->to_label, &out->to) && eq[1] != '\0';
  GError *sub = NULL;
  if (ok) {
    out->down = g_str_equal(eq + 1, "down");
    if (!out->down && !sim_latency_parse(eq + 1, &out->latency, &sub))
      ok = FALSE;
  }
  /* A file the link's latency names that cannot be read keeps its code:
   * the run's failure, as in --latency (proto_error_is_unreadable). */
  if (!ok)
    g_set_error(error, proto_error_is_unreadable(sub) ? sub->domain : G_OPTION_ERROR,
                proto_error_is_unreadable(sub) ? sub->code : G_OPTION_ERROR_BAD_VALUE,
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

void proto_shape_of(const ProtoVTable *vt, const ProtoParams *params, ProtoShape *shape) {
  *shape = (ProtoShape){.kind = PROTO_SHAPE_NONE, .K = 1, .sigma_secret = NAN};
  /* A vtable registered directly may be of an older version, only as long
   * as its fields: read the field only where it exists. */
  if (vt->abi_version >= 3 && vt->accounting_shape != NULL)
    vt->accounting_shape(params, shape);
}

/* Whether @vt declares the parameter @name (the getters insist). */
static gboolean declares(const ProtoVTable *vt, const char *name) {
  for (guint i = 0; i < vt->n_params; i++)
    if (g_str_equal(vt->params[i].name, name))
      return TRUE;
  return FALSE;
}

gboolean proto_account_resolve_protocol(const char *spec, ProtoAccountProtocol *p, GError **error) {
  ProtoParams *params = NULL;
  if (!proto_spec_parse(spec, &p->vt, &params, error)) {
    g_prefix_error(error, "--protocol: ");
    return FALSE;
  }
  ProtoShape shape;
  proto_shape_of(p->vt, params, &shape);
  p->K = 1;
  p->probes = 0;
  p->samples = 0;
  p->structured = FALSE;
  p->sigma_secret = NAN;
  gboolean ok = TRUE;
  switch (shape.kind) {
  case PROTO_SHAPE_NONE:
    break;
  case PROTO_SHAPE_DSGD:
    p->protocol = PRIV_PROTOCOL_DSGD;
    p->structured = TRUE;
    break;
  case PROTO_SHAPE_MUFFLIATO:
    p->protocol = PRIV_PROTOCOL_MUFFLIATO;
    p->K = MAX(shape.K, 1);
    p->structured = TRUE;
    break;
  case PROTO_SHAPE_SECRETS:
    p->protocol = PRIV_PROTOCOL_DECOR;
    p->sigma_secret = shape.sigma_secret;
    p->structured = TRUE;
    break;
  case PROTO_SHAPE_CORRELATED:
    p->band = shape.band;
    p->buffers = shape.buffers;
    if (shape.C == NULL || *shape.C == '\0') {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: %s:C= needs a family (identity, antipgd, sr, bsr, mafalda, "
                  "toeplitz, blt) or a CSV file",
                  p->vt->name);
      ok = FALSE;
    } else if (shape.probes > 0 && !proto_c_spec_fits_graph(shape.C)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--protocol: %s:C=%s with probes=%u: probes sketches the gossip a fitted C "
                  "(mafalda, toeplitz, blt) is fitted to; drop probes=",
                  p->vt->name, shape.C, shape.probes);
      ok = FALSE;
    } else if (!proto_c_spec_fits_graph(shape.C) || shape.probes > 0) {
      /* A C fitted exactly to the run's gossip is built inside the run,
       * where the dense W is: observer path only. Sketched (probes=K), it
       * is fitted once on the sparse gossip of the whole graph, the same
       * C the run fits (proto_account_job_prepare). */
      p->protocol = PRIV_PROTOCOL_MFDSGD;
      p->c_spec = g_strdup(shape.C);
      p->probes = proto_c_spec_fits_graph(shape.C) ? shape.probes : 0;
      p->samples = declares(p->vt, "samples") ? (guint)proto_params_get_int(params, "samples") : 0;
      p->structured = TRUE;
    }
    break;
  }
  proto_params_free(params);
  return ok;
}

gboolean proto_account_recordable(PrivProtocol protocol, ProtoModeKind mode) {
  switch (protocol) {
  case PRIV_PROTOCOL_DSGD:
  case PRIV_PROTOCOL_MUFFLIATO:
  case PRIV_PROTOCOL_DECOR:
    /* DECOR: its secrets on the schedule's edges, not the record's W_r (a
     * late or lost message's secret stays in its sender's model;
     * PrivStructuredProblem.secret_gossip). */
    return TRUE;
  case PRIV_PROTOCOL_MFDSGD:
    /* Deadline mode: the W-product engine on the record's W_r. Stale mode:
     * the Kalman engine, the delayed slots beside the noise's state
     * (structured_mfstate.c), for a C whose noise has a low-order state
     * (proto_account_job_recordable checks the job's C). */
    return mode == PROTO_MODE_DEADLINE || mode == PROTO_MODE_STALE;
  default:
    return FALSE;
  }
}
