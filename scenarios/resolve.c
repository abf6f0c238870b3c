/*
 * scenarios/resolve.c: from a scenario document (and a sweep point) to the
 * fully resolved configuration of one run, checking every value with the
 * module that owns it (protocol, mode, latency, schedule, graph specs), and
 * back to text: the resolved scenario file.
 */
#include <math.h>
#include <string.h>

#include "audit/audit.h"
#include "scenarios/internal.h"
#include "sim/link.h"
#include "spec/spec.h"

typedef struct {
  ScenScenario *sc;
  const ScenPointValues *pv;
  ScenProblems *ps;
  gboolean bad;
  GPtrArray *inputs; /* char*: the point's input files, absolute (owned) */
} R;

void scen_config_free(ScenConfig *c) {
  if (c == NULL)
    return;
  g_free(c->name);
  g_free(c->mode);
  g_free(c->graph);
  g_free(c->plugin);
  g_free(c->generate);
  g_free(c->schedule);
  g_free(c->latency);
  g_free(c->loss);
  g_free(c->protocol);
  g_free(c->proto_name);
  g_free(c->shape.C);
  g_free(c->dataset);
  g_free(c->model);
  g_free(c->partition);
  g_free(c->trust);
  for (guint i = 0; i < c->n_collusions; i++) {
    g_free(c->collusions[i].name);
    g_free(c->collusions[i].nodes);
  }
  g_free(c->collusions);
  g_free(c->audit_victims);
  g_free(c->out_dir);
  g_free(c->figure_ext);
  g_strfreev(c->inputs);
  g_free(c);
}

/* The raw value of section.key at this point, with where it came from. */
static const char *get(R *r, const char *sec, const char *key, ScenLoc *loc, char **what) {
  const ScenDoc *doc = r->sc->doc;
  if (r->pv != NULL && r->pv->axes != NULL) {
    for (guint i = 0; i < r->pv->axes->len; i++) {
      const ScenSweepAxis *a = g_ptr_array_index(r->pv->axes, i);
      if (g_str_equal(a->section, sec) && g_str_equal(a->key, key)) {
        *loc = a->loc;
        *what = g_strdup_printf("sweep.%s.%s", sec, key);
        return a->items[r->pv->items[i]];
      }
    }
  }
  *what = g_strdup_printf("%s.%s", sec, key);
  const char *v = scen_doc_get_raw(doc, sec, key, loc);
  if (v == NULL) {
    guint line = scen_doc_section_line(doc, sec);
    *loc = (ScenLoc){doc->path, line};
  }
  return v;
}

/* Which item (1, 2, ...) of a [sweep] axis section.key takes at this point;
 * 0 when the key is not swept. Problems found only once the graph is
 * known (a label it lacks) name the item, as the schema's checks do. */
static guint swept_item(const R *r, const char *sec, const char *key) {
  if (r->pv == NULL || r->pv->axes == NULL)
    return 0;
  for (guint i = 0; i < r->pv->axes->len; i++) {
    const ScenSweepAxis *a = g_ptr_array_index(r->pv->axes, i);
    if (g_str_equal(a->section, sec) && g_str_equal(a->key, key))
      return r->pv->items[i] + 1;
  }
  return 0;
}

/* "item N: " for a swept key's item, "" for a key set once (g_free). */
static char *item_prefix(const R *r, const char *sec, const char *key) {
  guint item = swept_item(r, sec, key);
  return item ? g_strdup_printf("item %u: ", item) : g_strdup("");
}

static void problem(R *r, ScenLoc loc, const char *what, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void problem(R *r, ScenLoc loc, const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  if (r->ps)
    scen_problems_add(r->ps, loc, what, "%s", msg);
  g_free(msg);
  r->bad = TRUE;
}

/* A problem with section.key, located where its value comes from. */
static void problem_key(R *r, const char *sec, const char *key, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static void problem_key(R *r, const char *sec, const char *key, const char *fmt, ...) {
  ScenLoc loc;
  char *what = NULL;
  get(r, sec, key, &loc, &what);
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  problem(r, loc, what, "%s", msg);
  g_free(msg);
  g_free(what);
}

/* Typed getters: the default (@def, may be NULL) when absent. Problems are
 * reported and the default kept. *@given says whether the key was set. */
static char *get_string(R *r, const char *sec, const char *key, const char *def, gboolean *given) {
  ScenLoc loc;
  char *what = NULL;
  const char *raw = get(r, sec, key, &loc, &what);
  g_free(what);
  if (given)
    *given = raw != NULL;
  if (raw == NULL)
    return g_strdup(def);
  return scen_unescape(raw);
}

static gboolean get_typed(R *r, const char *sec, const char *key, char **value, ScenLoc *loc,
                          char **what) {
  const char *raw = get(r, sec, key, loc, what);
  if (raw == NULL)
    return FALSE;
  const ScenKeyInfo *k = scen_schema_find(sec, key);
  char *msg = NULL;
  if (k != NULL && !scen_value_check(k, raw, &msg)) {
    problem(r, *loc, *what, "%s", msg);
    g_free(msg);
    return FALSE;
  }
  *value = scen_unescape(raw);
  return TRUE;
}

/* section.key as an unsigned integer (the keys whose default is derived
 * from others: rounds, participation_interval, eval_every), @def when
 * absent or malformed (a problem reported); *@given (may be NULL) says
 * whether a valid value was set. */
static guint64 get_u64(R *r, const char *sec, const char *key, guint64 def, gboolean *given) {
  ScenLoc loc;
  char *what = NULL, *v = NULL, *msg = NULL;
  guint64 x = def;
  gboolean ok = get_typed(r, sec, key, &v, &loc, &what);
  if (ok && !(ok = scen_parse_uint64(v, &x, &msg)))
    problem(r, loc, what, "%s", msg);
  if (!ok)
    x = def;
  g_free(msg);
  g_free(v);
  g_free(what);
  if (given)
    *given = ok;
  return x;
}

/* ---- Keys their schema row resolves ---- */

/* Whether section.key has a valid value at this point. */
static gboolean given(R *r, const char *sec, const char *key) {
  ScenLoc loc;
  char *what = NULL, *msg = NULL;
  const char *raw = get(r, sec, key, &loc, &what);
  const ScenKeyInfo *k = scen_schema_find(sec, key);
  gboolean ok = raw != NULL && (k == NULL || scen_value_check(k, raw, &msg));
  g_free(msg);
  g_free(what);
  return ok;
}

/* Whether row @k alone resolves its key: stored in a field, a scalar or a
 * choice with its default in the row. A path or a spec (checked by its
 * module), a derived default and a list are resolved by hand below. */
static gboolean resolved_by_row(const ScenKeyInfo *k) {
  return k->store != SCEN_STORE_NONE && !(k->flags & SCEN_KEY_DERIVED) &&
         k->type != SCEN_TYPE_PATH && k->type != SCEN_TYPE_SPEC;
}

/* The position of @v among @choices ("a|b|c"), or 0 (the value was
 * checked against them). */
static gint choice_index(const char *choices, const char *v) {
  char **c = g_strsplit(choices, "|", -1);
  gint at = 0;
  for (gint i = 0; c[i] != NULL; i++)
    if (g_str_equal(c[i], v))
      at = i;
  g_strfreev(c);
  return at;
}

/* Stores the text @v (unescaped, checked by scen_value_check) of row @k in
 * its field of @c. */
static void store_text(ScenConfig *c, const ScenKeyInfo *k, const char *v) {
  void *f = (char *)c + k->offset;
  guint64 u = 0;
  char *msg = NULL;
  switch (k->store) {
  case SCEN_STORE_NONE:
    break;
  case SCEN_STORE_STRING:
    g_free(*(char **)f);
    *(char **)f = g_strdup(v);
    break;
  case SCEN_STORE_UINT:
    scen_parse_uint64(v, &u, &msg);
    *(guint *)f = (guint)u;
    break;
  case SCEN_STORE_U64:
    scen_parse_uint64(v, (guint64 *)f, &msg);
    break;
  case SCEN_STORE_DOUBLE:
    scen_parse_double(v, (double *)f, &msg);
    break;
  case SCEN_STORE_BOOL:
    scen_parse_bool(v, (gboolean *)f, &msg);
    break;
  case SCEN_STORE_CHOICE:
    *(gint *)f = choice_index(k->choices, v);
    break;
  }
  g_free(msg); /* none: the value was checked */
}

/* Every key of [@section] that its row resolves alone (resolved_by_row):
 * the row's default (none: zero), then the value given, checked against the
 * row (a bad one is reported and the default kept). */
static void resolve_stored(R *r, ScenConfig *c, const char *section) {
  guint n;
  const ScenKeyInfo *keys = scen_schema_keys(&n);
  for (guint i = 0; i < n; i++) {
    const ScenKeyInfo *k = &keys[i];
    if (!g_str_equal(k->section, section) || !resolved_by_row(k))
      continue;
    if (k->def != NULL)
      store_text(c, k, k->def);
    ScenLoc loc;
    char *what = NULL, *v = NULL;
    if (get_typed(r, section, k->key, &v, &loc, &what))
      store_text(c, k, v);
    g_free(v);
    g_free(what);
  }
}

static char *abs_path(const ScenDoc *doc, const char *p) {
  if (g_path_is_absolute(p))
    return g_canonicalize_filename(p, NULL);
  return g_canonicalize_filename(p, doc->dir);
}

static const char *short_msg(const GError *e) {
  return e ? e->message : "failed";
}

/* Adds the note @raw (taken), escaped for a terminal, unless already there. */
static void add_note(R *r, char *raw) {
  char *note = spec_escape(raw, -1);
  g_free(raw);
  if (!g_ptr_array_find_with_equal_func(r->sc->notes, note, g_str_equal, NULL))
    g_ptr_array_add(r->sc->notes, note);
  else
    g_free(note);
}

/* A problem of a value its own parser refused with *@error (cleared). */
static void problem_error(R *r, ScenLoc loc, const char *what, GError **error) {
  problem(r, loc, what, "%s", short_msg(*error));
  g_clear_error(error);
}

/* ---- Graph cache ---- */

static const TopoGraph *cached_graph(ScenScenario *sc, const char *kind, const char *what,
                                     gboolean lcc, const char **err_msg) {
  char *key = g_strdup_printf("%s\x1f%s\x1f%d", kind, what, lcc ? 1 : 0);
  const char *msg = g_hash_table_lookup(sc->graph_errors, key);
  if (msg != NULL) {
    *err_msg = msg;
    g_free(key);
    return NULL;
  }
  TopoGraph *g = g_hash_table_lookup(sc->graphs, key);
  if (g != NULL) {
    g_free(key);
    return g;
  }
  GError *error = NULL;
  if (g_str_equal(kind, "file")) {
    g = topo_graph_load(what, lcc, &error);
  } else {
    g = topo_graph_generate(what, &error);
    if (g != NULL && lcc) {
      TopoGraph *l = topo_graph_largest_component(g, &error);
      topo_graph_free(g);
      g = l;
    }
  }
  if (g == NULL) {
    char *m = g_strdup(short_msg(error));
    g_clear_error(&error);
    g_hash_table_insert(sc->graph_errors, key, m);
    *err_msg = m;
    return NULL;
  }
  g_hash_table_insert(sc->graphs, key, g);
  return g;
}

/* ---- Input files: their digests ---- */

static gint compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* SHA-256 of the file @path, or for a folder of the list of its entries
 * (each "NAME\tSHA256\n" by name order, sub-folders recursively), as hex
 * (g_free); NULL when it cannot be read or is no regular file or folder
 * (a problem reported elsewhere: a missing file stops the point before it
 * is written). O(bytes). */
static char *input_sha256(const char *path) {
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    GDir *dir = g_dir_open(path, 0, NULL);
    if (dir == NULL)
      return NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (const char *e; (e = g_dir_read_name(dir)) != NULL;)
      g_ptr_array_add(names, g_strdup(e));
    g_dir_close(dir);
    g_ptr_array_sort(names, compare_names);
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < names->len; i++) {
      char *child = g_build_filename(path, g_ptr_array_index(names, i), NULL);
      char *hex = input_sha256(child);
      ok = hex != NULL;
      if (ok) {
        char *line = g_strdup_printf("%s\t%s\n", (char *)g_ptr_array_index(names, i), hex);
        g_checksum_update(sum, (const guchar *)line, (gssize)strlen(line));
        g_free(line);
      }
      g_free(hex);
      g_free(child);
    }
    char *hex = ok ? g_strdup(g_checksum_get_string(sum)) : NULL;
    g_checksum_free(sum);
    g_ptr_array_unref(names);
    return hex;
  }
  /* Only a regular file has contents to digest (/dev/zero never ends; its
   * own check refuses it as a dataset). */
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
  guchar buf[1 << 16];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    g_checksum_update(sum, buf, (gssize)got);
  gboolean ok = !ferror(f);
  fclose(f);
  char *hex = ok ? g_strdup(g_checksum_get_string(sum)) : NULL;
  g_checksum_free(sum);
  return hex;
}

/* @c's inputs from @r's list: each distinct file once, in the order met,
 * as "SHA256  PATH"; every digest computed once per scenario (@sc's cache:
 * a sweep of many points reads each input file once). */
static void set_inputs(R *r, ScenConfig *c) {
  GPtrArray *lines = g_ptr_array_new();
  for (guint i = 0; i < r->inputs->len; i++) {
    const char *path = g_ptr_array_index(r->inputs, i);
    const char *line = g_hash_table_lookup(r->sc->digests, path);
    if (line == NULL) {
      char *hex = input_sha256(path);
      if (hex == NULL)
        continue;
      char *l = g_strdup_printf("%s  %s", hex, path);
      g_free(hex);
      g_hash_table_insert(r->sc->digests, g_strdup(path), l);
      line = l;
    }
    gboolean seen = FALSE;
    for (guint j = 0; j < lines->len && !seen; j++)
      seen = g_str_equal(g_ptr_array_index(lines, j), line);
    if (!seen)
      g_ptr_array_add(lines, g_strdup(line));
  }
  g_ptr_array_add(lines, NULL);
  c->inputs = (char **)g_ptr_array_free(lines, FALSE);
}

/* ---- Specs with paths ---- */

static gboolean is_c_family(const char *v) {
  static const char *const fam[] = {"identity", "antipgd",  "sr",  "bsr",
                                    "mafalda",  "toeplitz", "blt", NULL};
  return g_strv_contains(fam, v);
}

/* Makes the file parameters of a protocol spec absolute; each is added to
 * @files (nullable) too. */
static char *protocol_abs(const ScenDoc *doc, const char *spec, GPtrArray *files) {
  const char *colon = strchr(spec, ':');
  if (colon == NULL)
    return g_strdup(spec);
  char *name = g_strndup(spec, (gsize)(colon - spec));
  const ProtoVTable *vt = proto_registry_lookup(name);
  GString *out = g_string_new(name);
  g_string_append_c(out, ':');
  char **items = g_strsplit(colon + 1, ",", -1);
  for (guint i = 0; items[i]; i++) {
    if (i > 0)
      g_string_append_c(out, ',');
    char *eq = strchr(items[i], '=');
    if (eq == NULL || vt == NULL) {
      g_string_append(out, items[i]);
      continue;
    }
    char *k = g_strndup(items[i], (gsize)(eq - items[i]));
    g_strstrip(k);
    const char *v = eq + 1;
    gboolean is_file = FALSE;
    for (guint p = 0; p < vt->n_params; p++)
      if (g_str_equal(vt->params[p].name, k))
        is_file = vt->params[p].type == PROTO_PARAM_FILE ||
                  (g_str_equal(k, "C") &&
                   (g_str_equal(name, "mfdsgd") || g_str_equal(name, "mafalda")) &&
                   !is_c_family(v));
    if (is_file && v[0] != '\0') {
      char *p = abs_path(doc, v);
      g_string_append_printf(out, "%s=%s", k, p);
      if (files != NULL)
        g_ptr_array_add(files, g_strdup(p));
      g_free(p);
    } else {
      g_string_append(out, items[i]);
    }
    g_free(k);
  }
  g_strfreev(items);
  g_free(name);
  return g_string_free(out, FALSE);
}

/* The path part of a dataset spec made absolute; *@path gets it (or NULL). */
static char *dataset_abs(const ScenDoc *doc, const char *spec, char **path) {
  *path = NULL;
  const char *colon = strchr(spec, ':');
  if (colon == NULL)
    return g_strdup(spec);
  char *kind = g_strndup(spec, (gsize)(colon - spec));
  gboolean has_path = g_str_equal(kind, "csv") || g_str_equal(kind, "idx") ||
                      g_str_equal(kind, "california") || g_str_equal(kind, "leaf");
  if (!has_path) {
    g_free(kind);
    return g_strdup(spec);
  }
  const char *rest = colon + 1, *comma = strchr(rest, ',');
  char *p = comma ? g_strndup(rest, (gsize)(comma - rest)) : g_strdup(rest);
  g_strstrip(p);
  if (p[0] == '\0') {
    g_free(p);
    g_free(kind);
    return g_strdup(spec);
  }
  *path = abs_path(doc, p);
  char *out = g_strdup_printf("%s:%s%s", kind, *path, comma ? comma : "");
  g_free(p);
  g_free(kind);
  return out;
}

/* The default model for a dataset spec (without loading it). */
static const char *default_model(const char *dataset) {
  if (g_str_has_prefix(dataset, "idx:") || g_str_has_prefix(dataset, "synthetic:logistic"))
    return "softmax";
  if (g_str_has_prefix(dataset, "csv:") && strstr(dataset, ",classes=") != NULL &&
      strstr(dataset, ",classes=0") == NULL)
    return "softmax";
  return "linear";
}

/* ---- Resolution ---- */

/* [protocol] plugin. A plugin is code: loading it runs its constructors
 * with the user's rights, so only a run the user allowed loads it
 * (SCEN_PLUGINS_LOAD), before the name is resolved, so the name may be the
 * plugin's protocol; loading is idempotent (the same file gives the same
 * protocol), so every sweep point may ask. Validation only checks that the
 * file is there and notes what it could not check; a run without consent
 * refuses. Returns whether a plugin is given but not loaded (its protocol's
 * name then cannot be checked). */
static gboolean resolve_plugin(R *r, ScenConfig *c) {
  ScenLoc loc;
  char *what = NULL, *path = NULL;
  gboolean unloaded = FALSE;
  if (get_typed(r, "protocol", "plugin", &path, &loc, &what)) {
    c->plugin = abs_path(r->sc->doc, path);
    g_ptr_array_add(r->inputs, g_strdup(c->plugin));
    char *shown = spec_escape(c->plugin, -1);
    if (r->sc->plugins == SCEN_PLUGINS_LOAD) {
      const ProtoVTable *vt = NULL;
      GError *error = NULL;
      if (!proto_plugin_load(c->plugin, &vt, &error))
        problem_error(r, loc, what, &error);
    } else if (!g_file_test(c->plugin, G_FILE_TEST_IS_REGULAR)) {
      problem(r, loc, what, "plugin file not found: %s (relative paths resolve against %s)", shown,
              r->sc->doc->dir);
    } else if (r->sc->plugins == SCEN_PLUGINS_REFUSE) {
      unloaded = TRUE; /* one problem, not a second "unknown protocol" */
      problem(r, loc, what,
              "not loaded: a plugin is code that runs with your rights, so a scenario's "
              "plugin is loaded only when you allow it (dpgossip run --allow-plugins, "
              "or dpgossip.run(..., allow_plugins=True) from Python, after checking %s is "
              "what you expect; docs/plugins.md)",
              shown);
    } else {
      unloaded = TRUE;
      char *raw = g_strdup_printf(
          "%s:%u: %s: %s not loaded: validate never runs plugin code, so the protocol's "
          "parameters are checked when it runs (dpgossip run --allow-plugins)",
          loc.file, loc.line, what, c->plugin);
      add_note(r, raw);
    }
    g_free(shown);
  }
  g_free(path);
  g_free(what);
  return unloaded;
}

static void resolve_protocol(R *r, ScenConfig *c) {
  ScenLoc loc;
  char *what = NULL, *spec = NULL;
  gboolean unloaded = resolve_plugin(r, c);
  if (!get_typed(r, "protocol", "name", &spec, &loc, &what))
    spec = g_strdup("dsgd");
  if (unloaded) {
    /* A name no built-in protocol has is presumably the unloaded plugin's:
     * nothing more can be checked without running its code. */
    gsize nl = strcspn(spec, ":,");
    char *name = g_strstrip(g_strndup(spec, nl));
    gboolean known = proto_registry_lookup(name) != NULL;
    if (!known) {
      c->shape.kind = -1;
      c->protocol = protocol_abs(r->sc->doc, spec, NULL);
      c->proto_name = name;
      g_free(spec);
      g_free(what);
      return;
    }
    g_free(name);
  }
  c->shape.kind = -1;
  if (g_str_equal(spec, PROTO_NONPRIVATE)) {
    c->nonprivate = TRUE;
    c->protocol = spec;
    c->proto_name = g_strdup("dsgd");
    c->shape.kind = PRIV_PROTOCOL_DSGD;
    c->shape.K = 1;
    g_free(what);
    return;
  }
  if (r->sc->plugins == SCEN_PLUGINS_CHECK) {
    /* A name no built-in protocol has is looked up among installed plugins,
     * which means loading them: validate never runs plugin code. It finds
     * the conventional NAME.so without loading it and notes what it could
     * not check; any other name is reported unknown below, where the lookup
     * is restricted to the registry. */
    gsize nl = strcspn(spec, ":,");
    char *name = g_strstrip(g_strndup(spec, nl));
    char *file = proto_registry_lookup(name) == NULL ? proto_plugin_locate(name) : NULL;
    if (file != NULL) {
      char *raw = g_strdup_printf(
          "%s:%u: %s: protocol '%s' would come from the installed plugin %s, which validate "
          "does not load (run does); its parameters are checked when it runs",
          loc.file, loc.line, what, name, file);
      g_free(file);
      add_note(r, raw);
      c->protocol = protocol_abs(r->sc->doc, spec, NULL);
      c->proto_name = name;
      g_free(spec);
      g_free(what);
      return;
    }
    if (proto_registry_lookup(name) == NULL) {
      char *valid = proto_registry_names();
      problem(r, loc, what,
              "unknown protocol '%s' (valid: %s, nonprivate; an installed plugin is found as "
              "NAME." G_MODULE_SUFFIX " in $" PROTO_PLUGIN_PATH_ENV " or the install folder)",
              name, valid);
      g_free(valid);
      c->protocol = protocol_abs(r->sc->doc, spec, NULL);
      c->proto_name = g_strdup("dsgd");
      g_free(name);
      g_free(spec);
      g_free(what);
      return;
    }
    g_free(name);
  }
  c->protocol = protocol_abs(r->sc->doc, spec, r->inputs);
  g_free(spec);
  const ProtoVTable *vt = NULL;
  ProtoParams *params = NULL;
  GError *error = NULL;
  if (!proto_spec_parse(c->protocol, &vt, &params, &error)) {
    problem_error(r, loc, what, &error);
    g_free(what);
    c->proto_name = g_strdup("dsgd");
    return;
  }
  c->proto_name = g_strdup(vt->name);
  ProtoShape shape;
  proto_shape_of(vt, params, &shape);
  c->shape.K = 1;
  switch (shape.kind) {
  case PROTO_SHAPE_NONE:
    break;
  case PROTO_SHAPE_DSGD:
    c->shape.kind = PRIV_PROTOCOL_DSGD;
    break;
  case PROTO_SHAPE_MUFFLIATO:
    c->shape.kind = PRIV_PROTOCOL_MUFFLIATO;
    c->shape.K = MAX(shape.K, 1);
    break;
  case PROTO_SHAPE_SECRETS:
    c->shape.kind = PRIV_PROTOCOL_DECOR;
    break;
  case PROTO_SHAPE_CORRELATED:
    c->shape.kind = PRIV_PROTOCOL_MFDSGD;
    c->shape.C = g_strdup(shape.C != NULL ? shape.C : "");
    c->shape.band = shape.band;
    c->shape.buffers = shape.buffers;
    for (guint i = 0; i < vt->n_params; i++)
      if (g_str_equal(vt->params[i].name, "samples"))
        c->shape.samples = (guint)proto_params_get_int(params, "samples");
    if (!is_c_family(c->shape.C) && !g_file_test(c->shape.C, G_FILE_TEST_IS_REGULAR))
      problem(r, loc, what, "C file not found: %s (relative paths resolve against %s)", c->shape.C,
              r->sc->doc->dir);
    break;
  }
  proto_params_free(params);
  g_free(what);
}

/* @sched with the file it reads (churn:FILE, churn:trace=FILE,...) made
 * absolute against the scenario's folder (g_free); a missing file is a
 * problem at @loc. */
static char *schedule_paths(R *r, const char *sched, ScenLoc loc, const char *what) {
  if (!g_str_has_prefix(sched, "churn:") || sched[6] == '\0' ||
      g_str_has_prefix(sched + 6, "leave=") || g_str_has_prefix(sched + 6, "join="))
    return g_strdup(sched);
  gboolean trace = g_str_has_prefix(sched + 6, "trace=");
  const char *file = sched + (trace ? 12 : 6);
  const char *end = file + strcspn(file, trace ? "," : "");
  char *rel = g_strndup(file, (gsize)(end - file));
  char *p = abs_path(r->sc->doc, rel);
  g_ptr_array_add(r->inputs, g_strdup(p));
  if (!g_file_test(p, G_FILE_TEST_IS_REGULAR))
    problem(r, loc, what, "%s file not found: %s (relative paths resolve against %s)",
            trace ? "trace" : "churn", p, r->sc->doc->dir);
  char *out = g_strdup_printf("%.*s%s%s", (int)(file - sched), sched, p, end);
  g_free(p);
  g_free(rel);
  return out;
}

static void resolve_topology(R *r, ScenConfig *c) {
  ScenLoc gloc, nloc, sloc;
  char *gwhat = NULL, *nwhat = NULL, *swhat = NULL, *graph = NULL, *gen = NULL;
  gboolean has_graph = get_typed(r, "topology", "graph", &graph, &gloc, &gwhat);
  gboolean has_gen = get_typed(r, "topology", "generate", &gen, &nloc, &nwhat);
  resolve_stored(r, c, "topology"); /* lcc, gossip */
  GError *error = NULL;
  if (has_graph && has_gen) {
    problem(r, nloc, nwhat, "give graph or generate, not both (graph is on line %u)", gloc.line);
  } else if (!has_graph && !has_gen) {
    ScenLoc l1, l2;
    char *w1 = NULL, *w2 = NULL;
    gboolean any = get(r, "topology", "graph", &l1, &w1) != NULL ||
                   get(r, "topology", "generate", &l2, &w2) != NULL;
    g_free(w1);
    g_free(w2);
    if (any) {
      r->bad = TRUE; /* a bad value, already reported */
    } else {
      ScenLoc loc = {r->sc->doc->path, scen_doc_section_line(r->sc->doc, "topology")};
      problem(r, loc, "topology",
              "no graph: give graph = FILE or generate = SPEC (e.g. generate = florentine)");
    }
  } else if (has_graph) {
    c->graph = abs_path(r->sc->doc, graph);
    g_ptr_array_add(r->inputs, g_strdup(c->graph));
    if (!g_file_test(c->graph, G_FILE_TEST_EXISTS)) {
      problem(r, gloc, gwhat, "file not found: %s (relative paths resolve against %s)", c->graph,
              r->sc->doc->dir);
    } else {
      const char *msg = NULL;
      c->g = cached_graph(r->sc, "file", c->graph, c->lcc, &msg);
      if (c->g == NULL)
        problem(r, gloc, gwhat, "%s", msg);
    }
  } else {
    c->generate = g_strdup(gen);
    const char *msg = NULL;
    c->g = cached_graph(r->sc, "gen", c->generate, c->lcc, &msg);
    if (c->g == NULL)
      problem(r, nloc, nwhat, "%s", msg);
  }
  g_free(graph);
  g_free(gen);
  g_free(gwhat);
  g_free(nwhat);
  c->n = c->g ? topo_graph_n_nodes(c->g) : 0;

  char *sched = NULL;
  if (!get_typed(r, "topology", "schedule", &sched, &sloc, &swhat))
    sched = g_strdup("static");
  c->schedule = schedule_paths(r, sched, sloc, swhat);
  g_free(sched);
  c->schedule_static = g_str_equal(c->schedule, "static");
  if (c->g != NULL && !r->bad) {
    TopoSchedule *s = topo_schedule_new(c->schedule, c->g, c->gossip, c->seed, &error);
    if (s == NULL) {
      problem_error(r, sloc, swhat, &error);
    } else {
      c->schedule_static = topo_schedule_is_static(s);
      if (topo_schedule_n(s) != c->n)
        problem(r, sloc, swhat, "the schedule has %u nodes but the graph has %u",
                topo_schedule_n(s), c->n);
      topo_schedule_free(s);
    }
  }
  g_free(swhat);
}

static void resolve_network(R *r, ScenConfig *c) {
  ScenLoc loc;
  char *what = NULL;
  GError *error = NULL;
  if (!get_typed(r, "simulation", "mode", &c->mode, &loc, &what))
    c->mode = g_strdup("sync");
  if (!proto_mode_parse(c->mode, &c->mode_parsed, &error))
    problem_error(r, loc, what, &error);
  g_free(what);
  what = NULL;
  SimLatency lat;
  if (!get_typed(r, "network", "latency", &c->latency, &loc, &what))
    c->latency = g_strdup("constant:ms=0");
  char *rebased = sim_latency_spec_rebase(c->latency, r->sc->doc->dir);
  g_free(c->latency);
  c->latency = rebased;
  if (!sim_latency_parse(c->latency, &lat, &error)) {
    problem_error(r, loc, what, &error);
  } else {
    if (lat.file != NULL)
      g_ptr_array_add(r->inputs, g_strdup(lat.file));
    if (lat.intra != NULL)
      g_ptr_array_add(r->inputs, g_strdup(lat.intra));
  }
  g_free(what);
  what = NULL;
  ScenLoc lloc;
  if (!get_typed(r, "network", "loss", &c->loss, &lloc, &what))
    c->loss = g_strdup("0");
  if (!sim_loss_parse(c->loss, &c->loss_p, &error)) {
    problem_error(r, lloc, what, &error);
  } else if (c->loss_p > 0 && c->mode_parsed.kind == PROTO_MODE_SYNC) {
    problem(r, lloc, what,
            "loss %g in sync mode: a lost message would block the network forever; use "
            "simulation.mode = deadline:ms=D or stale:s=S",
            c->loss_p);
  }
  g_free(what);
}

static void resolve_task(R *r, ScenConfig *c) {
  const ScenDoc *doc = r->sc->doc;
  gboolean in_sweep = FALSE;
  if (r->pv && r->pv->axes)
    for (guint i = 0; i < r->pv->axes->len; i++)
      in_sweep |= g_str_equal(((ScenSweepAxis *)g_ptr_array_index(r->pv->axes, i))->section,
                              "task");
  c->has_task = scen_doc_section_line(doc, "task") > 0 || in_sweep ||
                scen_doc_get_raw(doc, "task", "dataset", NULL) != NULL;
  if (!c->has_task)
    return;
  ScenLoc loc;
  char *what = NULL, *ds = NULL;
  if (get_typed(r, "task", "dataset", &ds, &loc, &what)) {
    char *path = NULL;
    c->dataset = dataset_abs(doc, ds, &path);
    if (path != NULL)
      g_ptr_array_add(r->inputs, g_strdup(path));
    if (!g_str_has_prefix(ds, "csv:") && !g_str_has_prefix(ds, "idx:") &&
        !g_str_has_prefix(ds, "california:") && !g_str_has_prefix(ds, "synthetic:") &&
        !g_str_has_prefix(ds, "leaf:"))
      problem(r, loc, what,
              "unknown dataset '%s' (valid: california:PATH, csv:PATH[,...], idx:DIR[,...], "
              "leaf:PATH[,...], synthetic:linear|logistic[,...])",
              ds);
    else if (path != NULL && !g_file_test(path, G_FILE_TEST_EXISTS))
      problem(r, loc, what, "file not found: %s (relative paths resolve against %s)", path,
              doc->dir);
    else {
      /* The option checks of the loader, so validate refuses what run would. */
      GError *e = NULL;
      if (!learn_data_spec_check(ds, &e))
        problem(r, loc, what, "%s", short_msg(e));
      g_clear_error(&e);
    }
    g_free(path);
  } else {
    r->bad = TRUE; /* missing: reported by the schema check */
  }
  g_free(ds);
  g_free(what);
  what = NULL;
  char *model = NULL;
  if (get_typed(r, "task", "model", &model, &loc, &what)) {
    GError *e1 = NULL;
    if (!learn_model_spec_check(model, &e1))
      problem(r, loc, what, "%s", short_msg(e1));
    g_clear_error(&e1);
    c->model = model;
  } else {
    c->model = g_strdup(c->dataset ? default_model(c->dataset) : "linear");
  }
  g_free(what);
  resolve_stored(r, c, "task"); /* epochs, batches, test_fraction, eval_nodes, eval_rows */
  if (get_typed(r, "task", "partition", &c->partition, &loc, &what)) {
    GError *e = NULL;
    if (!learn_partition_spec_check(c->partition, &e))
      problem(r, loc, what, "%s", short_msg(e));
    g_clear_error(&e);
  }
  g_free(what);
}

static void resolve_privacy(R *r, ScenConfig *c) {
  ScenLoc loc;
  char *what = NULL, *v = NULL;
  if (get_typed(r, "privacy", "trust", &v, &loc, &what)) {
    char **items = scen_split_list(v);
    c->trust = g_new0(PrivTrust, g_strv_length(items) + 1);
    for (guint i = 0; items[i]; i++)
      if (priv_trust_parse(items[i], &c->trust[c->n_trust], NULL))
        c->n_trust++;
    g_strfreev(items);
  }
  if (c->n_trust == 0) {
    g_free(c->trust);
    c->trust = g_new0(PrivTrust, 1);
    c->trust[0] = PRIV_TRUST_LDP;
    c->n_trust = 1;
  }
  g_free(v);
  g_free(what);
  /* sensitivity, alpha, delta, compare, path, radius, tightness, accountant */
  resolve_stored(r, c, "privacy");
}

/* [audit]: the victims (ids below n, or all) and what the audit needs of
 * the run: every trial must receive the same messages. */
static void resolve_audit(R *r, ScenConfig *c) {
  ScenLoc loc;
  char *what = NULL, *v = NULL;
  if (!get_typed(r, "audit", "victims", &v, &loc, &what)) {
    g_free(what); /* named even when the key is absent */
    if (get(r, "audit", "victims", &loc, &what) == NULL) {
      /* trials or attack without victims audited nothing, silently. */
      static const char *const keys[] = {"trials", "attack"};
      for (guint i = 0; i < G_N_ELEMENTS(keys); i++) {
        char *kw = NULL;
        ScenLoc kl;
        gboolean set = get(r, "audit", keys[i], &kl, &kw) != NULL;
        if (set)
          problem(r, kl, kw,
                  "[audit] %s without victims: the audit would run nothing; add victims = "
                  "ID;ID... or all",
                  keys[i]);
        g_free(kw);
        if (set)
          break;
      }
    }
    g_free(what);
    return;
  }
  c->audit = TRUE;
  resolve_stored(r, c, "audit"); /* trials */
  char *attack = get_string(r, "audit", "attack", "all", NULL);
  if (!audit_attack_parse(attack, &c->audit_attacks, NULL))
    c->audit_attacks = AUDIT_ATTACK_ALL;
  g_free(attack);
  char **items = g_str_equal(v, "all") ? NULL : scen_split_list(v);
  c->audit_victims = items ? g_new(guint, g_strv_length(items) + 1) : NULL;
  char *item = item_prefix(r, "audit", "victims");
  for (guint i = 0; items != NULL && items[i] != NULL; i++) {
    guint64 id = 0;
    guint named = 0;
    if (c->g != NULL && topo_graph_has_labels(c->g)) {
      /* A labelled graph's victims go by their labels (topologies.h). */
      GError *e = NULL;
      if (topo_graph_node_parse(c->g, items[i], "victims", SCEN_ERROR, SCEN_ERROR_INVALID, &named,
                                &e))
        id = named;
      else
        problem(r, loc, what, "%s%s", item, e->message);
      g_clear_error(&e);
    } else if (!g_ascii_string_to_unsigned(items[i], 10, 0, c->n ? c->n - 1 : G_MAXUINT, &id, NULL))
      problem(r, loc, what, "%s'%s' is not a node id below %u (or all)", item, items[i], c->n);
    c->audit_victims[c->n_audit_victims++] = (guint)id;
    /* A victim in every collusion set is an attacker in every audit: it
     * was skipped, silently, and a victims list of such nodes ran nothing. */
    gboolean outside = c->n_collusions == 0;
    for (guint k = 0; k < c->n_collusions && !outside; k++) {
      outside = TRUE;
      for (guint j = 0; j < c->collusions[k].n_nodes; j++)
        outside &= c->collusions[k].nodes[j] != (guint)id;
    }
    if (!outside)
      problem(r, loc, what,
              "victim %u is in every collusion set (an attacker): a victim must be another node",
              (guint)id);
  }
  g_free(item);
  g_strfreev(items);
  SimLatency lat = {.kind = SIM_LATENCY_CONSTANT};
  /* A schedule's W_t depend on the seed only, the same in every trial; a
   * random delay or loss would change the messages from trial to trial. */
  if (c->loss_p > 0.0 ||
      (c->latency && sim_latency_parse(c->latency, &lat, NULL) && lat.kind != SIM_LATENCY_CONSTANT))
    problem(r, loc, what,
            "an audit needs every trial to receive the same messages: a constant latency and "
            "no loss");
  g_free(v);
  g_free(what);
}

static void resolve_collusions(R *r, ScenConfig *c) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  GPtrArray *secs = scen_doc_list_sections(r->sc->doc);
  for (guint i = 0; i < secs->len; i++) {
    const char *s = g_ptr_array_index(secs, i);
    if (g_str_has_prefix(s, "collusion.") && s[10] != '\0')
      g_ptr_array_add(names, g_strdup(s));
  }
  g_ptr_array_unref(secs);
  if (r->pv && r->pv->axes)
    for (guint i = 0; i < r->pv->axes->len; i++) {
      const ScenSweepAxis *a = g_ptr_array_index(r->pv->axes, i);
      gboolean found = FALSE;
      for (guint j = 0; j < names->len && !found; j++)
        found = g_str_equal(g_ptr_array_index(names, j), a->section);
      if (!found && g_str_has_prefix(a->section, "collusion."))
        g_ptr_array_add(names, g_strdup(a->section));
    }
  if (names->len == 0) {
    c->n_collusions = 1;
    c->collusions = g_new0(ScenCollusion, 1);
    c->collusions[0].name = g_strdup("default");
    c->collusions[0].nodes = g_new0(guint, 1);
    c->collusions[0].n_nodes = 1;
    g_ptr_array_unref(names);
    return;
  }
  /* One section may hold several sets ("all", "0,5"): each is accounted on
   * its own, named NAME:SET ("every:17", "pairs:0+5"); a section of one set
   * keeps its plain NAME, as before. */
  GArray *cols = g_array_new(FALSE, TRUE, sizeof(ScenCollusion));
  for (guint i = 0; i < names->len; i++) {
    const char *sec = g_ptr_array_index(names, i);
    ScenLoc loc;
    char *what = NULL, *v = NULL;
    if (!get_typed(r, sec, "nodes", &v, &loc, &what)) {
      r->bad = TRUE;
      g_free(what);
      continue;
    }
    SpecAttackers sets;
    GError *e = NULL;
    spec_attackers_init(&sets);
    /* get_typed checked the grammar; the graph is checked here. */
    gboolean ok = spec_attackers_parse(&sets, v, SPEC_ATTACKERS_SEMICOLON, SCEN_ERROR,
                                       SCEN_ERROR_INVALID, &e) &&
                  topo_graph_resolve_attackers(c->g, &sets, NULL, SPEC_ATTACKERS_SEMICOLON,
                                               SCEN_ERROR, SCEN_ERROR_INVALID, &e) &&
                  (c->g == NULL ||
                   spec_attackers_check(&sets, c->n, NULL, SCEN_ERROR, SCEN_ERROR_INVALID, &e));
    if (!ok) {
      char *item = item_prefix(r, sec, "nodes");
      problem(r, loc, what, "%s%s", item, e->message);
      g_free(item);
    }
    g_clear_error(&e);
    guint n_sets = ok ? spec_attackers_n_sets(&sets, c->g ? c->n : 0) : 0;
    for (guint j = 0; j < n_sets; j++) {
      guint scratch, size;
      const guint *m = spec_attackers_members(&sets, j, &scratch, &size);
      char *label = topo_graph_attackers_label(c->g, &sets, j);
      ScenCollusion col = {.name = n_sets == 1 && !sets.all
                                       ? g_strdup(sec + 10)
                                       : g_strdup_printf("%s:%s", sec + 10, label),
                           .nodes = g_memdup2(m, size * sizeof(guint)),
                           .n_nodes = size};
      g_array_append_val(cols, col);
      g_free(label);
    }
    spec_attackers_clear(&sets);
    g_free(v);
    g_free(what);
  }
  c->n_collusions = cols->len;
  c->collusions = (ScenCollusion *)g_array_free(cols, FALSE);
  g_ptr_array_unref(names);
}

/* [simulation] name: the results folder is results/NAME, so a name is a
 * name, not a path: no '/', '\\', "..", leading '.', control character or
 * emptiness, or it could write outside the results folder or hide there. The
 * default (the file's base name) is held to the same rule. */
static void check_name(R *r, const char *name, gboolean given) {
  const char *why = NULL;
  if (name[0] == '\0')
    why = "is empty";
  else if (strchr(name, '/') != NULL || strchr(name, '\\') != NULL)
    why = "holds a path separator ('/' or '\\')";
  else if (strstr(name, "..") != NULL)
    why = "holds \"..\"";
  else if (name[0] == '.')
    why = "starts with '.'";
  else if (!g_utf8_validate(name, -1, NULL))
    why = "is not UTF-8";
  for (const char *p = name; why == NULL && *p != '\0'; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      why = "holds a control character";
  if (why == NULL)
    return;
  char *shown = spec_escape(name, -1);
  problem_key(r, "simulation", "name",
              "'%s' %s: the name names the results folder (results/NAME), it is not a path%s",
              shown, why,
              given ? " (give a plain name such as my-run; [output] dir = PATH chooses the folder)"
                    : " (it comes from the file's name: set simulation.name to a plain name)");
  g_free(shown);
}

/* T from [simulation] rounds or the task's k x b, then b and the
 * evaluation's schedule. */
static void resolve_steps(R *r, ScenConfig *c) {
  ScenLoc loc;
  char *what = NULL;
  gboolean rounds_given = FALSE;
  guint64 rounds = get_u64(r, "simulation", "rounds", 0, &rounds_given);
  get(r, "simulation", "rounds", &loc, &what);
  if (c->has_task) {
    guint64 kb = (guint64)c->epochs * c->batches;
    if (kb > 10000000) {
      problem(r, loc, "task", "epochs x batches = %" G_GUINT64_FORMAT " steps: at most 10^7", kb);
      kb = 1;
    }
    if (rounds_given && rounds != kb)
      problem(r, loc, what,
              "%" G_GUINT64_FORMAT
              " rounds but the task has epochs x batches = %u x %u = %" G_GUINT64_FORMAT
              " steps (leave rounds out, or make them agree)",
              rounds, c->epochs, c->batches, kb);
    c->rounds = (guint)kb;
  } else {
    c->rounds = rounds_given ? (guint)rounds : 10;
  }
  g_free(what);
  what = NULL;
  c->b = (guint)get_u64(r, "privacy", "participation_interval", c->has_task ? c->batches : 1, NULL);
  if (c->b == 0 || c->rounds % c->b != 0)
    problem_key(r, "privacy", "participation_interval",
                "b = %u does not divide T = %u rounds (participation every b steps needs T = k "
                "x b)",
                c->b, c->rounds);
  g_free(what);
  c->eval_every = (guint)get_u64(r, "task", "eval_every", MAX(1, c->rounds / 20), NULL);
}

/* sigma or mu (not both; mu only where it calibrates), clip and lr. */
static void resolve_noise(R *r, ScenConfig *c) {
  resolve_stored(r, c, "protocol"); /* sigma, mu, clip, lr */
  gboolean sigma_given = given(r, "protocol", "sigma"), mu_given = given(r, "protocol", "mu");
  if (c->nonprivate) {
    c->sigma = 0.0; /* sigma and mu do not apply */
    return;
  }
  if (!mu_given)
    return;
  c->has_mu = TRUE;
  if (sigma_given) {
    ScenLoc sloc;
    char *swhat = NULL;
    get(r, "protocol", "sigma", &sloc, &swhat);
    problem_key(r, "protocol", "mu", "give sigma or mu, not both (sigma is set at %s:%u)",
                sloc.file, sloc.line);
    g_free(swhat);
  } else if (c->shape.kind < 0 || c->shape.kind == PRIV_PROTOCOL_DECOR) {
    problem_key(r, "protocol", "mu",
                "calibrating the noise from mu is defined for dsgd, muffliato, mfdsgd, antipgd "
                "and mafalda; give protocol.sigma for %s",
                c->proto_name ? c->proto_name : "this protocol");
  }
}

/* The accounting path: the same plan as `dpgossip account --path auto`;
 * an asked path the plan does not cover is a problem. The local path
 * takes what `dpgossip account --path local` takes, on its own validation
 * (scen_account_check_path). */
static void resolve_path(R *r, ScenConfig *c) {
  ProtoAccountCase pc = {.known = c->shape.kind >= 0,
                         .mode = c->mode_parsed.kind,
                         .loss = c->loss_p,
                         .recordable = scen_account_recordable(c)};
  const char *why = NULL;
  gboolean covered = proto_account_plan(&pc, &why) == PROTO_ACCOUNT_STRUCTURED;
  switch (c->path_requested) {
  case SCEN_PATH_AUTO:
    c->path = covered ? SCEN_PATH_STRUCTURED : SCEN_PATH_OBSERVER;
    c->path_reason = why;
    break;
  case SCEN_PATH_STRUCTURED:
    c->path = SCEN_PATH_STRUCTURED;
    c->path_reason = "asked: privacy.path = structured";
    if (!covered)
      problem_key(r, "privacy", "path",
                  "the structured path covers dsgd, muffliato, decor, mfdsgd, antipgd, mafalda "
                  "and nonprivate in sync mode without message loss, dsgd and muffliato in "
                  "deadline and stale mode, mfdsgd and mafalda in deadline mode; this run is %s "
                  "in mode %s (%s): use auto or observer",
                  c->proto_name ? c->proto_name : "?", c->mode ? c->mode : "?",
                  why + strlen("auto: "));
    break;
  case SCEN_PATH_LOCAL:
    c->path = SCEN_PATH_LOCAL;
    c->path_reason = "asked: privacy.path = local";
    if (c->radius == 0 && c->tightness == 0) {
      problem_key(r, "privacy", "path",
                  "privacy.path = local needs privacy.radius (the hops around each collusion "
                  "set whose victims are bounded, >= 1) or privacy.tightness (grow the radius "
                  "until every victim's mu / mu_lower is at most it)");
    } else if (c->radius > 0 && c->tightness > 0) {
      problem_key(r, "privacy", "tightness",
                  "give privacy.radius or privacy.tightness, not both (tightness grows the "
                  "radius from 1)");
    } else if (!r->bad && c->proto_name && proto_registry_lookup(c->proto_name) != NULL) {
      /* The request is whole only without earlier problems; an installed
       * plugin's (never on the structured path: the observer path's ball)
       * is checked by the run's own job, validate loads no plugin. */
      GError *e = NULL;
      if (!scen_account_check_path(c, &e))
        problem_key(r, "privacy", "path",
                    "`dpgossip account --path local` with this run's options refuses it: %s",
                    e->message);
      g_clear_error(&e);
    }
    break;
  default:
    c->path = c->path_requested;
    c->path_reason = c->path == SCEN_PATH_OBSERVER ? "asked: privacy.path = observer"
                                                   : "asked: privacy.path = none";
  }
  if (c->tightness > 0 && c->path_requested != SCEN_PATH_LOCAL)
    problem_key(r, "privacy", "tightness",
                "privacy.tightness is for privacy.path = local (certified bounds)");
  if (c->radius > 0 && c->path_requested != SCEN_PATH_LOCAL)
    problem_key(r, "privacy", "radius",
                "privacy.radius is for privacy.path = local (certified bounds)");
}

/* [output]: the folder (results/NAME next to the file by default) and the
 * figures' format, resolution and panel size. */
static void resolve_output(R *r, ScenConfig *c) {
  const ScenDoc *doc = r->sc->doc;
  ScenLoc oloc;
  char *owhat = NULL, *dir = NULL;
  if (get_typed(r, "output", "dir", &dir, &oloc, &owhat)) {
    c->out_dir = abs_path(doc, dir);
  } else {
    char *rel = g_build_filename("results", c->name, NULL);
    c->out_dir = abs_path(doc, rel);
    g_free(rel);
  }
  g_free(dir);
  g_free(owhat);
  owhat = NULL;
  resolve_stored(r, c, "output"); /* plots, figure_format, figure_dpi */
  c->panel_w = 420;
  c->panel_h = 290;
  char *fsize = NULL;
  if (get_typed(r, "output", "figure_size", &fsize, &oloc, &owhat)) {
    GError *e = NULL;
    if (!plot_parse_size(fsize, &c->panel_w, &c->panel_h, &e))
      problem(r, oloc, owhat, "%s", e->message);
    g_clear_error(&e);
  }
  g_free(owhat);
  g_free(fsize);
}

ScenConfig *scen_config_resolve(ScenScenario *sc, const ScenPointValues *pv, ScenProblems *ps) {
  R r = {sc, pv, ps, FALSE, g_ptr_array_new_with_free_func(g_free)};
  ScenConfig *c = g_new0(ScenConfig, 1);
  char *base = g_path_get_basename(sc->doc->path);
  if (g_str_has_suffix(base, ".ini"))
    base[strlen(base) - 4] = '\0';
  gboolean name_given = FALSE;
  c->name = get_string(&r, "simulation", "name", base, &name_given);
  g_free(base);
  check_name(&r, c->name, name_given);
  resolve_stored(&r, c, "simulation"); /* seed, compute_ms */

  resolve_network(&r, c);
  resolve_topology(&r, c);
  resolve_protocol(&r, c);
  resolve_task(&r, c);
  resolve_privacy(&r, c);
  resolve_collusions(&r, c);
  resolve_audit(&r, c);
  resolve_steps(&r, c);
  resolve_noise(&r, c);
  resolve_path(&r, c);
  resolve_output(&r, c);
  if (!r.bad)
    set_inputs(&r, c);
  g_ptr_array_unref(r.inputs);
  if (r.bad) {
    scen_config_free(c);
    return NULL;
  }
  return c;
}

/* ---- Back to text ---- */

char *scen_format_double(double x) {
  if (isnan(x))
    return g_strdup("nan");
  if (isinf(x))
    return g_strdup(x > 0 ? "inf" : "-inf");
  char buf[G_ASCII_DTOSTR_BUF_SIZE], fmt[8];
  int prec = 1;
  for (; prec < 17; prec++) {
    g_snprintf(fmt, sizeof fmt, "%%.%dg", prec);
    g_ascii_formatd(buf, sizeof buf, fmt, x);
    if (g_ascii_strtod(buf, NULL) == x)
      break;
  }
  /* 10 rather than 1e+01: enough digits for the integer part (up to 1e17). */
  double mag = fabs(x);
  if (mag >= 1.0 && mag < 1e17)
    prec = MAX(prec, (int)floor(log10(mag)) + 1);
  g_snprintf(fmt, sizeof fmt, "%%.%dg", prec);
  g_ascii_formatd(buf, sizeof buf, fmt, x);
  return g_strdup(buf);
}

/* Escapes what the file syntax would eat: '#' after a blank, a leading '#',
 * and backslashes. */
static char *escape_value(const char *v) {
  GString *s = g_string_new(NULL);
  for (const char *p = v; *p; p++) {
    if (*p == '\\')
      g_string_append(s, "\\\\");
    else if (*p == '#')
      g_string_append(s, "\\#");
    else if (*p == '\n')
      g_string_append(s, "\\n");
    else
      g_string_append_c(s, *p);
  }
  return g_string_free(s, FALSE);
}

static void kv(GString *s, const char *key, const char *value) {
  char *e = escape_value(value);
  g_string_append_printf(s, "%s = %s\n", key, e);
  g_free(e);
}

static void kv_d(GString *s, const char *key, double x) {
  char *v = scen_format_double(x);
  g_string_append_printf(s, "%s = %s\n", key, v);
  g_free(v);
}

/* ---- The rows' writers ---- */

/* Row @k's value in its field of @c as the resolved file writes it, or NULL
 * when it has none there: unset, or the default of an IF_CHANGED key.
 * (g_free) */
static char *stored_text(const ScenConfig *c, const ScenKeyInfo *k) {
  const void *f = (const char *)c + k->offset;
  char *v = NULL;
  switch (k->store) {
  case SCEN_STORE_NONE:
    return NULL;
  case SCEN_STORE_STRING:
    v = g_strdup(*(char *const *)f);
    break;
  case SCEN_STORE_UINT:
    v = g_strdup_printf("%u", *(const guint *)f);
    break;
  case SCEN_STORE_U64:
    v = g_strdup_printf("%" G_GUINT64_FORMAT, *(const guint64 *)f);
    break;
  case SCEN_STORE_DOUBLE:
    v = scen_format_double(*(const double *)f);
    break;
  case SCEN_STORE_BOOL:
    v = g_strdup(*(const gboolean *)f ? "true" : "false");
    break;
  case SCEN_STORE_CHOICE: {
    char **names = g_strsplit(k->choices, "|", -1);
    gint at = *(const gint *)f;
    g_assert(at >= 0 && at < (gint)g_strv_length(names));
    v = g_strdup(names[at]);
    g_strfreev(names);
    break;
  }
  }
  if (v != NULL && (k->flags & SCEN_KEY_IF_CHANGED)) {
    /* The default as stored: the row's text, or zero when it has none. */
    ScenConfig d = {0};
    const ScenKeyInfo dk = {.store = k->store, .offset = k->offset, .choices = k->choices};
    if (k->def != NULL)
      store_text(&d, &dk, k->def);
    char *dv = k->store == SCEN_STORE_STRING && k->def == NULL ? NULL : stored_text(&d, &dk);
    if (dv != NULL && g_str_equal(dv, v))
      g_clear_pointer(&v, g_free);
    g_free(dv);
    if (k->store == SCEN_STORE_STRING)
      g_free(*(char **)((char *)&d + k->offset));
  }
  return v;
}

void scen_write_rounds(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  if (!c->has_task) /* else it is epochs x batches, written there */
    g_string_append_printf(out, "%s = %u\n", k->key, c->rounds);
}

void scen_write_sigma(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  if (!c->has_mu) /* else sigma is calibrated from mu */
    kv_d(out, k->key, c->sigma);
}

void scen_write_mu(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  if (c->has_mu)
    kv_d(out, k->key, c->mu);
}

const char *scen_trust_choices(void) {
  static const char *names = NULL;
  if (g_once_init_enter(&names)) {
    char *list = priv_trust_list("|", "|");
    g_once_init_leave(&names, g_intern_string(list));
    g_free(list);
  }
  return names;
}

void scen_write_trust(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < c->n_trust; i++)
    g_string_append_printf(t, "%s%s", i ? ";" : "", priv_trust_name(c->trust[i]));
  kv(out, k->key, t->str);
  g_string_free(t, TRUE);
}

/* Node @id as the scenario names it: its label on a labelled graph (the
 * resolved file must resolve to the same nodes), else its id. */
static void write_node(GString *out, const ScenConfig *c, guint id, gboolean first) {
  if (!first)
    g_string_append_c(out, ';');
  if (c->g != NULL && topo_graph_has_labels(c->g))
    g_string_append(out, topo_graph_node_label(c->g, id));
  else
    g_string_append_printf(out, "%u", id);
}

/* Every collusion set as a section of its own, its nodes expanded. */
void scen_write_collusions(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  for (guint i = 0; i < c->n_collusions; i++) {
    g_string_append_printf(out, "\n[collusion.%s]\n%s = ", c->collusions[i].name, k->key);
    for (guint j = 0; j < c->collusions[i].n_nodes; j++)
      write_node(out, c, c->collusions[i].nodes[j], j == 0);
    g_string_append_c(out, '\n');
  }
}

void scen_write_victims(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  g_string_append_printf(out, "%s = ", k->key);
  for (guint i = 0; i < c->n_audit_victims; i++)
    write_node(out, c, c->audit_victims[i], i == 0);
  g_string_append_printf(out, "%s\n", c->audit_victims ? "" : "all");
}

void scen_write_attack(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  kv(out, k->key,
     c->audit_attacks == AUDIT_ATTACK_ALL ? "all" : audit_attack_name(c->audit_attacks));
}

/* Not the folder: a run writes it where it is asked to. */
void scen_write_out_dir(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  (void)c;
  g_string_append_printf(out, "# %s is where this file was written; give --out to choose.\n",
                         k->key);
}

void scen_write_figure_size(GString *out, const ScenConfig *c, const ScenKeyInfo *k) {
  if (c->panel_w == 420 && c->panel_h == 290)
    return; /* the default, unwritten (older resolved files stay byte-identical) */
  char *v = g_strdup_printf("%.17gx%.17g", c->panel_w, c->panel_h);
  kv(out, k->key, v);
  g_free(v);
}

/* Whether [@section] is in @c's resolved file: [task] with a task, [audit]
 * with victims; every [collusion.NAME] is written by its row's hook. */
static gboolean section_written(const ScenConfig *c, const char *section) {
  if (g_str_equal(section, "task"))
    return c->has_task;
  if (g_str_equal(section, "audit"))
    return c->audit;
  return TRUE;
}

char *scen_config_to_ini(const ScenConfig *c) {
  GString *s = g_string_new("# Resolved by dpgossip: every default filled in, paths absolute.\n"
                            "# Running this file again reproduces the run byte for byte.\n");
  guint n;
  const ScenKeyInfo *keys = scen_schema_keys(&n);
  const char *sec = NULL;
  for (guint i = 0; i < n; i++) {
    const ScenKeyInfo *k = &keys[i];
    if (!section_written(c, k->section))
      continue;
    if ((sec == NULL || !g_str_equal(sec, k->section)) && !g_str_equal(k->section, "collusion.*"))
      g_string_append_printf(s, "\n[%s]\n", k->section);
    sec = k->section;
    if (k->write != NULL) {
      k->write(s, c, k);
    } else {
      char *v = stored_text(c, k);
      if (v != NULL)
        kv(s, k->key, v);
      g_free(v);
    }
  }
  /* The inputs by content: the keys above name files by path only, and a
   * resumed sweep takes a point as finished when its resolved file is the
   * same text, so a changed input makes it run again. */
  if (c->inputs != NULL && c->inputs[0] != NULL) {
    g_string_append(s, "\n# The files read, by SHA-256 (sha256sum's lines; a folder's over its "
                       "files):\n");
    for (guint i = 0; c->inputs[i] != NULL; i++)
      g_string_append_printf(s, "# sha256 %s\n", c->inputs[i]);
  }
  return g_string_free(s, FALSE);
}
