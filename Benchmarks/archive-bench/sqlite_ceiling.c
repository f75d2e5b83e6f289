/*
 * The floor of archive-bench's SQLite case: the reads and writes `archive-migrate upgrade
 * --sqlite` does on the benchmark's table, with every new archive computed beforehand. It
 * reads every row's archive, looks at its version, and writes the new archives in one UPDATE
 * inside one transaction, each value handed to SQLite from memory by an SQL function. Nothing
 * is parsed, migrated or written as JSON: what is left is SQLite's own part (reading the rows,
 * the updates, the journal and the commit) and starting a process.
 *
 *     sqlite_ceiling DATABASE VALUES
 *
 * VALUES holds one new archive per line, the line for rowid n at line n. archive-bench compiles
 * this file with the system's C compiler and times it beside the tool and the Python script.
 * It is a reference row of the benchmark, not part of the library.
 */
#define _GNU_SOURCE /* memmem */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **values;
static int *lengths;
static long valueCount;

/* new_archive(rowid): the new archive of that row, or NULL when it has none. */
static void newArchive(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    sqlite3_int64 rowid = sqlite3_value_int64(argv[0]);
    if (rowid < 1 || rowid > valueCount) {
        sqlite3_result_null(context);
        return;
    }
    sqlite3_result_text(context, values[rowid - 1], lengths[rowid - 1], SQLITE_STATIC);
}

static int fail(sqlite3 *database, const char *what) {
    fprintf(stderr, "sqlite_ceiling: %s: %s\n", what, database ? sqlite3_errmsg(database) : "");
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: sqlite_ceiling DATABASE VALUES\n");
        return 2;
    }
    FILE *file = fopen(argv[2], "rb");
    if (!file) return fail(NULL, "cannot open the values");
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, file) != (size_t)size) return fail(NULL, "cannot read the values");
    fclose(file);
    text[size] = '\n';
    long capacity = 1024;
    values = malloc(sizeof(char *) * (size_t)capacity);
    lengths = malloc(sizeof(int) * (size_t)capacity);
    for (char *line = text; line < text + size;) {
        char *end = memchr(line, '\n', (size_t)(text + size + 1 - line));
        if (valueCount == capacity) {
            capacity *= 2;
            values = realloc(values, sizeof(char *) * (size_t)capacity);
            lengths = realloc(lengths, sizeof(int) * (size_t)capacity);
        }
        values[valueCount] = line;
        lengths[valueCount] = (int)(end - line);
        valueCount++;
        line = end + 1;
    }

    sqlite3 *database = NULL;
    if (sqlite3_open(argv[1], &database) != SQLITE_OK) return fail(database, "cannot open the database");
    if (sqlite3_create_function(database, "new_archive", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, newArchive,
                                NULL, NULL) != SQLITE_OK)
        return fail(database, "cannot add new_archive");
    if (sqlite3_exec(database, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return fail(database, "BEGIN");

    /* Read every archive, as the tool does, and count those not yet at version 4. */
    sqlite3_stmt *select = NULL;
    if (sqlite3_prepare_v2(database, "SELECT rowid, archive FROM shapes", -1, &select, NULL) != SQLITE_OK)
        return fail(database, "SELECT");
    long old = 0;
    int step;
    while ((step = sqlite3_step(select)) == SQLITE_ROW) {
        const unsigned char *archive = sqlite3_column_text(select, 1);
        int length = sqlite3_column_bytes(select, 1);
        if (archive && !memmem(archive, (size_t)length, "\"$version\":4", 12)) old++;
    }
    if (step != SQLITE_DONE) return fail(database, "reading the rows");
    sqlite3_finalize(select);

    if (sqlite3_exec(database, "UPDATE shapes SET archive = new_archive(rowid) WHERE new_archive(rowid) IS NOT NULL",
                     NULL, NULL, NULL) != SQLITE_OK)
        return fail(database, "UPDATE");
    if (sqlite3_exec(database, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) return fail(database, "COMMIT");
    if (sqlite3_close(database) != SQLITE_OK) return fail(database, "close");
    printf("%ld\n", old);
    return 0;
}
