/*
 * learning/california.c: the StatLib California housing file mapped to the
 * 8 features of the usual (scikit-learn) version of the dataset.
 */
#include "learning/internal.h"

enum { LON, LAT, AGE, ROOMS, BEDROOMS, POPULATION, HOUSEHOLDS, INCOME, VALUE, N_RAW };

LearnDataset *learn_dataset_load_california(const char *path, GError **error) {
  g_return_val_if_fail(path != NULL, NULL);
  LearnCsvOptions opt = {.target = NULL, .header = LEARN_CSV_HEADER_NO, .n_classes = 0};
  LearnDataset *raw = learn_dataset_load_csv(path, &opt, error);
  if (raw == NULL)
    return NULL;
  if (raw->n_features != N_RAW - 1) {
    g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                "%s:1: expected the 9 StatLib housing columns (longitude, ..., "
                "medianHouseValue), got %" G_GSIZE_FORMAT,
                path, raw->n_features + 1);
    learn_dataset_free(raw);
    return NULL;
  }
  LearnDataset *ds = learn_dataset_alloc(raw->n, 8, 0, error);
  for (gsize i = 0; ds != NULL && i < raw->n; i++) {
    /* The target is the last column, so features 0..7 are the raw columns
     * LON..INCOME in order. */
    const double *r = raw->features + i * (N_RAW - 1);
    double *x = ds->features + i * 8;
    double households = r[HOUSEHOLDS];
    if (!(households > 0.0)) {
      /* No header and no inner blank lines: record i is on line i + 1. */
      g_set_error(error, LEARN_ERROR, LEARN_ERROR_FORMAT,
                  "%s:%" G_GSIZE_FORMAT ": households is %g; AveRooms, AveBedrms and AveOccup "
                  "divide by it",
                  path, i + 1, households);
      learn_dataset_free(ds);
      ds = NULL;
      break;
    }
    x[0] = r[INCOME];
    x[1] = r[AGE];
    x[2] = r[ROOMS] / households;
    x[3] = r[BEDROOMS] / households;
    x[4] = r[POPULATION];
    x[5] = r[POPULATION] / households;
    x[6] = r[LAT];
    x[7] = r[LON];
    ds->targets[i] = raw->targets[i] / 100000.0;
  }
  learn_dataset_free(raw);
  return ds;
}
