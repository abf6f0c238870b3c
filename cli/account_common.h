/*
 * cli/account_common.h: internal to the dpgossip command. What `dpgossip
 * account` and `dpgossip figure privacy-vs-distance` share: the accounting
 * setup, the --protocol parser, the numeric option checks and the
 * structured path that turns a setup into per-victim blocks.
 */
#ifndef DPG_CLI_ACCOUNT_COMMON_H
#define DPG_CLI_ACCOUNT_COMMON_H

#include <glib.h>

#include "privacy/privacy.h"
#include "topologies/topologies.h"

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
  PrivSensitivity sensitivity;
  guint *attackers;
  guint n_attackers;
  double sigma, clip, alpha, delta;
  gboolean compare_muffliato;
  TopoGossipKind gossip;
} CliAccountSetup;

/* Frees the owned fields of @s and zeroes them (NULL allowed). */
void cli_account_setup_clear(CliAccountSetup *s);

/* Parses a non-negative decimal integer that fits in a guint (below
 * G_MAXUINT); FALSE for anything else (sign, spaces, trailing text). */
gboolean cli_parse_uint(const char *s, guint *out);

/*
 * cli_account_parse_protocol: --protocol dsgd | muffliato[:K=k] | antipgd |
 * mfdsgd:C=FILE into s->protocol, s->K and s->protocol_label; for
 * mfdsgd:C=FILE, *c_path receives FILE (g_free it; read by
 * cli_account_load_c once T is known).
 * Errors: G_OPTION_ERROR_BAD_VALUE naming the valid protocols.
 */
gboolean cli_account_parse_protocol(const char *spec, CliAccountSetup *s, char **c_path,
                                    GError **error);

/*
 * cli_account_load_c: C_local of an MF-D-SGD setup: AntiPGD's lower-
 * triangular ones when c_path is NULL, else the T x T CSV at c_path. No-op
 * for the other protocols.
 * Errors: those of priv_matrix_read_csv, PRIV_ERROR_INVALID_ARGUMENT for a
 * matrix that is not T x T.
 */
gboolean cli_account_load_c(CliAccountSetup *s, const char *c_path, GError **error);

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
 * matrix @w, through priv_structured_blocks. The blocks are in units of
 * Delta already (mu = sensitivity): the clipping norm cancels against the
 * noise std sigma * Delta.
 * Errors: those of priv_structured_blocks. Complexity: theirs.
 */
PrivBlocks *cli_account_blocks_structured(const CliAccountSetup *s, const TopoGossip *w,
                                          GError **error);

G_END_DECLS

#endif /* DPG_CLI_ACCOUNT_COMMON_H */
