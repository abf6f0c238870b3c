/*
 * protocols/plugin_load.c: protocol plugins loaded at run time with GModule
 * (docs/plugins.md): one file, a protocol found by name on the
 * search path, every plugin of the search path; and the table that keeps
 * the whole plugin API linked into any program able to load plugins.
 */
#define G_LOG_DOMAIN "dpg-protocols"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gmodule.h>

#include "protocols/internal.h"

/* Set by the build (top-level CMakeLists.txt, install section). */
#ifndef DPG_PLUGIN_INSTALL_DIR
#define DPG_PLUGIN_INSTALL_DIR "/usr/local/lib/dpgossip/plugins"
#endif
#ifndef DPG_PLUGIN_RELATIVE_DIR /* relative to the installation prefix */
#define DPG_PLUGIN_RELATIVE_DIR "lib/dpgossip/plugins"
#endif
#ifndef DPG_BIN_RELATIVE_DIR
#define DPG_BIN_RELATIVE_DIR "bin"
#endif
#ifndef DPG_LIB_RELATIVE_DIR
#define DPG_LIB_RELATIVE_DIR "lib"
#endif

/*
 * Plugins resolve these from the program that loads them (linked with
 * -Wl,--export-dynamic). A static library only contributes the objects a
 * program references, so without this table a plugin calling, say,
 * sim_linvec_dot would fail to load from a dpgossip that never calls it.
 * The list is the plugin API: protocols/plugin.h and the parts of sim/sim.h
 * it documents (tests/plugins/test_load.c checks it against the headers).
 */
typedef void (*AnyFunc)(void);
__attribute__((used)) static const AnyFunc plugin_api[] = {
    /* protocols/plugin.h */
    (AnyFunc)proto_params_get_int,
    (AnyFunc)proto_params_get_double,
    (AnyFunc)proto_params_get_string,
    (AnyFunc)proto_params_get_bool,
    (AnyFunc)proto_params_is_set,
    (AnyFunc)proto_context_n_nodes,
    (AnyFunc)proto_context_steps,
    (AnyFunc)proto_context_epochs,
    (AnyFunc)proto_context_batches,
    (AnyFunc)proto_context_sigma,
    (AnyFunc)proto_context_clip,
    (AnyFunc)proto_context_lr,
    (AnyFunc)proto_context_step_size,
    (AnyFunc)proto_context_dim,
    (AnyFunc)proto_context_space,
    (AnyFunc)proto_context_noise,
    (AnyFunc)proto_context_run_state,
    (AnyFunc)proto_context_seed,
    (AnyFunc)proto_context_gossip_is_static,
    (AnyFunc)proto_context_gossip_dense,
    (AnyFunc)proto_context_node,
    (AnyFunc)proto_node_id,
    (AnyFunc)proto_node_context,
    (AnyFunc)proto_node_state,
    (AnyFunc)proto_node_step,
    (AnyFunc)proto_node_now,
    (AnyFunc)proto_node_model,
    (AnyFunc)proto_node_in_neighbors,
    (AnyFunc)proto_node_out_neighbors,
    (AnyFunc)proto_node_local_step,
    (AnyFunc)proto_node_noise_local,
    (AnyFunc)proto_node_edge_secret,
    (AnyFunc)proto_node_exchange,
    (AnyFunc)proto_node_exchange_each,
    (AnyFunc)proto_node_send,
    (AnyFunc)proto_node_set_timer,
    (AnyFunc)proto_node_cancel_timer,
    (AnyFunc)proto_node_done,
    (AnyFunc)proto_average_inputs,
    (AnyFunc)proto_node_add_local_noise,
    (AnyFunc)proto_default_on_start,
    (AnyFunc)proto_default_on_gathered,
    /* sim/linvec.h: linvecs and their space */
    (AnyFunc)sim_lin_space_new,
    (AnyFunc)sim_lin_space_ref,
    (AnyFunc)sim_lin_space_unref,
    (AnyFunc)sim_lin_space_n_nodes,
    (AnyFunc)sim_lin_space_dim,
    (AnyFunc)sim_lin_space_storage,
    (AnyFunc)sim_lin_space_noise,
    (AnyFunc)sim_lin_space_max_rounds,
    (AnyFunc)sim_lin_space_n_rounds,
    (AnyFunc)sim_lin_space_grad_column,
    (AnyFunc)sim_lin_space_grad_slot,
    (AnyFunc)sim_linvec_new,
    (AnyFunc)sim_linvec_dup,
    (AnyFunc)sim_linvec_free,
    (AnyFunc)sim_linvec_space,
    (AnyFunc)sim_linvec_zero,
    (AnyFunc)sim_linvec_copy,
    (AnyFunc)sim_linvec_scale,
    (AnyFunc)sim_linvec_axpy,
    (AnyFunc)sim_linvec_add_gradient,
    (AnyFunc)sim_linvec_add_noise,
    (AnyFunc)sim_linvec_add_public,
    (AnyFunc)sim_linvec_data,
    (AnyFunc)sim_linvec_const_data,
    (AnyFunc)sim_linvec_dim,
    (AnyFunc)sim_linvec_grad_coeff,
    (AnyFunc)sim_linvec_noise_coeff,
    (AnyFunc)sim_linvec_nnz,
    (AnyFunc)sim_linvec_dot,
    (AnyFunc)sim_linvec_row,
    (AnyFunc)sim_linvec_iter_init,
    (AnyFunc)sim_linvec_iter_next,
    /* sim/noise.h: the noise registry */
    (AnyFunc)sim_noise_registry_new,
    (AnyFunc)sim_noise_registry_ref,
    (AnyFunc)sim_noise_registry_unref,
    (AnyFunc)sim_noise_registry_n_nodes,
    (AnyFunc)sim_noise_registry_count,
    (AnyFunc)sim_noise_register,
    (AnyFunc)sim_noise_register_local,
    (AnyFunc)sim_noise_register_edge,
    (AnyFunc)sim_noise_std,
    (AnyFunc)sim_noise_n_owners,
    (AnyFunc)sim_noise_owner,
    (AnyFunc)sim_noise_is_known_by,
    (AnyFunc)sim_noise_kind,
    (AnyFunc)sim_noise_node,
    (AnyFunc)sim_noise_round,
    /* sim/message.h, sim/rng.h, sim/base.h: messages (on_message), RNG streams, errors */
    (AnyFunc)sim_message_new,
    (AnyFunc)sim_message_ref,
    (AnyFunc)sim_message_unref,
    (AnyFunc)sim_message_from,
    (AnyFunc)sim_message_round,
    (AnyFunc)sim_message_tag,
    (AnyFunc)sim_message_bytes,
    (AnyFunc)sim_message_payload,
    (AnyFunc)sim_message_ref_count,
    (AnyFunc)sim_message_new_linvec,
    (AnyFunc)sim_message_provenance,
    (AnyFunc)sim_rng_stream_seed,
    (AnyFunc)sim_rng_default_type,
    (AnyFunc)sim_rng_stream_new,
    (AnyFunc)sim_error_quark,
};

typedef struct {
  char *path; /* canonical */
  GModule *module;
  const ProtoVTable *vt; /* the plugin's, or an older version's shim (owned) */
} LoadedPlugin;

static GMutex plugin_lock;
static GPtrArray *loaded; /* LoadedPlugin*, in load order; never freed (resident) */

/* ---- Scopes (protocols.h): what one library call sees ---- */

struct ProtoPluginScope {
  GPtrArray *shown; /* const ProtoVTable*: loaded or found under this scope */
  char *hint;       /* how the caller names a plugin file in errors */
  ProtoPluginScope *outer;
};

/* The calling thread's scope (NULL: none, every protocol shown). */
static GPrivate current_scope;

ProtoPluginScope *proto_plugin_scope_begin(const char *hint) {
  ProtoPluginScope *s = g_new0(ProtoPluginScope, 1);
  s->shown = g_ptr_array_new();
  s->hint = g_strdup(hint ? hint : "--protocol-plugin FILE.so");
  s->outer = g_private_get(&current_scope);
  g_private_set(&current_scope, s);
  return s;
}

void proto_plugin_scope_end(ProtoPluginScope *scope) {
  if (scope == NULL)
    return;
  g_warn_if_fail(g_private_get(&current_scope) == scope);
  g_private_set(&current_scope, scope->outer);
  g_ptr_array_unref(scope->shown);
  g_free(scope->hint);
  g_free(scope);
}

gboolean proto_plugin_scope_shows(const ProtoVTable *vt) {
  const ProtoPluginScope *s = g_private_get(&current_scope);
  if (s == NULL || proto_registry_is_builtin(vt))
    return TRUE;
  for (guint i = 0; i < s->shown->len; i++)
    if (s->shown->pdata[i] == vt)
      return TRUE;
  return FALSE;
}

/* The calling thread's scope now shows @vt (nothing without a scope). */
static void scope_show(const ProtoVTable *vt) {
  ProtoPluginScope *s = g_private_get(&current_scope);
  if (s != NULL && !proto_plugin_scope_shows(vt))
    g_ptr_array_add(s->shown, (gpointer)vt);
}

/* How to name a plugin file in errors on this thread. */
static const char *plugin_hint(void) {
  const ProtoPluginScope *s = g_private_get(&current_scope);
  return s != NULL ? s->hint : "--protocol-plugin FILE.so";
}

/* The host library's file (proto_plugin_set_host), or NULL: the program. */
static GMutex host_lock;
static char *host_file;

void proto_plugin_set_host(const char *file) {
  g_mutex_lock(&host_lock);
  g_free(host_file);
  host_file = g_strdup(file);
  g_mutex_unlock(&host_lock);
}

static const LoadedPlugin *find_loaded_locked(const char *canonical) {
  for (guint i = 0; loaded != NULL && i < loaded->len; i++) {
    const LoadedPlugin *p = loaded->pdata[i];
    if (strcmp(p->path, canonical) == 0)
      return p;
  }
  return NULL;
}

const char *proto_plugin_origin(const ProtoVTable *vt) {
  const char *path = NULL;
  g_mutex_lock(&plugin_lock);
  for (guint i = 0; loaded != NULL && i < loaded->len && path == NULL; i++) {
    const LoadedPlugin *p = loaded->pdata[i];
    if (p->vt == vt)
      path = p->path;
  }
  g_mutex_unlock(&plugin_lock);
  return path;
}

/* The checks of a freshly opened module; on success *vt_out is registered. */
static gboolean adopt_module(GModule *module, const char *path, const ProtoVTable **vt_out,
                             GError **error) {
  gpointer sym = NULL;
  if (!g_module_symbol(module, PROTO_PLUGIN_SYMBOL, &sym) || sym == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FORMAT,
                "%s is not a dpgossip protocol plugin: it does not export the function "
                "'" PROTO_PLUGIN_SYMBOL "' (declare it G_MODULE_EXPORT; see docs/plugins.md)",
                path);
    return FALSE;
  }
  const ProtoVTable *vt = ((ProtoPluginVTableFunc)sym)();
  if (vt == NULL) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "plugin %s: " PROTO_PLUGIN_SYMBOL "() returned NULL instead of its vtable", path);
    return FALSE;
  }
  /* abi_version is the first field in every version: read nothing else of a
   * vtable whose layout may differ. */
  ProtoVTable *shim = NULL;
  if (vt->abi_version >= PROTO_PLUGIN_ABI_VERSION_OLDEST &&
      vt->abi_version < PROTO_PLUGIN_ABI_VERSION) {
    /* An older vtable is today's up to the fields its version had, and the
     * plugin's static object is only that long: copy that much into a whole
     * one (the later fields NULL); abi_version 1 keeps the old meaning of
     * its NULL handlers. */
    shim = g_new0(ProtoVTable, 1);
    memcpy(shim, vt, proto_vtable_size(vt->abi_version));
    vt = shim;
  } else if (vt->abi_version != PROTO_PLUGIN_ABI_VERSION) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                "plugin %s was built for plugin ABI version %u, but this dpgossip speaks "
                "version %u: rebuild it against this dpgossip's protocols/plugin.h (plugins "
                "of versions %u to %u still load)",
                path, vt->abi_version, PROTO_PLUGIN_ABI_VERSION, PROTO_PLUGIN_ABI_VERSION_OLDEST,
                PROTO_PLUGIN_ABI_VERSION - 1);
    return FALSE;
  }
  GError *sub = NULL;
  if (!proto_vtable_check(vt, &sub)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT, "plugin %s: %s", path,
                sub->message);
    g_error_free(sub);
    g_free(shim);
    return FALSE;
  }
  /* Whatever this thread's scope shows: names are process-wide. */
  const ProtoVTable *clash = proto_registry_lookup_any(vt->name);
  if (clash != NULL) {
    const LoadedPlugin *other = NULL;
    for (guint i = 0; i < loaded->len && other == NULL; i++)
      if (((const LoadedPlugin *)loaded->pdata[i])->vt == clash)
        other = loaded->pdata[i];
    if (other != NULL)
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "plugin %s: protocol '%s' is already provided by plugin %s (loaded first)", path,
                  vt->name, other->path);
    else
      g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT,
                  "plugin %s: protocol '%s' clashes with the %s protocol of that name; rename "
                  "it (the name field of its ProtoVTable)",
                  path, vt->name, proto_registry_is_builtin(clash) ? "built-in" : "registered");
    g_free(shim);
    return FALSE;
  }
  if (!proto_registry_register(vt, &sub)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT, "plugin %s: %s", path,
                sub->message);
    g_error_free(sub);
    g_free(shim);
    return FALSE;
  }
  *vt_out = vt;
  return TRUE;
}

static gboolean load_locked(const char *path, const ProtoVTable **vt_out, GError **error) {
  if (path == NULL || *path == '\0') {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_INVALID_ARGUMENT, "empty plugin path");
    return FALSE;
  }
  if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_IO, "plugin %s: no such file", path);
    return FALSE;
  }
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_IO,
                "plugin %s is a directory, not a shared object (.so)", path);
    return FALSE;
  }
  char *real = realpath(path, NULL);
  if (real == NULL || access(real, R_OK) != 0) {
    int saved = errno;
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_IO, "plugin %s cannot be read: %s", path,
                g_strerror(saved));
    free(real);
    return FALSE;
  }
  char *canonical = g_strdup(real);
  free(real);
  if (loaded == NULL)
    loaded = g_ptr_array_new();
  const LoadedPlugin *again = find_loaded_locked(canonical);
  if (again != NULL) {
    scope_show(again->vt);
    *vt_out = again->vt;
    g_free(canonical);
    return TRUE;
  }
  /* No lazy binding: a plugin calling a function this program lacks is
   * refused now, instead of crashing when it first calls it. Local: its own
   * symbols never become visible to later plugins. */
  GModule *module = g_module_open(canonical, G_MODULE_BIND_LOCAL);
  if (module == NULL) {
    const char *why = g_module_error();
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_FORMAT,
                "plugin %s cannot be loaded as a shared object: %s%s", path,
                why ? why : "unknown error",
                why && strstr(why, "undefined symbol")
                    ? " (it calls a function this dpgossip does not export: only "
                      "protocols/plugin.h and sim/sim.h are available to plugins)"
                    : "");
    g_free(canonical);
    return FALSE;
  }
  const ProtoVTable *vt = NULL;
  if (!adopt_module(module, path, &vt, error)) {
    g_module_close(module);
    g_free(canonical);
    return FALSE;
  }
  /* The registry keeps pointers into the module: it must never unload. */
  g_module_make_resident(module);
  LoadedPlugin *p = g_new0(LoadedPlugin, 1);
  p->path = canonical;
  p->module = module;
  p->vt = vt;
  g_ptr_array_add(loaded, p);
  scope_show(vt);
  *vt_out = vt;
  return TRUE;
}

gboolean proto_plugin_load(const char *path, const ProtoVTable **vtable, GError **error) {
  const ProtoVTable *vt = NULL;
  g_mutex_lock(&plugin_lock);
  gboolean ok = load_locked(path, &vt, error);
  g_mutex_unlock(&plugin_lock);
  if (ok && vtable != NULL)
    *vtable = vt;
  return ok;
}

gboolean proto_plugin_load_paths(const char *const *paths, char **single, GError **error) {
  guint n = 0;
  const ProtoVTable *last = NULL;
  for (; paths != NULL && paths[n] != NULL; n++)
    if (!proto_plugin_load(paths[n], &last, error))
      return FALSE;
  if (single != NULL) {
    g_free(*single);
    *single = n == 1 ? g_strdup(last->name) : NULL;
  }
  return TRUE;
}

/* Appends @dir unless it is already listed. */
static void add_dir(GPtrArray *dirs, char *dir) {
  for (guint i = 0; i < dirs->len; i++)
    if (strcmp(dirs->pdata[i], dir) == 0) {
      g_free(dir);
      return;
    }
  g_ptr_array_add(dirs, dir);
}

char **proto_plugin_search_path(void) {
  GPtrArray *dirs = g_ptr_array_new();
  const char *env = g_getenv(PROTO_PLUGIN_PATH_ENV);
  if (env != NULL) {
    char **parts = g_strsplit(env, G_SEARCHPATH_SEPARATOR_S, -1);
    for (guint i = 0; parts[i] != NULL; i++)
      if (parts[i][0] != '\0')
        add_dir(dirs, g_canonicalize_filename(parts[i], NULL));
    g_strfreev(parts);
  }
  /* A relocated installation (e.g. staged with cmake --install --prefix)
   * finds its own plugins: PREFIX/bin/dpgossip -> PREFIX/lib/dpgossip/plugins,
   * and a host library PREFIX/LIBDIR/libdpgossip.so the same folder (the
   * program, say /usr/bin/python3, tells nothing of dpgossip's prefix). */
  g_mutex_lock(&host_lock);
  char *host = g_strdup(host_file);
  g_mutex_unlock(&host_lock);
  if (host != NULL) {
    char *libdir = g_path_get_dirname(host);
    const char *rel = DPG_LIB_RELATIVE_DIR;
    gsize nl = strlen(libdir), nr = strlen(rel);
    if (!g_path_is_absolute(DPG_PLUGIN_RELATIVE_DIR) && !g_path_is_absolute(rel) && nl > nr &&
        strcmp(libdir + nl - nr, rel) == 0 && libdir[nl - nr - 1] == G_DIR_SEPARATOR) {
      char *prefix = g_strndup(libdir, nl - nr - 1);
      add_dir(dirs, g_build_filename(*prefix ? prefix : "/", DPG_PLUGIN_RELATIVE_DIR, NULL));
      g_free(prefix);
    }
    g_free(libdir);
  }
  char *exe = host == NULL ? g_file_read_link("/proc/self/exe", NULL) : NULL;
  g_free(host);
  if (exe != NULL && !g_path_is_absolute(DPG_PLUGIN_RELATIVE_DIR)) {
    char *bindir = g_path_get_dirname(exe);
    char *base = g_path_get_basename(bindir);
    if (strcmp(base, DPG_BIN_RELATIVE_DIR) == 0) {
      char *prefix = g_path_get_dirname(bindir);
      add_dir(dirs, g_build_filename(prefix, DPG_PLUGIN_RELATIVE_DIR, NULL));
      g_free(prefix);
    }
    g_free(base);
    g_free(bindir);
  }
  g_free(exe);
  add_dir(dirs, g_strdup(DPG_PLUGIN_INSTALL_DIR));
  g_ptr_array_add(dirs, NULL);
  return (char **)g_ptr_array_free(dirs, FALSE);
}

/* g_ptr_array_sort passes pointers to the elements. */
static gint by_string(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The *.so files of @dir sorted by name (empty when it cannot be read), so
 * the search order never depends on the file system. */
static GPtrArray *list_sorted(const char *dir) {
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  GDir *d = g_dir_open(dir, 0, NULL);
  if (d == NULL)
    return files;
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    if (g_str_has_suffix(name, "." G_MODULE_SUFFIX) && name[0] != '.')
      g_ptr_array_add(files, g_strdup(name));
  g_dir_close(d);
  g_ptr_array_sort(files, by_string);
  return files;
}

static void failure_free(gpointer data) {
  ProtoPluginFailure *f = data;
  g_free(f->path);
  g_clear_error(&f->error);
  g_free(f);
}

char *proto_plugin_locate(const char *name) {
  if (!proto_name_valid(name))
    return NULL;
  char **dirs = proto_plugin_search_path();
  char *found = NULL;
  for (guint i = 0; dirs[i] != NULL && found == NULL; i++) {
    char *file = g_strdup_printf("%s" G_DIR_SEPARATOR_S "%s." G_MODULE_SUFFIX, dirs[i], name);
    if (g_file_test(file, G_FILE_TEST_IS_REGULAR))
      found = file;
    else
      g_free(file);
  }
  g_strfreev(dirs);
  return found;
}

gboolean proto_plugin_find(const char *name, const ProtoVTable **vtable, GError **error) {
  const ProtoVTable *vt = proto_registry_lookup(name);
  if (vt != NULL) {
    if (vtable != NULL)
      *vtable = vt;
    return TRUE;
  }
  char **dirs = proto_plugin_search_path();
  char *joined = g_strjoinv(G_SEARCHPATH_SEPARATOR_S, dirs);
  gboolean ok = FALSE;
  GString *skipped = g_string_new(NULL);
  if (!proto_name_valid(name)) {
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_UNKNOWN,
                "'%s' cannot name a plugin protocol (letters, digits, '_' and '-')",
                name ? name : "(null)");
    goto out;
  }
  g_mutex_lock(&plugin_lock);
  /* NAME.so first: the convention, and a clear error when it is broken. */
  for (guint i = 0; dirs[i] != NULL && !ok; i++) {
    char *file = g_strdup_printf("%s" G_DIR_SEPARATOR_S "%s." G_MODULE_SUFFIX, dirs[i], name);
    if (g_file_test(file, G_FILE_TEST_EXISTS)) {
      GError *sub = NULL;
      const ProtoVTable *got = NULL;
      if (!load_locked(file, &got, &sub)) {
        g_propagate_error(error, sub);
        g_free(file);
        g_mutex_unlock(&plugin_lock);
        goto out;
      }
      ok = strcmp(got->name, name) == 0;
    }
    g_free(file);
  }
  /* Then any plugin that exports a protocol of that name. */
  for (guint i = 0; dirs[i] != NULL && !ok; i++) {
    GPtrArray *files = list_sorted(dirs[i]);
    for (guint j = 0; j < files->len && !ok; j++) {
      char *file = g_build_filename(dirs[i], files->pdata[j], NULL);
      GError *sub = NULL;
      const ProtoVTable *got = NULL;
      if (load_locked(file, &got, &sub))
        ok = strcmp(got->name, name) == 0;
      else
        g_string_append_printf(skipped, "; skipped %s", sub->message);
      g_clear_error(&sub);
      g_free(file);
    }
    g_ptr_array_unref(files);
  }
  g_mutex_unlock(&plugin_lock);
  if (ok)
    vt = proto_registry_lookup(name);
  else
    g_set_error(error, PROTO_ERROR, PROTO_ERROR_UNKNOWN,
                "no plugin provides protocol '%s' (searched %s; set " PROTO_PLUGIN_PATH_ENV
                " or use %s)%s",
                name, joined, plugin_hint(), skipped->str);
out:
  if (ok && vtable != NULL)
    *vtable = vt;
  g_string_free(skipped, TRUE);
  g_free(joined);
  g_strfreev(dirs);
  return ok;
}

GPtrArray *proto_plugin_load_all(void) {
  GPtrArray *failures = g_ptr_array_new_with_free_func(failure_free);
  char **dirs = proto_plugin_search_path();
  g_mutex_lock(&plugin_lock);
  for (guint i = 0; dirs[i] != NULL; i++) {
    GPtrArray *files = list_sorted(dirs[i]);
    for (guint j = 0; j < files->len; j++) {
      char *file = g_build_filename(dirs[i], files->pdata[j], NULL);
      GError *sub = NULL;
      const ProtoVTable *got = NULL;
      if (!load_locked(file, &got, &sub)) {
        ProtoPluginFailure *f = g_new0(ProtoPluginFailure, 1);
        f->path = file;
        f->error = sub;
        g_ptr_array_add(failures, f);
      } else {
        g_free(file);
      }
    }
    g_ptr_array_unref(files);
  }
  g_mutex_unlock(&plugin_lock);
  g_strfreev(dirs);
  return failures;
}
