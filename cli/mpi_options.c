/*
 * cli/mpi_options.c: commands started by mpirun or srun: join
 * the MPI job, or refuse when built without MPI; per-rank logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli/cli.h"
#include "ranks/ranks.h"

/* Joins the MPI job when started by a launcher. Other ranks than 0 print
 * nothing (rank 0 reports for all): their stdout and stderr go to
 * /dev/null until --rank-logs gives them a file. Returns FALSE (message
 * printed) when a binary built without MPI was started as several copies. */
gboolean cli_mpi_join(const char *cmd, gboolean *mpi, guint *rank, guint *size, guint *local) {
  guint launched = ranks_launcher_size();
  *mpi = FALSE;
  *rank = 0;
  *size = *local = 1;
  if (launched <= 1)
    return TRUE;
  GError *error = NULL;
  if (!ranks_built()) {
    fprintf(stderr,
            "dpgossip %s: started as one of %u processes (mpirun or srun), but this dpgossip "
            "was built without MPI: each copy would %s. Rebuild with Open MPI "
            "(scripts/install-deps.sh, then cmake -DDPG_MPI=ON), or run it without the "
            "launcher.\n",
            cmd, launched, g_str_equal(cmd, "run") ? "run the whole sweep" : "do all the work");
    return FALSE;
  }
  if (!ranks_init(rank, size, local, &error)) {
    fprintf(stderr, "dpgossip %s: %s\n", cmd, error->message);
    g_error_free(error);
    return FALSE;
  }
  *mpi = TRUE;
  if (*rank != 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      close(null);
    }
  }
  return TRUE;
}

/* --rank-logs DIR: DIR/rank-R.log, which also receives the stderr of the
 * ranks other than 0. */
FILE *cli_mpi_rank_log(const char *cmd, const char *dir, guint rank) {
  if (g_mkdir_with_parents(dir, 0777) != 0) {
    fprintf(stderr, "dpgossip %s: cannot create %s: %s\n", cmd, dir, g_strerror(errno));
    return NULL;
  }
  char *name = g_strdup_printf("rank-%u.log", rank);
  char *path = g_build_filename(dir, name, NULL);
  FILE *f = fopen(path, "w");
  if (f == NULL)
    fprintf(stderr, "dpgossip %s: cannot write %s: %s\n", cmd, path, g_strerror(errno));
  else if (rank != 0)
    dup2(fileno(f), STDERR_FILENO);
  g_free(path);
  g_free(name);
  return f;
}
