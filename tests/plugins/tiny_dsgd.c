/*
 * tests/plugins/tiny_dsgd.c: DP-D-SGD as the smallest plugin there is
 * ("tiny-dsgd"): a name, every handler the runtime's default. The tests load
 * it from the search path under other file names and compare its accounting
 * with the structured formula; built with TINY_SHAPED it is "tiny-shaped",
 * which declares its accounting shape. (tests/plugins/abi1_plugin.c is the same
 * protocol written out, as plugins of ABI version 1 had to.)
 */
#include <gmodule.h>

#include "protocols/plugin.h"

#ifdef TINY_MARKER
/* The consent test's plugin (tests/plugins/test_consent.c): a constructor
 * runs as soon as the file is loaded, before any symbol is looked up, so a
 * marker file it writes proves whether the file was loaded at all. */
#include <stdlib.h>
__attribute__((constructor)) static void tiny_marker(void) {
  const char *path = getenv("DPG_PLUGIN_MARKER");
  if (path != NULL)
    g_file_set_contents(path, "loaded\n", -1, NULL);
}
#define TINY_NAME "tiny-marker"
#elif defined(TINY_SHAPED)
/* tiny-dsgd that says what it is to the accountant: the structured path
 * takes it, with the numbers of the built-in dsgd. */
#define TINY_NAME "tiny-shaped"
static void tiny_shape(const ProtoParams *params, ProtoShape *shape) {
  (void)params;
  shape->kind = PROTO_SHAPE_DSGD;
}
#else
#define TINY_NAME "tiny-dsgd"
#endif

static const ProtoVTable tiny_vtable = {
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
    .name = TINY_NAME,
    .summary = "DP-D-SGD as a plugin (test)",
#ifdef TINY_SHAPED
    .accounting_shape = tiny_shape,
#endif
};

G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void);
G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void) {
  return &tiny_vtable;
}
