/*
 * cli/audit_onerun.h: internal to the dpgossip command. The one-run audit
 * of a real training run, `dpgossip audit --attack onerun` (Steinke, Nasr
 * and Jagielski 2023): m gradient canaries, each in the training set with
 * probability 1/2, inserted at random nodes of a D-SGD `train` run; the
 * LDP attacker (every message each node sends) scores each canary from the
 * noisy updates of its node, guesses, and the count of right guesses
 * bounds epsilon from below (priv_onerun_epsilon_lower).
 */
#ifndef DPG_CLI_AUDIT_ONERUN_H
#define DPG_CLI_AUDIT_ONERUN_H

#include <glib.h>

#include "protocols/protocols.h"

G_BEGIN_DECLS

/* The canaries of one run. Canary c is the clipped gradient clip * v_c of
 * a record (v_c a seeded random unit vector: a worst case, norm exactly
 * Delta) held by node[c] in batch slot[c] (< b), so that it joins its
 * node's gradient at every step t = slot[c] mod b, k times in all: the
 * (k, b)-participation of a record that the accountant assumes. */
typedef struct {
  guint m;          /* canaries */
  gsize d;          /* model parameters */
  guint *node;      /* m */
  guint *slot;      /* m */
  gboolean *in;     /* m: included (each with probability 1/2) */
  double *dir;      /* m x d unit vectors */
  double *score;    /* m: the attacker's scores, filled by the run */
} CliOnerunCanaries;

/*
 * cli_onerun_canaries_new: @m canaries for a model of @d parameters on
 * @n nodes with @b batches per epoch, all drawn from one stream of @seed
 * (independent of the run's own streams). O(m d).
 */
CliOnerunCanaries *cli_onerun_canaries_new(guint m, gsize d, guint n, guint b, guint64 seed);
void cli_onerun_canaries_free(CliOnerunCanaries *c);

typedef struct CliOnerunHook CliOnerunHook;

/*
 * cli_onerun_attach: before proto_run_run, makes @run's local steps take
 * their node's clipped batch gradient as the runtime would, plus the
 * included canaries of that node and slot, and scores every canary from
 * what its node sends: the attacker of LDP sees every message, so it knows
 * the model theta_t a D-SGD node averaged from its neighbours' messages and
 * the model it sends after its step; their difference over the step size is
 * the noisy gradient sum g + nu z, whose inner product with v_c, summed
 * over the canary's k steps, is canary c's score. Valid for the sync mode
 * of dsgd only (the caller checks). @c is borrowed and must outlive the
 * run. Errors: SIM_ERROR from the bus. O(n d) memory.
 */
CliOnerunHook *cli_onerun_attach(ProtoRun *run, CliOnerunCanaries *c, GError **error);
void cli_onerun_hook_free(CliOnerunHook *h);

/*
 * cli_onerun_guess: guesses "in" for the @k highest scores and "out" for
 * the @k lowest (ties broken by canary index, so the guesses are a function
 * of the scores alone) and returns the number right, among 2 k guesses.
 * Needs 2 k <= m. O(m log m).
 */
guint cli_onerun_guess(const CliOnerunCanaries *c, guint k);

/*
 * cli_audit_onerun: `dpgossip audit --attack onerun ...` (@argv[0] is
 * "audit"): parses the training options, trains with the canaries, accounts,
 * guesses and prints the row. Returns the exit status: 0, 1 (the run failed,
 * or the bound lies above the accounted epsilon), 2 (usage), 130 (SIGINT).
 */
int cli_audit_onerun(int argc, char **argv);

G_END_DECLS

#endif /* DPG_CLI_AUDIT_ONERUN_H */
