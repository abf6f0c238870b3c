/*
 * cli/run_summary.h: internal to `dpgossip run`'s summary: plain-text
 * tables with columns as wide as their widest cell.
 */
#ifndef DPG_CLI_RUN_SUMMARY_H
#define DPG_CLI_RUN_SUMMARY_H

#include <glib.h>

#include "scenarios/scenarios.h"

G_BEGIN_DECLS

/* cli_cpu_seconds: the process's CPU time so far (user + system, every
 * thread). O(1). */
double cli_cpu_seconds(void);
/* cli_run_print_busy: after `run`, one line: the CPU time and wall time since
 * @cpu0 and @wall0_us (g_get_monotonic_time) and their ratio; for threads,
 * each one's idle time while the points ran (cli/run_busy.c). O(1). */
void cli_run_print_busy(const ScenRunReport *r, double cpu0, gint64 wall0_us);

/*
 * A table for the console: rows of cells (row 0 the header), each column
 * as wide as its widest cell; the first @n_text columns are left-aligned,
 * the others right-aligned. Cells are copied.
 */
typedef struct CliTable CliTable;
CliTable *cli_table_new(guint n_text);
/* Starts a new row. */
void cli_table_row(CliTable *t);
/* Appends a cell to the current row (printf format). */
void cli_table_cell(CliTable *t, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Prints the table to stdout, each line indented by two spaces; O(cells). */
void cli_table_print(const CliTable *t);
void cli_table_free(CliTable *t);

G_END_DECLS

#endif
