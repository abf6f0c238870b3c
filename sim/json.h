/*
 * sim/json.h: the one JSON writer behind every JSON file and output of
 * dpgossip.
 */
#ifndef DPG_SIM_JSON_H
#define DPG_SIM_JSON_H

#include <glib.h>

G_BEGIN_DECLS

/* json-glib's node, declared rather than included: plugins build against
 * this header with GLib alone. (C11 allows the typedef to repeat.) */
typedef struct _JsonNode JsonNode;

/* Room for any double sim_json_format_double writes, NUL included. */
#define SIM_JSON_DOUBLE_BUF 32

/**
 * sim_json_format_double: @x as a JSON number: the shortest of %.15g, %.16g
 * and %.17g that reads back to the same double (C locale), with ".0" added
 * when it would otherwise read as an integer; NaN and infinities, which JSON
 * cannot hold, become `null`. Never an invalid token such as json-glib 1.6's
 * `1e+20.0`. O(1).
 */
void sim_json_format_double(char buf[SIM_JSON_DOUBLE_BUF], double x);

/**
 * sim_json_write: @root (nullable: `null`) as JSON text; the writer every
 * JSON file and `--format json` output goes through, instead of
 * JsonGenerator. Doubles as sim_json_format_double; integers in decimal;
 * strings escaped, invalid UTF-8 as U+FFFD; object members in insertion
 * order. @indent 0 writes one line; otherwise one value per line, @indent
 * spaces per level, `"key" : value`.
 * Returns: (transfer full) the text, without a final newline.
 * Complexity: O(size of the tree); recursion depth is the tree's depth.
 */
char *sim_json_write(JsonNode *root, guint indent);

/*
 * JSON text written by hand, for the hot paths that format millions of
 * small bodies (the event stream), where json-glib's tree would cost more
 * than the simulation. Locale-independent and deterministic; O(length).
 */
/** sim_json_append_string: @s as a JSON string literal (quotes included);
 * invalid UTF-8 bytes become U+FFFD so the text stays valid JSON. */
void sim_json_append_string(GString *out, const char *s);
/** sim_json_append_double: the shortest decimal that reads back to @x
 * (%.15g .. %.17g, no ".0" added: unlike sim_json_format_double, a whole
 * number stays an integer token); non-finite values become null. */
void sim_json_append_double(GString *out, double x);
/** sim_json_append_u64: @x in decimal. */
void sim_json_append_u64(GString *out, guint64 x);

G_END_DECLS

#endif /* DPG_SIM_JSON_H */
