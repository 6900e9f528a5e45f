#ifndef CPOSTGRES_H
#define CPOSTGRES_H

/// A small C face on PostgreSQL's client library (libpq), loaded with dlopen on first use, so
/// that a store in a SQLite file never loads it (`libpq-fe.h` from libpq-dev at build time,
/// libpq5 at run time only for a store at a `postgresql://` URL).
///
/// The types are libpq's own, kept opaque here: a `cpg_conn` is a `PGconn`, a `cpg_result` a
/// `PGresult`. Threading: libpq's rule holds: one connection is used by one thread at a time
/// (FeedPostgres keeps each behind a lock); different connections may be used at once.

typedef struct cpg_conn cpg_conn;
typedef struct cpg_result cpg_result;

/// Loads libpq once; NULL when it is there, else why not (a static string).
const char *cpg_load(void);

/// Connects to the database a connection string or URL names (libpq's syntax, its environment
/// variables and `~/.pgpass`), giving up after `timeout_seconds` where the URL sets no
/// `connect_timeout`, named `feedcli` to the server unless the URL names itself; notices are
/// silenced (they would reach stderr unasked). Never NULL once loaded; check `cpg_ok`.
cpg_conn *cpg_connect(const char *conninfo, int timeout_seconds);
/// Whether the connection is up (`CONNECTION_OK`).
int cpg_ok(const cpg_conn *conn);
/// libpq's last message for the connection (owned by it).
const char *cpg_error(const cpg_conn *conn);
void cpg_finish(cpg_conn *conn);

/// `PQprepare` of `sql` under `name`, parameter types left to the server.
cpg_result *cpg_prepare(cpg_conn *conn, const char *name, const char *sql, int count);
/// `PQexecPrepared`: text or binary parameters (`formats[i]` 0 or 1), results in binary.
cpg_result *cpg_exec_prepared(cpg_conn *conn, const char *name, int count, const char *const *values,
                              const int *lengths, const int *formats);
/// `PQexecParams` with the same parameters, for statements run once.
cpg_result *cpg_exec_params(cpg_conn *conn, const char *sql, int count, const char *const *values,
                            const int *lengths, const int *formats);

/// `PQsendQuery`: statements without parameters (several, `;`-separated) sent, their results read
/// later with `cpg_get_result` (text results); 1 when sent.
int cpg_send_query(cpg_conn *conn, const char *sql);
/// `PQsendQueryPrepared` / `PQsendQueryParams`: the statement is sent and its result read later
/// with `cpg_get_result` (the client works while the server does); 1 when it was sent.
int cpg_send_prepared(cpg_conn *conn, const char *name, int count, const char *const *values,
                      const int *lengths, const int *formats);
int cpg_send_params(cpg_conn *conn, const char *sql, int count, const char *const *values,
                    const int *lengths, const int *formats);
/// `PQsendPrepare`: `sql` sent to be prepared under `name`, its result read later; 1 when sent.
int cpg_send_prepare(cpg_conn *conn, const char *name, const char *sql, int count);
/// `PQgetResult`: the next result of what was sent, NULL when there is no more.
cpg_result *cpg_get_result(cpg_conn *conn);

/// `PQenterPipelineMode`: 1 when the connection now sends statements without waiting for each
/// one's answer, 0 when it cannot (a libpq older than 14, or results still to read).
int cpg_enter_pipeline(cpg_conn *conn);
/// `PQpipelineSync`: ends the statements sent so far (and sends them); 1 when it was queued.
int cpg_pipeline_sync(cpg_conn *conn);
/// `PQexitPipelineMode`: 1 when the connection is back to one statement at a time.
int cpg_exit_pipeline(cpg_conn *conn);
/// `PQsendFlushRequest`: asks the server to send the answers of what was sent so far at once, not
/// at the flight's end; 1 when queued, 0 when it was not (or libpq has no such call).
int cpg_send_flush_request(cpg_conn *conn);
/// Whether `result` is the mark of a pipeline's sync point (`PGRES_PIPELINE_SYNC`).
int cpg_result_is_sync(const cpg_result *result);
/// Whether `result` stands for a statement of a pipeline not run because one before it failed.
int cpg_result_is_aborted(const cpg_result *result);

/// `PQexec` of one or more statements without parameters (the schema's migrations).
cpg_result *cpg_exec(cpg_conn *conn, const char *sql);

/// 1 when the result says the command succeeded (`PGRES_COMMAND_OK` or `PGRES_TUPLES_OK`).
int cpg_result_ok(const cpg_result *result);
/// The result's error message (owned by the result), "" when none.
const char *cpg_result_error(const cpg_result *result);
/// The SQLSTATE code of a failed result, NULL when the failure has none (a lost connection).
const char *cpg_result_sqlstate(const cpg_result *result);
int cpg_rows(const cpg_result *result);
int cpg_columns(const cpg_result *result);
/// The number of rows the command changed (`PQcmdTuples`), 0 when it says none.
long cpg_changed(cpg_result *result);
int cpg_is_null(const cpg_result *result, int row, int column);
/// The value as text (owned by the result) and its length in bytes.
const char *cpg_value(const cpg_result *result, int row, int column);
int cpg_length(const cpg_result *result, int row, int column);
void cpg_clear(cpg_result *result);

/// libpq's version number (e.g. 150014).
int cpg_library_version(void);

#endif
