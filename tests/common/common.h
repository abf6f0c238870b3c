/*
 * tests/common/common.h: what the tests of every module share: temporary
 * folders (files.h), test files, relative differences and expected errors
 * (checks.h), the small graphs and their gossip matrices (graphs.h).
 * Running the dpgossip binary is tests/common/run.h (header-only, it needs
 * JSON-GLib).
 */
#ifndef DPG_TESTS_COMMON_H
#define DPG_TESTS_COMMON_H

#include "tests/common/checks.h"
#include "tests/common/files.h"
#include "tests/common/graphs.h"
#include "tests/common/tolerance.h"

#endif
