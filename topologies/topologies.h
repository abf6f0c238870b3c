/*
 * topologies/topologies.h: igraph-backed graphs, gossip matrices, schedules.
 *
 * A TopoGraph is an undirected simple graph on nodes 0..n-1 (it owns an
 * igraph_t and a sorted adjacency cache). Graphs come from edge-list files
 * (topo_graph_load), generator specs (topo_graph_generate) or igraph.
 * A TopoGossip is a sparse (CSR) row-stochastic gossip matrix W: row u is
 * supported on u and the nodes u averages with (docs/design.md, "Protocols").
 * A TopoSchedule gives the time-varying W_t of round t and the topology
 * changes between rounds.
 *
 * Conventions: public names carry the topo_ prefix (types Topo*); errors
 * travel as GError in the TOPO_ERROR domain; library code never prints or
 * exits. Each function owns what it allocates unless its comment says
 * otherwise. Determinism: every random object is a pure function of its
 * spec and seed (and round), whatever the call order.
 */
#ifndef DPG_TOPOLOGIES_H
#define DPG_TOPOLOGIES_H

#include <igraph.h>

#include "sim/sim.h"
#include "spec/spec.h"

G_BEGIN_DECLS

#define TOPO_ERROR (topo_error_quark())
GQuark topo_error_quark(void);

typedef enum {
  TOPO_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  TOPO_ERROR_PARSE,            /* a spec or file line that does not parse */
  TOPO_ERROR_IO,               /* a file that cannot be read or written */
  TOPO_ERROR_EMPTY,            /* a file or component without any edge */
  TOPO_ERROR_DISCONNECTED,     /* no connected sample within the allowed tries */
  TOPO_ERROR_FAILED,           /* igraph or LAPACK failed (out of memory...) */
  TOPO_ERROR_FILE,             /* a data file (churn, trace) whose content does not parse:
                                  FILE:LINE; a run failure, not a usage error */
  TOPO_ERROR_RANGE,            /* a schedule's or generator's parameter out of its range
                                  (churn scale=-1, erdos p=2): the user's typing, a usage
                                  error as a value that does not parse
                                  (proto_error_is_usage) */
} TopoError;

/* ===================================================================== */
/* Graphs                                                                 */
/* ===================================================================== */

/* An undirected simple graph on nodes 0..n-1, owning its igraph_t. */
typedef struct TopoGraph TopoGraph;

/*
 * topo_graph_from_igraph: wrap an igraph graph.
 * g: taken in every case: its contents are igraph_destroy'ed before the call
 *    returns (success or not); the igraph_t storage itself stays the
 *    caller's. Directed graphs are made undirected (one edge per connected
 *    pair), self-loops and multi-edges are dropped; the new graph's igraph
 *    edge ids follow the sorted edge list, whatever g's order was.
 * Errors: TOPO_ERROR_INVALID_ARGUMENT if g is NULL or has more than
 *    G_MAXUINT/2 nodes; TOPO_ERROR_FAILED if igraph fails.
 * Complexity: O(n + m log m).
 */
TopoGraph *topo_graph_from_igraph(igraph_t *g, GError **error);

/*
 * topo_graph_new_from_edges: the simple graph on n nodes with the given
 * edges (pairs edges[2i], edges[2i+1]); self-loops and duplicates dropped.
 * Errors: TOPO_ERROR_INVALID_ARGUMENT for an endpoint >= n or n == 0.
 * Complexity: O(n + m log m).
 */
TopoGraph *topo_graph_new_from_edges(guint n, const guint *edges, gsize n_edges, GError **error);

/* topo_graph_copy: a deep copy. Errors: TOPO_ERROR_FAILED. O(n + m). */
TopoGraph *topo_graph_copy(const TopoGraph *g, GError **error);

/* topo_graph_free: free g (NULL allowed). */
void topo_graph_free(TopoGraph *g);

/* Number of nodes / edges. O(1). */
guint topo_graph_n_nodes(const TopoGraph *g);
guint topo_graph_n_edges(const TopoGraph *g);

/* The underlying igraph graph (undirected, simple), owned by g. */
const igraph_t *topo_graph_igraph(const TopoGraph *g);

/* Degree of node u (< n). O(1). */
guint topo_graph_degree(const TopoGraph *g, guint u);

/* topo_graph_neighbors: node u's neighbours in increasing order, owned by g;
 * *n_out receives the count (the degree). O(1). */
const guint *topo_graph_neighbors(const TopoGraph *g, guint u, guint *n_out);

/* topo_graph_has_edge: whether u-v is an edge (u != v, both < n).
 * O(log deg(u)). */
gboolean topo_graph_has_edge(const TopoGraph *g, guint u, guint v);

/*
 * topo_graph_edges: every edge once as (u, v) with u < v, sorted
 * lexicographically: out[2i], out[2i+1]. Returns a g_free-able array of
 * 2*m guints (NULL when m == 0); *n_edges receives m. O(m).
 */
guint *topo_graph_edges(const TopoGraph *g, gsize *n_edges);

/*
 * topo_graph_layout: node positions for drawing g: Kamada-Kawai (igraph,
 * from random positions) up to TOPO_LAYOUT_KK_MAX nodes, where it keeps
 * communities apart without squashing them; Fruchterman-Reingold (500
 * iterations, 150 above 2,000 nodes) above. Both from an RNG seeded with
 * seed alone: the same graph and seed give the same positions bit for bit,
 * whatever igraph did before (thread-safe: runs under the module's igraph
 * lock). Returns a g_free-able array of 2*n doubles, x then y per node, any
 * scale (finite).
 * Errors: TOPO_ERROR_INVALID_ARGUMENT for a NULL graph; TOPO_ERROR_FAILED
 *   when igraph fails (out of memory).
 * Complexity: Kamada-Kawai O(n m + 50 n^2) time, O(n^2) memory; above, FR
 *   O(iterations * n^2) below 1,000 nodes, grid-accelerated above.
 */
#define TOPO_LAYOUT_KK_MAX 500
double *topo_graph_layout(const TopoGraph *g, guint64 seed, GError **error);

/* topo_graph_is_connected: TRUE when n >= 1 and every node reaches every
 * other (a single node is connected). O(n + m). */
gboolean topo_graph_is_connected(const TopoGraph *g);

/*
 * topo_graph_hops: the hops from the @k nodes @sources (each < n, repeats
 * allowed) to every node, by a breadth-first search that stops at @max_hops:
 * an array of n (g_free), G_MAXUINT for the nodes farther than @max_hops or
 * unreachable. The balls of the local bounds. O(n + the edges of the nodes
 * within max_hops - 1 hops).
 */
guint *topo_graph_hops(const TopoGraph *g, const guint *sources, guint k, guint max_hops);

/*
 * topo_graph_largest_component: the largest connected component, nodes
 * renumbered 0..k-1 in increasing order of their index in g (which for a
 * loaded graph is the order of first appearance in the file). Ties between
 * components of the same size go to the one holding the smallest node index.
 * A label table goes along: the kept nodes keep their labels.
 * Errors: TOPO_ERROR_FAILED. O(n + m log m).
 */
TopoGraph *topo_graph_largest_component(const TopoGraph *g, GError **error);

/*
 * topo_graph_write_edges: write "u v" lines (u < v, lexicographically sorted,
 * '\n'-terminated, no header) to path, so the output is byte-identical for
 * equal graphs and loads back to the same graph when every node has an edge.
 * Errors: TOPO_ERROR_IO (message names the path). O(m).
 */
gboolean topo_graph_write_edges(const TopoGraph *g, const char *path, GError **error);

/*
 * Node labels. The simulator numbers nodes 0..n-1 (ids: every array, matrix
 * and RNG stream is indexed by them); users name them by their labels. A
 * graph loaded from an edge list whose labels are not exactly 0..n-1, or
 * from a GraphML, GML or Pajek file whose nodes' name, label or id
 * attribute is not (or kept by lcc from a larger graph), keeps its file's
 * labels in a label table, the one home of the mapping; a graph without a table (generated,
 * a file labelled 0..n-1, built from ids) names node u "u".
 *
 * topo_graph_node_label: node @id's label, NULL without a label table
 *   (transfer none: owned by @g). O(1).
 * topo_graph_node_name: node @id's label, or "id" without a table
 *   (g_free). O(1).
 * topo_graph_node_find: the id of the node labelled @label (without a
 *   table: decimal digits naming an id below n); FALSE when no node is.
 *   O(length of @label).
 * topo_graph_set_labels: gives @g a label table: @labels is n non-empty,
 *   distinct strings (NULL-terminated; copied). Errors:
 *   TOPO_ERROR_INVALID_ARGUMENT (a count other than n, an empty or repeated
 *   label; the table is unchanged). O(n).
 * topo_graph_has_labels: whether @g has a label table. O(1).
 * topo_graph_copy and topo_graph_largest_component keep the table; other
 * graphs derived from @g do not.
 */
const char *topo_graph_node_label(const TopoGraph *g, guint id);
char *topo_graph_node_name(const TopoGraph *g, guint id);
gboolean topo_graph_node_find(const TopoGraph *g, const char *label, guint *id);
/* topo_graph_node_find_cb: topo_graph_node_find with an untyped graph, the
 * callback lower layers take to name nodes (SpecNodeFind, SimNodeFind). */
gboolean topo_graph_node_find_cb(gconstpointer g, const char *label, guint *id);
gboolean topo_graph_set_labels(TopoGraph *g, const char *const *labels, GError **error);
gboolean topo_graph_has_labels(const TopoGraph *g);

/*
 * topo_graph_resolve_attackers: attacker sets (spec/'s grammar) as @g names
 * its nodes: with a label table every member is looked up by its label,
 * without one it must be an id (spec_attackers_resolve). Call before
 * spec_attackers_check. @graph names @g in messages (NULL: "the graph");
 * @flags: spec_attackers_parse's (the grammar the messages name). @g NULL:
 * no graph to look labels up in, every member must be an id.
 * Errors (@domain, @code): a member that names no node. O(members).
 * topo_graph_attackers_label: set @i of @a as @g names it, "3+11"
 *   (members joined by '+', in id order; g_free). O(set size).
 * topo_graph_node_parse: the node @text names (its label; without a table
 *   its id), else the error (@domain, @code) "@what: node 'x' is not in
 *   the graph (...)" that lists the valid range or a few labels. O(1).
 */
gboolean topo_graph_resolve_attackers(const TopoGraph *g, SpecAttackers *a, const char *graph,
                                      guint flags, GQuark domain, gint code, GError **error);
char *topo_graph_attackers_label(const TopoGraph *g, const SpecAttackers *a, guint i);
gboolean topo_graph_node_parse(const TopoGraph *g, const char *text, const char *what,
                               GQuark domain, gint code, guint *id, GError **error);

/*
 * topo_graph_load: read a graph file, its format by extension
 * (topo_graph_load_format with TOPO_FORMAT_AUTO, weights refused unless
 * equal). The edge list (SNAP format):
 * one edge "u v" per line (blanks or commas between fields, an optional
 * weight third); '#' starts a comment (whole line or
 * trailing); blank lines allowed. Labels are non-negative decimal integers
 * (any value up to 2^64-1, leading zeros ignored). When the n labels are
 * exactly 0..n-1 they are kept as node ids (a 0-indexed file means what it
 * says); otherwise the ids are 0..n-1 in order of first appearance in
 * the file (the first label of a line before the second), and the graph
 * keeps the file's labels (in decimal, leading zeros dropped) in its label
 * table (topo_graph_node_label). Self-loops and duplicate edges (either orientation) are dropped; a
 * node that appears only in self-loops is kept as an isolated node. What
 * was dropped or renumbered is counted (topo_graph_load_report).
 * lcc: keep only the largest connected component, renumbered 0..k-1 in
 *    increasing order of the ids above (for renumbered files, the order of
 *    first appearance among the kept nodes; see topo_graph_largest_component);
 *    the kept nodes keep their labels (the file's), in the label table
 *    whenever they are not exactly 0..k-1.
 * Errors: TOPO_ERROR_IO (missing/unreadable file), TOPO_ERROR_PARSE
 *    ("FILE:LINE: ..." saying what was wrong: one token, three or more
 *    tokens, a non-numeric or negative label, a label out of range),
 *    TOPO_ERROR_EMPTY (no edge other than self-loops).
 * Complexity: O(file size + m log m).
 */
TopoGraph *topo_graph_load(const char *path, gboolean lcc, GError **error);

/* What topo_graph_load changed in the file's graph, which it used to do silently. */
typedef struct {
  guint64 self_loops; /* "u u" lines dropped */
  guint64 duplicates; /* repeated edges (either orientation) dropped, copies beyond the first */
  /* Of those, the edges listed exactly once in each direction ("u v" and
   * "v u"): a directed listing of an undirected graph, not a repetition. */
  guint64 both_directions;
  gboolean renumbered;      /* the labels were not exactly 0..n-1: kept as the nodes' labels */
  gboolean weights_ignored; /* unequal edge weights dropped (ignore_weights asked for it) */
  /* The file declared a directed graph (GraphML edgedefault="directed" or
   * directed edges, GML "directed 1", Pajek *Arcs): each arc read as an
   * undirected edge. */
  gboolean directed;
  /* A CSV header named the third column latency (or delay): directed links
   * with their latencies (sim's links: latency model reads them), read as
   * undirected edges without weights. */
  gboolean latency_column;
} TopoLoadReport;

/* Graph file formats (topo_graph_load_format). */
typedef enum {
  TOPO_FORMAT_AUTO,    /* by extension: .graphml/.xml, .gml, .net/.paj/.pajek, .csv; else edges */
  TOPO_FORMAT_EDGES,   /* "u v [weight]" per line, blanks or commas, '#' comments (SNAP) */
  TOPO_FORMAT_CSV,     /* the same, names as nodes, a header of node column names */
  TOPO_FORMAT_GRAPHML, /* igraph_read_graph_graphml (the first graph of the file) */
  TOPO_FORMAT_GML,     /* igraph_read_graph_gml */
  TOPO_FORMAT_PAJEK,   /* igraph_read_graph_pajek (.net) */
} TopoGraphFormat;

/* topo_graph_format_parse: "auto", "edges", "csv", "graphml", "gml" or
 * "pajek" (any case). Errors: TOPO_ERROR_PARSE listing them. O(1). */
gboolean topo_graph_format_parse(const char *name, TopoGraphFormat *out, GError **error);
/* topo_graph_format_name: the name topo_graph_format_parse accepts. */
const char *topo_graph_format_name(TopoGraphFormat format);

/*
 * topo_graph_load_format: topo_graph_load for any format (TOPO_FORMAT_AUTO:
 * by the extension of @path). Edge lists and CSV are parsed as
 * topo_graph_load says, with an optional third column: the edge's weight (a
 * positive finite number). GraphML, GML and Pajek go through igraph's
 * readers: nodes keep the file's order (ids 0..n-1, isolated nodes
 * included) and are labelled by the first vertex attribute among name,
 * label and id that names every node once (non-empty, distinct); names
 * exactly 0..n-1 are ids instead (node u is the one named u), as an edge
 * list's; self-loops and duplicates are dropped and counted; their
 * weights are the numeric edge attribute "weight" (GML also "value"). A
 * directed file (GraphML, GML "directed 1", Pajek *Arcs) is read as
 * undirected and said so (directed in the load report). Before igraph reads
 * a file: GML and Pajek quoted strings longer than 64 KiB, a GraphML file
 * with a second top-level <graph> or an edge to an undeclared node are
 * refused with FILE:LINE; an edge list whose lines would need more than the
 * memory budget is refused with the size needed.
 * Edge lists and CSV may be gzip-compressed (x.csv.gz reads as CSV). A CSV
 * header "source,target,latency" (or delay) marks directed links with their
 * latencies: the links are read as undirected edges (directed and
 * latency_column in the load report), the latencies checked (finite, >= 0)
 * and left to the latency model, not taken for weights.
 * Weights: the gossip matrices are built from the structure alone, so
 * unequal weights are refused (TOPO_ERROR_PARSE, FILE:LINE of the first
 * weight that differs for edge lists) unless @ignore_weights, which loads
 * the structure and records it (weights_ignored in the load report); equal
 * weights are no weighting and are accepted. A weight that is zero,
 * negative, infinite or NaN is refused whatever @ignore_weights.
 * Errors: those of topo_graph_load; TOPO_ERROR_PARSE also for a GraphML,
 *   GML or Pajek file igraph cannot read (igraph's reason, with its line
 *   when it gives one); TOPO_ERROR_INVALID_ARGUMENT over the memory budget.
 * Complexity: O(file size + m log m).
 */
TopoGraph *topo_graph_load_format(const char *path, TopoGraphFormat format, gboolean lcc,
                                  gboolean ignore_weights, GError **error);

/*
 * topo_graph_load_report: for a graph returned by topo_graph_load (with or
 * without lcc), the self-loops and duplicate edges its file held and whether
 * its labels were renumbered; NULL for any other graph (generated, built from
 * edges, copied). (transfer none) O(1).
 */
const TopoLoadReport *topo_graph_load_report(const TopoGraph *g);

/* Where a graph comes from, as a front end's options give it: exactly one
 * of @path, @generate and @edges. Borrowed pointers. */
typedef struct {
  const char *path;        /* a graph file (topo_graph_load_format) */
  const char *format;      /* its format's name (NULL: by extension) */
  gboolean ignore_weights; /* load a weighted file's structure alone */
  const char *generate;    /* a generator spec (topo_graph_generate) */
  const guint *edges;      /* @n_edges (u, v) pairs in memory */
  gsize n_edges;
  guint n_nodes; /* nodes of @edges (0: one more than the largest id) */
  const char *const *labels; /* with @edges: node u's label (NULL: none), or NULL */
  gboolean lcc;              /* keep the largest connected component */
} TopoGraphSource;

/*
 * topo_graph_from_source: the graph @src names: the one home of building a
 * graph from options, for the command line (--graph, --graph-format,
 * --ignore-weights, --generate, --lcc) and libdpgossip (DpgGraphSpec).
 * Returns: (transfer full) the graph (topo_graph_free).
 * Errors: G_OPTION_ERROR_BAD_VALUE for none or several sources, an unknown
 * format name (with a did-you-mean hint) and an edge list whose graph
 * would not fit in memory (the bytes named, checked before igraph
 * allocates); those of topo_graph_load_format, topo_graph_generate,
 * topo_graph_new_from_edges and topo_graph_largest_component.
 * Complexity: that of the load or generator, plus O(n + m) for @lcc.
 */
TopoGraph *topo_graph_from_source(const TopoGraphSource *src, GError **error);

/*
 * topo_graph_generate: build a graph from a spec "name[:key=value,...]".
 * Deterministic generators:
 *   ring:n=N (N >= 3)          cycle C_N, N edges
 *   path:n=N (N >= 2)          path P_N, N-1 edges
 *   star:n=N (N >= 2)          node 0 joined to 1..N-1, N-1 edges
 *   complete:n=N (N >= 2)      K_N, N(N-1)/2 edges
 *   grid:rows=R,cols=C[,torus=BOOL] (R*C >= 2) node r*C + c;
 *                              R(C-1) + C(R-1) edges, 2RC for a torus with
 *                              R, C >= 3 (smaller sides wrap onto existing
 *                              edges or loops, which are dropped)
 *   hypercube:dim=D (1..20)    2^D nodes, D*2^(D-1) edges; u~v when u XOR v
 *                              is a power of two
 *   karate                     Zachary's karate club, 34 nodes, 78 edges
 *                              (igraph's numbering, "Zachary")
 *   florentine                 Padgett's Florentine marriage network, 15
 *                              nodes, 20 edges, embedded, numbered as
 *                              data/graphs/florentine.edges
 * Random generators (all take seed=S, default 0, and are deterministic in
 * (spec, seed) through a private igraph RNG, whatever else igraph did before;
 * all take connected=BOOL (default false): resample until connected, at most
 * tries=K times (default 100), else TOPO_ERROR_DISCONNECTED):
 *   erdos:n=N,p=P              G(N, P), 0 <= P <= 1
 *   gnm:n=N,m=M                G(N, M), 0 <= M <= N(N-1)/2
 *   regular:n=N,d=D            random simple D-regular graph, D < N, N*D even
 *   barabasi:n=N,m=M           preferential attachment, M edges per new node
 *                              (simple; connected by construction)
 *   watts:n=N,k=K,p=P          Watts-Strogatz: ring where each node is joined
 *                              to its K nearest neighbours ON EACH SIDE
 *                              (igraph's "nei"; degree 2K, N*K edges, needs
 *                              N > 2K), then each edge rewired with
 *                              probability P (no loops or multi-edges)
 * Booleans: true/false/yes/no/1/0.
 * Errors: TOPO_ERROR_PARSE (unknown generator, unknown/duplicate/missing
 *    parameter, malformed value; messages name the parameter and list the
 *    valid ones), TOPO_ERROR_INVALID_ARGUMENT (out-of-range value, or a
 *    graph whose expected size, about 96 bytes per edge and 64 per node,
 *    exceeds spec_memory_limit(): checked before anything is allocated),
 *    TOPO_ERROR_DISCONNECTED, TOPO_ERROR_FAILED.
 * Complexity: that of the generator, O(n + m) to O(n^2) for erdos/gnm dense.
 */
TopoGraph *topo_graph_generate(const char *spec, GError **error);

/*
 * topo_graph_generate_seeded: as topo_graph_generate, but the RNG seed is
 * derived from both the spec's seed= (default 0) and extra_seed, so one spec
 * yields independent graphs for different extra_seed (used by schedules).
 * Deterministic generators ignore extra_seed.
 */
TopoGraph *topo_graph_generate_seeded(const char *spec, guint64 extra_seed, GError **error);

/* ===================================================================== */
/* Gossip matrices                                                        */
/* ===================================================================== */

typedef enum {
  TOPO_GOSSIP_UNIFORM,    /* W[u,v] = 1/(deg u + 1) on u and its neighbours */
  TOPO_GOSSIP_METROPOLIS, /* W[u,v] = 1/(1 + max(deg u, deg v)), diagonal fills */
  TOPO_GOSSIP_MAXDEGREE,  /* W[u,v] = 1/(1 + dmax), diagonal fills */
} TopoGossipKind;

/* topo_gossip_kind_parse: "uniform", "metropolis" or "maxdegree" (exact,
 * lower case). Errors: TOPO_ERROR_PARSE listing the valid names. */
gboolean topo_gossip_kind_parse(const char *name, TopoGossipKind *out, GError **error);

/* topo_gossip_kind_name: the name topo_gossip_kind_parse accepts. */
const char *topo_gossip_kind_name(TopoGossipKind kind);

/* A sparse (CSR) row-stochastic matrix, rows sorted by column. */
typedef struct TopoGossip TopoGossip;

/*
 * topo_gossip_new: the gossip matrix of g (docs/design.md, W_t).
 *   uniform:    W[u,v] = 1/(deg(u)+1) for v = u or v ~ u (row-normalised
 *               A + I; the paper's experiments). Row-stochastic; reversible
 *               with stationary weights deg+1, so its eigenvalues are real.
 *   metropolis: W[u,v] = 1/(1 + max(deg u, deg v)) for v ~ u, W[u,u] =
 *               1 - sum of the others. Symmetric, doubly stochastic.
 *   maxdegree:  W[u,v] = 1/(1 + dmax) for v ~ u, W[u,u] = 1 - deg(u)/(1+dmax).
 *               Symmetric, doubly stochastic.
 * An isolated node gets W[u,u] = 1. Every row lists u and its neighbours
 * (zero-weight diagonals are kept, so the support is always u + N(u)).
 * Errors: TOPO_ERROR_INVALID_ARGUMENT (NULL g, unknown kind).
 * Complexity: O(n + m).
 */
TopoGossip *topo_gossip_new(const TopoGraph *g, TopoGossipKind kind, GError **error);

/*
 * topo_gossip_new_csr: a gossip matrix from CSR arrays (copied): row u has
 * entries cols[row_ptr[u] .. row_ptr[u+1]-1] (strictly increasing, < n)
 * with values vals[...] (finite, >= 0), and each row must sum to 1 within
 * 1e-9 (for matrices built by schedules or from asynchronous runs).
 * Errors: TOPO_ERROR_INVALID_ARGUMENT saying which row/entry is wrong.
 * Complexity: O(n + nnz).
 */
TopoGossip *topo_gossip_new_csr(guint n, const guint *row_ptr, const guint *cols,
                                const double *vals, GError **error);

/* topo_gossip_free: free w (NULL allowed). */
void topo_gossip_free(TopoGossip *w);

/* topo_gossip_n: the dimension n. O(1). */
guint topo_gossip_n(const TopoGossip *w);

/* topo_gossip_nnz: number of stored entries. O(1). */
gsize topo_gossip_nnz(const TopoGossip *w);

/*
 * topo_gossip_row: row u's support and weights (owned by w, valid while w
 * lives): *cols (increasing column indices, u among them for topo_gossip_new)
 * and *vals; returns the row length. O(1).
 */
guint topo_gossip_row(const TopoGossip *w, guint u, const guint **cols, const double **vals);

/* topo_gossip_get: W[u,v] (0 outside the support). O(log row length). */
double topo_gossip_get(const TopoGossip *w, guint u, guint v);

/* topo_gossip_dense: W as an n*n row-major array (g_free). O(n^2). */
double *topo_gossip_dense(const TopoGossip *w);

/*
 * topo_gossip_apply: y = W x for x, y n-by-d row-major (node u's vector is
 * x[u*d .. u*d+d-1]); x and y must not overlap. O(nnz * d).
 */
void topo_gossip_apply(const TopoGossip *w, const double *x, double *y, guint d);

/* topo_gossip_is_symmetric: max |W[u,v] - W[v,u]| <= tol. O(nnz log). */
gboolean topo_gossip_is_symmetric(const TopoGossip *w, double tol);

/*
 * topo_gossip_spectral_gap: 1 - |lambda_2(W)|, |lambda_2| the second largest
 * eigenvalue modulus (moduli sorted decreasingly, the first is 1 for a
 * row-stochastic W). Up to 2,048 nodes from the whole spectrum: symmetric W,
 * and uniform W through the similar symmetric D^{-1/2}(A+I)D^{-1/2}
 * (D = diag(deg+1)), use LAPACKE_dsyevd; any other W uses LAPACKE_dgeev.
 * Above, ARPACK (igraph_arpack_rssolve) on the symmetrised W with its top
 * eigenvector deflated, for symmetric or reversible W only.
 * 0 for a disconnected graph; 1 for n = 1.
 * Errors: TOPO_ERROR_FAILED if LAPACK or ARPACK fails or does not converge,
 * or for a large non-reversible W.
 * Complexity: O(n^3) time and O(n^2) memory up to 2,048 nodes; above,
 * O(ncv n) memory and O(nnz) per Lanczos product.
 */
gboolean topo_gossip_spectral_gap(const TopoGossip *w, double *gap, GError **error);

/* ===================================================================== */
/* Summary                                                                */
/* ===================================================================== */

/* Whether a summary figure was computed, and if not why. */
typedef enum {
  TOPO_SUMMARY_COMPUTED,       /* the value is exact (to solver precision) */
  TOPO_SUMMARY_SKIPPED_WORK,   /* above the summary's time bound */
  TOPO_SUMMARY_SKIPPED_MEMORY, /* the solver would not fit in memory */
  TOPO_SUMMARY_NO_CONVERGENCE, /* ARPACK ran out of its time bound */
  TOPO_SUMMARY_NOT_REVERSIBLE, /* no sparse solver for such a large W */
} TopoSummaryStatus;

/* topo_summary_status_reason: a phrase saying why (static string). */
const char *topo_summary_status_reason(TopoSummaryStatus status);

/*
 * topo_summary_status_note: what a summary prints in place of a figure not
 * computed: "not computed: " and the reason, plus how to get it anyway
 * (--exact) when only a time bound stood in the way.
 * Returns: (transfer full) a g_free-able string. O(1).
 */
char *topo_summary_status_note(TopoSummaryStatus status);

typedef struct {
  guint nodes, edges;
  guint deg_min, deg_max;
  double deg_mean;
  int diameter; /* unweighted; -1 if disconnected or not computed */
  gboolean connected;
  double spectral_gap; /* of the kind's W, topo_gossip_spectral_gap; NAN if not computed */
  TopoSummaryStatus diameter_status, gap_status;
} TopoSummary;

/*
 * topo_graph_summary: sizes, degrees, diameter (igraph, unweighted; -1 when
 * disconnected), connectivity and spectral gap of the kind's gossip matrix.
 * Bounded: the diameter (one BFS per node) is skipped when n (n + m) exceeds
 * 4e9, and the gap above 2,048 nodes gets about 1e9 entry operations of
 * ARPACK (a few seconds); what was skipped says so in *_status.
 * topo_graph_summary_exact lifts both time bounds (memory is still checked).
 * Errors: TOPO_ERROR_INVALID_ARGUMENT, TOPO_ERROR_FAILED.
 * Complexity: O(n m) for the diameter + O(n^3) for the gap up to 2,048
 * nodes, then bounded as above.
 */
gboolean topo_graph_summary(const TopoGraph *g, TopoGossipKind kind, TopoSummary *out,
                            GError **error);
gboolean topo_graph_summary_exact(const TopoGraph *g, TopoGossipKind kind, gboolean exact,
                                  TopoSummary *out, GError **error);

/* topo_graph_diameter: unweighted diameter, -1 when disconnected or n == 0.
 * O(n m). */
int topo_graph_diameter(const TopoGraph *g);

/* ===================================================================== */
/* Time-varying schedules                                                 */
/* ===================================================================== */

/* What changed between rounds t-1 and t. */
typedef enum {
  TOPO_CHANGE_NODE_LEFT,    /* u left (its edges are also reported removed) */
  TOPO_CHANGE_EDGE_REMOVED, /* edge u-v (u < v) gone */
  TOPO_CHANGE_EDGE_ADDED,   /* edge u-v (u < v) new */
  TOPO_CHANGE_NODE_JOINED,  /* u came back (its edges are also reported added) */
} TopoChangeKind;

typedef struct {
  TopoChangeKind kind;
  guint u, v; /* v = G_MAXUINT for node events */
} TopoChange;

/* A sequence of gossip matrices W_0, W_1, ... on n fixed nodes. */
typedef struct TopoSchedule TopoSchedule;

/*
 * topo_schedule_new: parse a schedule spec.
 *   static                 W_t = W(base) for every t
 *   resample:GENSPEC       round t's graph is topo_graph_generate_seeded(
 *                          GENSPEC, hash(seed, t)); base may be NULL (n comes
 *                          from the generator)
 *   matching[:complete=BOOL]
 *                          a random maximal matching among base's edges each
 *                          round (edges visited in random order, greedy),
 *                          W = 1/2 on matched pairs, 1 on idle nodes;
 *                          complete=true draws a uniformly random perfect
 *                          matching of all n nodes instead (n odd: one
 *                          random node idle), pairs that need no edge of
 *                          base (base= is refused: it chose the default)
 *   exponential            one-peer exponential graph (Ying et al. 2021):
 *                          tau = ceil(log2 n), hop h = 2^(t mod tau); row i of
 *                          W_t is 1/2 on i and 1/2 on (i + h) mod n, i.e. node
 *                          i PULLS from i + h (node j sends to j - h). W_t is
 *                          directed (not symmetric) but doubly stochastic;
 *                          its topology is the undirected support {i, i+h}
 *   edge-failure:p=P       each edge of base is down independently with
 *                          probability P in each round (0 <= P <= 1)
 *   churn:FILE             base with node departures read from FILE: lines
 *                          "node leave_round [join_round]" ('#' comments;
 *                          join_round absent or '-' = never comes back),
 *                          node absent for leave <= t < join
 *   churn:leave=P,join=Q   Markov churn: all nodes present at round 0; from
 *                          round t-1 to t a present node leaves w.p. P, an
 *                          absent one rejoins w.p. Q (a spec starting with
 *                          "leave=" or "join=" is this form, else a FILE)
 *   churn:trace=FILE[,format=F,scale=S,start=S0,seed=N,map=M]
 *                          churn replayed from a session trace (gzipped or
 *                          not): format=sessions (default) reads lines
 *                          "node,online_from,online_until" in seconds,
 *                          format=stunner the STUNner trace (data/README.md),
 *                          one user per line. Node u follows one trace user;
 *                          at round t its clock reads S0 + offset_u + t S
 *                          trace seconds (scale S > 0, default 1: times in
 *                          rounds; start S0 default 0) and it is present iff
 *                          the user is online then (sessions half-open). A
 *                          user's trace repeats with its period (STUNner: the
 *                          line's length; sessions: the file's last end).
 *                          map=seed (default): users dealt by a permutation
 *                          seeded by N (default: the run's seed), a new one
 *                          per pass when n exceeds the users, offset_u = 0 in
 *                          the first pass and uniform over the period after;
 *                          map=identity: node u is user u (the node id; the
 *                          STUNner file's line u + 1), offsets 0
 * An absent node has no edges (its W row is e_u). Every W_t except matching
 * and exponential is topo_gossip_new(graph_t, kind). Randomness of round t
 * comes from a GSL generator seeded by a hash of (seed, t, purpose): W_t is a
 * pure function of (spec, base, kind, seed, t), whatever the query order.
 * base: copied; required except for resample (whose n must then match base's
 * if both are given).
 * Errors: TOPO_ERROR_PARSE (unknown schedule, bad parameter),
 *    TOPO_ERROR_FILE (churn and trace files' FILE:LINE errors, corrupt
 *    gzip data), TOPO_ERROR_INVALID_ARGUMENT (missing base, n < 2 for
 *    matching/exponential, node id >= n, map=identity without one user per
 *    node...), TOPO_ERROR_IO, and the generator's errors for resample.
 * Complexity: O(file size + n + m) (resample builds round 0 to validate;
 * churn:trace adds O(n log sessions) per round asked).
 */
TopoSchedule *topo_schedule_new(const char *spec, const TopoGraph *base, TopoGossipKind kind,
                                guint64 seed, GError **error);

/* topo_schedule_kinds_text: the schedule specs topo_schedule_new accepts,
 * one per kind of its table, in the table's order. @help FALSE: the short
 * list of an error's "(valid: ...)"; TRUE: the help text, full grammars and
 * notes ("..., churn:leave=P,join=Q or churn:trace=FILE[...] (...)"). A
 * static string (built once, thread-safe). */
const char *topo_schedule_kinds_text(gboolean help);

/* topo_schedule_kind_names: the distinct names of the kinds ("static",
 * "resample", ..., "churn"), NULL-terminated, static. */
const char *const *topo_schedule_kind_names(void);

/* topo_schedule_free: free s (NULL allowed). */
void topo_schedule_free(TopoSchedule *s);

/* topo_schedule_reseeded: the schedule of @s's spec, base and gossip kind
 * drawn with another @seed (new, topo_schedule_free): independent draws of
 * the same schedule, as an expectation sampled over schedules needs.
 * Errors: those of topo_schedule_new (a churn file read again may have
 * changed). Complexity: topo_schedule_new's. */
TopoSchedule *topo_schedule_reseeded(const TopoSchedule *s, guint64 seed, GError **error);

/* topo_schedule_n: number of nodes. O(1). */
guint topo_schedule_n(const TopoSchedule *s);

/* topo_schedule_is_static: TRUE when W_t does not depend on t. */
gboolean topo_schedule_is_static(const TopoSchedule *s);

/* topo_schedule_base: the graph the schedule was made over (its nodes'
 * labels: topo_graph_node_find), NULL for resample without one. (transfer
 * none) O(1). */
const TopoGraph *topo_schedule_base(const TopoSchedule *s);

/* topo_schedule_within_base: TRUE when every round's edges are edges of the
 * base graph (static, matching, edge-failure, churn), so that hops in the
 * base are a lower bound on hops in any round or their union; FALSE when
 * rounds draw other edges (resample, exponential, matching:complete=true).
 * What outputs say the distance column measures. O(1). */
gboolean topo_schedule_within_base(const TopoSchedule *s);

/*
 * topo_schedule_graph: the (undirected) topology of round t (new graph,
 * caller frees). Errors: those of the generator for resample.
 * Complexity: O(n + m) plus generation (churn:leave,join caches the node
 * states up to the largest round asked: O(n t) once).
 */
TopoGraph *topo_schedule_graph(TopoSchedule *s, guint round, GError **error);

/* topo_schedule_node_present: whether node u is present at round t (FALSE
 * only under churn). */
gboolean topo_schedule_node_present(TopoSchedule *s, guint round, guint u);

/*
 * topo_schedule_gossip: W_t (new, caller frees with topo_gossip_free).
 * Errors: as topo_schedule_graph. Complexity: O(n + m).
 */
TopoGossip *topo_schedule_gossip(TopoSchedule *s, guint round, GError **error);

/*
 * topo_schedule_changes: the changes between rounds t-1 and t as a GArray of
 * TopoChange (caller frees with g_array_unref), sorted by kind (the enum
 * order: node-left, edge-removed, edge-added, node-joined) then (u, v).
 * Round 0 has no changes (the initial topology is topo_schedule_graph(s, 0)).
 * Errors: as topo_schedule_graph. Complexity: O(n + m) per call.
 */
GArray *topo_schedule_changes(TopoSchedule *s, guint round, GError **error);

/* How W_0, W_1, ... vary (topo_schedule_randomness). */
typedef enum {
  /* One sequence: static, exponential, churn:FILE, churn:trace (for one
   * seed); the expectation over the schedule is its trace. */
  TOPO_SCHEDULE_FIXED,
  /* Independent rounds drawn from one finite law: matching, edge-failure
   * (topo_schedule_round_law enumerates it). */
  TOPO_SCHEDULE_IID,
  /* Random without a finite per-round law: resample, churn:leave,join
   * (a Markov chain); its expectation must be sampled. */
  TOPO_SCHEDULE_RANDOM,
} TopoScheduleRandomness;

/* topo_schedule_randomness: which of the above @s is. O(1). */
TopoScheduleRandomness topo_schedule_randomness(const TopoSchedule *s);

/* Called once per outcome of a round: its probability (> 0) and its W
 * (owned by the caller, valid during the call). */
typedef void (*TopoRoundLawFunc)(double prob, const TopoGossip *w, gpointer data);

/*
 * topo_schedule_round_law: enumerates the law of one round of the i.i.d.
 * schedule @s (and of static, a single outcome): edge-failure, every up/down
 * pattern of the base's m edges (2^m, those of probability 0 skipped);
 * matching, every maximal matching the greedy scan of a shuffled edge list
 * can give, with its probability (computed over partial matchings, at most
 * 64 edges); matching:complete=true, every perfect matching (n odd: with a
 * uniform idle node), all equally likely. Each W is built as
 * topo_schedule_gossip builds it. The probabilities sum to 1 up to rounding.
 * Errors: TOPO_ERROR_INVALID_ARGUMENT for the other schedules, for more than
 * @max_outcomes outcomes (or partial matchings), and a graph's errors.
 * Complexity: O(outcomes (n + m)).
 */
gboolean topo_schedule_round_law(const TopoSchedule *s, guint64 max_outcomes,
                                 TopoRoundLawFunc visit, gpointer data, GError **error);

/*
 * topo_schedule_round_moments: E[W] (*@M, n x n) and E[W kron W] (*@Q,
 * n^2 x n^2 row-major, Q[((c n + d) n + a) n + b] = E[W_ca W_db]) over
 * topo_schedule_round_law (both g_free), exactly (sums of the outcomes);
 * *@n_outcomes (nullable): how many outcomes of positive probability (one:
 * *@M is that W to the bit).
 * @max_bytes: limit for the n^4 + n^2 doubles (0: physical memory).
 * Errors: those of topo_schedule_round_law; TOPO_ERROR_INVALID_ARGUMENT
 * naming the bytes needed when they exceed @max_bytes.
 * Complexity: O(outcomes nnz(W)^2) time, O(n^4) memory.
 */
gboolean topo_schedule_round_moments(const TopoSchedule *s, guint64 max_outcomes, gsize max_bytes,
                                     double **M, double **Q, guint64 *n_outcomes, GError **error);

/* What a schedule's churn looks like over its first rounds
 * (topo_schedule_churn_stats). Sessions are maximal runs of rounds a node is
 * present (online) or absent (offline) in; runs cut by round 0 or by the
 * horizon count with the length they have inside it. */
typedef struct {
  guint rounds;            /* T */
  double *online;          /* T entries: fraction of nodes present at round t */
  double online_mean;      /* mean of online[] */
  guint online_min_round;  /* a round of the fewest present nodes (the first) */
  guint online_max_round;  /* a round of the most present nodes (the first) */
  guint64 online_sessions; /* runs of presence */
  double online_mean_rounds;
  guint online_median_rounds; /* lower median */
  guint online_max_rounds;
  guint64 offline_sessions; /* runs of absence */
  double offline_mean_rounds;
  guint never_online; /* nodes absent in every round */
  guint always_online;
} TopoChurnStats;

/*
 * topo_schedule_churn_stats: presence statistics of @s over rounds
 * 0..@rounds-1 into *@out (free with topo_churn_stats_clear). A schedule
 * without churn has every node present. Errors: TOPO_ERROR_INVALID_ARGUMENT
 * for rounds = 0 or NULL arguments. Complexity: n T presence queries
 * (O(n T log sessions) for churn:trace) plus sorting the session lengths.
 */
gboolean topo_schedule_churn_stats(TopoSchedule *s, guint rounds, TopoChurnStats *out,
                                   GError **error);
void topo_churn_stats_clear(TopoChurnStats *st);

G_END_DECLS

#endif /* DPG_TOPOLOGIES_H */
