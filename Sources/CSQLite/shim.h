// Typed wrappers around SQLite's variadic configuration calls, which Swift cannot call.
#ifndef FEEDCLI_CSQLITE_SHIM_H
#define FEEDCLI_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Skips the checkpoint SQLite runs when the last connection closes; automatic checkpoints
/// still keep the journal short.
static inline int feed_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

/// Turns off SQLite's memory statistics, which take a process-wide mutex around every allocation
/// SQLite makes and free it does (feedcli reads none of them). Takes effect only before SQLite
/// initialises, at the first connection; later it is SQLITE_MISUSE and changes nothing.
static inline int feed_sqlite_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
