/*
 * tests/ranks/test_launcher.c: how many copies the environment says
 * were started (ranks_launcher_size), in any build: a binary without MPI
 * refuses to run a sweep when this is above 1, so a false "several" would
 * stop a user's single process (an sbatch script's own process inherits
 * SLURM_PROCID and SLURM_NTASKS, but only srun sets SLURM_STEP_NUM_TASKS).
 */
#include "ranks/ranks.h"

static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",     "PMIX_RANK",
                                   "SLURM_PROCID",         "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS"};

static void clear(void) {
  for (guint i = 0; i < G_N_ELEMENTS(vars); i++)
    g_unsetenv(vars[i]);
}

static void test_launcher_size(void) {
  const struct {
    const char *set[3][2];
    guint want;
  } cases[] = {
      {{{NULL, NULL}}, 1},
      {{{"OMPI_COMM_WORLD_SIZE", "3"}}, 3},
      {{{"PMI_SIZE", "2"}}, 2},
      {{{"PMIX_RANK", "1"}}, 2},
      {{{"PMIX_RANK", "0"}}, 1},
      /* srun -n 4: a step of 4 tasks. */
      {{{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "4"}}, 4},
      /* The batch script itself (sbatch -n 4, no srun): one process. */
      {{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}}, 1},
      {{{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}}, 2},
  };
  for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
    clear();
    for (guint i = 0; i < 3 && cases[c].set[i][0] != NULL; i++)
      g_setenv(cases[c].set[i][0], cases[c].set[i][1], TRUE);
    g_assert_cmpuint(ranks_launcher_size(), ==, cases[c].want);
  }
  clear();
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/ranks/launcher-size", test_launcher_size);
  return g_test_run();
}
