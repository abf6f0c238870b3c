/*
 * tests/fuzz/fuzz_scenario.c: libFuzzer target for the scenario parser: the
 * line scanner (scenarios/doc.c), the schema checks and the sweep expansion
 * (scenarios/schema.c) on arbitrary bytes, plus a --set override taken from
 * the input's first line. Built with clang -fsanitize=fuzzer,address,undefined
 * (tests/fuzz/CMakeLists.txt); every input must be handled without a crash,
 * a leak or undefined behaviour. The corpus holds [protocol] plugin lines
 * and huge numbers; checking a scenario must never load code, so every
 * input also asserts that no shared object was loaded.
 */
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "scenarios/doc.h"
#include "scenarios/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)info;
  (void)size;
  (*(guint *)data)++;
  return 0;
}

/* Shared objects mapped into the process now. */
static guint loaded_objects(void) {
  guint n = 0;
  dl_iterate_phdr(count_object, &n);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static guint objects_before = 0;
  if (objects_before == 0)
    objects_before = loaded_objects();
  ScenDoc *doc = scen_doc_load_data((const char *)data, size, "fuzz.ini", "/nonexistent");
  /* An override from the first line, as `--set LINE` would give it. */
  const uint8_t *nl = memchr(data, '\n', size);
  char *first = g_strndup((const char *)data, nl ? (gsize)(nl - data) : size);
  if (g_utf8_validate(first, -1, NULL))
    scen_doc_add_override(doc, first, NULL);
  g_free(first);
  ScenProblems *ps = scen_problems_new();
  scen_schema_check_doc(doc, ps);
  GPtrArray *axes = scen_sweep_axes(doc, ps);
  guint64 n = scen_sweep_count(axes);
  if (n > 0 && n < 1000) {
    guint *items = g_new0(guint, axes->len + 1);
    scen_sweep_point(axes, n - 1, items);
    g_free(items);
  }
  scen_problems_sort(ps);
  for (guint i = 0; i < ps->items->len; i++)
    g_free(scen_problem_format(g_ptr_array_index(ps->items, i)));
  GPtrArray *secs = scen_doc_list_sections(doc);
  for (guint i = 0; i < secs->len; i++) {
    GPtrArray *keys = scen_doc_list_keys(doc, g_ptr_array_index(secs, i));
    for (guint j = 0; j < keys->len; j++) {
      const char *raw = scen_doc_get_raw(doc, g_ptr_array_index(secs, i),
                                         g_ptr_array_index(keys, j), NULL);
      if (raw != NULL)
        g_strfreev(scen_split_list(raw));
    }
    g_ptr_array_unref(keys);
  }
  g_ptr_array_unref(secs);
  g_ptr_array_unref(axes);
  scen_problems_free(ps);
  scen_doc_free(doc);
  if (loaded_objects() != objects_before)
    __builtin_trap(); /* something was dlopen()ed while checking a scenario */
  return 0;
}
