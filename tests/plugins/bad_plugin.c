/*
 * tests/plugins/bad_plugin.c: plugins that must be refused, one per
 * BAD_<KIND> definition (tests/plugins/CMakeLists.txt builds each):
 *   NO_SYMBOL     exports no proto_plugin_vtable (not a plugin)
 *   NULL_VTABLE   proto_plugin_vtable() returns NULL
 *   ABI           abi_version is the next version
 *   NO_START      on_start is missing (mandatory in ABI version 1)
 *   NO_INIT       init is missing (mandatory in ABI version 1)
 *   PARAM_TYPE    a parameter of an unknown type
 *   PARAM_DEFAULT an int parameter whose default is "abc"
 *   PARAM_RANGE   a default outside the declared range
 *   PARAM_DUP     two parameters with the same name
 *   BUILTIN_NAME  calls itself dsgd
 *   UNDEFINED     calls a function no dpgossip exports
 */
#include <gmodule.h>

#include "protocols/plugin.h"

G_GNUC_UNUSED static gboolean bad_init(ProtoContext *ctx, const ProtoParams *params,
                                       gpointer *run_state, GError **error) {
  (void)ctx;
  (void)params;
  (void)error;
  *run_state = NULL;
  return TRUE;
}

G_GNUC_UNUSED static gboolean bad_start(ProtoNode *node, GError **error) {
  (void)error;
  proto_node_done(node);
  return TRUE;
}

#if defined(BAD_UNDEFINED)
void proto_node_teleport(ProtoNode *node); /* exists nowhere */
static gboolean bad_start_undefined(ProtoNode *node, GError **error) {
  (void)error;
  proto_node_teleport(node);
  return TRUE;
}
#define START bad_start_undefined
#elif defined(BAD_NO_START)
#define START NULL
#else
#define START bad_start
#endif

#if defined(BAD_PARAM_TYPE)
static const ProtoParamSpec params[] = {{"x", (ProtoParamType)42, "1", 1, 0, "?"}};
#elif defined(BAD_PARAM_DEFAULT)
static const ProtoParamSpec params[] = {{"K", PROTO_PARAM_INT, "abc", 1, 10, "rounds"}};
#elif defined(BAD_PARAM_RANGE)
static const ProtoParamSpec params[] = {{"K", PROTO_PARAM_INT, "20", 1, 10, "rounds"}};
#elif defined(BAD_PARAM_DUP)
static const ProtoParamSpec params[] = {{"a", PROTO_PARAM_BOOL, "no", 1, 0, ""},
                                        {"a", PROTO_PARAM_DOUBLE, "1", 0, 2, ""}};
#else
static const ProtoParamSpec params[] = {{"unused", PROTO_PARAM_BOOL, "no", 1, 0, ""}};
#endif

G_GNUC_UNUSED static const ProtoVTable bad_vtable = {
#ifdef BAD_ABI
    .abi_version = PROTO_PLUGIN_ABI_VERSION + 1,
#elif defined(BAD_NO_START) || defined(BAD_NO_INIT)
    .abi_version = 1, /* since version 2 a NULL handler is the default */
#else
    .abi_version = PROTO_PLUGIN_ABI_VERSION,
#endif
#ifdef BAD_BUILTIN_NAME
    .name = "dsgd",
#else
    .name = BAD_NAME,
#endif
    .summary = "a plugin that must be refused",
    .params = params,
    .n_params = G_N_ELEMENTS(params),
#ifdef BAD_NO_INIT
    .init = NULL,
#else
    .init = bad_init,
#endif
    .on_start = START,
};

#ifdef BAD_NO_SYMBOL
G_MODULE_EXPORT const ProtoVTable *protocol_vtable(void);
G_MODULE_EXPORT const ProtoVTable *protocol_vtable(void) {
  return &bad_vtable;
}
#else
G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void);
G_MODULE_EXPORT const ProtoVTable *proto_plugin_vtable(void) {
#ifdef BAD_NULL_VTABLE
  return NULL;
#else
  return &bad_vtable;
#endif
}
#endif
