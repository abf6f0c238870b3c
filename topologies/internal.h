/*
 * topologies/internal.h: helpers shared inside topologies/ only (never
 * include from another module).
 */
#ifndef DPG_TOPOLOGIES_INTERNAL_H
#define DPG_TOPOLOGIES_INTERNAL_H

#include "topologies/topologies.h"
#include "spec/spec.h"

struct TopoGraph {
  igraph_t graph;
  guint n;
  guint m;
  guint *adj_ptr;      /* n+1 offsets into adj */
  guint *adj;          /* sorted neighbour lists, 2m entries */
  TopoLoadReport load; /* topo_graph_load: what it dropped */
  gboolean loaded;     /* ... and whether the graph came from a file */
  /* The users' names of the nodes (labels.c): n strings, or NULL when
   * node u is called u (generated graphs, files labelled 0..n-1). */
  char **labels;
  GHashTable *by_label; /* label -> id + 1 (GUINT_TO_POINTER), with @labels */
};

/* The graph of the largest connected component of @g, as
 * topo_graph_largest_component, and *@old_of (g_free) the index in @g of
 * each of its nodes. */
TopoGraph *topo_graph_largest_component_map(const TopoGraph *g, guint **old_of, GError **error);

/* Takes @labels (n strings, g_strfreev-able, NULL-terminated) as @g's label
 * table; FALSE (TOPO_ERROR_INVALID_ARGUMENT, @labels freed) when two are
 * equal or one is empty. O(n). */
gboolean topo_graph_take_labels(TopoGraph *g, char **labels, GError **error);

struct TopoGossip {
  guint n;
  guint *row_ptr; /* n+1 offsets */
  guint *col;     /* increasing within a row */
  double *val;
  double *pi;         /* reversibility weights (pi_u W[u,v] symmetric) or NULL */
  gboolean symmetric; /* W == W^T exactly */
};

/* An uninitialised CSR matrix with room for nnz entries (row_ptr zeroed). */
TopoGossip *topo_gossip_alloc(guint n, gsize nnz);

/* FALSE (TOPO_ERROR_INVALID_ARGUMENT) when @kind is none of TopoGossipKind's
 * values (a caller's cast). O(1). */
gboolean topo_gossip_kind_check(TopoGossipKind kind, GError **error);

/* --- igraph calls ------------------------------------------------------ */

/* igraph's default error handler aborts the process and its warnings go to
 * stderr; library code must do neither. A guard swaps in the ignoring
 * handlers around a block of igraph calls and restores the caller's. */
typedef struct {
  igraph_error_handler_t *err;
  igraph_warning_handler_t *warn;
} TopoIgraphGuard;

/* The guard also holds a process-wide recursive lock: Debian's igraph is
 * built without thread safety (IGRAPH_THREAD_SAFE 0: global error handlers
 * and default RNG), and sweeps build graphs from several threads. Every
 * igraph call in this module runs inside a guard. */
void topo_igraph_guard_begin(TopoIgraphGuard *guard);
void topo_igraph_guard_end(TopoIgraphGuard *guard);

/* Set a TOPO_ERROR_FAILED error naming what igraph was doing. */
void topo_set_igraph_error(GError **error, const char *what, igraph_error_t code);

/* Peak bytes per edge and per node of building a graph: igraph's edge and
 * index vectors, the sorted key copy and the adjacency cache (measured:
 * about 80 per edge for erdos and complete, 117 per node of a ring). */
#define TOPO_BYTES_PER_EDGE 96.0
#define TOPO_BYTES_PER_NODE 64.0
/* And per node of a label table (labels.c): the string pointer (8), the
 * decimal label of up to 20 digits in a malloc chunk (32) and its hash
 * table entry (hash, key and value: 24, at most half the slots used: 48). */
#define TOPO_BYTES_PER_LABEL 88.0

/* --- graph files: checks before reading (load_check.c) ----------------- */

/* Longest quoted string (a node label) a GML or Pajek file may hold: igraph's
 * lexers take time quadratic in a string's length. */
#define TOPO_STRING_MAX (64 << 10)

/* FALSE with FILE:LINE (TOPO_ERROR_PARSE) when @path holds a quoted string
 * longer than TOPO_STRING_MAX bytes; @multiline: a string may span lines
 * (GML), else a line ends it (Pajek). Streams the file: O(size), O(1) memory. */
gboolean topo_check_quoted_strings(const char *path, gboolean multiline, GError **error);

/* FALSE with FILE:LINE (TOPO_ERROR_INVALID_ARGUMENT) when the Pajek file
 * @path's "*Vertices N" line declares more nodes than dpgossip supports or
 * than the memory budget can hold: igraph's reader allocates for N before
 * reading a vertex, so a 20-byte file could ask for any amount. Reads the
 * lines up to that one: O(header), O(1) memory. */
gboolean topo_check_pajek_vertices(const char *path, GError **error);

/* FALSE (TOPO_ERROR_INVALID_ARGUMENT, the size needed) when parsing the edge
 * list @path and building its graph would exceed the memory budget. Counts
 * the file's lines by streaming it before anything is allocated: each line
 * is taken as an edge with two new labels. O(size), O(1) memory. */
gboolean topo_check_edge_list_memory(const char *path, GError **error);

/* FALSE with FILE:LINE (TOPO_ERROR_PARSE) when the GraphML file @path holds
 * more than one top-level <graph>, or an edge whose source or target is no
 * <node> of its graph (igraph would create the node). Streams the file with
 * libxml2's reader (no entity expansion, no network): O(size), memory
 * O(nodes). */
gboolean topo_check_graphml(const char *path, GError **error);

/* Build a TopoGraph from a simple undirected edge list (pairs, each edge
 * once, no loops); takes nothing. */
TopoGraph *topo_graph_build(guint n, const guint *edges, gsize m, GError **error);

/* --- spectral gap (spectral.c) ------------------------------------------ */

/* Largest n whose gap LAPACK computes from the dense matrix (32 MB, well
 * under a second); above, ARPACK on the sparse W. */
#define TOPO_GAP_DENSE_MAX 2048
/* Work (stored entries touched) allowed without a bound: "exact". */
#define TOPO_GAP_EXACT_WORK ((guint64)1 << 50)

/* The gap, dense up to TOPO_GAP_DENSE_MAX, else topo_gossip_gap_sparse.
 * FALSE only on a solver error; *status says whether *gap was set. */
gboolean topo_gossip_gap(const TopoGossip *w, guint64 max_work, double *gap,
                         TopoSummaryStatus *status, GError **error);

/* The gap by ARPACK on the deflated symmetrised W, whatever n (tests compare
 * it with the dense path on small graphs). max_work bounds the entries
 * touched (products times nnz + ncv n): *status TOPO_SUMMARY_SKIPPED_WORK
 * when too few products fit, TOPO_SUMMARY_NO_CONVERGENCE when they did not
 * suffice, TOPO_SUMMARY_SKIPPED_MEMORY over spec_memory_limit(). */
gboolean topo_gossip_gap_sparse(const TopoGossip *w, guint64 max_work, double *gap,
                                TopoSummaryStatus *status, GError **error);

/* Bytes the sparse solver needs for n nodes. */
gsize topo_gap_sparse_bytes(guint n);

/* --- churn (churn.c) ---------------------------------------------------- */

/* Node departures: node absent for leave <= t < join (join G_MAXUINT =
 * never back). */
typedef struct {
  guint node, leave, join;
} TopoChurnInterval;

/* Parse a churn file into intervals (GArray of TopoChurnInterval) for
 * graph @g, whose nodes the file names by their labels (topo_graph_node_find;
 * ids without a label table); errors carry FILE:LINE. */
GArray *topo_churn_load(const char *path, const TopoGraph *g, GError **error);

/* --- session traces (trace.c, trace_churn.c) ---------------------------- */

/* A session trace: per user, a step function of time (seconds from the
 * user's own start) alternating online and offline, replayed cyclically with
 * the user's period (docs/guide.md, "Churn from traces"). */
typedef struct TopoTrace TopoTrace;

/* Read @path, gzipped or plain: the STUNner format (@stunner) or
 * "node,online_from,online_until" lines. Errors: TOPO_ERROR_IO (unreadable),
 * TOPO_ERROR_FILE with FILE:LINE (a line that does not parse, a truncated
 * record, sessions out of order, corrupt gzip data), nothing returned then.
 * O(file size + sessions log sessions). */
TopoTrace *topo_trace_load(const char *path, gboolean stunner, GError **error);
void topo_trace_free(TopoTrace *tr);
guint topo_trace_n_users(const TopoTrace *tr);
/* The user's period: its trace's length in seconds (> 0). O(1). */
double topo_trace_period(const TopoTrace *tr, guint user);
/* Whether @user is online at time @x seconds (taken modulo its period).
 * Sessions are half-open: online from their start, offline at their end.
 * O(log sessions). */
gboolean topo_trace_online(const TopoTrace *tr, guint user, double x);
/* The user whose node id is @id (sessions format; STUNner: the line
 * number - 1), or G_MAXUINT. O(log users). */
guint topo_trace_user_of_id(const TopoTrace *tr, guint64 id);
/* @user's node id and in *@line (may be NULL) the line of its first
 * session (STUNner: its line, the id + 1). O(1). */
guint64 topo_trace_user_id(const TopoTrace *tr, guint user, gsize *line);

/* A trace replayed on n nodes: node u follows one trace user from an
 * offset (trace_churn.c). */
typedef struct TopoTraceChurn TopoTraceChurn;

/* From the parsed spec "churn:trace=FILE[,format=..][,scale=..][,start=..]
 * [,seed=..][,map=..]" (keys documented at topo_schedule_new); @seed is the
 * run's, used when the spec has none. Errors: TOPO_ERROR_PARSE (bad key or
 * value), those of topo_trace_load, TOPO_ERROR_INVALID_ARGUMENT for
 * map=identity with fewer users than nodes. With map=identity a sessions
 * trace names @g's nodes by their labels when @g has a label table (node
 * labelled 20 follows the trace's node 20; a trace node the graph lacks is
 * refused at its first line); a STUNner trace's lines have no names: node
 * u (the u-th of the graph file) follows line u + 1. O(file + n). */
TopoTraceChurn *topo_trace_churn_new(const Spec *ps, const TopoGraph *g, guint64 seed,
                                     GError **error);
void topo_trace_churn_free(TopoTraceChurn *tc);
/* Node u's presence at @round. O(log sessions). */
gboolean topo_trace_churn_present(const TopoTraceChurn *tc, guint round, guint u);

/* --- determinism --------------------------------------------------------- */

/* A 64-bit mix of (a, b, c) (splitmix64 finalizer chain): nearby inputs give
 * unrelated outputs, so per-(seed, round, purpose) streams are independent. */
guint64 topo_hash3(guint64 a, guint64 b, guint64 c);

/* A GSL mt19937 generator seeded from topo_hash3(seed, round, purpose). */
gsl_rng *topo_rng_new(guint64 seed, guint64 round, guint64 purpose);

#endif /* DPG_TOPOLOGIES_INTERNAL_H */
