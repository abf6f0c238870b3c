/*
 * learning/leaf.c: LEAF's JSON datasets (FEMNIST and the others of Caldas
 * et al., "LEAF: A Benchmark for Federated Settings"): one or several files
 *   {"users": [u, ...], "num_samples": [n, ...],
 *    "user_data": {u: {"x": [[f, ...], ...], "y": [label, ...]}, ...}}
 * read into one dataset whose records keep their user (FEMNIST: writer).
 *
 * json-glib builds the whole document; positions of the arrays are recorded
 * while it parses (the "array-end" signal, when json_parser_get_current_line
 * is valid) so that an error in the content names FILE:LINE like the CSV
 * and IDX loaders do.
 *
 * Before json-glib sees a file: the memory its document tree will take
 * (LEAF_BYTES_PER_VALUE per comma-separated value), its nesting depth (json-glib
 * recurses: a deep file would overflow the stack) and that it holds one
 * document. json-glib keeps the last of duplicate keys; a duplicate would
 * silently drop records, so it is refused, as is a user listed twice (one
 * writer's records would land on two nodes, which per-node accounting does
 * not assume).
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "learning/internal.h"

/* Memory per value of a LEAF file while it is parsed and loaded: json-glib's
 * node, its array slot and the GValue, then the double kept (measured:
 * about 100 bytes per value of a FEMNIST-like file, peak RSS). */
#define LEAF_BYTES_PER_VALUE 128
/* LEAF nests 4 deep (top, user_data, user, x rows). */
#define LEAF_MAX_DEPTH 16

typedef struct {
  GHashTable *lines;   /* JsonArray * -> line where it ends */
  GHashTable *members; /* JsonObject * -> members parsed so far */
  guint dup_line;      /* line of the first duplicate key; 0: none */
  char *dup_key;
} Positions;

static void on_array_end(JsonParser *parser, JsonArray *array, gpointer data) {
  Positions *pos = data;
  g_hash_table_insert(pos->lines, array, GUINT_TO_POINTER(json_parser_get_current_line(parser)));
}

/* json-glib replaces a duplicate member: the object then has fewer members
 * than were parsed into it. */
static void on_object_member(JsonParser *parser, JsonObject *object, const char *name,
                             gpointer data) {
  Positions *pos = data;
  guint seen = GPOINTER_TO_UINT(g_hash_table_lookup(pos->members, object)) + 1;
  g_hash_table_insert(pos->members, object, GUINT_TO_POINTER(seen));
  if (pos->dup_line == 0 && seen > json_object_get_size(object)) {
    pos->dup_line = MAX(1u, json_parser_get_current_line(parser));
    pos->dup_key = g_strdup(name);
  }
}

static guint line_of(const Positions *pos, JsonArray *a) {
  return GPOINTER_TO_UINT(g_hash_table_lookup(pos->lines, a));
}

/* The records of one file appended to feats/labels/users (GArrays). */
typedef struct {
  GArray *feats;  /* double */
  GArray *labels; /* double */
  GArray *user;   /* guint */
  GPtrArray *names;
  gsize n_features; /* 0 until the first record */
  gsize limit;      /* 0: no limit on the records */
  GHashTable *seen; /* user name -> file that lists it (both borrowed) */
} Acc;

/* LEARN_ERROR_FORMAT "PATH:LINE: ..." ("PATH: ..." for line 0; always FALSE). */
#define bad(error, path, line, ...)                                                                \
  spec_error_at(error, LEARN_ERROR, LEARN_ERROR_FORMAT, path, line, __VA_ARGS__)

static gboolean read_user(const char *path, const Positions *pos, const char *name, JsonNode *node,
                          guint line, Acc *acc, GError **error) {
  char *uname = spec_escape(name, -1);
  gboolean ok = FALSE;
  JsonObject *u = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
  JsonNode *xn = u ? json_object_get_member(u, "x") : NULL;
  JsonNode *yn = u ? json_object_get_member(u, "y") : NULL;
  if (xn == NULL || yn == NULL || !JSON_NODE_HOLDS_ARRAY(xn) || !JSON_NODE_HOLDS_ARRAY(yn)) {
    bad(error, path, line, "user '%s' needs arrays \"x\" and \"y\"", uname);
    goto out;
  }
  JsonArray *x = json_node_get_array(xn), *y = json_node_get_array(yn);
  guint n = json_array_get_length(x);
  if (json_array_get_length(y) != n) {
    bad(error, path, line_of(pos, y), "user '%s' has %u images but %u labels", uname, n,
        json_array_get_length(y));
    goto out;
  }
  guint index = acc->names->len;
  g_ptr_array_add(acc->names, g_strdup(name));
  g_hash_table_insert(acc->seen, acc->names->pdata[index], (gpointer)path);
  for (guint i = 0; i < n; i++) {
    if (acc->limit > 0 && acc->labels->len >= acc->limit)
      break;
    JsonNode *rn = json_array_get_element(x, i), *ln = json_array_get_element(y, i);
    if (!JSON_NODE_HOLDS_ARRAY(rn)) {
      bad(error, path, line_of(pos, x), "user '%s': x[%u] is not an array of numbers", uname, i);
      goto out;
    }
    JsonArray *row = json_node_get_array(rn);
    guint rline = line_of(pos, row), len = json_array_get_length(row);
    if (acc->n_features == 0) {
      if (len == 0) {
        bad(error, path, rline, "user '%s': x[%u] is empty", uname, i);
        goto out;
      }
      acc->n_features = len;
    }
    if (len != acc->n_features) {
      bad(error, path, rline,
          "user '%s': x[%u] has %u features, expected %" G_GSIZE_FORMAT " (as the first image)",
          uname, i, len, acc->n_features);
      goto out;
    }
    for (guint k = 0; k < len; k++) {
      JsonNode *v = json_array_get_element(row, k);
      double f = JSON_NODE_HOLDS_VALUE(v) && (json_node_get_value_type(v) == G_TYPE_DOUBLE ||
                                              json_node_get_value_type(v) == G_TYPE_INT64)
                     ? json_node_get_double(v)
                     : NAN;
      if (!isfinite(f)) {
        bad(error, path, rline, "user '%s': x[%u][%u] is not a finite number", uname, i, k);
        goto out;
      }
      g_array_append_val(acc->feats, f);
    }
    double label = JSON_NODE_HOLDS_VALUE(ln) && json_node_get_value_type(ln) == G_TYPE_INT64
                       ? (double)json_node_get_int(ln)
                       : -1.0;
    if (label < 0.0 || label > 1 << 20) {
      bad(error, path, line_of(pos, y), "user '%s': y[%u] is not a label (an integer in 0..%d)",
          uname, i, 1 << 20);
      goto out;
    }
    g_array_append_val(acc->labels, label);
    g_array_append_val(acc->user, index);
  }
  ok = TRUE;
out:
  g_free(uname);
  return ok;
}

/* The checks of a file's text before it is parsed: FALSE (FILE:LINE where
 * there is one) when it would not fit in memory, nests too deep or holds
 * more than one document. */
static gboolean check_text(const char *path, GError **error) {
  GError *local = NULL;
  GMappedFile *map = g_mapped_file_new(path, FALSE, &local);
  if (map == NULL) {
    char *esc = spec_escape(local->message, -1);
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_IO, "%s", esc);
    g_free(esc);
    g_error_free(local);
    return FALSE;
  }
  const char *text = g_mapped_file_get_contents(map);
  gsize len = g_mapped_file_get_length(map);
  char *what = spec_escape(path, -1);
  char *label = g_strdup_printf("LEAF file %s", what);
  /* Every value but the last of an array is followed by a comma: commas
   * inside strings only overestimate. */
  gsize values = 1;
  for (gsize i = 0; i < len; i++)
    values += text[i] == ',';
  gboolean ok = spec_check_memory(spec_size_add(len, spec_size_mul(values, LEAF_BYTES_PER_VALUE)),
                                  label,
                                  "split it into smaller files in one folder (leaf:FOLDER reads "
                                  "them one at a time)",
                                  LEARN_ERROR, LEARN_ERROR_INVALID_ARGUMENT, error);
  gsize end = 0;
  if (ok && !spec_json_depth_ok(text, len, LEAF_MAX_DEPTH))
    ok = bad(error, path, 0, "nests arrays and objects more than %d deep; not a LEAF file",
             LEAF_MAX_DEPTH);
  else if (ok && (end = spec_json_first_value_end(text, len)) < len) {
    guint line = 1;
    for (gsize i = 0; i < end; i++)
      line += text[i] == '\n';
    ok = bad(error, path, line, "text after the end of the JSON document (one document per file)");
  }
  g_free(label);
  g_free(what);
  g_mapped_file_unref(map);
  return ok;
}

static gboolean read_file(const char *path, Acc *acc, GError **error) {
  if (!check_text(path, error))
    return FALSE;
  JsonParser *parser = json_parser_new_immutable();
  Positions pos = {g_hash_table_new(g_direct_hash, g_direct_equal),
                   g_hash_table_new(g_direct_hash, g_direct_equal), 0, NULL};
  g_signal_connect(parser, "array-end", G_CALLBACK(on_array_end), &pos);
  g_signal_connect(parser, "object-member", G_CALLBACK(on_object_member), &pos);
  GError *local = NULL;
  gboolean ok = FALSE;
  if (!json_parser_load_from_mapped_file(parser, path, &local)) {
    /* json-glib names the file and LINE:COLUMN of a syntax error itself */
    char *esc = spec_escape(local->message, -1), *file = spec_escape(path, -1);
    g_set_error(error, LEARN_ERROR,
                local->domain == G_FILE_ERROR ? LEARN_ERROR_IO : LEARN_ERROR_FORMAT, "%s%s%s",
                g_str_has_prefix(local->message, path) ? "" : file,
                g_str_has_prefix(local->message, path) ? "" : ": ", esc);
    g_free(esc);
    g_free(file);
    g_error_free(local);
    goto out;
  }
  if (pos.dup_line > 0) {
    char *key = spec_escape(pos.dup_key, -1);
    bad(error, path, pos.dup_line, "key '%s' appears twice in one object", key);
    g_free(key);
    goto out;
  }
  JsonNode *root = json_parser_get_root(parser);
  JsonObject *top = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
  JsonNode *un = top ? json_object_get_member(top, "users") : NULL;
  JsonNode *dn = top ? json_object_get_member(top, "user_data") : NULL;
  if (un == NULL || dn == NULL || !JSON_NODE_HOLDS_ARRAY(un) || !JSON_NODE_HOLDS_OBJECT(dn)) {
    bad(error, path, 1,
        "not a LEAF file: the top object needs \"users\" (an array) and "
        "\"user_data\" (an object)");
    goto out;
  }
  JsonArray *users = json_node_get_array(un);
  JsonObject *data = json_node_get_object(dn);
  for (guint i = 0; i < json_array_get_length(users); i++) {
    if (acc->limit > 0 && acc->labels->len >= acc->limit)
      break;
    const char *name = json_array_get_string_element(users, i);
    JsonNode *node = name ? json_object_get_member(data, name) : NULL;
    if (node == NULL) {
      char *esc = name ? spec_escape(name, -1) : g_strdup("(not a string)");
      bad(error, path, line_of(&pos, users), "users[%u] '%s' has no entry in \"user_data\"", i,
          esc);
      g_free(esc);
      goto out;
    }
    const char *first = g_hash_table_lookup(acc->seen, name);
    if (first != NULL) {
      char *esc = spec_escape(name, -1), *where = spec_escape(first, -1);
      bad(error, path, line_of(&pos, users),
          "user '%s' is listed twice (first in %s): one writer's records would be dealt to two "
          "nodes",
          esc, where);
      g_free(esc);
      g_free(where);
      goto out;
    }
    if (!read_user(path, &pos, name, node, line_of(&pos, users), acc, error))
      goto out;
  }
  ok = TRUE;
out:
  g_hash_table_destroy(pos.lines);
  g_hash_table_destroy(pos.members);
  g_free(pos.dup_key);
  g_object_unref(parser);
  return ok;
}

static gint cmp_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

LearnDataset *learn_dataset_load_leaf(const char *path, gsize limit, guint **user_of,
                                      GPtrArray **user_names, GError **error) {
  g_return_val_if_fail(path != NULL, NULL);
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    GDir *dir = g_dir_open(path, 0, error);
    if (dir == NULL) {
      g_ptr_array_free(files, TRUE);
      return NULL;
    }
    const char *name;
    while ((name = g_dir_read_name(dir)) != NULL)
      if (g_str_has_suffix(name, ".json"))
        g_ptr_array_add(files, g_build_filename(path, name, NULL));
    g_dir_close(dir);
    /* directory order is the file system's: sort for determinism */
    g_ptr_array_sort(files, cmp_names);
  } else {
    g_ptr_array_add(files, g_strdup(path));
  }
  Acc acc = {g_array_new(FALSE, FALSE, sizeof(double)),
             g_array_new(FALSE, FALSE, sizeof(double)),
             g_array_new(FALSE, FALSE, sizeof(guint)),
             g_ptr_array_new_with_free_func(g_free),
             0,
             limit,
             g_hash_table_new(g_str_hash, g_str_equal)};
  LearnDataset *ds = NULL;
  if (files->len == 0) {
    char *esc = spec_escape(path, -1);
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_EMPTY, "%s: no .json file in this folder", esc);
    g_free(esc);
    goto out;
  }
  for (guint f = 0; f < files->len; f++)
    if (!read_file(files->pdata[f], &acc, error))
      goto out;
  gsize n = acc.labels->len;
  if (n == 0) {
    char *esc = spec_escape(path, -1);
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_EMPTY, "%s: no record in the LEAF data", esc);
    g_free(esc);
    goto out;
  }
  double top = 0.0;
  for (gsize i = 0; i < n; i++)
    top = MAX(top, g_array_index(acc.labels, double, i));
  ds = learn_dataset_alloc(n, acc.n_features, MAX(2u, (guint)top + 1), error);
  if (ds == NULL)
    goto out;
  memcpy(ds->features, acc.feats->data, n * acc.n_features * sizeof(double));
  memcpy(ds->targets, acc.labels->data, n * sizeof(double));
  ds->n_users = acc.names->len;
  ds->users = g_memdup2(acc.user->data, n * sizeof(guint));
  if (user_of != NULL)
    *user_of = (guint *)g_array_free(acc.user, FALSE), acc.user = NULL;
  if (user_names != NULL)
    *user_names = acc.names, acc.names = NULL;
out:
  g_array_free(acc.feats, TRUE);
  g_array_free(acc.labels, TRUE);
  if (acc.user != NULL)
    g_array_free(acc.user, TRUE);
  if (acc.names != NULL)
    g_ptr_array_free(acc.names, TRUE);
  g_hash_table_destroy(acc.seen);
  g_ptr_array_free(files, TRUE);
  return ds;
}
