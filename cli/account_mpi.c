/*
 * cli/account_mpi.c: the structured accountings of `dpgossip account`
 * shared out between the ranks of an MPI job (mpirun or srun): each rank
 * executes its items of the request (proto_account_job_execute_one) and
 * sends each report, its Muffliato bound and its ball as bytes to rank 0,
 * which puts them back in the job in item order.
 */
#include <stdio.h>
#include <string.h>

#include "cli/account_output.h"
#include "ranks/ranks.h"

/* A report and its Muffliato bound as they travel between MPI ranks. */
typedef struct {
  guint32 T, b, sensitivity, n_victims, has_muff;
  guint32 fallback_len; /* the timing pass's fallback (with its NUL; 0: none) */
  guint64 ties;
  double alpha, delta, ball_seconds;
  PrivLocalInfo local;
} ReportHeader;

/* Accounting @a (its report and Muffliato bound) as bytes; the job keeps
 * nothing of it (rank 0 gets it back with the others in order). */
static GBytes *account_one(guint a, gpointer data, GError **error) {
  ProtoAccountJob *j = data;
  ProtoAccounting *ac = &j->acs[a];
  GBytes *out = NULL;
  if (proto_account_job_execute_one(j, a, error)) {
    const PrivReport *r = ac->report;
    guint32 flen = ac->timing_fallback ? (guint32)strlen(ac->timing_fallback) + 1 : 0;
    ReportHeader h = {
        r->T,     r->b,     r->sensitivity, r->n_victims, ac->muff != NULL, flen, ac->timing_ties,
        r->alpha, r->delta, ac->ball_seconds, ac->local};
    GByteArray *b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)&h, sizeof h);
    g_byte_array_append(b, (const guint8 *)r->victims, r->n_victims * sizeof *r->victims);
    if (ac->muff != NULL)
      g_byte_array_append(b, (const guint8 *)ac->muff, j->n * sizeof *ac->muff);
    if (flen > 0)
      g_byte_array_append(b, (const guint8 *)ac->timing_fallback, flen);
    out = g_byte_array_free_to_bytes(b);
  }
  g_clear_pointer(&ac->muff, g_free);
  g_clear_pointer(&ac->timing_fallback, g_free);
  g_clear_pointer(&ac->report, priv_report_free);
  return out;
}

/* account_one's bytes back into @ac's report, Muffliato bound and ball. */
static void account_unpack(GBytes *bytes, guint n, ProtoAccounting *ac) {
  gsize len;
  const guint8 *p = g_bytes_get_data(bytes, &len);
  ReportHeader h;
  memcpy(&h, p, sizeof h);
  PrivReport *r = g_new0(PrivReport, 1);
  *r = (PrivReport){h.T, h.b, h.sensitivity, h.alpha, h.delta, h.n_victims, NULL};
  r->victims = g_memdup2(p + sizeof h, h.n_victims * sizeof *r->victims);
  ac->report = r;
  ac->local = h.local;
  ac->timing_ties = h.ties;
  ac->ball_seconds = h.ball_seconds;
  gsize at = sizeof h + h.n_victims * sizeof *r->victims;
  if (h.has_muff) {
    ac->muff = g_memdup2(p + at, n * sizeof(double));
    at += n * sizeof(double);
  }
  g_free(ac->timing_fallback);
  ac->timing_fallback = h.fallback_len > 0 ? g_strndup((const char *)p + at, h.fallback_len - 1)
                                           : NULL;
}

/* One accounting of a large ball is minutes without a progress hook
 * inside: say what it is about to do. */
static void announce_ball(const ProtoAccountJob *j) {
  const TopoGossip *ws[] = {j->w};
  PrivStructuredProblem q = proto_account_job_problem(j, 0);
  q.gossip = ws;
  q.n_gossip = 1;
  PrivLocalInfo ball;
  if (!priv_local_ball(&q, j->radius, &ball, NULL))
    return;
  if (j->mode.kind != PROTO_MODE_SYNC) /* a delivery record's ball has no relays */
    ball.sub_nodes -= ball.relays;
  fprintf(stderr,
          "dpgossip account: %u nodes within %u hops of the attackers, %u colluding at %u "
          "hops: accounting %u nodes over %u steps\n",
          ball.ball, j->radius, ball.shell, j->radius + 1, ball.sub_nodes, j->T);
}

gboolean cli_account_execute_shared(ProtoAccountJob *j, gboolean announce, GError **error) {
  if (!proto_account_job_prepare(j, error))
    return FALSE;
  if (announce && j->radius && j->n_acs == 1 && j->w != NULL)
    announce_ball(j);
  GBytes **res = NULL;
  gboolean ok = ranks_map(j->n_acs, account_one, j, &res, error);
  for (guint a = 0; res != NULL && a < j->n_acs; a++) {
    account_unpack(res[a], j->n, &j->acs[a]);
    g_bytes_unref(res[a]);
  }
  g_free(res);
  /* The timing pass's notes, every rank's, once: rank 0's (not under -q). */
  if (ok && announce) {
    GPtrArray *notes = proto_account_job_notes(j);
    for (guint i = 0; i < notes->len; i++)
      fprintf(stderr, "dpgossip account: %s\n", (const char *)g_ptr_array_index(notes, i));
    g_ptr_array_unref(notes);
  }
  return ok;
}
