/*
 * cli/account_output.h: internal to the dpgossip command. What `dpgossip
 * account` prints of an executed accounting request (ProtoAccountJob,
 * protocols.h): the assumptions behind the numbers, the three formats
 * (table, JSON, CSV), the unresolved victims' warnings; and the structured
 * accountings shared out between MPI ranks.
 */
#ifndef DPG_CLI_ACCOUNT_OUTPUT_H
#define DPG_CLI_ACCOUNT_OUTPUT_H

#include <glib.h>

#include "protocols/protocols.h"
#include "cli/cli.h"

G_BEGIN_DECLS

/* What the output needs besides the job. */
typedef struct {
  const ProtoAccountJob *job;
  gboolean nonprivate; /* --protocol nonprivate: dsgd with sigma = 0 */
} CliAccountOutput;

/* The schedule's spec, or NULL when static. O(1). */
const char *cli_account_schedule(const ProtoAccountJob *j);

/*
 * cli_account_bound_name: which bound victim @v's numbers are, as the table's
 * bound column and JSON's "bound" say it: "ldp-cap" (the LDP cap of
 * docs/design.md, below the accountant's own value), "local" (--path local),
 * "exact" (the SDP sensitivity) or "thm5.2" (the paper's Thm 5.2 bound).
 * O(1).
 */
const char *cli_account_bound_name(const ProtoAccountJob *j, const PrivVictim *v);

/* Victims of @r reported unresolved (no protection, no number). O(victims). */
guint cli_account_count_unresolved(const PrivReport *r);

/*
 * cli_account_assumptions: the sentences behind the numbers: clipping, the
 * noise, each trust model as the path sees it, participation, adaptivity,
 * the sensitivity, the run accounted, local bounds, the GDP conversions.
 * Returns: (transfer full) a GPtrArray of strings (g_ptr_array_unref).
 * O(trust models).
 */
GPtrArray *cli_account_assumptions(const CliAccountOutput *c);

/* The three formats on stdout (account_table.c, account_json.c,
 * account_csv.c). Each O(accountings x victims). */
void cli_account_print_table(const CliAccountOutput *c);
void cli_account_print_json(const CliAccountOutput *c);
void cli_account_print_csv(const CliAccountOutput *c);

/* One stderr line per accounting with unresolved victims ("dpgossip
 * account: warning: ..."): whatever the format, a user must not miss that
 * no number could be given for them. O(accountings x victims). */
void cli_account_warn_unresolved(const ProtoAccountJob *j);

/*
 * cli_account_execute_shared: every accounting of a planned structured (or
 * local) job, shared out between the ranks of an MPI job (ranks_map:
 * item a on rank a mod size), the reports gathered on rank 0 in order; one
 * process alone computes them all. @announce (rank 0 without -q): on a
 * static graph with one accounting of local bounds, first tell on stderr
 * the size of the ball; after, the job's notes (proto_account_job_notes,
 * every rank's accountings).
 * Errors: those of proto_account_job_prepare and _execute_one (rank 0: the
 * lowest failing item's). Complexity: theirs, divided among the ranks.
 */
gboolean cli_account_execute_shared(ProtoAccountJob *j, gboolean announce, GError **error);

G_END_DECLS

#endif /* DPG_CLI_ACCOUNT_OUTPUT_H */
