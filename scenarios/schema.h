/*
 * scenarios/schema.h: internal: the table of every scenario key (section,
 * key, type, default, range, help) and the checks that need nothing but the
 * table: unknown sections and keys (with did-you-mean), types, ranges,
 * required keys, sweep syntax. Each row also binds its key to the field of
 * the resolved configuration that holds it (ScenStore below), from which
 * scenarios/resolve.c resolves and writes it. GLib only (the fuzz targets
 * build schema.c with SCEN_SCHEMA_GLIB_ONLY, the rows unbound).
 */
#ifndef DPG_SCENARIOS_SCHEMA_H
#define DPG_SCENARIOS_SCHEMA_H

#include "scenarios/doc.h"

G_BEGIN_DECLS

typedef enum {
  SCEN_TYPE_STRING,    /* any text */
  SCEN_TYPE_BOOL,      /* true/false/yes/no/1/0 */
  SCEN_TYPE_UINT,      /* a non-negative integer, range [min, max] */
  SCEN_TYPE_SEED,      /* a 64-bit unsigned integer */
  SCEN_TYPE_DOUBLE,    /* a finite number, range [min, max] (open ends by flags) */
  SCEN_TYPE_ENUM,      /* one of choices ("a|b|c") */
  SCEN_TYPE_ENUM_LIST, /* ';'-separated distinct choices, at least one */
  SCEN_TYPE_NODE_LIST, /* attacker sets: spec/'s grammar (all, 0+5,7), ';' joining like '+' */
  SCEN_TYPE_PATH,      /* a file path (relative to the scenario's folder) */
  SCEN_TYPE_SPEC,      /* a module spec ("name:key=value,..."), checked by the module */
} ScenType;

enum {
  SCEN_KEY_REQUIRED = 1 << 0,   /* must be given when its section is present */
  SCEN_KEY_MIN_OPEN = 1 << 1,   /* value > min (else >= min) */
  SCEN_KEY_MAX_OPEN = 1 << 2,   /* value < max (else <= max) */
  SCEN_KEY_DERIVED = 1 << 3,    /* the default is computed from other keys */
  SCEN_KEY_OPTIONAL = 1 << 4,   /* no default: absent means unset */
  SCEN_KEY_IF_CHANGED = 1 << 5, /* written to the resolved file only when not
                                 * the default (unset: not 0), so that the
                                 * files of runs that leave it alone stay as
                                 * they were before the key existed */
};

/*
 * Where a key's value lives in the resolved configuration (ScenConfig,
 * scenarios/internal.h), which decides how it is parsed, defaulted and
 * written back. A stored key of type BOOL, UINT, SEED, DOUBLE, ENUM or
 * STRING, not DERIVED, is resolved from its row alone (the row's default,
 * then the value checked by scen_value_check); a PATH or SPEC (checked by
 * its module), a DERIVED default and a list are resolved by hand in
 * scenarios/resolve.c. Every stored key is written from its row unless the
 * row has a write hook.
 */
typedef enum {
  SCEN_STORE_NONE,   /* not stored as one field: the row's write hook writes it */
  SCEN_STORE_STRING, /* char * (owned; NULL: unset, not written) */
  SCEN_STORE_UINT,   /* guint */
  SCEN_STORE_U64,    /* guint64 */
  SCEN_STORE_DOUBLE, /* double (written by scen_format_double) */
  SCEN_STORE_BOOL,   /* gboolean ("true"/"false") */
  SCEN_STORE_CHOICE, /* an int-sized enum: the position of its name in choices */
} ScenStore;

struct ScenConfig;
typedef struct ScenKeyInfo ScenKeyInfo;

/* A row's own writer: appends the key's lines of the resolved file of @c
 * to @out (none when the key has no value there). */
typedef void (*ScenKeyWrite)(GString *out, const struct ScenConfig *c, const ScenKeyInfo *k);

struct ScenKeyInfo {
  const char *section; /* "collusion.*" matches every [collusion.NAME] */
  const char *key;
  ScenType type;
  const char *def; /* the default's text (NULL for DERIVED/OPTIONAL/REQUIRED) */
  double min, max;
  guint flags;
  const char *choices; /* ENUM, ENUM_LIST; a CHOICE field's names, in its enum's order */
  const char *help;
  ScenStore store;    /* the field's type, or NONE */
  gsize offset;       /* the field: offsetof(ScenConfig, ...) */
  ScenKeyWrite write; /* nullable: writes the key instead of its store */
  /* Nullable: instead of choices, the module table that names them ("a|b|c",
   * static), so that a value added there needs no edit here. */
  const char *(*choices_of)(void);
};

/* The table, in the order the resolved file lists it. */
const ScenKeyInfo *scen_schema_keys(guint *n);
/* The entry of section.key (any [collusion.NAME] maps to collusion.*), or NULL. */
const ScenKeyInfo *scen_schema_find(const char *section, const char *key);
/* TRUE for a known section (including collusion.NAME with a non-empty NAME, and sweep). */
gboolean scen_schema_is_section(const char *section);

/* " (did you mean 'x'?)" or "" (g_free). */
char *scen_schema_suggest_section(const char *section);
char *scen_schema_suggest_key(const char *section, const char *key);

/*
 * Typed parsing of one unescaped value. Each returns FALSE with *@msg (g_free)
 * saying what is wrong, in words a user can act on.
 */
gboolean scen_parse_bool(const char *v, gboolean *out, char **msg);
gboolean scen_parse_uint64(const char *v, guint64 *out, char **msg);
gboolean scen_parse_double(const char *v, double *out, char **msg);

/* The names @k's value is chosen from ("a|b|c"), or NULL: any (a row whose
 * module table is not linked, in the fuzz targets). */
const char *scen_key_choices(const ScenKeyInfo *k);

/* scen_value_check: type and range of @raw (as in the file) for @k. */
gboolean scen_value_check(const ScenKeyInfo *k, const char *raw, char **msg);

/*
 * scen_schema_check_doc: every problem the table alone can see in @doc, added
 * to @ps: unknown sections and keys (with did-you-mean), wrong types, values
 * out of range, missing required keys, sweep keys that are not section.key of
 * a known key, malformed sweep items (each item is checked as a value of the
 * swept key), and a sweep of more than 1e6 points.
 */
void scen_schema_check_doc(const ScenDoc *doc, ScenProblems *ps);

/* ---- Sweeps ---- */

typedef struct {
  char *section, *key; /* the swept key */
  char **items;        /* its values, ranges expanded (raw, unescaped) */
  guint n_items;
  ScenLoc loc; /* the [sweep] line */
} ScenSweepAxis;

void scen_sweep_axis_free(ScenSweepAxis *a);

/*
 * scen_sweep_axes: the axes of @doc's [sweep] in order (ScenSweepAxis*,
 * free func set). Items "A..B" (integers A <= B) expand to A, A+1, ..., B.
 * Keys or items with problems are skipped, the problems added to @ps
 * (nullable). Sweeping simulation.seed is allowed; [sweep] and [output]
 * keys, and output.dir, are not.
 */
GPtrArray *scen_sweep_axes(const ScenDoc *doc, ScenProblems *ps);

/* Number of points of the cartesian product (saturates at G_MAXUINT64). */
guint64 scen_sweep_count(const GPtrArray *axes);

/* Point @index's item of each axis, first axis slowest: (*out)[a] = item index. */
void scen_sweep_point(const GPtrArray *axes, guint64 index, guint *out);

G_END_DECLS

#endif /* DPG_SCENARIOS_SCHEMA_H */
