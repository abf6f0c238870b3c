/*
 * cli/mafalda_schedule.h: `dpgossip mafalda --schedule`: the expected
 * workload Gram matrix over a random gossip schedule, exact or sampled
 * (docs/design.md, "Mafalda over a changing network").
 */
#ifndef DPG_CLI_MAFALDA_SCHEDULE_H
#define DPG_CLI_MAFALDA_SCHEDULE_H

#include "cli/cli.h"
#include "mf/mf.h"

/* How the expectation was taken. */
typedef enum {
  CLI_EXPECT_STATIC,  /* every round is one W: today's static Gram matrix */
  CLI_EXPECT_TRACE,   /* a fixed sequence W_0 .. W_{T-1}: its Gram matrix */
  CLI_EXPECT_IID,     /* independent rounds: exact, from one round's law */
  CLI_EXPECT_SAMPLED, /* the mean over sampled schedules */
} CliExpectation;

typedef struct {
  /* In. */
  const char *spec; /* the schedule */
  guint samples;    /* 0: exact; >= 2: S schedules fitted, S others scored */
  guint64 seed;     /* the schedule's seed (sample i: seed + i) */
  MfWorkload workload;
  /* Out. */
  CliExpectation how;
  guint64 outcomes; /* CLI_EXPECT_IID: outcomes of a round */
  double *W;        /* CLI_EXPECT_STATIC: the one W (n x n), else NULL */
  double *H;        /* the T x T Gram matrix to fit (NULL when STATIC) */
  double **score;   /* CLI_EXPECT_SAMPLED: the S scoring Gram matrices */
  double seconds;   /* wall seconds to compute the above */
  gboolean bad_spec; /* the failure was @spec's (prefixed "--schedule: ") */
} CliMafaldaSchedule;

/*
 * cli_mafalda_schedule_gram: fills @ms's outputs for the graph @g, gossip
 * @kind and T rounds (@ms->workload). Exact unless @ms->samples:
 * the one W of a schedule whose rounds all give it (static, or a law of
 * one outcome), the Gram matrix of a fixed sequence (for @ms->seed), the
 * expectation over i.i.d. rounds from their law (mf_gram_iid). Errors: the
 * schedule's; a random schedule without a finite law, or a law too large
 * to enumerate, asks for --samples; memory refusals name the bytes; a spec
 * topo_schedule_new refuses, prefixed "--schedule: " with @ms->bad_spec set
 * (its status: cli_error_status, as account's).
 */
gboolean cli_mafalda_schedule_gram(CliMafaldaSchedule *ms, const TopoGraph *g, TopoGossipKind kind,
                                   guint T, GError **error);

/* Frees @ms's outputs (not @ms). */
void cli_mafalda_schedule_clear(CliMafaldaSchedule *ms);

/* "static", "trace", "iid" or "sampled". */
const char *cli_expectation_name(CliExpectation how);

#endif /* DPG_CLI_MAFALDA_SCHEDULE_H */
