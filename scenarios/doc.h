/*
 * scenarios/doc.h: internal: the syntax layer of scenario files. Depends on
 * GLib only (so the fuzz target builds it alone with clang).
 *
 * A ScenDoc is a scenario file read into a GKeyFile, plus what GKeyFile does
 * not keep: the line of every section and key (for FILE:LINE messages), the
 * folder relative paths resolve against, the problems found while scanning
 * (malformed lines, duplicates, invalid UTF-8), and command-line overrides
 * (--set section.key=value) with their own origin.
 *
 * File syntax: GLib key-file syntax ("[section]", "key = value", '#' comment
 * lines), plus trailing comments: a '#' that starts the value or follows a
 * blank starts a comment ("\#" is a literal '#'). Lists are ';'-separated
 * ("\;" is a literal ';').
 */
#ifndef DPG_SCENARIOS_DOC_H
#define DPG_SCENARIOS_DOC_H

#include <glib.h>

G_BEGIN_DECLS

/* Where a value came from: a file and line, or "--set" and its position. */
typedef struct {
  const char *file; /* owned by the doc (or a static string) */
  guint line;       /* 1-based; 0 when unknown */
} ScenLoc;

/* One problem: printed "FILE:LINE: WHAT: MESSAGE" (WHAT = section.key). */
typedef struct {
  char *file;
  guint line;
  char *what; /* "section.key", "section" or "" */
  char *message;
} ScenProblem;

void scen_problem_free(ScenProblem *p);
/* "FILE:LINE: WHAT: MESSAGE" (g_free). */
char *scen_problem_format(const ScenProblem *p);

/* A list of problems, deduplicated on their formatted text. */
typedef struct {
  GPtrArray *items; /* ScenProblem* in insertion order */
  GHashTable *seen; /* formatted text set */
} ScenProblems;

ScenProblems *scen_problems_new(void);
void scen_problems_free(ScenProblems *ps);
void scen_problems_add(ScenProblems *ps, ScenLoc loc, const char *what, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
guint scen_problems_count(const ScenProblems *ps);
/* Sorts by (file, line) keeping insertion order among equals. */
void scen_problems_sort(ScenProblems *ps);

typedef struct {
  char *section, *key, *value; /* value raw, as it would appear in a file */
  char *file;                  /* "--set" */
  guint line;                  /* position among the overrides, 1-based */
} ScenOverride;

typedef struct {
  char *path;           /* as given, for messages */
  char *dir;            /* absolute folder relative paths resolve against */
  GKeyFile *kf;         /* the cleaned content */
  GHashTable *lines;    /* "section" / "section\x1fkey" -> line */
  GHashTable *values;   /* "section\x1fkey" -> raw value (as in the file) */
  GPtrArray *sections;  /* section names in file order (char*) */
  ScenProblems *syntax; /* problems found while scanning */
  GPtrArray *overrides; /* ScenOverride* (--set), in order */
} ScenDoc;

/*
 * scen_doc_load_data: reads @len bytes of @data (any bytes: invalid lines are
 * reported in doc->syntax and skipped, never fatal). @path names the file in
 * messages; @dir is the folder for relative paths (NULL: @path's folder).
 * Never fails. O(len).
 */
ScenDoc *scen_doc_load_data(const char *data, gsize len, const char *path, const char *dir);

/* scen_doc_load: reads the file @path. Errors: G_FILE_ERROR (missing file). */
ScenDoc *scen_doc_load(const char *path, GError **error);

void scen_doc_free(ScenDoc *doc);

/*
 * scen_doc_split_key: "section.key" -> section, key. "sweep.a.b" gives
 * ("sweep", "a.b"); otherwise the split is at the last '.'. FALSE when there
 * is no '.' or a part is empty.
 */
gboolean scen_doc_split_key(const char *dotted, char **section, char **key);

/*
 * scen_doc_add_override: "section.key=value" from the command line. An empty
 * value in section sweep removes that sweep key. Errors: G_OPTION_ERROR for a
 * malformed item.
 */
gboolean scen_doc_add_override(ScenDoc *doc, const char *item, GError **error);

/* The override of section.key, or NULL (the last one given wins). */
const ScenOverride *scen_doc_find_override(const ScenDoc *doc, const char *section,
                                           const char *key);

/* Line of a section header / a key (0 when absent from the file). */
guint scen_doc_section_line(const ScenDoc *doc, const char *section);
guint scen_doc_key_line(const ScenDoc *doc, const char *section, const char *key);

/*
 * scen_doc_get_raw: the raw value of section.key (override first, then the
 * file), with its location; NULL when absent (or removed by an override with
 * an empty sweep value). (transfer none)
 */
const char *scen_doc_get_raw(const ScenDoc *doc, const char *section, const char *key,
                             ScenLoc *loc);

/* Every section present (file order, then sections only given by overrides). */
GPtrArray *scen_doc_list_sections(const ScenDoc *doc);
/* Every key of @section present (file order, then override-only keys). */
GPtrArray *scen_doc_list_keys(const ScenDoc *doc, const char *section);

/* Unescapes a raw value: "\#" -> '#', "\\" -> '\', "\;" kept as is (lists
 * split on it later), "\s" -> ' ', "\t", "\n". (g_free) */
char *scen_unescape(const char *raw);
/* Splits a raw list value on unescaped ';' (empty trailing item dropped),
 * each item unescaped and trimmed. (g_strfreev) */
char **scen_split_list(const char *raw);

/* Levenshtein distance (O(|a| |b|)). */
guint scen_edit_distance(const char *a, const char *b);

G_END_DECLS

#endif /* DPG_SCENARIOS_DOC_H */
