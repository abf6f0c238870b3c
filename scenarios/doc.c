/*
 * scenarios/doc.c: scanning scenario files (see doc.h). GKeyFile keeps the
 * content but no line numbers, rejects a whole file for one bad line and has
 * no trailing comments, so each line is checked here first and only clean
 * lines reach it.
 */
#include <stdarg.h>
#include <string.h>

#include "scenarios/doc.h"
#include "spec/spec.h"

/* ---- Problems ---- */

void scen_problem_free(ScenProblem *p) {
  if (p == NULL)
    return;
  g_free(p->file);
  g_free(p->what);
  g_free(p->message);
  g_free(p);
}

char *scen_problem_format(const ScenProblem *p) {
  GString *s = g_string_new(p->file);
  if (p->line > 0)
    g_string_append_printf(s, ":%u", p->line);
  g_string_append(s, ": ");
  if (p->what != NULL && p->what[0] != '\0')
    g_string_append_printf(s, "%s: ", p->what);
  g_string_append(s, p->message);
  /* Problems quote the file (keys, values, whole lines) and the modules'
   * messages quote specs from it: one escape here covers them all, so no
   * byte of the file reaches the terminal raw. Escaped text passes
   * unchanged, so a module that escaped already is not escaped twice. */
  char *safe = spec_escape(s->str, (gssize)s->len);
  g_string_free(s, TRUE);
  return safe;
}

ScenProblems *scen_problems_new(void) {
  ScenProblems *ps = g_new0(ScenProblems, 1);
  ps->items = g_ptr_array_new_with_free_func((GDestroyNotify)scen_problem_free);
  ps->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  return ps;
}

void scen_problems_free(ScenProblems *ps) {
  if (ps == NULL)
    return;
  g_ptr_array_unref(ps->items);
  g_hash_table_unref(ps->seen);
  g_free(ps);
}

void scen_problems_add(ScenProblems *ps, ScenLoc loc, const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ScenProblem *p = g_new0(ScenProblem, 1);
  p->file = g_strdup(loc.file ? loc.file : "");
  p->line = loc.line;
  p->what = g_strdup(what ? what : "");
  p->message = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *text = scen_problem_format(p);
  if (g_hash_table_contains(ps->seen, text)) {
    g_free(text);
    scen_problem_free(p);
    return;
  }
  g_hash_table_add(ps->seen, text);
  g_ptr_array_add(ps->items, p);
}

guint scen_problems_count(const ScenProblems *ps) {
  return ps ? ps->items->len : 0;
}

static gint problem_cmp(gconstpointer a, gconstpointer b) {
  const ScenProblem *p = *(ScenProblem *const *)a, *q = *(ScenProblem *const *)b;
  /* Command-line overrides come after the file's own lines. */
  gboolean pset = g_str_equal(p->file, "--set"), qset = g_str_equal(q->file, "--set");
  if (pset != qset)
    return pset ? 1 : -1;
  int c = strcmp(p->file, q->file);
  if (c != 0)
    return c;
  return p->line < q->line ? -1 : p->line > q->line;
}

void scen_problems_sort(ScenProblems *ps) {
  /* Insertion sort: stable (qsort is not) and the lists are short. */
  guint n = ps->items->len;
  GPtrArray *sorted = g_ptr_array_new_full(n, (GDestroyNotify)scen_problem_free);
  for (guint i = 0; i < n; i++) {
    ScenProblem *p = g_ptr_array_index(ps->items, i);
    guint j = sorted->len;
    while (j > 0 && problem_cmp(&g_ptr_array_index(sorted, j - 1), &p) > 0)
      j--;
    g_ptr_array_insert(sorted, (gint)j, p);
  }
  g_ptr_array_set_free_func(ps->items, NULL);
  g_ptr_array_unref(ps->items);
  ps->items = sorted;
}

/* ---- Helpers ---- */

guint scen_edit_distance(const char *a, const char *b) {
  return spec_edit_distance(a, b);
}

char *scen_unescape(const char *raw) {
  GString *s = g_string_sized_new(strlen(raw));
  for (const char *p = raw; *p; p++) {
    if (*p == '\\' && p[1] != '\0') {
      p++;
      switch (*p) {
      case '#':
        g_string_append_c(s, '#');
        break;
      case '\\':
        g_string_append_c(s, '\\');
        break;
      case 's':
        g_string_append_c(s, ' ');
        break;
      case 't':
        g_string_append_c(s, '\t');
        break;
      case 'n':
        g_string_append_c(s, '\n');
        break;
      default: /* unknown escapes stay as written (Windows-looking paths) */
        g_string_append_c(s, '\\');
        g_string_append_c(s, *p);
      }
    } else {
      g_string_append_c(s, *p);
    }
  }
  return g_string_free(s, FALSE);
}

char **scen_split_list(const char *raw) {
  GPtrArray *items = g_ptr_array_new();
  GString *cur = g_string_new(NULL);
  for (const char *p = raw;; p++) {
    if (*p == '\\' && p[1] == ';') {
      g_string_append_c(cur, ';');
      p++;
      continue;
    }
    if (*p == '\\' && p[1] != '\0') {
      g_string_append_c(cur, *p);
      g_string_append_c(cur, p[1]);
      p++;
      continue;
    }
    if (*p == ';' || *p == '\0') {
      char *item = scen_unescape(cur->str);
      g_strstrip(item);
      /* GKeyFile lists may end with ';': no empty last item. */
      if (*p == '\0' && item[0] == '\0' && items->len > 0)
        g_free(item);
      else
        g_ptr_array_add(items, item);
      g_string_truncate(cur, 0);
      if (*p == '\0')
        break;
      continue;
    }
    g_string_append_c(cur, *p);
  }
  g_string_free(cur, TRUE);
  g_ptr_array_add(items, NULL);
  return (char **)g_ptr_array_free(items, FALSE);
}

static char *loc_key(const char *section, const char *key) {
  return key ? g_strconcat(section, "\x1f", key, NULL) : g_strdup(section);
}

/* GKeyFile's own rules for names (g_key_file_is_group_name/is_key_name). */
static const char *bad_section_name(const char *name) {
  if (name[0] == '\0')
    return "empty section name";
  for (const char *p = name; *p; p++) {
    if (*p == ']' || *p == '[')
      return "a section name cannot contain '[' or ']'";
    if (g_ascii_iscntrl(*p))
      return "a section name cannot contain control characters";
  }
  return NULL;
}

static const char *bad_key_name(const char *name) {
  if (name[0] == '\0')
    return "empty key name before '='";
  for (const char *p = name; *p; p++) {
    if (*p == '[' || *p == ']')
      return "a key name cannot contain '[' or ']'";
    if (g_ascii_iscntrl(*p))
      return "a key name cannot contain control characters";
  }
  return NULL;
}

/* Cuts a trailing comment: '#' at the start of the value or after a blank,
 * unless escaped. Returns the value trimmed (in place). */
static char *strip_comment(char *value) {
  for (char *p = value; *p; p++) {
    if (*p == '\\' && p[1] != '\0') {
      p++;
      continue;
    }
    if (*p == '#' && (p == value || p[-1] == ' ' || p[-1] == '\t')) {
      *p = '\0';
      break;
    }
  }
  return g_strstrip(value);
}

/* ---- Loading ---- */

/* What the line reader carries from line to line. */
typedef struct {
  GString *clean; /* the lines kept, for GKeyFile */
  char *current;  /* section being read; NULL before the first */
  gboolean skip_section;
} Reader;

/* A "[name]" line @s at @loc: the section read from here on, or a problem
 * (and its keys skipped: they would land in the wrong section). */
static void read_section(ScenDoc *doc, ScenLoc loc, char *s, Reader *rd) {
  char *close = strchr(s, ']');
  const char *bad = NULL;
  if (close == NULL) {
    bad = "a section header must end with ']'";
  } else {
    char *after = close + 1;
    while (*after == ' ' || *after == '\t')
      after++;
    if (*after != '\0' && *after != '#')
      bad = "unexpected text after the section header";
  }
  char *name = NULL;
  if (bad == NULL) {
    name = g_strndup(s + 1, (gsize)(close - s - 1));
    g_strstrip(name);
    bad = bad_section_name(name);
  }
  g_clear_pointer(&rd->current, g_free);
  if (bad != NULL) {
    scen_problems_add(doc->syntax, loc, NULL, "%s", bad);
    g_free(name);
    rd->skip_section = TRUE;
    return;
  }
  guint first = GPOINTER_TO_UINT(g_hash_table_lookup(doc->lines, name));
  if (first != 0) {
    scen_problems_add(doc->syntax, loc, name,
                      "section given twice (first on line %u); its keys are merged", first);
  } else {
    g_hash_table_insert(doc->lines, g_strdup(name), GUINT_TO_POINTER(loc.line));
    g_ptr_array_add(doc->sections, g_strdup(name));
    g_string_append_printf(rd->clean, "[%s]\n", name);
  }
  rd->current = name;
  rd->skip_section = FALSE;
}

/* A "key = value" line @s at @loc (its '=' at @eq) of the current section. */
static void read_key(ScenDoc *doc, ScenLoc loc, char *s, char *eq, Reader *rd) {
  *eq = '\0';
  char *key = g_strstrip(s);
  char *value = strip_comment(eq + 1);
  const char *bad = bad_key_name(key);
  if (bad != NULL) {
    scen_problems_add(doc->syntax, loc, NULL, "%s", bad);
    return;
  }
  if (rd->current == NULL) {
    if (!rd->skip_section)
      scen_problems_add(doc->syntax, loc, key,
                        "key outside any section (put it under a [section] header)");
    return;
  }
  char *lk = loc_key(rd->current, key);
  guint first = GPOINTER_TO_UINT(g_hash_table_lookup(doc->lines, lk));
  if (first != 0) {
    char *what = g_strdup_printf("%s.%s", rd->current, key);
    scen_problems_add(doc->syntax, loc, what, "given twice (first on line %u)", first);
    g_free(what);
    g_free(lk);
    return;
  }
  g_hash_table_insert(doc->lines, lk, GUINT_TO_POINTER(loc.line));
  g_hash_table_insert(doc->values, loc_key(rd->current, key), g_strdup(value));
  /* Already in the section: GKeyFile appends to the last group read, and
   * duplicate sections were dropped from @clean, so re-open it. */
  g_string_append_printf(rd->clean, "[%s]\n%s=%s\n", rd->current, key, value);
}

/* Line @line, @text (owned, freed here), checked and read. */
static void read_line(ScenDoc *doc, guint line, char *text, gboolean has_nul, Reader *rd) {
  ScenLoc loc = {doc->path, line};
  if (line == 1 && g_str_has_prefix(text, "\xEF\xBB\xBF")) /* UTF-8 byte order mark */
    memmove(text, text + 3, strlen(text + 3) + 1);
  char *s = NULL, *eq = NULL;
  if (has_nul || !g_utf8_validate(text, -1, NULL))
    scen_problems_add(doc->syntax, loc, NULL,
                      has_nul ? "the line contains a NUL byte" : "the line is not valid UTF-8");
  else if ((s = g_strstrip(text))[0] == '\0' || s[0] == '#')
    ; /* blank or a comment */
  else if (s[0] == '[')
    read_section(doc, loc, s, rd);
  else if ((eq = strchr(s, '=')) == NULL)
    scen_problems_add(doc->syntax, loc, NULL,
                      "'%s' is neither 'key = value', a [section] nor a # comment", s);
  else
    read_key(doc, loc, s, eq, rd);
  g_free(text);
}

ScenDoc *scen_doc_load_data(const char *data, gsize len, const char *path, const char *dir) {
  ScenDoc *doc = g_new0(ScenDoc, 1);
  doc->path = g_strdup(path ? path : "<scenario>");
  if (dir != NULL) {
    doc->dir = g_canonicalize_filename(dir, NULL);
  } else {
    char *d = g_path_get_dirname(doc->path);
    doc->dir = g_canonicalize_filename(d, NULL);
    g_free(d);
  }
  doc->kf = g_key_file_new();
  doc->lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  doc->values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  doc->sections = g_ptr_array_new_with_free_func(g_free);
  doc->syntax = scen_problems_new();
  doc->overrides = g_ptr_array_new();

  Reader rd = {g_string_sized_new(len + 1), NULL, FALSE};
  guint line = 0;
  gsize pos = 0;
  while (pos < len) {
    gsize end = pos;
    while (end < len && data[end] != '\n')
      end++;
    line++;
    char *text = g_strndup(data + pos, end - pos);
    gboolean has_nul = strlen(text) != end - pos;
    pos = end + 1;
    gsize tl = strlen(text);
    if (tl > 0 && text[tl - 1] == '\r')
      text[--tl] = '\0';
    read_line(doc, line, text, has_nul, &rd);
  }
  g_free(rd.current);
  GError *err = NULL;
  if (!g_key_file_load_from_data(doc->kf, rd.clean->str, rd.clean->len, G_KEY_FILE_NONE, &err)) {
    /* Every line was checked above; this is a safety net. */
    scen_problems_add(doc->syntax, (ScenLoc){doc->path, 1}, NULL, "%s", err->message);
    g_error_free(err);
  }
  g_string_free(rd.clean, TRUE);
  return doc;
}

ScenDoc *scen_doc_load(const char *path, GError **error) {
  char *data = NULL;
  gsize len = 0;
  GError *sub = NULL;
  /* Lines up to 64 MiB: a sweep axis may list 10^6 values on one line. */
  if (!spec_file_read_lines(path, (gsize)64 << 20, &data, &len, &sub)) {
    g_set_error(error, G_FILE_ERROR, sub->code, "%s", sub->message);
    g_error_free(sub);
    return NULL;
  }
  ScenDoc *doc = scen_doc_load_data(data, len, path, NULL);
  g_free(data);
  return doc;
}

static void override_free(ScenOverride *o) {
  g_free(o->section);
  g_free(o->key);
  g_free(o->value);
  g_free(o->file);
  g_free(o);
}

void scen_doc_free(ScenDoc *doc) {
  if (doc == NULL)
    return;
  g_free(doc->path);
  g_free(doc->dir);
  g_key_file_unref(doc->kf);
  g_hash_table_unref(doc->lines);
  g_hash_table_unref(doc->values);
  g_ptr_array_unref(doc->sections);
  scen_problems_free(doc->syntax);
  for (guint i = 0; i < doc->overrides->len; i++)
    override_free(g_ptr_array_index(doc->overrides, i));
  g_ptr_array_unref(doc->overrides);
  g_free(doc);
}

gboolean scen_doc_split_key(const char *dotted, char **section, char **key) {
  const char *dot;
  if (g_str_has_prefix(dotted, "sweep."))
    dot = dotted + 5;
  else
    dot = strrchr(dotted, '.');
  if (dot == NULL || dot == dotted || dot[1] == '\0')
    return FALSE;
  *section = g_strndup(dotted, (gsize)(dot - dotted));
  *key = g_strdup(dot + 1);
  return TRUE;
}

gboolean scen_doc_add_override(ScenDoc *doc, const char *item, GError **error) {
  const char *eq = strchr(item, '=');
  char *dotted = eq ? g_strndup(item, (gsize)(eq - item)) : NULL;
  char *section = NULL, *key = NULL;
  if (dotted != NULL)
    g_strstrip(dotted);
  if (dotted == NULL || !scen_doc_split_key(dotted, &section, &key) || bad_section_name(section) ||
      bad_key_name(key)) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--set '%s': expected section.key=value (e.g. protocol.sigma=2, "
                "sweep.simulation.seed=1..5)",
                item);
    g_free(dotted);
    g_free(section);
    g_free(key);
    return FALSE;
  }
  g_free(dotted);
  ScenOverride *o = g_new0(ScenOverride, 1);
  o->section = section;
  o->key = key;
  o->value = g_strstrip(g_strdup(eq + 1));
  o->file = g_strdup("--set");
  o->line = doc->overrides->len + 1;
  g_ptr_array_add(doc->overrides, o);
  return TRUE;
}

const ScenOverride *scen_doc_find_override(const ScenDoc *doc, const char *section,
                                           const char *key) {
  for (guint i = doc->overrides->len; i-- > 0;) {
    const ScenOverride *o = g_ptr_array_index(doc->overrides, i);
    if (g_str_equal(o->section, section) && g_str_equal(o->key, key))
      return o;
  }
  return NULL;
}

guint scen_doc_section_line(const ScenDoc *doc, const char *section) {
  return GPOINTER_TO_UINT(g_hash_table_lookup(doc->lines, section));
}

guint scen_doc_key_line(const ScenDoc *doc, const char *section, const char *key) {
  char *lk = loc_key(section, key);
  guint line = GPOINTER_TO_UINT(g_hash_table_lookup(doc->lines, lk));
  g_free(lk);
  return line;
}

const char *scen_doc_get_raw(const ScenDoc *doc, const char *section, const char *key,
                             ScenLoc *loc) {
  const ScenOverride *o = scen_doc_find_override(doc, section, key);
  if (o != NULL) {
    if (loc != NULL)
      *loc = (ScenLoc){o->file, o->line};
    if (o->value[0] == '\0' && g_str_equal(section, "sweep"))
      return NULL;
    return o->value;
  }
  guint line = scen_doc_key_line(doc, section, key);
  if (line == 0)
    return NULL;
  if (loc != NULL)
    *loc = (ScenLoc){doc->path, line};
  /* The key file holds the cleaned value; read it raw (the escapes are ours). */
  char *lk = loc_key(section, key);
  const char *v = g_hash_table_lookup(doc->values, lk);
  g_free(lk);
  return v;
}

GPtrArray *scen_doc_list_sections(const ScenDoc *doc) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < doc->sections->len; i++)
    g_ptr_array_add(out, g_strdup(g_ptr_array_index(doc->sections, i)));
  for (guint i = 0; i < doc->overrides->len; i++) {
    const ScenOverride *o = g_ptr_array_index(doc->overrides, i);
    gboolean found = FALSE;
    for (guint j = 0; j < out->len && !found; j++)
      found = g_str_equal(g_ptr_array_index(out, j), o->section);
    if (!found)
      g_ptr_array_add(out, g_strdup(o->section));
  }
  return out;
}

GPtrArray *scen_doc_list_keys(const ScenDoc *doc, const char *section) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  gsize n = 0;
  char **keys = g_key_file_get_keys(doc->kf, section, &n, NULL);
  for (gsize i = 0; i < n; i++)
    g_ptr_array_add(out, g_strdup(keys[i]));
  g_strfreev(keys);
  for (guint i = 0; i < doc->overrides->len; i++) {
    const ScenOverride *o = g_ptr_array_index(doc->overrides, i);
    if (!g_str_equal(o->section, section))
      continue;
    gboolean found = FALSE;
    for (guint j = 0; j < out->len && !found; j++)
      found = g_str_equal(g_ptr_array_index(out, j), o->key);
    if (!found)
      g_ptr_array_add(out, g_strdup(o->key));
  }
  /* A sweep key removed by an empty override is gone. */
  if (g_str_equal(section, "sweep"))
    for (guint j = out->len; j-- > 0;) {
      const ScenOverride *o = scen_doc_find_override(doc, section, g_ptr_array_index(out, j));
      if (o != NULL && o->value[0] == '\0')
        g_ptr_array_remove_index(out, j);
    }
  return out;
}
