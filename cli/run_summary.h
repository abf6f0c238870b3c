/*
 * cli/run_summary.h: internal to `dpgossip run`'s summary: the CSV files the
 * scenario runner wrote, read back as tables of strings, and plain-text
 * tables with columns as wide as their widest cell.
 */
#ifndef DPG_CLI_RUN_SUMMARY_H
#define DPG_CLI_RUN_SUMMARY_H

#include <glib.h>

G_BEGIN_DECLS

/*
 * cli_csv_parse: the records of RFC 4180 text @text: fields separated by
 * commas, a field in double quotes may hold commas, newlines and doubled
 * quotes (""). Blank lines are skipped; a CR before a newline is dropped.
 * Returns a GPtrArray of NULL-terminated string vectors (row 0 is the
 * header), or NULL when @text holds no record or ends inside a quoted
 * field. O(length of @text).
 */
GPtrArray *cli_csv_parse(const char *text);

/* cli_csv_read: cli_csv_parse of the file DIR/NAME; NULL when it is absent,
 * unreadable or empty. */
GPtrArray *cli_csv_read(const char *dir, const char *name);

/* cli_csv_column: index of column @name in @header, -1 when absent. */
int cli_csv_column(char *const *header, const char *name);

/* cli_csv_cell: field @c of @row, "" when @c is -1 or past the row's end
 * (a short row). */
const char *cli_csv_cell(char *const *row, int c);

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
