/*
 * cli/account_common.h: internal to the dpgossip command. The attacker
 * sets of --attackers with their warnings, and what `dpgossip figure
 * privacy-vs-distance` parses of an accounting (its settings, --protocol,
 * the numeric checks). Every accounting itself goes through the protocols'
 * request (ProtoAccountRequest).
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

/* The settings `figure` accounts with (no owned field). */
typedef struct {
  PrivProtocol protocol; /* parsed by the registry (proto_account_resolve_protocol) */
  guint T, b;
  PrivTrust trust;
  MfSensitivity sensitivity;
  double sigma, clip, alpha, delta;
  TopoGossipKind gossip;
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
 * without an edge outside the sets of @s (nullable: no sets), as `graph`
 * notes a disconnected graph: a victim that shares nothing (its guarantee
 * is trivial). Attackers that receive nothing are the run's warning
 * (cli_account_warn_job), whatever the cause. O(n + members). */
void cli_attacker_sets_warn_isolated(const CliAttackerSets *s, const TopoGraph *g, const char *cmd);
/* Prints proto_account_job_warnings(@j) on stderr, one "dpgossip @cmd:
 * warning: ..." line each, whatever the output format. O(accountings x
 * victims). */
void cli_account_warn_job(const ProtoAccountJob *j, const char *cmd);

/* Parses a non-negative decimal integer that fits in a guint (below
 * G_MAXUINT); FALSE for anything else (sign, spaces, trailing text). */
gboolean cli_parse_uint(const char *s, guint *out);

/*
 * cli_account_check_numbers: --sigma >= 0, --clip > 0, --alpha > 1 and
 * 0 < --delta < 1, all finite.
 * Errors: G_OPTION_ERROR_BAD_VALUE quoting the four values.
 */
gboolean cli_account_check_numbers(double sigma, double clip, double alpha, double delta,
                                   GError **error);

G_END_DECLS

#endif /* DPG_CLI_ACCOUNT_COMMON_H */
