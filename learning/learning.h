/*
 * learning/learning.h: datasets, partitions, models, clipping, evaluation.
 *
 * A LearnDataset is a dense table of records (features row-major, one target
 * each). Loaders read CSV, IDX (MNIST format, gzipped or not) and the
 * California housing file, or generate synthetic linear/logistic data; a
 * spec string ("csv:PATH,...", "idx:DIR", "synthetic:linear,...",
 * "california:PATH") picks one and splits train/test (learn_data_load).
 * A LearnPartition deals the training records to n nodes and cuts each
 * node's share into b batches (cyclic (k,b)-participation: batch of step t
 * is t mod b). A LearnModel (linear, softmax, one-hidden-layer ReLU MLP) is
 * an immutable description; its parameters are a flat double vector owned by
 * the caller, so one model serves every node and every thread. The hot path,
 * learn_model_clipped_grad, writes the mean of per-example gradients each
 * clipped to L2 norm <= Delta (docs/design.md "Learning"; paper Alg. 1, line
 * "Clipped gradient") into a caller buffer, without allocating.
 *
 * Losses. Regression: per-example loss (f(x) - y)^2, so the mean loss of a
 * set IS its MSE (learn_model_evaluate reports that same number; it is
 * PyTorch's MSELoss, the paper's "mean-square error loss"). Classification:
 * cross-entropy -log softmax(z)_y; evaluation also reports accuracy.
 *
 * Conventions: public names carry the learn_ prefix (types Learn*); errors
 * travel as GError in the LEARN_ERROR domain with a message naming the file
 * and line where there is one; library code never prints or exits. Each
 * function owns what it allocates unless its comment says otherwise.
 * Determinism: every random object is a pure function of its inputs and
 * seed; different purposes (split, partition, init, generation) draw from
 * independent streams derived from the seed.
 */
#ifndef DPG_LEARNING_H
#define DPG_LEARNING_H

#include <glib.h>

G_BEGIN_DECLS

#define LEARN_ERROR (learn_error_quark())
GQuark learn_error_quark(void);

/*
 * Warnings: what a load does that the user may not have meant, the data
 * still valid (a two-valued integer target trained as regression). They
 * all go to one handler, the layer's one warning channel: the front end's
 * (the command line prints "dpgossip: warning: MESSAGE" on stderr); without
 * one, GLib's log (domain LEARN_LOG_DOMAIN, level message, on stderr).
 * learn_set_warning_handler: installs @func (NULL: GLib's log) with @data;
 * not thread-safe: call it once, before loading. O(1).
 */
#define LEARN_LOG_DOMAIN "dpgossip-learning"
typedef void (*LearnWarningFunc)(const char *message, gpointer data);
void learn_set_warning_handler(LearnWarningFunc func, gpointer data);

typedef enum {
  LEARN_ERROR_INVALID_ARGUMENT, /* a parameter out of its documented range */
  LEARN_ERROR_PARSE,            /* a dataset or model spec that does not parse */
  LEARN_ERROR_IO,               /* a file that cannot be opened or read */
  LEARN_ERROR_FORMAT,           /* malformed file content (cell, row, magic, truncation) */
  LEARN_ERROR_EMPTY,            /* a file without any data record */
} LearnError;

/* ===================================================================== */
/* Datasets                                                               */
/* ===================================================================== */

/*
 * A dataset of n records. Record i has features
 * features[i*n_features .. (i+1)*n_features) and target targets[i]. For
 * classification (n_classes >= 2) targets hold the labels 0..n_classes-1 as
 * exact doubles; n_classes == 0 means regression. Fields are public for fast
 * reading; change them only through the functions below. An empty dataset
 * (n == 0, e.g. a test split of fraction 0) has NULL arrays. users is
 * NULL unless the records come from users (LEAF): then record i belongs to
 * user users[i] < n_users (subsets keep it; partition users:k=K uses it).
 */
typedef struct {
  gsize n;
  gsize n_features;
  guint n_classes;
  double *features;
  double *targets;
  guint *users;
  guint n_users;
} LearnDataset;

/* Label of record i of a classification dataset. O(1). */
static inline guint learn_dataset_label(const LearnDataset *ds, gsize i) {
  return (guint)ds->targets[i];
}

/*
 * learn_dataset_new: a zero-filled dataset of n records of n_features
 * features (n may be 0). The caller fills it and must keep classification
 * labels in 0..n_classes-1 (n_classes 0 or >= 2).
 * Returns NULL (programmer error) if n_features == 0, n_classes == 1 or
 * n*n_features overflows. O(n d).
 */
LearnDataset *learn_dataset_new(gsize n, gsize n_features, guint n_classes);

/* learn_dataset_free: free ds (NULL allowed). */
void learn_dataset_free(LearnDataset *ds);

/*
 * learn_dataset_subset: a new dataset holding records idx[0..count) of ds in
 * that order (repeats allowed; every idx[i] < ds->n). O(count d).
 */
LearnDataset *learn_dataset_subset(const LearnDataset *ds, const gsize *idx, gsize count);

/* How learn_dataset_load_csv treats the first line. */
typedef enum {
  LEARN_CSV_HEADER_AUTO, /* a header iff some cell of the first line is not a number */
  LEARN_CSV_HEADER_YES,
  LEARN_CSV_HEADER_NO,
} LearnCsvHeader;

/* Options of learn_dataset_load_csv; {0} (or NULL) means: last column is the
 * target, header auto-detected, regression. */
typedef struct {
  /* Target column: NULL = last; "3" = 0-based index 3; "-2" = second to
   * last; anything else = the header name of the column. */
  const char *target;
  LearnCsvHeader header;
  /* 0: regression; >= 2: labels must be integers in 0..n_classes-1;
   * -1: classification with n_classes = 1 + the largest label (labels must
   * be non-negative integers, at least two classes). */
  gint n_classes;
} LearnCsvOptions;

/*
 * learn_dataset_load_csv: read a comma-separated numeric table. Lines end in
 * "\n" or "\r\n"; the last one may lack its newline; blank lines are allowed
 * only after the last row. Cells are trimmed of blanks and of one pair of
 * double quotes (commas inside quotes are not supported). Every column but the
 * target is a feature, in file order.
 * Errors: LEARN_ERROR_IO (path cannot be read); LEARN_ERROR_EMPTY (no data
 * row); LEARN_ERROR_FORMAT with "FILE:LINE:COLUMN" for a cell that is not a
 * finite number, "FILE:LINE" for a row with another field count than the
 * first line (expected vs got), a blank line inside the data, a bad label;
 * LEARN_ERROR_INVALID_ARGUMENT for an unknown target column or fewer than 2
 * columns. O(file size).
 */
LearnDataset *learn_dataset_load_csv(const char *path, const LearnCsvOptions *options,
                                     GError **error);

/*
 * learn_dataset_load_idx: read an IDX image file (magic 0x00000803: unsigned
 * bytes, dims n x rows x cols) and its IDX label file (0x00000801, n labels),
 * each gzipped or plain (zlib reads both). Pixels are scaled to [0, 1]
 * (byte / 255); n_features = rows * cols; n_classes = 1 + the largest label
 * (at least 2). limit > 0 keeps only the first limit records.
 * Errors: LEARN_ERROR_IO (cannot open/read), LEARN_ERROR_FORMAT (wrong magic,
 * image and label counts differ, truncated header or data: the message names
 * the file, the byte count expected and the count read; dimensions that the
 * file cannot hold, checked before allocating: a plain file's size, or 1032
 * times a gzip file's, deflate's largest ratio), LEARN_ERROR_INVALID_ARGUMENT
 * (records over the memory budget, spec_memory_limit()), LEARN_ERROR_EMPTY
 * (zero records). O(n rows cols); memory grows with the data actually read.
 */
LearnDataset *learn_dataset_load_idx(const char *images_path, const char *labels_path, gsize limit,
                                     GError **error);

/*
 * learn_dataset_load_idx_dir: the MNIST layout of dir:
 * train-images-idx3-ubyte[.gz] + train-labels-idx1-ubyte[.gz] into *train,
 * and t10k-images-idx3-ubyte[.gz] + t10k-labels-idx1-ubyte[.gz] into *test
 * when both exist (else *test = NULL). The plain name wins when both forms
 * exist. Both splits get the same n_classes (the larger). limit as above,
 * per split. On error nothing is returned.
 * Errors: LEARN_ERROR_IO when the train pair (or half of the t10k pair) is
 * missing; those of learn_dataset_load_idx. O(file sizes).
 */
gboolean learn_dataset_load_idx_dir(const char *dir, gsize limit, LearnDataset **train,
                                    LearnDataset **test, GError **error);

/*
 * learn_dataset_load_california: the StatLib California housing file (9
 * comma-separated columns, no header: longitude, latitude, housingMedianAge,
 * totalRooms, totalBedrooms, population, households, medianIncome,
 * medianHouseValue) mapped to the usual 8 features, in this order: MedInc,
 * HouseAge, AveRooms = rooms/households, AveBedrms = bedrooms/households,
 * Population, AveOccup = population/households, Latitude, Longitude; target
 * = medianHouseValue / 100000. Not standardized (learn_data_load does it on
 * the train split). Regression (n_classes 0).
 * Errors: those of learn_dataset_load_csv; LEARN_ERROR_FORMAT for a row
 * without 9 columns or with households <= 0 (FILE:LINE). O(file size).
 */
LearnDataset *learn_dataset_load_california(const char *path, GError **error);

/*
 * learn_dataset_load_leaf: LEAF's JSON format (FEMNIST, Caldas et al. 2018):
 * path is one .json file or a folder whose *.json files are read in name
 * order; each holds {"users": [...], "num_samples": [...], "user_data":
 * {USER: {"x": [[features...], ...], "y": [labels...]}}}. Users are read in
 * the order of "users"; every x row must have the first row's length (FEMNIST:
 * 784 pixels, kept as given) and every label be an integer >= 0; n_classes =
 * 1 + the largest label (at least 2). limit > 0 keeps the first limit
 * records. user_of (nullable) receives each record's user (an index into
 * *user_names; g_free), user_names (nullable) the user ids in order of first
 * appearance (g_ptr_array_unref).
 * Errors: LEARN_ERROR_IO (unreadable file or folder), LEARN_ERROR_FORMAT with
 * "FILE:LINE:COLUMN" for malformed JSON and "FILE:LINE" (the line where the
 * offending array ends) for content that is not LEAF's (missing members,
 * image and label counts that differ, a row of another length, a value that
 * is not a finite number or not a label), LEARN_ERROR_EMPTY (no .json file,
 * no record). O(file size); json-glib holds one file's document at a time.
 */
LearnDataset *learn_dataset_load_leaf(const char *path, gsize limit, guint **user_of,
                                      GPtrArray **user_names, GError **error);

/*
 * learn_dataset_synthetic_linear: n records x ~ N(0, I_d), y = x.w* + noise*e
 * with w* ~ N(0, I_d) and e ~ N(0, 1), all drawn from seed (w* first, then
 * record by record: x then e). w_star (nullable, d doubles) receives w*.
 * Errors: LEARN_ERROR_INVALID_ARGUMENT for n == 0, d == 0, noise < 0 or not
 * finite. O(n d).
 */
LearnDataset *learn_dataset_synthetic_linear(gsize n, gsize d, double noise, guint64 seed,
                                             double *w_star, GError **error);

/*
 * learn_dataset_synthetic_logistic: n records x ~ N(0, I_d) labelled by a
 * random linear model: logits z = scale * W x with W (C x d) ~ N(0, 1)
 * entrywise (drawn first); the label is drawn from softmax(z), or is
 * argmax z (smallest index on ties) when argmax is TRUE, which makes the
 * classes linearly separable.
 * Errors: LEARN_ERROR_INVALID_ARGUMENT for n == 0, d == 0, n_classes < 2,
 * scale <= 0 or not finite. O(n d C).
 */
LearnDataset *learn_dataset_synthetic_logistic(gsize n, gsize d, guint n_classes, double scale,
                                               gboolean argmax, guint64 seed, GError **error);

/*
 * learn_dataset_split: shuffle the record indices with seed and put
 * round(test_fraction * n) of them in *test and the rest in *train, each in
 * increasing original order. *test may be empty (n == 0).
 * Errors: LEARN_ERROR_INVALID_ARGUMENT if test_fraction is not in [0, 1) or
 * the train part would be empty. O(n d).
 */
gboolean learn_dataset_split(const LearnDataset *ds, double test_fraction, guint64 seed,
                             LearnDataset **train, LearnDataset **test, GError **error);

/*
 * learn_dataset_standardize: compute each feature's mean and (population,
 * divide-by-n) standard deviation on train ONLY, and map every feature of
 * train and of test (nullable) to (x - mean) / std, so the test split never
 * leaks into the scaling. A constant feature (std 0) is only centered.
 * Targets are untouched. mean and std (nullable, n_features doubles each)
 * receive the statistics. train->n must be >= 1. O((n_train + n_test) d).
 */
void learn_dataset_standardize(LearnDataset *train, LearnDataset *test, double *mean, double *std);

#define LEARN_DEFAULT_TEST_FRACTION 0.2

/*
 * learn_data_load: load a dataset from its spec and split it.
 *   csv:PATH[,target=COL][,header=auto|yes|no][,classes=N|auto][,standardize=yes|no|all]
 *   idx:DIR[,limit=N][,test_limit=N][,standardize=yes|no|all]
 *   synthetic:linear[,n=1000][,d=10][,noise=0.1][,seed=1][,standardize=yes|no|all]
 *   synthetic:logistic[,n=1000][,d=10][,classes=2][,scale=1][,labels=sample|argmax]
 *                     [,seed=1][,standardize=yes|no|all]
 *   california:PATH[,standardize=yes|no|all]
 *   leaf:PATH[,limit=N][,standardize=yes|no|all] (learn_dataset_load_leaf; when
 *     PATH/train and PATH/test are folders, LEAF's own split is used)
 * (PATH cannot contain a comma). The records are split by
 * learn_dataset_split(test_fraction, seed), except idx with a t10k pair,
 * whose t10k files are the test split (test_limit > 0 keeps its first N
 * records: every node's model is evaluated on the whole test split). standardize (default yes for
 * california, no otherwise) applies learn_dataset_standardize with
 * statistics of the train split only; standardize=all (any kind but idx
 * with a t10k pair) uses those of all records, before the split, as the
 * paper's code does (the test split then leaks into the scaling). *test is
 * never NULL on success (it may be empty when test_fraction is 0).
 * Errors: LEARN_ERROR_PARSE (unknown kind or option, bad value),
 * LEARN_ERROR_INVALID_ARGUMENT (standardize=all on an idx t10k pair), those
 * of the loaders and of learn_dataset_split. O(data size).
 */
gboolean learn_data_load(const char *spec, double test_fraction, guint64 seed, LearnDataset **train,
                         LearnDataset **test, GError **error);

/*
 * learn_data_spec_check: the checks learn_data_load makes on @spec's kind and
 * options (ranges included, e.g. synthetic d >= 1), without reading a file
 * or generating a record, so that validation refuses what loading would.
 * Errors: those of learn_data_load's option parsing. O(length of @spec).
 */
gboolean learn_data_spec_check(const char *spec, GError **error);

/* learn_dataset_bytes: the peak memory of a dataset of n records x
 * n_features while it is split (the loaded records, their train and test
 * copies and the split's permutation; saturating). O(1). */
gsize learn_dataset_bytes(gsize n, gsize n_features);

/* ===================================================================== */
/* Partitions and batches                                                 */
/* ===================================================================== */

/*
 * Training records dealt to nodes. Node u owns the dataset indices
 * records[offsets[u] .. offsets[u+1]); its share of m_u records is cut into
 * n_batches contiguous batches, batch j = positions
 * [floor(j m_u / b), floor((j+1) m_u / b)) of the share (sizes differ by at
 * most 1, every batch non-empty). Read-only after creation.
 */
typedef struct {
  guint n_nodes;
  guint n_batches;
  gsize n_records; /* records dealt (the training set size) */
  gsize *offsets;  /* n_nodes + 1 */
  gsize *records;  /* n_records dataset indices, grouped by node */
} LearnPartition;

/*
 * learn_partition_uniform: shuffle 0..n_records-1 with seed and deal them
 * round-robin (position i of the shuffle goes to node i mod n_nodes), so
 * node sizes differ by at most 1 and every record is in exactly one node.
 * Errors: LEARN_ERROR_INVALID_ARGUMENT for n_nodes == 0, n_batches == 0,
 * more nodes than records, or more batches than the smallest node's records
 * (the message names the node and its size). O(n_records + n_nodes).
 */
LearnPartition *learn_partition_uniform(gsize n_records, guint n_nodes, guint n_batches,
                                        guint64 seed, GError **error);

/*
 * learn_partition_dirichlet: label-skewed partition of a classification
 * dataset with node sizes as in learn_partition_uniform. Each node u draws
 * class proportions q_u ~ Dirichlet(alpha, ..., alpha) over the C classes;
 * then, one record per node in turn (round-robin) until every node has its
 * size, node u draws a class c with probability proportional to q_u[c] among
 * the classes with records left (proportional to the records left when q_u
 * puts no mass on them) and takes a random remaining record of c. Small
 * alpha gives nodes dominated by one or a few classes; alpha -> infinity
 * approaches the uniform partition. (Unlike the per-class Dirichlet split,
 * node sizes stay equal, so every node can be cut into n_batches batches.)
 * Errors: those of learn_partition_uniform; LEARN_ERROR_INVALID_ARGUMENT for
 * a regression dataset or alpha not > 0 and finite. O(n_records C).
 */
LearnPartition *learn_partition_dirichlet(const LearnDataset *train, guint n_nodes, guint n_batches,
                                          double alpha, guint64 seed, GError **error);

/*
 * learn_partition_classes: "a few classes per node" (the shard partition of
 * FedAvg): the records are sorted by label (random order within a label),
 * each node's share (sizes as in learn_partition_uniform) is cut into k
 * pieces, and the n_nodes k pieces take consecutive runs of the sorted
 * records in a random order; each node's records are then shuffled (batches
 * mix its labels). A piece is one label's run unless it straddles a label
 * boundary, so a node sees at most 2k labels and usually k.
 * Errors: those of learn_partition_uniform; LEARN_ERROR_INVALID_ARGUMENT for
 * a regression dataset or k == 0. O(n_records + n_nodes k).
 */
LearnPartition *learn_partition_classes(const LearnDataset *train, guint n_nodes, guint n_batches,
                                        guint k, guint64 seed, GError **error);

/*
 * learn_partition_users: whole users to nodes, as the paper's FEMNIST runs
 * (each node holds 10 writers): the users of train (train->users, e.g. from
 * LEAF) are shuffled and node u gets the (u k)-th to ((u+1) k - 1)-th, with
 * all their records, shuffled; the records of the users left over are not
 * used (n_records counts those dealt). Node sizes follow the users.
 * Errors: LEARN_ERROR_INVALID_ARGUMENT for a dataset without users, k == 0,
 * fewer than n_nodes k users, or a node with fewer records than n_batches
 * (the message names it). O(n + n_users).
 */
LearnPartition *learn_partition_users(const LearnDataset *train, guint n_nodes, guint n_batches,
                                      guint k, guint64 seed, GError **error);

/*
 * learn_partition_lists: the caller's partition: node u holds records
 * records[offsets[u] .. offsets[u+1]) (indices into the n_available
 * training records), in that order; its batch j is the slice of
 * learn_partition_batch. A record may be held by several nodes, not twice
 * by one; records in no list are not used. Copies both arrays.
 * Errors: LEARN_ERROR_INVALID_ARGUMENT for no node or batch, offsets[0] != 0,
 * a node with fewer records than n_batches, an index >= n_available or a
 * record twice in one node (the message names the node and position).
 * O(n_available + offsets[n_nodes]).
 */
LearnPartition *learn_partition_lists(gsize n_available, guint n_nodes, guint n_batches,
                                      const gsize *offsets, const gsize *records, GError **error);

/*
 * learn_partition_copy: a copy of @p (learn_partition_free), for a holder
 * that outlives @p's owner. O(n_nodes + n_records).
 */
LearnPartition *learn_partition_copy(const LearnPartition *p);

/*
 * learn_partition_new: the partition of a spec: "uniform" (NULL too),
 * "dirichlet:alpha=A" (learn_partition_dirichlet), "classes:k=K"
 * (learn_partition_classes) or "users:k=K" (learn_partition_users), of
 * train's records, with seed.
 * Errors: LEARN_ERROR_PARSE (unknown partition or option, bad number) and
 * those of the partition functions. O(theirs).
 */
LearnPartition *learn_partition_new(const char *spec, const LearnDataset *train, guint n_nodes,
                                    guint n_batches, guint64 seed, GError **error);

/* learn_partition_spec_check: the option checks of learn_partition_new
 * without data. Errors: LEARN_ERROR_PARSE, LEARN_ERROR_INVALID_ARGUMENT
 * (alpha not > 0, k == 0). O(length of spec). */
gboolean learn_partition_spec_check(const char *spec, GError **error);

/* learn_partition_free: free p (NULL allowed). */
void learn_partition_free(LearnPartition *p);

/* learn_partition_node: node u's records (owned by p); *count receives
 * their number. O(1). */
const gsize *learn_partition_node(const LearnPartition *p, guint node, gsize *count);

/* learn_partition_batch: the batch node u uses at local step t, batch
 * t mod n_batches (owned by p); *count receives its size (>= 1). O(1). */
const gsize *learn_partition_batch(const LearnPartition *p, guint node, guint64 step, gsize *count);

/* ===================================================================== */
/* Models                                                                 */
/* ===================================================================== */

/*
 * An immutable model description: architecture and loss, never parameters.
 * Parameter layout (flat, row-major):
 *   linear  (regression):      w (d), b (1)                         d + 1
 *   softmax (classification):  W (C x d), b (C)                     C (d + 1)
 *   mlp:hidden=h:              W1 (d x h), b1 (h), W2 (o x h), b2 (o)
 *                              with o = 1 (regression) or C         h (d + 1) + o (h + 1)
 * The MLP's W1 is stored input-major: the weight from input k to hidden
 * unit j is W1[k*h + j] (contiguous per input, which makes both the forward
 * pass and the gradient vectorizable axpys); W and W2 are output-major: the
 * weight from input i to output c is W[c*in + i].
 * The MLP's hidden layer is ReLU (derivative 0 at 0); its output layer is
 * linear (regression, squared-error loss) or softmax (cross-entropy).
 *   cnn[:c1=16][,c2=32][,groups=8] (classification of S x S single-channel
 *   images, n_features = S^2, S >= 4; the paper's Figure 4 network):
 *     conv 3x3 padding 1 (c1 filters) + ReLU + 2x2 max-pool, conv 3x3
 *     padding 1 (c2 filters) + ReLU + 2x2 max-pool, group normalization
 *     (groups must divide c2; eps 1e-5; per-channel scale and shift), one
 *     fully connected softmax layer. Layout: W1 (c1 x 9), b1 (c1),
 *     W2 (c2 x c1*9, input channel-major then ky, kx), b2 (c2), gamma (c2),
 *     beta (c2), Wf (C x c2*Q) with Q = ((S/2)/2)^2 on channel-major
 *     flattened maps, bf (C): c1*10 + c2*(9 c1 + 3) + C (c2 Q + 1)
 *     (20554 for 28 x 28 images and 10 classes).
 */
typedef struct LearnModel LearnModel;

/*
 * learn_model_new: parse a model spec: "linear" (regression data only),
 * "softmax" or its alias "logistic" (classification only), "mlp" or
 * "mlp:hidden=H[,init=he|fanin]" (H >= 1, default 64; either task) for
 * inputs of n_features features and n_classes classes (0 = regression).
 * Errors: LEARN_ERROR_PARSE (unknown model or option, bad number),
 * LEARN_ERROR_INVALID_ARGUMENT (n_features == 0, n_classes == 1, model and
 * task mismatch). O(1).
 */
LearnModel *learn_model_new(const char *spec, gsize n_features, guint n_classes, GError **error);

/*
 * learn_model_spec_check: the checks learn_model_new makes on @spec alone
 * (model name, options and their ranges), whatever the data, so that
 * validation refuses what a run would (except a mismatch with the data).
 * Errors: LEARN_ERROR_PARSE, LEARN_ERROR_INVALID_ARGUMENT as learn_model_new.
 * O(length of @spec).
 */
gboolean learn_model_spec_check(const char *spec, GError **error);

/* learn_model_free: free m (NULL allowed). */
void learn_model_free(LearnModel *m);

/* The canonical spec ("linear", "softmax", "mlp:hidden=64",
 * "mlp:hidden=64,init=fanin"), owned by m. */
const char *learn_model_spec(const LearnModel *m);

/* Number of parameters d of the flat vector (see the layout above). O(1). */
gsize learn_model_n_params(const LearnModel *m);

/* Number of outputs: 1 for regression, C for classification. O(1). */
gsize learn_model_n_outputs(const LearnModel *m);

/* Number of doubles of the scratch buffer the per-example functions need
 * (2 hidden + outputs; never 0). O(1). */
gsize learn_model_scratch_size(const LearnModel *m);

/*
 * learn_model_init: write the initial parameters for seed into params
 * (n_params doubles): hidden weights He-uniform U(-sqrt(6/d), sqrt(6/d)),
 * output (or only) layer weights Glorot-uniform
 * U(-sqrt(6/(in+out)), sqrt(6/(in+out))), biases 0; drawn layer by layer in
 * layout order. An mlp with init=fanin draws every weight and bias of a
 * layer from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) instead (PyTorch's default,
 * as in the paper's code), in layout order. Deterministic. O(n_params).
 */
void learn_model_init(const LearnModel *m, double *params, guint64 seed);

/*
 * learn_model_clipped_grad: grad_out = (1/count) sum_i clip(g_i, clip) over
 * the records idx[0..count) of ds, where g_i is the gradient of record i's
 * loss at params and clip(g, D) = g * min(1, D / ||g||_2) (paper Alg. 1,
 * "Clipped gradient"; docs/design.md "per-example clipping to Delta, mean over
 * the batch"). clip <= 0 or infinite means no clipping. Per-example norms
 * are computed from the layer factors (||delta x^T||_F = ||delta|| ||x||),
 * so no per-example gradient is materialized and nothing is allocated.
 * params: n_params doubles; grad_out: n_params doubles (overwritten; must
 * not alias params); scratch: learn_model_scratch_size doubles (NULL: one
 * allocation per call). ds must match the model (n_features, n_classes).
 * Thread-safe for distinct grad_out/scratch. count == 0 gives a zero
 * gradient and NAN.
 * Returns the mean loss of the batch at params (before clipping).
 * O(count n_params).
 */
double learn_model_clipped_grad(const LearnModel *m, const double *params, const LearnDataset *ds,
                                const gsize *idx, gsize count, double clip, double *grad_out,
                                double *scratch);

/*
 * learn_model_predict: the model's output on one feature vector x
 * (n_features doubles) into out (n_outputs doubles): the prediction for
 * regression, the class probabilities for classification. scratch as in
 * learn_model_clipped_grad. O(n_params).
 */
void learn_model_predict(const LearnModel *m, const double *params, const double *x, double *out,
                         double *scratch);

/*
 * learn_model_evaluate: mean loss (regression: the MSE; classification: the
 * mean cross-entropy) and accuracy (fraction of argmax predictions equal to
 * the label; NAN for regression) over records idx[0..count) of ds, or over
 * all of ds when idx is NULL (count is then ignored). Both NAN for an empty
 * set. loss and accuracy are nullable. Allocates one scratch buffer per
 * call; thread-safe. O(count n_params).
 */
void learn_model_evaluate(const LearnModel *m, const double *params, const LearnDataset *ds,
                          const gsize *idx, gsize count, double *loss, double *accuracy);

/* ===================================================================== */
/* Centralized SGD baseline                                               */
/* ===================================================================== */

/* Centralized (one-node) SGD: the training set is shuffled with seed and cut
 * into n_batches batches exactly as one node of a LearnPartition; step t
 * uses batch t mod n_batches, for T = epochs * n_batches steps:
 * params -= lr * clipped mean gradient. With the same (b, k) as a
 * decentralized run over the same training set it makes the same number of
 * per-example gradient evaluations, k * n_train. */
typedef struct {
  guint n_batches; /* b >= 1 */
  guint epochs;    /* k >= 1 */
  double lr;       /* > 0 */
  double clip;     /* <= 0 or infinite: no clipping */
  guint64 seed;
} LearnSgdConfig;

/* Called after every step t (0-based) with the updated params and the mean
 * loss of the batch just used (at the params before the step). */
typedef void (*LearnSgdStepFunc)(guint64 step, const double *params, double batch_loss,
                                 gpointer user_data);

/*
 * learn_sgd_train: run centralized SGD from the caller's params (n_params
 * doubles, updated in place; initialise them with learn_model_init).
 * on_step is nullable.
 * Errors: LEARN_ERROR_INVALID_ARGUMENT (bad config, dataset not matching
 * the model, more batches than records). O(epochs n_train n_params).
 */
gboolean learn_sgd_train(const LearnModel *m, double *params, const LearnDataset *train,
                         const LearnSgdConfig *config, LearnSgdStepFunc on_step, gpointer user_data,
                         GError **error);

G_END_DECLS

#endif /* DPG_LEARNING_H */
