/*
 * tests/cli/test_privacy_extremes.c: the privacy numbers `dpgossip account`,
 * `train` and `run` print at extreme scales: sigma = 1e-200 or
 * 1e200, C_local times 1e154 or 1e-300, protocol.mu = 1e200. Each is the
 * truth, or an error, or inf; never 0 where the truth is positive. Before
 * the fix, every case below printed mu = 0 for some victim (or refused a
 * valid C).
 */
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/files.h"
#include "tests/common/run.h"

static double rel(double a, double b) {
  return fabs(a - b) / MAX(1e-300, MAX(fabs(a), fabs(b)));
}

/* Column @col (0-based) of every data row of a CSV (g_free). */
static double *csv_column(const char *text, guint col, guint *n) {
  char **lines = g_strsplit(text, "\n", -1);
  GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 1; lines[i] && *lines[i]; i++) {
    char **f = g_strsplit(lines[i], ",", -1);
    g_assert_cmpuint(g_strv_length(f), >, col);
    double v = g_ascii_strtod(f[col], NULL);
    g_array_append_val(a, v);
    g_strfreev(f);
  }
  g_strfreev(lines);
  *n = a->len;
  return (double *)g_array_free(a, FALSE);
}

/* The accounting paths of `account`: the structured one, and the observer's
 * two accountants (their rules for extreme scales must be the same). */
static const struct {
  const char *path, *accountant; /* accountant NULL: the path has none */
} paths[] = {{"structured", NULL}, {"observer", "streaming"}, {"observer", "dense"}};

/* mu of every victim (column 5) of `account ... --format csv` on paths[@p]. */
static double *account_mu(const char *sigma, guint p, const char *protocol, guint *n) {
  CliRun r = paths[p].accountant
                 ? cli_run("account", "--generate", "florentine", "--rounds", "4", "--trust",
                           "pndp", "-a", "0", "--sigma", sigma, "--path", paths[p].path,
                           "--accountant", paths[p].accountant, "--protocol", protocol, "--format",
                           "csv")
                 : cli_run("account", "--generate", "florentine", "--rounds", "4", "--trust",
                           "pndp", "-a", "0", "--sigma", sigma, "--path", paths[p].path,
                           "--protocol", protocol, "--format", "csv");
  if (r.status != 0)
    g_error("account failed: %s", r.err);
  double *mu = csv_column(r.out, 5, n);
  cli_run_clear(&r);
  return mu;
}

/* The command: every victim had mu = 0 at sigma = 1e-200 (the
 * structured path; the observer path said inf), at 1e200 (both paths),
 * muffliato:K=2 too. mu must be mu(sigma = 1) / sigma, on every path and
 * accountant (the streaming accountant said inf at 1e100 and 1e200 before
 * it scaled as the dense one). */
static void test_account_sigma(void) {
  const char *protocols[] = {"dsgd", "muffliato:K=2"};
  const struct {
    const char *text;
    double value;
  } sigmas[] = {{"1e-200", 1e-200}, {"1e-100", 1e-100}, {"1e100", 1e100}, {"1e200", 1e200}};
  for (guint p = 0; p < G_N_ELEMENTS(protocols); p++)
    for (guint q = 0; q < G_N_ELEMENTS(paths); q++) {
      guint n1, n;
      double *one = account_mu("1", q, protocols[p], &n1);
      g_assert_cmpuint(n1, ==, 14);
      for (guint s = 0; s < G_N_ELEMENTS(sigmas); s++) {
        double *mu = account_mu(sigmas[s].text, q, protocols[p], &n);
        g_assert_cmpuint(n, ==, n1);
        for (guint v = 0; v < n; v++) {
          g_assert_cmpfloat(mu[v], >, 0.0);
          /* Beyond PRIV_MU_RESOLVABLE_MAX a victim is "no protection" (inf),
           * never the huge number itself (privacy/range.c). */
          if (one[v] / sigmas[s].value > 1e8)
            g_assert_true(isinf(mu[v]));
          else
            g_assert_cmpfloat(rel(mu[v], one[v] / sigmas[s].value), <, 1e-12);
        }
        g_free(mu);
      }
      g_free(one);
    }
}

/* The clipping norm is the unit of both gradients and noise: mu does not
 * depend on it, with either accountant. Before: clip = 1e-200 gave mu = 0
 * for every victim on the observer path (1e-160: for every victim beyond
 * distance 1). */
static void test_account_clip(void) {
  const char *clips[] = {"1", "1e-200", "1e-160", "1e200"};
  double *ref = NULL;
  guint n0 = 0;
  for (guint c = 0; c < 2 * G_N_ELEMENTS(clips); c++) {
    CliRun r = cli_run("account", "--generate", "florentine", "--rounds", "4", "--trust", "pndp",
                       "-a", "0", "--clip", clips[c % G_N_ELEMENTS(clips)], "--path", "observer",
                       "--accountant", c < G_N_ELEMENTS(clips) ? "dense" : "streaming", "--format",
                       "csv");
    if (r.status != 0)
      g_error("account failed: %s", r.err);
    guint n;
    double *mu = csv_column(r.out, 5, &n);
    cli_run_clear(&r);
    if (ref == NULL) {
      ref = mu;
      n0 = n;
      continue;
    }
    g_assert_cmpuint(n, ==, n0);
    for (guint v = 0; v < n; v++)
      g_assert_cmpfloat(rel(mu[v], ref[v]), <, 1e-12);
    g_free(mu);
  }
  g_free(ref);
}

/* Muffliato's bound next to it: inf at 1e-200, positive at 1e200 (was 0). */
static void test_compare_muffliato(void) {
  const char *sigmas[] = {"1e-200", "1e200"};
  for (guint s = 0; s < 2; s++) {
    CliRun r = cli_run("account", "--generate", "florentine", "--rounds", "4", "--trust", "pndp",
                       "-a", "0", "--sigma", sigmas[s], "--compare", "muffliato", "--format",
                       "csv");
    g_assert_cmpint(r.status, ==, 0);
    guint n;
    double *m = csv_column(r.out, 8, &n);
    g_assert_cmpuint(n, ==, 14);
    for (guint v = 0; v < n; v++) {
      if (s == 0)
        g_assert_true(isinf(m[v]));
      else
        g_assert_cmpfloat(m[v], >, 0.0);
    }
    g_free(m);
    cli_run_clear(&r);
  }
}

/* Lower-triangular ones (or the diagonal) times @c, T x T, as CSV. */
static char *write_c(const char *dir, const char *name, guint T, const char *c, gboolean diag) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < T; i++)
    for (guint j = 0; j < T; j++)
      g_string_append_printf(s, "%s%s", (diag ? i == j : j <= i) ? c : "0", j + 1 < T ? "," : "\n");
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, s->str, -1, NULL));
  g_string_free(s, TRUE);
  return path;
}

static char *account_c(const char *path, const char *c_file) {
  char *spec = g_strconcat("mfdsgd:C=", c_file, NULL);
  CliRun r = cli_run("account", "--generate", "florentine", "--rounds", "4", "--trust", "pndp",
                     "-a", "0", "--path", path, "--protocol", spec, "--format", "csv");
  g_free(spec);
  if (r.status != 0)
    g_error("account %s failed: %s", c_file, r.err);
  char *out = r.out;
  r.out = NULL;
  cli_run_clear(&r);
  return out;
}

/* C, 1e154 C and 1e-300 C are one mechanism: the same report, byte for
 * byte, on each path (before: all 0 from 1e154 on the structured path, an
 * error on the observer path); the two paths agree; diag(1e-300) is the
 * identity (before: "zero sensitivity"). */
static void test_mfdsgd_scale(void) {
  char *dir = test_tmpdir("cli-extremes");
  g_assert_nonnull(dir);
  const char *scales[] = {"1", "1e154", "1e-300", "1e300"};
  char *files[4];
  for (guint i = 0; i < 4; i++) {
    char *name = g_strdup_printf("c%u.csv", i);
    files[i] = write_c(dir, name, 4, scales[i], FALSE);
    g_free(name);
  }
  char *structured = account_c("structured", files[0]);
  char *observer = account_c("observer", files[0]);
  guint n, m;
  double *mu = csv_column(structured, 5, &n), *mo = csv_column(observer, 5, &m);
  g_assert_cmpuint(n, ==, 14);
  g_assert_cmpuint(m, ==, n);
  g_assert_cmpfloat(fabs(mu[0] - 0.91009312903005868), <, 1e-12); /* the value */
  for (guint v = 0; v < n; v++)
    g_assert_cmpfloat(rel(mu[v], mo[v]), <, 1e-12);
  g_free(mu);
  g_free(mo);
  for (guint i = 1; i < 4; i++) {
    char *s = account_c("structured", files[i]), *o = account_c("observer", files[i]);
    g_assert_cmpstr(s, ==, structured);
    g_assert_cmpstr(o, ==, observer);
    g_free(s);
    g_free(o);
  }
  char *diag = write_c(dir, "diag.csv", 4, "1e-300", TRUE);
  char *eye = write_c(dir, "eye.csv", 4, "1", TRUE);
  char *sd = account_c("structured", diag), *se = account_c("structured", eye);
  g_assert_cmpstr(sd, ==, se);
  g_assert_cmpstr(sd, !=, structured);
  g_free(sd);
  g_free(se);
  for (guint i = 0; i < 4; i++) {
    g_unlink(files[i]);
    g_free(files[i]);
  }
  g_unlink(diag);
  g_unlink(eye);
  g_free(diag);
  g_free(eye);
  g_free(structured);
  g_free(observer);
  g_rmdir(dir);
  g_free(dir);
}

/* Training draws the very same noise from C and c C (before: 1e154 C was
 * refused, its sensitivity being inf); another C changes the run. */
static void test_train_scale(void) {
  char *dir = test_tmpdir("cli-extremes");
  g_assert_nonnull(dir);
  const char *scales[] = {"1", "1e154", "1e-300"};
  char *first = NULL;
  for (guint i = 0; i < 4; i++) {
    char *c = i < 3 ? write_c(dir, "c.csv", 6, scales[i], FALSE)
                    : write_c(dir, "c.csv", 6, "1", TRUE);
    char *spec = g_strconcat("mfdsgd:C=", c, NULL);
    char *out = g_build_filename(dir, "train.csv", NULL);
    CliRun r = cli_run("train", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=300,d=4,seed=1", "--epochs", "3", "--batches", "2",
                       "--protocol", spec, "--sigma", "2", "--out", out);
    if (r.status != 0)
      g_error("train %s failed: %s", scales[i % 3], r.err);
    char *text = NULL;
    g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
    if (first == NULL)
      first = text;
    else {
      if (i < 3)
        g_assert_cmpstr(text, ==, first);
      else
        g_assert_cmpstr(text, !=, first); /* the noise shows in the output */
      g_free(text);
    }
    cli_run_clear(&r);
    g_unlink(out);
    g_unlink(c);
    g_free(out);
    g_free(spec);
    g_free(c);
  }
  g_free(first);
  g_rmdir(dir);
  g_free(dir);
}

/* A scenario with protocol.sigma = 1e-200 or protocol.mu = 1e200: positive
 * mu for every victim (before: 0); protocol.mu = 1e-308 needs sigma = inf:
 * the point fails and says why. */
static void test_scenario(void) {
  char *dir = test_tmpdir("cli-extremes");
  g_assert_nonnull(dir);
  const char *noise[] = {"sigma = 1e-200", "mu = 1e200", "mu = 1e-308"};
  for (guint i = 0; i < 3; i++) {
    char *out = g_build_filename(dir, "out", NULL);
    char *ini = g_build_filename(dir, "s.ini", NULL);
    char *text = g_strdup_printf("[simulation]\nseed = 1\nrounds = 4\n[topology]\n"
                                 "generate = florentine\n[protocol]\nname = dsgd\n%s\n"
                                 "[privacy]\ntrust = pndp\n[collusion.a]\nnodes = 0\n"
                                 "[output]\ndir = %s\n",
                                 noise[i], out);
    g_assert_true(g_file_set_contents(ini, text, -1, NULL));
    CliRun r = cli_run("run", ini);
    if (i == 2) {
      g_assert_cmpint(r.status, !=, 0);
      g_assert_nonnull(strstr(r.err, "protocol.mu = 1e-308"));
    } else {
      if (r.status != 0)
        g_error("run failed: %s", r.err);
      char *csv_path = g_build_filename(out, "privacy.csv", NULL), *csv = NULL;
      g_assert_true(g_file_get_contents(csv_path, &csv, NULL, NULL));
      guint n;
      double *mu = csv_column(csv, 5, &n);
      g_assert_cmpuint(n, ==, 14);
      /* sigma = 1e-200, or 2e-200 (LDP mu = sqrt(T) / sigma = 1e200):
       * the distance-1 victim has mu(sigma = 1) = 1.9662 / sigma. */
      /* ... far beyond PRIV_MU_RESOLVABLE_MAX: no protection (inf), for
       * every victim, never 0 nor the huge number itself. */
      for (guint v = 0; v < n; v++)
        g_assert_true(isinf(mu[v]));
      g_free(mu);
      g_free(csv);
      g_free(csv_path);
    }
    cli_run_clear(&r);
    char *rm[] = {"rm", "-rf", out, NULL};
    g_assert_true(
        g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL));
    g_unlink(ini);
    g_free(text);
    g_free(ini);
    g_free(out);
  }
  g_rmdir(dir);
  g_free(dir);
}

/* A noise std sigma x clip that underflows is less noise than sigma says
 * (before: train ran with std 0, or 1e-310 kept to 3 digits, and the
 * observer path accounted it): refused, with the reason. The structured
 * path runs nothing: it accounts the mechanism of sigma, 1/sigma. */
static void test_noise_std_range(void) {
  const char *pairs[][2] = {{"1e-200", "1e-200"}, {"1e-300", "1e-10"}, {"1e200", "1e200"}};
  for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
    CliRun r = cli_run("train", "--generate", "florentine", "--dataset",
                       "synthetic:linear,n=300,d=4,seed=1", "--epochs", "3", "--batches", "2",
                       "--sigma", pairs[i][0], "--clip", pairs[i][1], "--out", "/dev/null");
    g_assert_cmpint(r.status, !=, 0);
    g_assert_nonnull(strstr(r.err, "leaves the range of doubles"));
    cli_run_clear(&r);
    r = cli_run("account", "--generate", "florentine", "--rounds", "4", "--trust", "pndp", "-a",
                "0", "--sigma", pairs[i][0], "--clip", pairs[i][1], "--path", "observer");
    g_assert_cmpint(r.status, !=, 0);
    g_assert_nonnull(strstr(r.err, "leaves the range of doubles"));
    cli_run_clear(&r);
  }
}

/* Zip-DL's noise variance overflowing is said before any LAPACK call (train
 * used to fail with "LAPACK info -4"); 1e150 (variance 1e300 x 15) still
 * runs. */
static void test_zipdl_variance(void) {
  char *dir = test_tmpdir("cli-extremes");
  char *out = g_build_filename(dir, "zipdl.csv", NULL);
  CliRun r = cli_run("train", "--generate", "florentine", "--dataset",
                     "synthetic:linear,n=300,d=4,seed=1", "--epochs", "1", "--batches", "2",
                     "--protocol", "zipdl", "--sigma", "1e308", "--out", out, "-q");
  g_assert_cmpint(r.status, ==, 1);
  g_assert_nonnull(strstr(r.err, "zipdl: the noise std sigma x clip = 1e+308 x 1"));
  g_assert_nonnull(strstr(r.err, "below 3.46e+153"));
  cli_run_clear(&r);
  r = cli_run("train", "--generate", "florentine", "--dataset",
              "synthetic:linear,n=300,d=4,seed=1", "--epochs", "1", "--batches", "2", "--protocol",
              "zipdl", "--sigma", "1e150", "--out", out, "-q");
  g_assert_cmpint(r.status, ==, 0);
  cli_run_clear(&r);
  test_rmtree(dir); /* zipdl.csv, zipdl_mean.csv, zipdl_privacy.csv */
  g_free(dir);
  g_free(out);
}

/* A C whose inverse overflows (diagonal 1e-300 under entries of 1) is
 * refused by train and account naming the spec and what to change (both
 * used to say only "C_local is singular (LAPACK info 3)"). */
static void test_train_singular_c(void) {
  char *dir = test_tmpdir("cli-extremes");
  char *c = g_build_filename(dir, "tiny-c.csv", NULL);
  char *out = g_build_filename(dir, "tiny.csv", NULL);
  g_assert_true(g_file_set_contents(c, "1e-300,0,0\n1,1e-300,0\n0,1,1e-300\n", -1, NULL));
  char *proto = g_strdup_printf("mfdsgd:C=%s", c);
  char *want = g_strdup_printf("C=%s: C_local is singular to double precision: its inverse "
                               "overflows at [1,0] (smallest diagonal entry 1e-300, largest entry 1)",
                               c);
  CliRun r = cli_run("train", "--generate", "florentine", "--dataset",
                     "synthetic:linear,n=300,d=4,seed=1", "--epochs", "1", "--batches", "3",
                     "--protocol", proto, "--out", out, "-q");
  g_assert_cmpint(r.status, ==, 1);
  if (strstr(r.err, want) == NULL)
    g_error("stderr lacks '%s': %s", want, r.err);
  cli_run_clear(&r);
  g_assert_false(g_file_test(out, G_FILE_TEST_EXISTS));
  /* account names the spec too, with what to change. */
  r = cli_run("account", "--generate", "florentine", "--rounds", "3", "--trust", "pndp", "-a",
              "0", "--protocol", proto);
  g_assert_cmpint(r.status, ==, 1);
  g_free(want);
  want = g_strdup_printf("--protocol %s: C_local is singular", proto);
  if (strstr(r.err, want) == NULL || strstr(r.err, "give a better-conditioned C") == NULL)
    g_error("stderr lacks '%s' and the way out: %s", want, r.err);
  cli_run_clear(&r);
  test_rmtree(dir);
  g_free(dir);
  g_free(want);
  g_free(proto);
  g_free(out);
  g_free(c);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cli/privacy-extremes/account-sigma", test_account_sigma);
  g_test_add_func("/cli/privacy-extremes/zipdl-variance", test_zipdl_variance);
  g_test_add_func("/cli/privacy-extremes/train-singular-c", test_train_singular_c);
  g_test_add_func("/cli/privacy-extremes/account-clip", test_account_clip);
  g_test_add_func("/cli/privacy-extremes/compare-muffliato", test_compare_muffliato);
  g_test_add_func("/cli/privacy-extremes/mfdsgd-scale", test_mfdsgd_scale);
  g_test_add_func("/cli/privacy-extremes/train-scale", test_train_scale);
  g_test_add_func("/cli/privacy-extremes/scenario", test_scenario);
  g_test_add_func("/cli/privacy-extremes/noise-std-range", test_noise_std_range);
  return g_test_run();
}
