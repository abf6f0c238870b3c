/*
 * cli/train_privacy.h: internal to the dpgossip command: the privacy of a
 * `dpgossip train` run, accounted as `dpgossip account` does (the same
 * setup, path choice and per-victim report), so that every loss train
 * writes has its guarantee next to it.
 */
#ifndef DPG_CLI_TRAIN_PRIVACY_H
#define DPG_CLI_TRAIN_PRIVACY_H

#include <glib.h>

#include "protocols/protocols.h"
#include "topologies/topologies.h"

G_BEGIN_DECLS

typedef struct CliTrainPrivacy CliTrainPrivacy;

/*
 * cli_train_privacy_plan: the privacy of the training run @r describes
 * (borrowed: `train`'s options as the accounting request, whose
 * proto_account_request_run_config is the run) on the graph @g: nothing
 * with --trust none, else proto_account_job_for_run (trust models, attacker
 * sets within the graph; without --attackers only LDP, which every node
 * gets: its value does not depend on who observes; the path picked as
 * `dpgossip account --path auto` would), with the isolated nodes noted on
 * stderr.
 * @usage: (out) TRUE when the error is the user's options (exit 2), FALSE
 * for a file or protocol that failed.
 * Errors: the request's (G_OPTION_ERROR_BAD_VALUE naming the option, the
 * protocol registry's). O(nodes + option lengths).
 */
CliTrainPrivacy *cli_train_privacy_plan(const ProtoAccountRequest *r, const TopoGraph *g,
                                        gboolean *usage, GError **error);
void cli_train_privacy_free(CliTrainPrivacy *p);

/* The observer views to attach to the training run (NULL on the structured
 * path); the run then needs storage SIM_LIN_SPARSE. Valid until freed. */
const ProtoObserveOptions *cli_train_privacy_observe(CliTrainPrivacy *p);

/*
 * cli_train_privacy_account: the per-victim reports, from the structured
 * path or from @run's observer (cli_train_privacy_observe). Errors: those
 * of `dpgossip account`'s paths. Complexity: theirs.
 */
gboolean cli_train_privacy_account(CliTrainPrivacy *p, ProtoObservedRun *run, GError **error);

/*
 * cli_train_privacy_csv_rows: appends the per-victim rows of every
 * accounting to @s, in the columns of `dpgossip account --format csv` and a
 * scenario's privacy.csv (SCEN_PRIVACY_CSV_COLUMNS, no header): a set is
 * named by its members; LDP over every node (no --attackers) has empty
 * collusion, attackers and distance, and one row per node. No row with
 * --trust none, nor for an attacker. O(rows).
 */
void cli_train_privacy_csv_rows(const CliTrainPrivacy *p, GString *s);
/* The largest epsilon over every accounting and victim (inf: some victim
 * unprotected), and the delta it is at. */
double cli_train_privacy_max_epsilon(const CliTrainPrivacy *p);
double cli_train_privacy_delta(const CliTrainPrivacy *p);
/* Node @u's report in accounting @accounting (0: the first --trust; LDP by
 * default), or NULL (none, out of range, an attacker). O(victims). */
const PrivVictim *cli_train_privacy_victim(const CliTrainPrivacy *p, guint accounting, guint u);
/* One line per accounting: its worst and best victims, and what a huge
 * epsilon means. (g_free) */
char *cli_train_privacy_summary(const CliTrainPrivacy *p);

G_END_DECLS

#endif /* DPG_CLI_TRAIN_PRIVACY_H */
