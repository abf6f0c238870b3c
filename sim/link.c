/*
 * sim/link.c: latency and loss models: parsing specs, checking, sampling.
 *
 * Spec grammar: `model:key=value[,key=value...]`, blanks allowed around every
 * token, model and keys case-insensitive, values read with g_ascii_strtod so
 * the locale never changes what a scenario means.
 */
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

#include "sim/link_internal.h"
#include "sim/sim.h"
#include "spec/spec.h"

typedef struct {
  const char *name;
  double value;
  gboolean seen;
} SpecKey;

/* Parses the `key=value,...` part of @spec (@params points into @spec) into
 * @keys; every key must appear exactly once. @usage shows the expected form. */
static gboolean parse_params(const char *what, const char *spec, const char *params, SpecKey *keys,
                             guint n_keys, const char *usage, GError **error) {
  gchar **items = g_strsplit(params, ",", -1);
  gboolean ok = TRUE;
  for (guint i = 0; ok && items[i]; i++) {
    char *item = g_strstrip(items[i]);
    char *eq = strchr(item, '=');
    if (!eq) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "%s spec \"%s\": \"%s\" is not key=value (expected %s)", what, spec, item, usage);
      ok = FALSE;
      break;
    }
    *eq = '\0';
    char *key = g_strstrip(item);
    char *val = g_strstrip(eq + 1);
    SpecKey *k = NULL;
    for (guint j = 0; j < n_keys; j++)
      if (g_ascii_strcasecmp(key, keys[j].name) == 0)
        k = &keys[j];
    if (!k) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "%s spec \"%s\": unknown key '%s' (expected %s)", what, spec, key, usage);
      ok = FALSE;
    } else if (k->seen) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "%s spec \"%s\": key '%s' given twice", what,
                  spec, k->name);
      ok = FALSE;
    } else {
      char *end = NULL;
      errno = 0;
      double v = *val ? g_ascii_strtod(val, &end) : 0.0;
      if (!*val || *end || errno == ERANGE || !isfinite(v)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                    "%s spec \"%s\": value '%s' of key '%s' is not a finite number", what, spec,
                    val, k->name);
        ok = FALSE;
      } else {
        k->value = v;
        k->seen = TRUE;
      }
    }
  }
  g_strfreev(items);
  for (guint j = 0; ok && j < n_keys; j++)
    if (!keys[j].seen) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "%s spec \"%s\": missing key '%s' (expected %s)", what, spec, keys[j].name,
                  usage);
      ok = FALSE;
    }
  return ok;
}

/* Splits "model:params" into a stripped model name (returned, to free) and a
 * pointer to the params; NULL and an error when there is no ':'. */
static char *split_model(const char *what, const char *spec, const char *usage, const char **params,
                         GError **error) {
  const char *colon = strchr(spec, ':');
  if (!colon) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "%s spec \"%s\": expected model:key=value,... (%s)", what, spec, usage);
    return NULL;
  }
  *params = colon + 1;
  return g_strstrip(g_strndup(spec, (gsize)(colon - spec)));
}

#define LATENCY_USAGE                                                                      \
  "constant:ms=MS, uniform:min=MS,max=MS, lognormal:mu=M,sigma=S, links:file=PATH,unit=ms|s " \
  "country:rtt=PATH,seed=S[,intra=PATH] or "                                                  \
  "geo:nodes=PATH[,base=MS,per_km=MS,jitter=S,max=MS,seed=S]"

gboolean sim_latency_check(const SimLatency *l, GError **error) {
  g_return_val_if_fail(l != NULL, FALSE);
  gboolean ok;
  switch (l->kind) {
  case SIM_LATENCY_CONSTANT:
    ok = isfinite(l->ms) && l->ms >= 0;
    break;
  case SIM_LATENCY_UNIFORM:
    ok = isfinite(l->min_ms) && isfinite(l->max_ms) && l->min_ms >= 0 && l->min_ms <= l->max_ms;
    break;
  case SIM_LATENCY_LOGNORMAL:
    ok = isfinite(l->mu) && isfinite(l->sigma) && l->sigma >= 0;
    break;
  case SIM_LATENCY_LINKS:
    ok = l->file != NULL && isfinite(l->unit_ms) && l->unit_ms > 0;
    break;
  case SIM_LATENCY_COUNTRY:
    ok = l->file != NULL;
    break;
  case SIM_LATENCY_GEO:
    ok = l->file != NULL && isfinite(l->base_ms) && l->base_ms >= 0 && isfinite(l->per_km_ms) &&
         l->per_km_ms >= 0 && isfinite(l->jitter) && l->jitter >= 0 && isfinite(l->max_ms) &&
         l->max_ms >= 0;
    break;
  default:
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, "latency model kind %d is unknown",
                (int)l->kind);
    return FALSE;
  }
  if (!ok) {
    char *s = sim_latency_to_string(l);
    g_set_error(error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                "latency %s is out of range (times must be finite and >= 0, min <= max, "
                "sigma >= 0, measured models name their file)",
                s);
    g_free(s);
  }
  return ok;
}

gboolean sim_latency_parse(const char *spec, SimLatency *out, GError **error) {
  g_return_val_if_fail(out != NULL, FALSE);
  if (!spec) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "latency spec is missing (expected %s)",
                LATENCY_USAGE);
    return FALSE;
  }
  const char *params;
  char *model = split_model("latency", spec, LATENCY_USAGE, &params, error);
  if (!model)
    return FALSE;
  SimLatency l = {0};
  SpecKey keys[2] = {{0}};
  guint n_keys = 0;
  const char *usage = NULL;
  if (g_ascii_strcasecmp(model, "constant") == 0) {
    l.kind = SIM_LATENCY_CONSTANT;
    keys[0].name = "ms";
    n_keys = 1;
    usage = "constant:ms=MS";
  } else if (g_ascii_strcasecmp(model, "uniform") == 0) {
    l.kind = SIM_LATENCY_UNIFORM;
    keys[0].name = "min";
    keys[1].name = "max";
    n_keys = 2;
    usage = "uniform:min=MS,max=MS";
  } else if (g_ascii_strcasecmp(model, "lognormal") == 0) {
    l.kind = SIM_LATENCY_LOGNORMAL;
    keys[0].name = "mu";
    keys[1].name = "sigma";
    n_keys = 2;
    usage = "lognormal:mu=M,sigma=S with ln(latency in ms) ~ N(M, S^2)";
  } else if (g_ascii_strcasecmp(model, "links") == 0 ||
             g_ascii_strcasecmp(model, "country") == 0 || g_ascii_strcasecmp(model, "geo") == 0) {
    l.kind = g_ascii_strcasecmp(model, "links") == 0 ? SIM_LATENCY_LINKS
             : g_ascii_strcasecmp(model, "geo") == 0 ? SIM_LATENCY_GEO
                                                      : SIM_LATENCY_COUNTRY;
    g_free(model);
    if (!sim_latency_parse_measured(spec, params, &l, error))
      return FALSE;
    *out = l;
    return TRUE;
  } else {
    static const char *const models[] = {"constant", "uniform", "lognormal",
                                         "links",    "country", "geo"};
    char *hint = spec_did_you_mean(model, models, G_N_ELEMENTS(models));
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "latency spec \"%s\": unknown model '%s' (expected %s)%s", spec, model,
                LATENCY_USAGE, hint);
    g_free(hint);
    g_free(model);
    return FALSE;
  }
  g_free(model);
  if (!parse_params("latency", spec, params, keys, n_keys, usage, error))
    return FALSE;
  switch (l.kind) {
  case SIM_LATENCY_CONSTANT:
    l.ms = keys[0].value;
    if (l.ms < 0)
      goto negative;
    break;
  case SIM_LATENCY_UNIFORM:
    l.min_ms = keys[0].value;
    l.max_ms = keys[1].value;
    if (l.min_ms < 0)
      goto negative;
    if (l.min_ms > l.max_ms) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "latency spec \"%s\": min %g > max %g", spec,
                  l.min_ms, l.max_ms);
      return FALSE;
    }
    break;
  case SIM_LATENCY_LOGNORMAL:
    l.mu = keys[0].value;
    l.sigma = keys[1].value;
    if (l.sigma < 0) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "latency spec \"%s\": sigma must be >= 0",
                  spec);
      return FALSE;
    }
    break;
  case SIM_LATENCY_LINKS:
  case SIM_LATENCY_COUNTRY:
  case SIM_LATENCY_GEO:
    break; /* read by sim_latency_parse_measured above */
  }
  *out = l;
  return TRUE;
negative:
  g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
              "latency spec \"%s\": a latency cannot be negative", spec);
  return FALSE;
}

/* The shortest of %.15g, %.16g, %.17g that reads back exactly, so specs stay
 * readable ("0.1", not "0.10000000000000001") and still round-trip. */
static void append_double(GString *s, const char *key, double v) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int digits = 15; digits <= 17; digits++) {
    char fmt[8];
    g_snprintf(fmt, sizeof fmt, "%%.%dg", digits);
    g_ascii_formatd(buf, sizeof buf, fmt, v);
    if (g_ascii_strtod(buf, NULL) == v)
      break;
  }
  g_string_append_printf(s, "%s=%s", key, buf);
}

char *sim_latency_to_string(const SimLatency *l) {
  g_return_val_if_fail(l != NULL, NULL);
  GString *s = g_string_new(NULL);
  switch (l->kind) {
  case SIM_LATENCY_CONSTANT:
    g_string_append(s, "constant:");
    append_double(s, "ms", l->ms);
    break;
  case SIM_LATENCY_UNIFORM:
    g_string_append(s, "uniform:");
    append_double(s, "min", l->min_ms);
    g_string_append_c(s, ',');
    append_double(s, "max", l->max_ms);
    break;
  case SIM_LATENCY_LOGNORMAL:
    g_string_append(s, "lognormal:");
    append_double(s, "mu", l->mu);
    g_string_append_c(s, ',');
    append_double(s, "sigma", l->sigma);
    break;
  case SIM_LATENCY_LINKS:
    g_string_append_printf(s, "links:file=%s,unit=%s", l->file ? l->file : "",
                           l->unit_ms == 1000.0 ? "s" : "ms");
    break;
  case SIM_LATENCY_COUNTRY:
    g_string_append_printf(s, "country:rtt=%s,seed=%" G_GUINT64_FORMAT, l->file ? l->file : "",
                           l->seed);
    if (l->intra != NULL)
      g_string_append_printf(s, ",intra=%s", l->intra);
    break;
  case SIM_LATENCY_GEO:
    g_string_append_printf(s, "geo:nodes=%s,", l->file ? l->file : "");
    append_double(s, "base", l->base_ms);
    g_string_append_c(s, ',');
    append_double(s, "per_km", l->per_km_ms);
    g_string_append_c(s, ',');
    append_double(s, "jitter", l->jitter);
    g_string_append_c(s, ',');
    append_double(s, "max", l->max_ms);
    g_string_append_printf(s, ",seed=%" G_GUINT64_FORMAT, l->seed);
    break;
  default:
    g_string_append_printf(s, "unknown-model-%d", (int)l->kind);
  }
  return g_string_free(s, FALSE);
}

double sim_latency_mean_ms(const SimLatency *l) {
  g_return_val_if_fail(l != NULL, NAN);
  switch (l->kind) {
  case SIM_LATENCY_CONSTANT:
    return l->ms;
  case SIM_LATENCY_UNIFORM:
    return 0.5 * (l->min_ms + l->max_ms);
  case SIM_LATENCY_LOGNORMAL:
    return exp(l->mu + 0.5 * l->sigma * l->sigma);
  case SIM_LATENCY_LINKS:
  case SIM_LATENCY_COUNTRY:
  case SIM_LATENCY_GEO:
    return NAN;
  }
  return NAN;
}


SimTime sim_latency_sample(const SimLatency *l, gsl_rng *rng) {
  switch (l->kind) {
  case SIM_LATENCY_CONSTANT:
    return sim_ms_to_ns(l->ms);
  case SIM_LATENCY_UNIFORM:
    return sim_ms_to_ns(l->min_ms + (l->max_ms - l->min_ms) * gsl_rng_uniform(rng));
  case SIM_LATENCY_LOGNORMAL:
    return sim_ms_to_ns(gsl_ran_lognormal(rng, l->mu, l->sigma));
  case SIM_LATENCY_LINKS:
  case SIM_LATENCY_COUNTRY:
  case SIM_LATENCY_GEO:
    return 0;
  }
  return 0;
}

#define LOSS_USAGE "bernoulli:p=P or a bare probability P in [0, 1]"

gboolean sim_loss_parse(const char *spec, double *p, GError **error) {
  g_return_val_if_fail(p != NULL, FALSE);
  if (!spec) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE, "loss spec is missing (expected %s)",
                LOSS_USAGE);
    return FALSE;
  }
  SpecKey key = {"p", 0, FALSE};
  if (!strchr(spec, ':')) {
    char *s = g_strstrip(g_strdup(spec));
    char *end = NULL;
    errno = 0;
    double v = *s ? g_ascii_strtod(s, &end) : 0.0;
    gboolean ok = *s && !*end && errno != ERANGE && isfinite(v);
    g_free(s);
    if (!ok) {
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "loss spec \"%s\": not a probability (expected %s)", spec, LOSS_USAGE);
      return FALSE;
    }
    key.value = v;
  } else {
    const char *params;
    char *model = split_model("loss", spec, LOSS_USAGE, &params, error);
    if (!model)
      return FALSE;
    gboolean known = g_ascii_strcasecmp(model, "bernoulli") == 0;
    if (!known)
      g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                  "loss spec \"%s\": unknown model '%s' (expected %s)", spec, model, LOSS_USAGE);
    g_free(model);
    if (!known || !parse_params("loss", spec, params, &key, 1, "bernoulli:p=P", error))
      return FALSE;
  }
  if (key.value < 0 || key.value > 1) {
    g_set_error(error, SIM_ERROR, SIM_ERROR_PARSE,
                "loss spec \"%s\": probability %g is outside [0, 1]", spec, key.value);
    return FALSE;
  }
  *p = key.value;
  return TRUE;
}

gboolean sim_loss_sample(double p, gsl_rng *rng) {
  if (p <= 0)
    return FALSE;
  if (p >= 1)
    return TRUE;
  return gsl_rng_uniform(rng) < p;
}
