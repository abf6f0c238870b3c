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
  gint parse_code; /* malformed text or value */
  gint range_code; /* a value out of its range */
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
gboolean spec_bool(const Spec *spec, const char *key, gboolean dflt, gboolean *out, GError **error);

/**
 * spec_edit_distance: the Levenshtein distance of @a and @b. O(|a| |b|).
 */
guint spec_edit_distance(const char *a, const char *b);

/**
 * spec_typo_distance: whether @d edits from @word look like a typo of it:
 * 0 < d and (d <= 2 or d <= a third of its length). O(|word|).
 */
gboolean spec_typo_distance(guint d, const char *word);

/**
 * spec_closest: the entry of @choices nearest @given (the first of equal
 * distance) when it looks like a typo of it (spec_typo_distance), else
 * NULL (also for an exact match). @n entries, or NULL-terminated when
 * @n < 0; NULL entries are skipped. Borrowed from @choices.
 * O(sum of |given| |choice|).
 */
const char *spec_closest(const char *given, const char *const *choices, gssize n);

/**
 * spec_did_you_mean: "; did you mean 'x'?" for spec_closest's x, else ""
 * (g_free): appended to an "unknown ... (valid: ...)" message.
 */
char *spec_did_you_mean(const char *given, const char *const *choices, gssize n);

/**
 * spec_choose: *@index = the position of @name among the @n @names, or
 * FALSE with (@domain, @code) "unknown WHAT 'NAME' (expected A, B or C)"
 * and spec_did_you_mean's hint (NAME escaped, "(null)" for NULL). The parse
 * of a name from a closed list. O(sum of |name| |choice|).
 */
gboolean spec_choose(const char *name, const char *what, const char *const *names, guint n,
                     guint *index, GQuark domain, gint code, GError **error);

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

/* How spec_escape_append writes what it escapes. */
typedef enum {
  SPEC_ESCAPE_MESSAGE, /* spec_escape's: \n \r \t, \xHH (controls, DEL, bytes that are not
                        * UTF-8), \u{HHHH} (code points that hide or reorder text) */
  SPEC_ESCAPE_JSON,    /* a JSON string's body: \" \\ \n \r \t \u00hh, U+FFFD (\ufffd) for
                        * bytes that are not UTF-8 */
} SpecEscapeStyle;

/* spec_escape_append: appends the @len bytes of @text to @out escaped in
 * @style (no quotes added). O(len). */
void spec_escape_append(GString *out, const char *text, gsize len, SpecEscapeStyle style);

/**
 * spec_json_depth_ok: whether the JSON text @text (@len bytes) nests arrays
 * and objects at most @max_depth deep, by one scan of the bytes ('[' and '{'
 * outside strings). Call it before handing input to a recursive parser
 * (json-glib): a deep body would overflow the stack there. Malformed text
 * may pass; the parser then rejects it.
 * Complexity: O(@len), no allocation.
 */
gboolean spec_json_depth_ok(const char *text, gsize len, guint max_depth);

/**
 * spec_json_first_value_end: where the text after the JSON text's first
 * top-level array or object ends, whitespace skipped: @len when nothing
 * follows it, else the offset of the first byte that does (a second
 * document, which json-glib would not report). Text whose first value is
 * not an array or object, or is unclosed, gives @len: the parser judges it.
 * Complexity: O(@len), no allocation.
 */
gsize spec_json_first_value_end(const char *text, gsize len);

/* ===================================================================== */
/* Resource bounds (limits.c)                                             */
/* ===================================================================== */

/* Longest line any text input may hold (1 MiB), and largest file read whole
 * (4 GiB): a device like /dev/zero or a binary file given by mistake is then
 * refused with FILE:LINE instead of being read until an allocation aborts. */
#define SPEC_LINE_MAX (1 << 20)
#define SPEC_FILE_MAX ((gsize)4 << 30)

/* a * b and a + b, saturating at G_MAXSIZE (memory estimates). O(1). */
gsize spec_size_mul(gsize a, gsize b);
gsize spec_size_add(gsize a, gsize b);

/* *@out = a * b, or FALSE (and *@out untouched) when it overflows gsize. O(1). */
gboolean spec_size_mul_checked(gsize a, gsize b, gsize *out);

/**
 * spec_memory_limit: the memory budget of this process in bytes: physical
 * memory, or the address-space / data rlimit when smaller, or the cap of
 * spec_set_memory_cap when smaller still (G_MAXSIZE when unknown). Every
 * pre-allocation check of dpgossip compares against it. O(1).
 */
gsize spec_memory_limit(void);

/**
 * spec_set_memory_cap: caps spec_memory_limit at @bytes (0: no cap), for a
 * host that must stay well below the machine's memory where an rlimit
 * cannot say so (a sanitizer's shadow memory breaks RLIMIT_AS: the fuzz
 * targets). Call it before any thread starts. O(1).
 */
void spec_set_memory_cap(gsize bytes);

/* spec_format_bytes: "1.2 GB" (decimal units, ASCII), g_free. */
char *spec_format_bytes(gsize bytes);

/**
 * spec_check_memory: FALSE with (@domain, @code) when @bytes exceeds
 * spec_memory_limit(); the message says "@what would need N of memory but
 * only M is available" followed by @hint (what to shrink; may be NULL). O(1).
 */
gboolean spec_check_memory(gsize bytes, const char *what, const char *hint, GQuark domain,
                           gint code, GError **error);

/* spec_check_memory_within: spec_check_memory against @max_bytes (0 = the
 * budget spec_memory_limit()), for callers that take a budget option. O(1). */
gboolean spec_check_memory_within(gsize bytes, gsize max_bytes, const char *what, const char *hint,
                                  GQuark domain, gint code, GError **error);

/**
 * spec_check_text_rows: the memory check of a reader that keeps @bytes_per_row
 * bytes for each line of @text (@len bytes, read whole), plus @bytes_per_byte
 * for each byte of it (values of which a line holds any number), before it
 * parses them: the lines are counted (no allocation) and their cost compared with
 * the budget, so that a small gzip of millions of short rows is refused with
 * its size instead of growing arrays until g_realloc aborts. The message
 * names @path and the number of lines; @hint as spec_check_memory. O(len).
 */
gboolean spec_check_text_rows(const char *path, const char *text, gsize len, gsize bytes_per_row,
                              gsize bytes_per_byte, const char *hint, GQuark domain, gint code,
                              GError **error);

/* spec_doubles_new: @rows x @cols zeroed doubles (g_free; one byte when
 * empty), or NULL with (@domain, @code) when the size overflows or the
 * memory is not there: from SPEC_DOUBLES_CHECKED bytes up, spec_check_memory
 * first (its message: the matrix and the bytes it would need), else "cannot
 * allocate a ROWS x COLS matrix (BYTES)". O(rows cols). */
#define SPEC_DOUBLES_CHECKED ((gsize)1 << 26)
double *spec_doubles_new(gsize rows, gsize cols, GQuark domain, gint code, GError **error);

/**
 * spec_file_read: g_file_get_contents for inputs: the file must be a regular
 * file of at most SPEC_FILE_MAX bytes and every line at most SPEC_LINE_MAX
 * bytes. *@contents is NUL-terminated (g_free); @length may be NULL.
 * Errors: G_FILE_ERROR, the message naming @path (and "PATH:LINE: " for a
 * line too long). O(file size).
 */
gboolean spec_file_read(const char *path, char **contents, gsize *length, GError **error);

/* spec_file_read_lines: spec_file_read with lines of at most @line_max bytes
 * (a scenario's sweep axis of 10^6 values is one line of several MB). */
gboolean spec_file_read_lines(const char *path, gsize line_max, char **contents, gsize *length,
                              GError **error);

/**
 * spec_file_read_text: spec_file_read for a text file that may be gzip
 * compressed (recognised by its magic bytes, not its name; concatenated
 * members are read in turn). The inflated text obeys the same limits; a
 * leading UTF-8 byte order mark is dropped (the first line keeps number 1).
 * Errors: as spec_file_read, and G_FILE_ERROR_INVAL naming @path for a gzip
 * stream that is cut short or corrupt: nothing is returned half-read.
 * O(inflated size).
 */
gboolean spec_file_read_text(const char *path, char **contents, gsize *length, GError **error);

/**
 * spec_file_read_text_max: spec_file_read_text for a table whose useful
 * content is bounded (a country table lists at most every pair of two-letter
 * codes): more than @max bytes, raw or inflated, is refused as soon as it is
 * seen (G_FILE_ERROR_INVAL naming @path and the limit in MB) rather than
 * after inflating gigabytes of rows the reader would skip.
 */
gboolean spec_file_read_text_max(const char *path, gsize max, char **contents, gsize *length,
                                 GError **error);

/**
 * spec_check_lines: FALSE (G_FILE_ERROR_INVAL, "PATH:LINE: ...") when a line
 * of @text (@len bytes) is longer than SPEC_LINE_MAX. O(@len).
 */
gboolean spec_check_lines(const char *path, const char *text, gsize len, GError **error);

/**
 * spec_error_at: sets @error to (@domain, @code) with the message
 * "PATH:LINE: " (or "PATH: " when @line is 0, a fault of the whole file)
 * followed by @fmt's text; @path goes through spec_escape. @error may be
 * NULL. Returns: FALSE, so that a reader can return it. O(message).
 */
gboolean spec_error_at(GError **error, GQuark domain, gint code, const char *path, gsize line,
                       const char *fmt, ...) G_GNUC_PRINTF(6, 7);

/**
 * spec_error_token: spec_error_at for a token of the file that is wrong:
 * the message "WHAT 'TOKEN'WHY", the token (@len bytes, or up to its NUL
 * when @len < 0) escaped by spec_escape, @why_fmt's text after it (its own
 * leading space or comma: " is not a number", ", expected 'u v'"). @error
 * may be NULL; @what and @token must not. Returns: FALSE, so that a reader
 * can return it. O(message).
 */
gboolean spec_error_token(GError **error, GQuark domain, gint code, const char *path, gsize line,
                          const char *what, const char *token, gssize len, const char *why_fmt, ...)
    G_GNUC_PRINTF(9, 10);

/* ===================================================================== */
/* Attacker sets (attackers.c)                                            */
/* ===================================================================== */

/* The one grammar of attacker sets, for `account --attackers`, `figure
 * --attackers` and scenario files' [collusion.NAME] nodes: "all" (every node
 * of the graph in turn, alone), or sets separated by ',' whose members are
 * joined by '+' ("0,5": node 0, then node 5; "0+5": their collusion). */
#define SPEC_ATTACKERS_GRAMMAR                                                                     \
  "all (every node in turn, alone), or node ids joined by '+' into one collusion set, sets "       \
  "separated by ',': 0, 0+5 or 0+5,7"

typedef enum {
  /* ';' joins members like '+', and one trailing ';' is ignored: scenario
   * files' older list form "nodes = 0;8" (GKeyFile lists may end in ';'). */
  SPEC_ATTACKERS_SEMICOLON = 1 << 0,
} SpecAttackersFlags;

/* Attacker sets, as parsed; independent of any graph until checked. */
typedef struct {
  gboolean all; /* "all": every node in turn, alone (ids and off then empty) */
  GArray *ids;  /* guint: the members of the listed sets, set after set, each sorted */
  GArray *off;  /* guint, n_sets + 1: set i is ids[off[i] .. off[i + 1]) */
  /* char *, one per id (or fewer): each member as written, NULL for one
   * given as an id; an id is G_MAXUINT until spec_attackers_resolve when
   * its text is not decimal digits (a label). */
  GPtrArray *tokens;
} SpecAttackers;

/* spec_attackers_init, spec_attackers_clear: an empty container; frees and
 * zeroes what it holds (a cleared or zeroed one allowed). O(1). */
void spec_attackers_init(SpecAttackers *a);
void spec_attackers_clear(SpecAttackers *a);

/**
 * spec_attackers_parse: appends the sets of @text (SPEC_ATTACKERS_GRAMMAR)
 * to @a, each set sorted; called again it appends more (a repeated option).
 * Spaces around ids, ',' and '+' are ignored. @flags: SpecAttackersFlags.
 * A member is a node id (a decimal integer below G_MAXUINT, no sign) or a
 * node's label (any text without blank or control byte), which
 * spec_attackers_resolve looks up once the graph is known.
 * Errors (@domain, @code; the message quotes the offending part and names
 * the grammar): empty text or empty item, a member with a blank or control
 * byte, a node twice in one set, a set
 * given twice (in any order, across calls too), "all" next to other sets.
 * On error @a keeps the sets parsed before the bad one.
 * Complexity: O(length of @text + sets^2 x set size) (the repeat check).
 */
gboolean spec_attackers_parse(SpecAttackers *a, const char *text, guint flags, GQuark domain,
                              gint code, GError **error);

/* How a graph names its nodes: the id of the node labelled @label, FALSE
 * when none is (topo_graph_node_find's signature, graph-agnostic here). */
typedef gboolean (*SpecNodeFind)(gconstpointer graph, const char *label, guint *id);

/**
 * spec_attackers_resolve: the members as the graph names them. With @find
 * (a graph whose nodes have labels) every member written as text becomes
 * the id of the node it labels, and each set is sorted again; without
 * (nodes named by their ids) a member that is not a decimal id below
 * G_MAXUINT is refused. Call it once, before spec_attackers_check. @graph
 * names the graph in messages (NULL: "the graph"). Errors (@domain,
 * @code): a member no node is labelled with ("no node of graph 'G' is
 * labelled 'x'"), or not an id ("'x' is not a node id (expected ...)").
 * Complexity: O(members x set size log set size + cost of @find).
 */
gboolean spec_attackers_resolve(SpecAttackers *a, SpecNodeFind find, gconstpointer data,
                                const char *graph, guint flags, GQuark domain, gint code,
                                GError **error);

/* spec_attackers_n_sets: the number of sets on a graph of @n_nodes nodes
 * (@n_nodes for "all"). O(1). */
guint spec_attackers_n_sets(const SpecAttackers *a, guint n_nodes);

/* spec_attackers_members: set @i's members (sorted) and their number in
 * *@size; for "all", set i is {i}, returned in *@scratch (which must then
 * outlive the result). O(1). */
const guint *spec_attackers_members(const SpecAttackers *a, guint i, guint *scratch, guint *size);

/* spec_attackers_label: set @i as text, "3+11" (g_free). O(set size). */
char *spec_attackers_label(const SpecAttackers *a, guint i);

/**
 * spec_attackers_check: every id is a node of a graph of @n_nodes nodes
 * and every set leaves a victim. @graph names the graph in messages ("graph
 * 'ego' has 148 nodes"; NULL: "the graph has ...").
 * Errors (@domain, @code): an id out of range, a set holding every node
 * (with "all": a graph of fewer than two nodes).
 * Complexity: O(members + sets).
 */
gboolean spec_attackers_check(const SpecAttackers *a, guint n_nodes, const char *graph,
                              GQuark domain, gint code, GError **error);

/* spec_attackers_expand: "all" made explicit for a graph of @n_nodes nodes:
 * the sets {0}, ..., {n_nodes - 1}; @a->all becomes FALSE. Nothing for
 * listed sets. O(@n_nodes). */
void spec_attackers_expand(SpecAttackers *a, guint n_nodes);

G_END_DECLS

#endif /* DPG_SPEC_H */
