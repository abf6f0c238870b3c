/* stream/error.c: the STREAM_ERROR domain. */
#include "stream/stream.h"

G_DEFINE_QUARK(dpgossip-stream-error-quark, stream_error)
