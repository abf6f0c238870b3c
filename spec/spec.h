/*
 * spec/spec.h: "name[:head][,key=value]..." specs, the one-line syntax of
 * graph generators, schedules, datasets and models ("erdos:n=100,p=0.05",
 * "california:data/cal_housing.data", "mlp:hidden=64"). A leaf module: the
 * modules that read such specs (topologies, learning) share this parser and
 * its typed getters, and their errors stay in the caller's error domain.
 */
#ifndef DPG_SPEC_H
#define DPG_SPEC_H

#include <glib.h>

G_BEGIN_DECLS

/* A parsed spec. Errors of the getters below are raised in the domain and
 * codes given to spec_parse. */
typedef struct {
  char *name;        /* before ':' (stripped) */
  char *head;        /* the first item after ':' when asked for; else NULL */
  GPtrArray *keys;   /* char*, in spec order, stripped */
  GPtrArray *values; /* char*, parallel to keys, stripped */
  GQuark domain;
  gint parse_code;   /* malformed text or value */
  gint range_code;   /* a value out of its range */
} Spec;

/**
 * spec_parse: parses @text. @what names the kind of thing in messages
 * ("generator", "dataset"). With @want_head, the first item after ':' is
 * taken verbatim as the head (a path, a kind) and is required.
 * @domain, @parse_code, @range_code: the errors of this call and of the
 *   getters on the result.
 * Errors (@parse_code): empty text, no name before ':', a missing head, an
 *   item that is not key=value, a key given twice.
 * Returns: the spec (spec_free), or NULL. O(length of @text + keys^2).
 */
Spec *spec_parse(const char *text, const char *what, gboolean want_head, GQuark domain,
                 gint parse_code, gint range_code, GError **error);
void spec_free(Spec *spec);

/** spec_get: the value of @key, or NULL when absent. O(keys). */
const char *spec_get(const Spec *spec, const char *key);

/**
 * spec_check: every key is among @valid and every key of @required is
 * present (NULL-terminated lists, NULL for none); messages list the valid
 * keys. Errors: parse_code. O(keys x valid).
 */
gboolean spec_check(const Spec *spec, const char *what, const char *const *valid,
                    const char *const *required, GError **error);

/**
 * spec_uint, spec_double, spec_bool: the value of @key: @dflt when absent;
 * FALSE with parse_code for a malformed value (a non-negative decimal
 * integer; a finite number; true/false/yes/no/1/0) and range_code for one
 * outside [@min, @max]. O(keys).
 */
gboolean spec_uint(const Spec *spec, const char *key, guint64 dflt, guint64 min, guint64 max,
                   guint64 *out, GError **error);
gboolean spec_double(const Spec *spec, const char *key, double dflt, double min, double max,
                     double *out, GError **error);
gboolean spec_bool(const Spec *spec, const char *key, gboolean dflt, gboolean *out,
                   GError **error);

/**
 * spec_escape: @text (@len bytes, or NUL-terminated when @len < 0) made safe
 * to quote in a message: printable UTF-8 is kept; \n, \r, \t and other
 * control bytes become \n, \r, \t, \xNN; bytes that are not UTF-8 become
 * \xNN; non-printing code points (C1 controls, bidirectional and zero-width
 * marks, line separators) become \u{NNNN}. Every message that quotes
 * input (file contents, names from files) goes through it, so no input can
 * send escape sequences to a terminal.
 * Returns: (transfer full) the escaped text ("(null)" for NULL).
 * Complexity: O(length).
 */
char *spec_escape(const char *text, gssize len);

/**
 * spec_json_depth_ok: whether the JSON text @text (@len bytes) nests arrays
 * and objects at most @max_depth deep, by one scan of the bytes ('[' and '{'
 * outside strings). Call it before handing input to a recursive parser
 * (json-glib): a deep body would overflow the stack there. Malformed text
 * may pass; the parser then rejects it.
 * Complexity: O(@len), no allocation.
 */
gboolean spec_json_depth_ok(const char *text, gsize len, guint max_depth);

G_END_DECLS

#endif /* DPG_SPEC_H */
