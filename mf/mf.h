/*
 * mf/mf.h: the matrix-factorization design of MF-D-SGD's noise (Mafalda, the
 * fixed and fitted strategies and their sensitivity), one header per topic.
 * A file may include only the topic headers it uses; this one includes them
 * all. Conventions and the MF_ERROR domain: mf/base.h.
 */
#ifndef DPG_MF_H
#define DPG_MF_H

#include "mf/base.h"
#include "mf/blt.h"
#include "mf/gram.h"
#include "mf/mafalda.h"
#include "mf/matrix_csv.h"
#include "mf/optimize.h"
#include "mf/sensitivity.h"
#include "mf/strategy.h"
#include "mf/toeplitz.h"

#endif /* DPG_MF_H */
