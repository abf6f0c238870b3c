/*
 * ranks/ranks.c: the MPI job: joining, leaving, the rank, and the map of
 * independent items whose results meet on rank 0 in item order. Built
 * without MPI, the same calls run everything in this one process.
 */
#include <string.h>

#include "ranks/ranks.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-ranks-error-quark, ranks_error)
/* clang-format on */

guint ranks_launcher_size(void) {
  static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  guint64 size = 1;
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    const char *v = g_getenv(sizes[i]);
    if (v != NULL)
      size = MAX(size, g_ascii_strtoull(v, NULL, 10));
  }
  /* srun's step size: only srun sets it. Not SLURM_NTASKS, which an
   * sbatch script's own (single) process inherits too: that process is one
   * copy, and must run. */
  const char *procid = g_getenv("SLURM_PROCID"), *ntasks = g_getenv("SLURM_STEP_NUM_TASKS");
  if (procid != NULL && ntasks != NULL)
    size = MAX(size, g_ascii_strtoull(ntasks, NULL, 10));
  /* A rank other than 0 is one of several, whatever the size says. */
  const char *ranks[] = {g_getenv("PMIX_RANK"), procid};
  for (guint i = 0; i < G_N_ELEMENTS(ranks); i++)
    if (ranks[i] != NULL && g_ascii_strtoull(ranks[i], NULL, 10) > 0)
      size = MAX(size, 2);
  return (guint)MIN(size, G_MAXUINT);
}

/* ranks_map in one process: every item, in order, up to the first failure. */
static gboolean map_local(guint n, RanksItemFunc func, gpointer data, GBytes ***results,
                          GError **error) {
  GBytes **r = g_new0(GBytes *, MAX(n, 1));
  for (guint i = 0; i < n; i++)
    if ((r[i] = func(i, data, error)) == NULL) {
      for (guint k = 0; k < i; k++)
        g_bytes_unref(r[k]);
      g_free(r);
      *results = NULL;
      return FALSE;
    }
  *results = r;
  return TRUE;
}

#ifndef DPG_HAVE_MPI

gboolean ranks_built(void) {
  return FALSE;
}

gboolean ranks_joined(void) {
  return FALSE;
}

void ranks_set_lost(void) {}

void ranks_mpi_error(GError **error, GQuark domain, gint code, int mpi_code, const char *what) {
  g_set_error(error, domain, code, "%s: MPI error %d", what, mpi_code);
}

gboolean ranks_init(guint *rank, guint *size, guint *local, GError **error) {
  *rank = 0;
  *size = *local = 1;
  g_set_error(error, RANKS_ERROR, RANKS_ERROR_FAILED,
              "this dpgossip was built without MPI (configure with -DDPG_MPI=ON after "
              "installing libopenmpi-dev)");
  return FALSE;
}

int ranks_finalize(int status) {
  return status;
}

gboolean ranks_map(guint n, RanksItemFunc func, gpointer data, GBytes ***results, GError **error) {
  return map_local(n, func, data, results, error);
}

guint ranks_rank(void) {
  return 0;
}

#else /* DPG_HAVE_MPI */

#include <mpi.h>

static gboolean initialized;
static gboolean lost_rank; /* finalizing would wait for it */

gboolean ranks_built(void) {
  return TRUE;
}

gboolean ranks_joined(void) {
  return initialized;
}

void ranks_set_lost(void) {
  lost_rank = TRUE;
}

void ranks_mpi_error(GError **error, GQuark domain, gint code, int mpi_code, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_code, text, &len) != MPI_SUCCESS)
    len = 0;
  text[len] = '\0';
  g_set_error(error, domain, code, "%s: %s", what, len ? text : "MPI error");
}

gboolean ranks_init(guint *rank, guint *size, guint *local, GError **error) {
  int provided = 0, r = 0, s = 1, l = 1;
  int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) {
    ranks_mpi_error(error, RANKS_ERROR, RANKS_ERROR_FAILED, rc, "cannot join the MPI job");
    return FALSE;
  }
  initialized = TRUE;
  /* Errors come back as codes: a lost rank is reported, not a crash. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  MPI_Comm node;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node) ==
      MPI_SUCCESS) {
    MPI_Comm_size(node, &l);
    MPI_Comm_free(&node);
  }
  *rank = (guint)r;
  *size = (guint)s;
  *local = (guint)MAX(l, 1);
  return TRUE;
}

int ranks_finalize(int status) {
  if (!initialized)
    return status;
  initialized = FALSE;
  if (lost_rank)
    MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
  MPI_Finalize();
  return status;
}

/* Each call its own tag: a fast rank may already send the next call's items
 * while rank 0 still collects this one's. */
static guint map_calls;

guint ranks_rank(void) {
  int r = 0;
  if (initialized)
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return (guint)r;
}

typedef struct {
  gint32 item, ok, code;
} ItemHeader;

/*
 * Waiting without spinning. Open MPI's blocking calls (MPI_Probe,
 * MPI_Waitall) poll in a loop: a rank that waits for the others keeps a core
 * busy, and when ranks outnumber cores (a laptop, a test, a shared node)
 * it takes that core from a rank that computes. These look, and sleep
 * between looks: 50 us at first, doubling to 1 ms, as the sweep's
 * dispatcher does (scenarios/sweep_mpi.c). A result is then seen at most
 * 1 ms late, nothing next to an item's run.
 */
enum { IDLE_FIRST_US = 50, IDLE_MAX_US = 1000 };

/* Like MPI_Probe(MPI_ANY_SOURCE, @tag) into @st. */
static int wait_message(int tag, MPI_Status *st) {
  gulong idle_us = IDLE_FIRST_US;
  for (;;) {
    int flag = 0;
    int rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, st);
    if (rc != MPI_SUCCESS || flag)
      return rc;
    g_usleep(idle_us);
    idle_us = MIN(idle_us * 2, IDLE_MAX_US);
  }
}

/* Like MPI_Waitall on @reqs (MPI_Request), statuses ignored. */
static int wait_sent(GArray *reqs) {
  gulong idle_us = IDLE_FIRST_US;
  for (;;) {
    int flag = 0;
    int rc = MPI_Testall((int)reqs->len, (MPI_Request *)reqs->data, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || flag)
      return rc;
    g_usleep(idle_us);
    idle_us = MIN(idle_us * 2, IDLE_MAX_US);
  }
}

gboolean ranks_map(guint n, RanksItemFunc func, gpointer data, GBytes ***results, GError **error) {
  int r = 0, s = 1;
  if (initialized) {
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
  }
  if (s == 1)
    return map_local(n, func, data, results, error);
  int tag = 100 + (int)(map_calls++ % 30000);
  *results = NULL;
  GBytes **res = r == 0 ? g_new0(GBytes *, MAX(n, 1)) : NULL;
  GError **errs = r == 0 ? g_new0(GError *, MAX(n, 1)) : NULL;
  GPtrArray *bufs = g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
  GArray *reqs = g_array_new(FALSE, FALSE, sizeof(MPI_Request));
  gboolean ok = TRUE;
  for (guint i = (guint)r; i < n; i += (guint)s) {
    GError *e = NULL;
    GBytes *b = func(i, data, &e);
    if (r == 0) {
      res[i] = b;
      errs[i] = e;
      continue;
    }
    GByteArray *buf = g_byte_array_new();
    ItemHeader h = {(gint32)i, b != NULL, e ? e->code : 0};
    g_byte_array_append(buf, (const guint8 *)&h, sizeof h);
    if (b != NULL) {
      gsize len;
      const guint8 *p = g_bytes_get_data(b, &len);
      g_byte_array_append(buf, p, (guint)len);
      g_bytes_unref(b);
    } else {
      const char *dom = g_quark_to_string(e->domain);
      g_byte_array_append(buf, (const guint8 *)dom, (guint)strlen(dom) + 1);
      g_byte_array_append(buf, (const guint8 *)e->message, (guint)strlen(e->message) + 1);
      g_error_free(e);
    }
    /* Without waiting: rank 0 may be busy with its own items. */
    MPI_Request q;
    if (MPI_Isend(buf->data, (int)buf->len, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &q) == MPI_SUCCESS)
      g_array_append_val(reqs, q);
    g_ptr_array_add(bufs, buf);
  }
  if (r != 0) {
    if (reqs->len > 0)
      wait_sent(reqs);
  } else {
    guint own = (n + (guint)s - 1) / (guint)s;
    GByteArray *buf = g_byte_array_new();
    for (guint k = own; k < n && ok; k++) {
      MPI_Status st;
      int count = 0;
      int rc = wait_message(tag, &st);
      if (rc == MPI_SUCCESS) {
        MPI_Get_count(&st, MPI_BYTE, &count);
        g_byte_array_set_size(buf, (guint)MAX(count, 1));
        rc = MPI_Recv(buf->data, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
      }
      if (rc != MPI_SUCCESS) {
        ranks_mpi_error(error, RANKS_ERROR, RANKS_ERROR_FAILED, rc,
                        "collecting the results of the other ranks");
        lost_rank = TRUE;
        ok = FALSE;
        break;
      }
      ItemHeader h;
      memcpy(&h, buf->data, sizeof h);
      if (h.item < 0 || (guint)h.item >= n)
        continue;
      const guint8 *p = buf->data + sizeof h;
      gsize len = (gsize)count - sizeof h;
      if (h.ok) {
        res[h.item] = g_bytes_new(p, len);
      } else {
        const char *dom = (const char *)p;
        const char *msg = dom + strlen(dom) + 1;
        errs[h.item] = g_error_new_literal(g_quark_from_string(dom), h.code, msg);
      }
    }
    g_byte_array_unref(buf);
    for (guint i = 0; i < n && ok; i++)
      if (errs[i] != NULL) {
        g_propagate_error(error, errs[i]);
        errs[i] = NULL;
        ok = FALSE;
      }
    for (guint i = 0; i < n; i++)
      if (errs[i] != NULL)
        g_error_free(errs[i]);
    if (ok) {
      *results = res;
    } else {
      for (guint i = 0; i < n; i++)
        if (res[i] != NULL)
          g_bytes_unref(res[i]);
      g_free(res);
    }
    g_free(errs);
  }
  g_array_unref(reqs);
  g_ptr_array_unref(bufs);
  return ok;
}

#endif /* DPG_HAVE_MPI */
