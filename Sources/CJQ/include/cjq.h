#ifndef CJQ_H
#define CJQ_H

#include <stddef.h>
#include <stdint.h>

/// A small C face on jq 1.6's library (libjq), loaded with dlopen on first use so that commands
/// which never run a jq expression do not pay for loading it at start-up.
///
/// Threading: jq 1.6 keeps per-thread state (its out-of-memory handler) and Debian's build is not
/// safe to use from several threads; every function here except `cjq_load` must be called from
/// one and the same thread for the life of the process. feedcli calls them only in its jq worker
/// process (FeedCore's `JQWorkerMain`), on its one thread.
/// Ownership: every pointer returned is the caller's, freed with the matching function.

typedef struct cjq_program cjq_program;
typedef struct cjq_value cjq_value;

/// What a run produced: each output as compact JSON text followed by '\n' (jq escapes newlines
/// inside strings, so '\n' only separates outputs), their number, and an error message (or NULL).
typedef struct {
    char *text;
    size_t length;
    int count;
    char *error;
} cjq_outputs;

/// Loads libjq once; NULL when it is there, else why not (a static string).
const char *cjq_load(void);

/// Compiles `expression`; NULL with `*error` set (malloc'd, jq's own message) when jq cannot.
cjq_program *cjq_compile(const char *expression, char **error);
void cjq_program_free(cjq_program *program);

/// Parses JSON text into jq's value; NULL with `*error` set when jq cannot read it.
cjq_value *cjq_parse(const char *text, size_t length, char **error);
void cjq_value_free(cjq_value *value);

/// Runs `program` on `value` and collects at most `limit` outputs (a run that would give more
/// stops there and says so in `more`). Returns 0, or -1 when the program raised an error
/// (`outputs->error` says which; the outputs before it are kept).
int cjq_run(cjq_program *program, const cjq_value *value, int limit, cjq_outputs *outputs, int *more);
void cjq_outputs_free(cjq_outputs *outputs);

/// The value at `path` (a jq path as JSON text, `["data",0]`) in `root`; NULL with `*error` set
/// when there is none.
cjq_value *cjq_get_path(const cjq_value *root, const char *path, size_t length, char **error);

/// 1 when `value` is an object.
int cjq_is_object(const cjq_value *value);

/// Calls `handler` (which must not return: jq aborts after it) when jq cannot allocate memory,
/// in every program compiled after this call. The jq worker's way to say "out of memory".
void cjq_on_out_of_memory(void (*handler)(void *));

/// Makes jq's `debug` of a `{"feedcli-stage": N}` object set the stage of `progress` (a
/// worker's progress, `sandbox_progress_map`), in every program compiled after this call; any
/// other `debug` output is dropped.
void cjq_progress_follow_stages(volatile int32_t *progress);

#endif
