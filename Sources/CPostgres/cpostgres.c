#include "cpostgres.h"

#include <cdynamic_library.h>
#include <postgresql/libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// libpq's functions, resolved once by cpg_load. The types come from libpq's own header.
static struct {
    __typeof__(PQconnectdbParams) *connectdb_params;
    __typeof__(PQstatus) *status;
    __typeof__(PQerrorMessage) *error_message;
    __typeof__(PQfinish) *finish;
    __typeof__(PQsetNoticeProcessor) *set_notice_processor;
    __typeof__(PQprepare) *prepare;
    __typeof__(PQexecPrepared) *exec_prepared;
    __typeof__(PQexecParams) *exec_params;
    __typeof__(PQexec) *exec;
    __typeof__(PQsendQuery) *send_query;
    __typeof__(PQsendQueryPrepared) *send_prepared;
    __typeof__(PQsendQueryParams) *send_params;
    __typeof__(PQsendPrepare) *send_prepare;
    __typeof__(PQgetResult) *get_result;
    __typeof__(PQresultStatus) *result_status;
    __typeof__(PQresultErrorMessage) *result_error_message;
    __typeof__(PQresultErrorField) *result_error_field;
    __typeof__(PQntuples) *ntuples;
    __typeof__(PQnfields) *nfields;
    __typeof__(PQcmdTuples) *cmd_tuples;
    __typeof__(PQgetisnull) *getisnull;
    __typeof__(PQgetvalue) *getvalue;
    __typeof__(PQgetlength) *getlength;
    __typeof__(PQclear) *clear;
    __typeof__(PQlibVersion) *lib_version;
    // Pipeline mode (libpq 14 and later); NULL with an older libpq, which runs statements one
    // round trip each instead.
    __typeof__(PQenterPipelineMode) *enter_pipeline;
    __typeof__(PQexitPipelineMode) *exit_pipeline;
    __typeof__(PQpipelineSync) *pipeline_sync;
    // PQsendFlushRequest (libpq 14 and later); NULL without it.
    __typeof__(PQsendFlushRequest) *send_flush_request;
} pq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_failure = NULL;

static void load(void) {
    static const char *const names[] = {"libpq.so.5", "libpq.so", NULL};
    void *library = cdl_open_first(names);
    if (!library) {
        load_failure = "PostgreSQL's client library (libpq.so.5) is not installed: apt-get install libpq5";
        return;
    }
#define RESOLVE(field, symbol)                                    \
    if (!CDL_RESOLVE(library, pq, field, symbol)) {               \
        load_failure = "PostgreSQL's client library lacks " #symbol; \
        return;                                                   \
    }
    RESOLVE(connectdb_params, PQconnectdbParams)
    RESOLVE(status, PQstatus)
    RESOLVE(error_message, PQerrorMessage)
    RESOLVE(finish, PQfinish)
    RESOLVE(set_notice_processor, PQsetNoticeProcessor)
    RESOLVE(prepare, PQprepare)
    RESOLVE(exec_prepared, PQexecPrepared)
    RESOLVE(exec_params, PQexecParams)
    RESOLVE(exec, PQexec)
    RESOLVE(send_query, PQsendQuery)
    RESOLVE(send_prepared, PQsendQueryPrepared)
    RESOLVE(send_params, PQsendQueryParams)
    RESOLVE(send_prepare, PQsendPrepare)
    RESOLVE(get_result, PQgetResult)
    RESOLVE(result_status, PQresultStatus)
    RESOLVE(result_error_message, PQresultErrorMessage)
    RESOLVE(result_error_field, PQresultErrorField)
    RESOLVE(ntuples, PQntuples)
    RESOLVE(nfields, PQnfields)
    RESOLVE(cmd_tuples, PQcmdTuples)
    RESOLVE(getisnull, PQgetisnull)
    RESOLVE(getvalue, PQgetvalue)
    RESOLVE(getlength, PQgetlength)
    RESOLVE(clear, PQclear)
    RESOLVE(lib_version, PQlibVersion)
#undef RESOLVE
    void *enter_fn = dlsym(library, "PQenterPipelineMode"), *exit_fn = dlsym(library, "PQexitPipelineMode");
    void *sync_fn = dlsym(library, "PQpipelineSync");
    if (enter_fn && exit_fn && sync_fn) {
        pq.enter_pipeline = (__typeof__(pq.enter_pipeline))enter_fn;
        pq.exit_pipeline = (__typeof__(pq.exit_pipeline))exit_fn;
        pq.pipeline_sync = (__typeof__(pq.pipeline_sync))sync_fn;
        pq.send_flush_request = (__typeof__(pq.send_flush_request))dlsym(library, "PQsendFlushRequest");
    }
}

const char *cpg_load(void) {
    pthread_once(&load_once, load);
    return load_failure;
}

static void ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

cpg_conn *cpg_connect(const char *conninfo, int timeout_seconds) {
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", timeout_seconds);
    // `dbname` expanded (expand_dbname = 1): the URL's own settings override the ones before it.
    const char *const keywords[] = {"connect_timeout", "fallback_application_name", "dbname", NULL};
    const char *const values[] = {timeout, "feedcli", conninfo, NULL};
    PGconn *conn = pq.connectdb_params(keywords, values, 1);
    if (conn) pq.set_notice_processor(conn, ignore_notice, NULL);
    return (cpg_conn *)conn;
}

int cpg_ok(const cpg_conn *conn) {
    return conn && pq.status((const PGconn *)conn) == CONNECTION_OK;
}

const char *cpg_error(const cpg_conn *conn) {
    return conn ? pq.error_message((const PGconn *)conn) : "out of memory";
}

void cpg_finish(cpg_conn *conn) {
    if (conn) pq.finish((PGconn *)conn);
}

cpg_result *cpg_prepare(cpg_conn *conn, const char *name, const char *sql, int count) {
    return (cpg_result *)pq.prepare((PGconn *)conn, name, sql, count, NULL);
}

cpg_result *cpg_exec_prepared(cpg_conn *conn, const char *name, int count, const char *const *values,
                              const int *lengths, const int *formats) {
    return (cpg_result *)pq.exec_prepared((PGconn *)conn, name, count, values, lengths, formats, 1);
}

cpg_result *cpg_exec_params(cpg_conn *conn, const char *sql, int count, const char *const *values,
                            const int *lengths, const int *formats) {
    return (cpg_result *)pq.exec_params((PGconn *)conn, sql, count, NULL, values, lengths, formats, 1);
}

int cpg_send_query(cpg_conn *conn, const char *sql) {
    return pq.send_query((PGconn *)conn, sql);
}

int cpg_send_prepared(cpg_conn *conn, const char *name, int count, const char *const *values,
                      const int *lengths, const int *formats) {
    return pq.send_prepared((PGconn *)conn, name, count, values, lengths, formats, 1);
}

int cpg_send_params(cpg_conn *conn, const char *sql, int count, const char *const *values,
                    const int *lengths, const int *formats) {
    return pq.send_params((PGconn *)conn, sql, count, NULL, values, lengths, formats, 1);
}

int cpg_send_prepare(cpg_conn *conn, const char *name, const char *sql, int count) {
    return pq.send_prepare((PGconn *)conn, name, sql, count, NULL);
}

cpg_result *cpg_get_result(cpg_conn *conn) {
    return (cpg_result *)pq.get_result((PGconn *)conn);
}

int cpg_enter_pipeline(cpg_conn *conn) {
    return pq.enter_pipeline ? pq.enter_pipeline((PGconn *)conn) : 0;
}

int cpg_pipeline_sync(cpg_conn *conn) { return pq.pipeline_sync((PGconn *)conn); }

int cpg_exit_pipeline(cpg_conn *conn) { return pq.exit_pipeline((PGconn *)conn); }

int cpg_send_flush_request(cpg_conn *conn) {
    return pq.send_flush_request ? pq.send_flush_request((PGconn *)conn) : 0;
}

int cpg_result_is_sync(const cpg_result *result) {
    return pq.result_status((const PGresult *)result) == PGRES_PIPELINE_SYNC;
}

int cpg_result_is_aborted(const cpg_result *result) {
    return pq.result_status((const PGresult *)result) == PGRES_PIPELINE_ABORTED;
}

cpg_result *cpg_exec(cpg_conn *conn, const char *sql) {
    return (cpg_result *)pq.exec((PGconn *)conn, sql);
}

int cpg_result_ok(const cpg_result *result) {
    if (!result) return 0;
    ExecStatusType status = pq.result_status((const PGresult *)result);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

const char *cpg_result_error(const cpg_result *result) {
    return result ? pq.result_error_message((const PGresult *)result) : "";
}

const char *cpg_result_sqlstate(const cpg_result *result) {
    return result ? pq.result_error_field((const PGresult *)result, PG_DIAG_SQLSTATE) : NULL;
}

int cpg_rows(const cpg_result *result) { return pq.ntuples((const PGresult *)result); }
int cpg_columns(const cpg_result *result) { return pq.nfields((const PGresult *)result); }

long cpg_changed(cpg_result *result) {
    const char *text = pq.cmd_tuples((PGresult *)result);
    return text && *text ? strtol(text, NULL, 10) : 0;
}

int cpg_is_null(const cpg_result *result, int row, int column) {
    return pq.getisnull((const PGresult *)result, row, column);
}

const char *cpg_value(const cpg_result *result, int row, int column) {
    return pq.getvalue((const PGresult *)result, row, column);
}

int cpg_length(const cpg_result *result, int row, int column) {
    return pq.getlength((const PGresult *)result, row, column);
}

void cpg_clear(cpg_result *result) {
    if (result) pq.clear((PGresult *)result);
}

int cpg_library_version(void) { return pq.lib_version(); }
