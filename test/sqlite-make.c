/* sqlite-make: build an SQLite file from SQL on stdin (test fixtures in
 * the shape of an export, written by hand as SQL text). Usage:
 * sqlite-make OUT.sqlite < script.sql. OUT is replaced. Exit 0, or 1 with
 * SQLite's message. A test tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

int
main(int argc, char **argv)
{
	size_t n = 0, cap = 1 << 16, r;
	char *sql = malloc(cap), *err = NULL;
	sqlite3 *db;

	if (argc != 2 || !sql) {
		fprintf(stderr, "usage: sqlite-make OUT.sqlite < script.sql\n");
		return 2;
	}
	while ((r = fread(sql + n, 1, cap - n - 1, stdin)) > 0) {
		n += r;
		if (n + 1 == cap && !(sql = realloc(sql, cap *= 2)))
			return 1;
	}
	sql[n] = 0;
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite-make: %s\n", err ? err :
		    sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_close(db);
	free(sql);
	return 0;
}
