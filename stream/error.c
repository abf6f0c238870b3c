/* stream/error.c: the STREAM_ERROR domain. */
#include "stream/stream.h"

/* The quark name is the first argument as written: keep its dashes unspaced. */
/* clang-format off */
G_DEFINE_QUARK(dpgossip-stream-error-quark, stream_error)
/* clang-format on */
