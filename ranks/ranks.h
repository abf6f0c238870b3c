/*
 * ranks/ranks.h: the processes of an MPI job (mpirun, srun): joining and
 * leaving it, this process's rank, and a map of independent items across
 * the ranks whose results meet on rank 0 in item order.
 *
 * Knows nothing of scenarios, graphs or privacy: items are opaque bytes, so
 * every command that splits work over ranks (a sweep's points, an
 * accounting's attacker sets, a figure's panels) shares one transport, and a
 * binary built without MPI (CMake DPG_MPI=OFF) gets the same calls, running
 * everything in one process.
 *
 * Conventions: public names carry the ranks_ prefix (types Ranks*); errors
 * travel as GError in the RANKS_ERROR domain; nothing here prints or exits.
 * Only the calling (main) thread may call these functions
 * (MPI_THREAD_FUNNELED).
 */
#ifndef DPG_RANKS_H
#define DPG_RANKS_H

#include <glib.h>

G_BEGIN_DECLS

#define RANKS_ERROR (ranks_error_quark())
GQuark ranks_error_quark(void);

typedef enum {
  RANKS_ERROR_FAILED, /* MPI cannot start, is not built in, or a rank was lost */
} RanksError;

/**
 * ranks_launcher_size: how many processes the environment says were
 * started together with this one by mpirun or srun: OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE, SLURM_STEP_NUM_TASKS when SLURM_PROCID is set (srun), at least
 * 2 when PMIX_RANK or SLURM_PROCID is nonzero; 1 outside a launcher. Lets a
 * binary built without MPI refuse to run N copies of the same work. O(1).
 */
guint ranks_launcher_size(void);

/** TRUE when dpgossip was built with MPI (CMake DPG_MPI). */
gboolean ranks_built(void);

/**
 * ranks_init: joins the MPI job (MPI_Init_thread, MPI_THREAD_FUNNELED: only
 * the calling thread talks to MPI; errors returned, not fatal).
 * @rank, @size: (out); @local: (out) ranks on this machine (this one
 * included). Errors: RANKS_ERROR_FAILED when built without MPI or when MPI
 * cannot start (the message says why).
 */
gboolean ranks_init(guint *rank, guint *size, guint *local, GError **error);

/** TRUE between ranks_init and ranks_finalize. */
gboolean ranks_joined(void);

/**
 * ranks_set_lost: records that a rank stopped answering, so that
 * ranks_finalize aborts the job instead of waiting for it forever.
 */
void ranks_set_lost(void);

/**
 * ranks_finalize: leaves the MPI job: MPI_Finalize, or MPI_Abort with
 * @status when a rank was lost (ranks_set_lost, or a ranks_map that lost
 * one). Returns @status. No-op without ranks_init.
 */
int ranks_finalize(int status);

/** This process's rank in the MPI job (0 outside one). */
guint ranks_rank(void);

/** One item of ranks_map: its result as bytes, or NULL with @error set. */
typedef GBytes *(*RanksItemFunc)(guint i, gpointer data, GError **error);

/**
 * ranks_map: computes the @n independent items of @func, each rank of the
 * MPI job those with i mod size = rank (call it on every rank with the same
 * @n; outside an MPI job, or with one rank, all of them here, stopping at
 * the first failure). The results travel to rank 0, which gets them in item
 * order, so what it makes of them does not depend on the number of ranks.
 * @results: (out): on rank 0, a g_new array of @n GBytes (unref each, then
 *   g_free it); NULL on the other ranks.
 * Errors: on rank 0, the failure of the lowest failing item (its domain,
 * code and message), RANKS_ERROR_FAILED when a rank was lost; the other
 * ranks return TRUE. O(n / ranks) calls of @func per rank, plus sending
 * each result once.
 */
gboolean ranks_map(guint n, RanksItemFunc func, gpointer data, GBytes ***results, GError **error);

/**
 * ranks_mpi_error: sets @error to (@domain, @code) "@what: " followed by
 * MPI's text for @mpi_code (an MPI_ERR_* value returned by an MPI call), for
 * modules that speak MPI themselves on the job ranks_init joined.
 */
void ranks_mpi_error(GError **error, GQuark domain, gint code, int mpi_code, const char *what);

G_END_DECLS

#endif /* DPG_RANKS_H */
