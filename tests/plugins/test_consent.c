/*
 * tests/plugins/test_consent.c: a scenario's [protocol] plugin is code, so
 * it is loaded only with the user's consent: `dpgossip validate`
 * never loads it (it checks the file exists and notes that running needs
 * consent), `dpgossip run` refuses it without --allow-plugins, saying why
 * and how, and runs it with the flag. The plugin's constructor writes a
 * marker file: the marker's absence proves the file was never loaded.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

typedef struct {
  char *dir, *ini, *marker, *out;
} Fixture;

static void setup(Fixture *f, const char *plugin) {
  f->dir = test_tmpdir("consent");
  g_assert_nonnull(f->dir);
  f->ini = g_build_filename(f->dir, "evil.ini", NULL);
  f->marker = g_build_filename(f->dir, "marker", NULL);
  f->out = g_build_filename(f->dir, "out", NULL);
  char *text = g_strdup_printf("[simulation]\nseed = 1\nrounds = 4\n"
                               "[topology]\ngenerate = florentine\n"
                               "[protocol]\nname = tiny-marker\nplugin = %s\n"
                               "[privacy]\ntrust = pndp\n"
                               "[collusion.a]\nnodes = 0\n",
                               plugin);
  g_assert_true(g_file_set_contents(f->ini, text, -1, NULL));
  g_free(text);
  g_setenv("DPG_PLUGIN_MARKER", f->marker, TRUE);
}

static void teardown(Fixture *f) {
  g_unsetenv("DPG_PLUGIN_MARKER");
  test_rmtree(f->dir);
  g_free(f->dir);
  g_free(f->ini);
  g_free(f->marker);
  g_free(f->out);
}

static void test_validate_never_loads(void) {
  Fixture f;
  setup(&f, DPG_TEST_PLUGIN_DIR "/tiny-marker.so");
  CliRun r = cli_run("validate", f.ini);
  g_assert_cmpint(r.status, ==, 0);
  g_assert_false(g_file_test(f.marker, G_FILE_TEST_EXISTS));
  /* It says what it did not check, where, and what running it takes. */
  g_assert_nonnull(strstr(r.err, "evil.ini:8: protocol.plugin"));
  g_assert_nonnull(strstr(r.err, "not loaded"));
  g_assert_nonnull(strstr(r.err, "--allow-plugins"));
  cli_run_clear(&r);
  teardown(&f);

  /* A missing plugin file is still a problem at its line. */
  setup(&f, "no-such-plugin.so");
  r = cli_run("validate", f.ini);
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "evil.ini:8: protocol.plugin: plugin file not found"));
  cli_run_clear(&r);
  teardown(&f);
}

static void test_run_needs_consent(void) {
  Fixture f;
  setup(&f, DPG_TEST_PLUGIN_DIR "/tiny-marker.so");
  CliRun r = cli_run("run", f.ini, "--out", f.out, "-q");
  g_assert_cmpint(r.status, ==, 1);
  g_assert_false(g_file_test(f.marker, G_FILE_TEST_EXISTS));
  g_assert_nonnull(strstr(r.err, "evil.ini:8: protocol.plugin: not loaded"));
  g_assert_nonnull(strstr(r.err, "--allow-plugins"));
  g_assert_null(strstr(r.err, "unknown protocol"));       /* one problem: the consent */
  g_assert_false(g_file_test(f.out, G_FILE_TEST_EXISTS)); /* nothing was run */
  cli_run_clear(&r);

  r = cli_run("run", f.ini, "--out", f.out, "-q", "--allow-plugins");
  if (r.status != 0)
    g_error("run --allow-plugins failed: %s", r.err);
  g_assert_true(g_file_test(f.marker, G_FILE_TEST_EXISTS));
  char *summary = g_build_filename(f.out, "summary.json", NULL);
  g_assert_true(g_file_test(summary, G_FILE_TEST_IS_REGULAR));
  g_free(summary);
  char *ini = g_build_filename(f.out, "scenario.resolved.ini", NULL);
  char *text = NULL;
  g_assert_true(g_file_get_contents(ini, &text, NULL, NULL));
  g_assert_nonnull(strstr(text, "tiny-marker"));
  g_free(text);
  g_free(ini);
  cli_run_clear(&r);
  teardown(&f);
}

/* A protocol named in a scenario but not built in is looked up among the
 * installed plugins by loading them (run): validate must not. Before, an
 * unknown name made validate dlopen every *.so of $DPGOSSIP_PLUGIN_PATH
 * (the folder below holds tiny-marker.so, whose constructor leaves the
 * marker). */
static void test_validate_never_searches(void) {
  const char *names[] = {"tiny-marker", "nosuchproto"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    char *dir = test_tmpdir("consent");
    char *ini = g_build_filename(dir, "named.ini", NULL);
    char *marker = g_build_filename(dir, "marker", NULL);
    char *text = g_strdup_printf("[simulation]\nseed = 1\nrounds = 4\n"
                                 "[topology]\ngenerate = florentine\n"
                                 "[protocol]\nname = %s\n"
                                 "[privacy]\ntrust = pndp\n"
                                 "[collusion.a]\nnodes = 0\n",
                                 names[i]);
    g_assert_true(g_file_set_contents(ini, text, -1, NULL));
    g_setenv("DPG_PLUGIN_MARKER", marker, TRUE);
    g_setenv("DPGOSSIP_PLUGIN_PATH", DPG_TEST_PLUGIN_DIR, TRUE);
    CliRun r = cli_run("validate", ini);
    g_assert_false(g_file_test(marker, G_FILE_TEST_EXISTS));
    if (i == 0) {
      /* NAME.so is found without loading it, and the note says so. */
      g_assert_cmpint(r.status, ==, 0);
      g_assert_nonnull(strstr(r.err, "named.ini:7: protocol.name"));
      g_assert_nonnull(strstr(r.err, "tiny-marker.so, which validate does not load"));
    } else {
      g_assert_cmpint(r.status, ==, 1);
      g_assert_nonnull(strstr(r.err, "unknown protocol 'nosuchproto'"));
    }
    cli_run_clear(&r);
    g_unsetenv("DPGOSSIP_PLUGIN_PATH");
    g_unsetenv("DPG_PLUGIN_MARKER");
    g_unlink(ini);
    g_rmdir(dir);
    g_free(text);
    g_free(marker);
    g_free(ini);
    g_free(dir);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/plugins/consent/validate-never-loads", test_validate_never_loads);
  g_test_add_func("/plugins/consent/run-needs-consent", test_run_needs_consent);
  g_test_add_func("/plugins/consent/validate-never-searches", test_validate_never_searches);
  return g_test_run();
}
