/*
 * cli/account_common.h: internal to the dpgossip command. What `dpgossip
 * account` and `dpgossip figure privacy-vs-distance` share: the accounting
 * setup, the --protocol parsers, the numeric option checks and the two
 * paths that turn a setup into per-victim blocks: the structured fast path
 * (W-product structure, no simulation) and the observer path (simulate the
 * protocol, record what each attacker set sees, account from provenance).
 */
#ifndef DPG_CLI_ACCOUNT_COMMON_H
#define DPG_CLI_ACCOUNT_COMMON_H

#include <glib.h>

#include "mf/mf.h"
#include "privacy/privacy.h"
#include "protocols/protocols.h"
#include "spec/spec.h"
#include "topologies/topologies.h"
#include "cli/cli.h"

G_BEGIN_DECLS

/* What to account: everything but the graph itself. Owned fields: label,
 * C_local and attackers (free them with cli_account_setup_clear). */
typedef struct {
  PrivProtocol protocol;
  char *protocol_label; /* as given, normalized: "dsgd", "muffliato:K=2", ... */
  guint K;
  double *C_local; /* MF-D-SGD, T x T */
  guint T, b;
  PrivTrust trust;
  MfSensitivity sensitivity;
  guint *attackers;
  guint n_attackers;
  double sigma, clip, alpha, delta;
  gboolean compare_muffliato;
  TopoGossipKind gossip;
  guint threads; /* the structured engine's sparse products (0 = 1) */
  /* The structured engines' progress (PrivStructuredProblem.progress;
   * borrowed, NULL: none). */
  void (*progress)(double fraction, const char *what, gpointer data);
  gpointer progress_data;
} CliAccountSetup;

/* Attacker sets of --attackers: spec/'s one grammar (SPEC_ATTACKERS_GRAMMAR,
 * shared with scenario files); cli/attacker_sets.c raises its errors as
 * usage errors prefixed with "--attackers: ". */
typedef SpecAttackers CliAttackerSets;

void cli_attacker_sets_init(CliAttackerSets *s);
void cli_attacker_sets_clear(CliAttackerSets *s);
/*
 * cli_attacker_sets_parse: appends the sets of @spec (--attackers may be
 * repeated) with spec_attackers_parse: "all", or ',' between sets and '+'
 * inside a collusion set ("0,5": node 0 alone, then node 5 alone; "0+5": one
 * set of two). Errors: G_OPTION_ERROR_BAD_VALUE (spec_attackers_parse's);
 * the sets parsed before the bad one are kept.
 */
gboolean cli_attacker_sets_parse(CliAttackerSets *s, const char *spec, GError **error);
/* The listed sets (after cli_attacker_sets_check for "all"). O(1). */
guint cli_attacker_sets_n(const CliAttackerSets *s);
const guint *cli_attacker_sets_members(const CliAttackerSets *s, guint i);
guint cli_attacker_sets_size(const CliAttackerSets *s, guint i);
/* "3+11" (g_free). */
char *cli_attacker_sets_label(const CliAttackerSets *s, guint i);
/* Every id below @n and every set leaving a victim on @graph (a label for
 * the message); "all" becomes the @n single-node sets. Errors:
 * G_OPTION_ERROR_BAD_VALUE. O(n + members). */
gboolean cli_attacker_sets_check(CliAttackerSets *s, guint n, const char *graph, GError **error);
/* Warns on stderr ("dpgossip @cmd: warning: ...") about the nodes of @g
 * without an edge, as `graph` notes a disconnected graph: an attacker of
 * @s (nullable: no sets) that receives nothing, a victim that shares
 * nothing (its guarantee is trivial). O(n + members). */
void cli_attacker_sets_warn_isolated(const CliAttackerSets *s, const TopoGraph *g, const char *cmd);

/* Frees the owned fields of @s and zeroes them (NULL allowed). */
void cli_account_setup_clear(CliAccountSetup *s);

/* Parses a non-negative decimal integer that fits in a guint (below
 * G_MAXUINT); FALSE for anything else (sign, spaces, trailing text). */
gboolean cli_parse_uint(const char *s, guint *out);

/*
 * cli_account_parse_protocol: --protocol dsgd | muffliato[:K=k] | antipgd |
 * mfdsgd:C=FILE into s->protocol, s->K and s->protocol_label; for
 * mfdsgd:C=FILE, *c_path receives FILE (g_free it).
 * Errors: G_OPTION_ERROR_BAD_VALUE naming the valid protocols.
 */
gboolean cli_account_parse_protocol(const char *spec, CliAccountSetup *s, char **c_path,
                                    GError **error);

/*
 * cli_account_check_numbers: --sigma >= 0, --clip > 0, --alpha > 1 and
 * 0 < --delta < 1, all finite.
 * Errors: G_OPTION_ERROR_BAD_VALUE quoting the four values.
 */
gboolean cli_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                   GError **error);

/*
 * cli_account_blocks_structured: the per-victim blocks X_u of setup @s
 * (its protocol, T, trust, attacker set, sigma, b) on the static gossip
 * matrix @w, through proto_account_structured. The blocks are in units of
 * Delta already (mu = sensitivity): the clipping norm cancels against the
 * noise std sigma * Delta.
 * Errors: those of priv_structured_blocks. Complexity: theirs.
 */
PrivBlocks *cli_account_blocks_structured(const CliAccountSetup *s, const TopoGossip *w,
                                          GError **error);

/*
 * cli_account_blocks_schedule: as cli_account_blocks_structured, on the
 * time-varying gossip of @sched (proto_account_structured: the K*T gossip
 * rounds a simulated run uses). Errors and complexity: those of
 * proto_account_structured.
 */
PrivBlocks *cli_account_blocks_schedule(const CliAccountSetup *s, TopoSchedule *sched,
                                        GError **error);

/*
 * cli_account_report_local: the certified local bounds of setup @s
 * (priv_local_report at @radius hops) on the static @w, or on the K*T
 * gossip rounds of @sched (@w NULL), with the report options @opt
 * (proto_account_local). @info: (out) (optional) the ball accounted.
 * @announce: (nullable) a command name: on a static @w, first print on
 * stderr the size of the ball about to be accounted ("dpgossip CMD: ...").
 * Errors and complexity: those of proto_account_local.
 */
PrivReport *cli_account_report_local(const CliAccountSetup *s, const TopoGossip *w,
                                     TopoSchedule *sched, guint radius,
                                     const PrivAccountOptions *opt, PrivLocalInfo *info,
                                     const char *announce, GError **error);

/* ---- Any registered protocol (the observer path) ---- */

/* What --protocol names for `dpgossip account`. */
typedef struct {
  char *run_spec; /* the spec as given: what the observer path runs */
  char *name;     /* the registered protocol's name */
  /* TRUE when the structured fast path knows the protocol: dsgd,
   * muffliato:K=k, antipgd, mfdsgd and mafalda with C a family (identity,
   * antipgd, sr, bsr) or a CSV file. Then the setup's protocol, K and
   * protocol_label are set, and c_spec/band say how to build C_local. */
  gboolean structured;
  char *c_spec; /* MF-D-SGD: C family name or CSV path; else NULL */
  guint band;   /* bsr's band (0: the participation interval b) */
} CliAccountProtocol;

void cli_account_protocol_clear(CliAccountProtocol *p);

/*
 * cli_account_resolve_protocol: proto_account_resolve_protocol of @spec,
 * into @p and the setup's protocol, K and protocol_label (see
 * CliAccountProtocol). Errors and complexity: proto_account_resolve_protocol's.
 */
gboolean cli_account_resolve_protocol(const char *spec, CliAccountSetup *s, CliAccountProtocol *p,
                                      GError **error);

/*
 * cli_account_build_c: s->C_local of a structured MF-D-SGD setup (no-op
 * for the other protocols): proto_c_local of p->c_spec (a family, bsr's
 * band defaulting to s->b, or a T x T CSV file), the recipe the protocol
 * itself uses. Needs s->T and s->b.
 * Errors: those of proto_c_local.
 */
gboolean cli_account_build_c(CliAccountSetup *s, const CliAccountProtocol *p, GError **error);

/* The simulated run of the observer path (strings borrowed). */
typedef struct {
  const char *protocol;   /* registry spec */
  const TopoGraph *graph; /* the static topology, or NULL with... */
  TopoSchedule *schedule; /* ...a time-varying one (borrowed) */
  const char *mode;       /* NULL: sync */
  const char *latency;    /* NULL: constant:ms=0 */
  const char *loss;       /* NULL: 0 */
  double lr;              /* eta > 0 */
  guint64 seed;
  SimLinStorage storage;         /* SIM_LIN_DENSE or SIM_LIN_SPARSE */
  gboolean streaming;            /* the streaming accountant (needs SIM_LIN_SPARSE),
                                   * else the dense one */
  const ProtoAccountLink *links; /* per-link overrides */
  guint n_links;
  CliProgress *progress; /* nullable: the accountant's checkpoints (streaming) or
                                 * the simulated steps (dense) */
} CliObserverRun;

/*
 * cli_account_blocks_observer: the observer path. Builds the accounting-only
 * run @run (noise sigma, clip, T = s->T steps with (T/b, b)-participation,
 * gossip kind s->gossip), sets its link overrides and observes it through
 * proto_observed_run (one view per entry of @views, attached before the
 * first event), runs it, and returns each view's per-victim blocks (A in
 * units of Delta). Every view shares the one simulation.
 * @stats: (out) (optional) the run's counters.
 * Returns: (transfer full) @n_views blocks (free each, then the array), or
 * NULL with @error set: the run's errors (PROTO_ERROR, TOPO_ERROR,
 * SIM_ERROR: a stalled synchronous run behind a down link...), the
 * observer's and the accountant's (PRIV_ERROR_MEMORY when the knowledge
 * does not fit).
 * Complexity: the simulation (O(messages x provenance length)), then per
 * view O(m r min(m, r) + r^2 c) (priv_knowledge_blocks: r rows seen, m
 * noise and c gradient columns).
 */
PrivBlocks **cli_account_blocks_observer(const CliAccountSetup *s, const CliObserverRun *run,
                                         const ProtoObservedView *views, guint n_views,
                                         ProtoRunStats *stats, GError **error);

G_END_DECLS

#endif /* DPG_CLI_ACCOUNT_COMMON_H */
