/*
 * api/names.c: the lists of the modules' tables (schedule kinds, trust
 * models) that a binding writes into its own help.
 */
#include "api/internal.h"

const char *dpg_schedule_kinds(void) {
  return topo_schedule_kinds_text(TRUE);
}

const char *dpg_trust_models(void) {
  static const char *models = NULL;
  if (g_once_init_enter(&models)) {
    char *list = priv_trust_list(", ", " or ");
    g_once_init_leave(&models, g_intern_string(list));
    g_free(list);
  }
  return models;
}
