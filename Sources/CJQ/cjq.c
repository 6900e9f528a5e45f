#define _GNU_SOURCE
#include "cjq.h"

#include <cdynamic_library.h>
#include <jq.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// libjq's functions, resolved once by cjq_load. The types come from jq's own headers.
static struct {
    __typeof__(jq_init) *init;
    __typeof__(jq_set_error_cb) *set_error_cb;
    __typeof__(jq_compile) *compile;
    __typeof__(jq_start) *start;
    __typeof__(jq_next) *next;
    __typeof__(jq_teardown) *teardown;
    __typeof__(jq_halted) *halted;
    __typeof__(jv_parse_sized) *parse_sized;
    __typeof__(jv_copy) *copy;
    __typeof__(jv_free) *free;
    __typeof__(jv_get_kind) *get_kind;
    __typeof__(jv_invalid_has_msg) *invalid_has_msg;
    __typeof__(jv_invalid_get_msg) *invalid_get_msg;
    __typeof__(jv_dump_string) *dump_string;
    __typeof__(jv_string_value) *string_value;
    __typeof__(jv_string_length_bytes) *string_length_bytes;
    __typeof__(jv_getpath) *getpath;
    __typeof__(jq_set_nomem_handler) *set_nomem_handler;
    __typeof__(jq_set_debug_cb) *set_debug_cb;
    __typeof__(jv_object_get) *object_get;
    __typeof__(jv_string) *string;
    __typeof__(jv_number_value) *number_value;
} jq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_failure = NULL;

static void load(void) {
    static const char *const names[] = {"libjq.so.1", "libjq.so", NULL};
    void *library = cdl_open_first(names);
    if (!library) {
        load_failure = "jq's library (libjq.so.1) is not installed: apt-get install libjq1";
        return;
    }
#define RESOLVE(field, symbol)                                                   \
    if (!CDL_RESOLVE(library, jq, field, symbol)) {                              \
        load_failure = "jq's library lacks " #symbol " (jq 1.6 or later is needed)"; \
        return;                                                                  \
    }
    RESOLVE(init, jq_init)
    RESOLVE(set_error_cb, jq_set_error_cb)
    RESOLVE(compile, jq_compile)
    RESOLVE(start, jq_start)
    RESOLVE(next, jq_next)
    RESOLVE(teardown, jq_teardown)
    RESOLVE(halted, jq_halted)
    RESOLVE(parse_sized, jv_parse_sized)
    RESOLVE(copy, jv_copy)
    RESOLVE(free, jv_free)
    RESOLVE(get_kind, jv_get_kind)
    RESOLVE(invalid_has_msg, jv_invalid_has_msg)
    RESOLVE(invalid_get_msg, jv_invalid_get_msg)
    RESOLVE(dump_string, jv_dump_string)
    RESOLVE(string_value, jv_string_value)
    RESOLVE(string_length_bytes, jv_string_length_bytes)
    RESOLVE(getpath, jv_getpath)
    RESOLVE(set_nomem_handler, jq_set_nomem_handler)
    RESOLVE(set_debug_cb, jq_set_debug_cb)
    RESOLVE(object_get, jv_object_get)
    RESOLVE(string, jv_string)
    RESOLVE(number_value, jv_number_value)
#undef RESOLVE
}

const char *cjq_load(void) {
    pthread_once(&load_once, load);
    return load_failure;
}

struct cjq_program { jq_state *state; };

static void (*nomem_handler)(void *) = NULL;

void cjq_on_out_of_memory(void (*handler)(void *)) { nomem_handler = handler; }

static volatile int32_t *stage_target = NULL;

void cjq_progress_follow_stages(volatile int32_t *progress) { stage_target = progress; }

// jq's `debug` output: a `{"feedcli-stage": N}` marker sets the progress stage; everything else
// (an expression's own `debug`) is dropped, never written anywhere.
static void follow_stage(void *data, jv message) {
    (void)data;
    if (stage_target && jq.get_kind(message) == JV_KIND_OBJECT) {
        jv stage = jq.object_get(jq.copy(message), jq.string("feedcli-stage"));
        if (jq.get_kind(stage) == JV_KIND_NUMBER) {
            double value = jq.number_value(stage);
            if (value >= 0 && value < 100000) stage_target[0] = (int32_t)value;
        }
        jq.free(stage);
    }
    jq.free(message);
}
struct cjq_value { jv value; };

// A message as text: a string as it is, anything else as compact JSON. Consumes `message`.
static char *message_text(jv message) {
    if (jq.get_kind(message) != JV_KIND_STRING) message = jq.dump_string(message, 0);
    char *text = strdup(jq.string_value(message));
    jq.free(message);
    return text;
}

// Compile errors arrive through the error callback; the first says what is wrong (the last
// only counts them: "jq: 1 compile error").
static void keep_error(void *data, jv message) {
    char **error = data;
    if (*error) {
        jq.free(message);
        return;
    }
    *error = message_text(message);
}

static void drop_error(void *data, jv message) {
    (void)data;
    jq.free(message);
}

cjq_program *cjq_compile(const char *expression, char **error) {
    *error = NULL;
    if (cjq_load()) {
        *error = strdup(cjq_load());
        return NULL;
    }
    jq_state *state = jq.init();
    if (!state) {
        *error = strdup("jq could not start");
        return NULL;
    }
    if (nomem_handler) jq.set_nomem_handler(state, nomem_handler, NULL);
    jq.set_debug_cb(state, follow_stage, NULL);
    jq.set_error_cb(state, keep_error, error);
    if (!jq.compile(state, expression)) {
        if (!*error) *error = strdup("jq cannot compile it");
        jq.teardown(&state);
        return NULL;
    }
    free(*error);  // warnings of a program that compiled
    *error = NULL;
    jq.set_error_cb(state, drop_error, NULL);  // run-time errors come back from jq_next
    cjq_program *program = malloc(sizeof *program);
    if (!program) {
        jq.teardown(&state);
        *error = strdup("out of memory");
        return NULL;
    }
    program->state = state;
    return program;
}

void cjq_program_free(cjq_program *program) {
    if (!program) return;
    jq.teardown(&program->state);
    free(program);
}

// `value` boxed for the caller; NULL with `*error` set (jq's message, else `otherwise`) when it is
// jq's invalid value, or when memory runs out. Consumes `value`.
static cjq_value *boxed(jv value, const char *otherwise, char **error) {
    if (jq.get_kind(value) == JV_KIND_INVALID) {
        *error = jq.invalid_has_msg(jq.copy(value)) ? message_text(jq.invalid_get_msg(value)) : strdup(otherwise);
        return NULL;
    }
    cjq_value *box = malloc(sizeof *box);
    if (!box) {
        jq.free(value);
        *error = strdup("out of memory");
        return NULL;
    }
    box->value = value;
    return box;
}

cjq_value *cjq_parse(const char *text, size_t length, char **error) {
    *error = NULL;
    if (cjq_load()) {
        *error = strdup(cjq_load());
        return NULL;
    }
    if (length > 0x7fffffff) {
        *error = strdup("the JSON text is too long for jq");
        return NULL;
    }
    return boxed(jq.parse_sized(text, (int)length), "jq cannot read it", error);
}

void cjq_value_free(cjq_value *value) {
    if (!value) return;
    jq.free(value->value);
    free(value);
}

// Appends `bytes` and a newline to the outputs' buffer; 0, or -1 when memory runs out.
static int append(cjq_outputs *outputs, size_t *capacity, const char *bytes, size_t length) {
    if (outputs->length + length + 1 > *capacity) {
        size_t wanted = (*capacity ? *capacity * 2 : 256);
        while (wanted < outputs->length + length + 1) wanted *= 2;
        char *grown = realloc(outputs->text, wanted);
        if (!grown) return -1;
        outputs->text = grown;
        *capacity = wanted;
    }
    memcpy(outputs->text + outputs->length, bytes, length);
    outputs->length += length;
    outputs->text[outputs->length++] = '\n';
    return 0;
}

int cjq_run(cjq_program *program, const cjq_value *value, int limit, cjq_outputs *outputs, int *more) {
    memset(outputs, 0, sizeof *outputs);
    *more = 0;
    size_t capacity = 0;
    jq.start(program->state, jq.copy(value->value), 0);
    for (;;) {
        jv result = jq.next(program->state);
        if (jq.get_kind(result) == JV_KIND_INVALID) {
            if (jq.invalid_has_msg(jq.copy(result))) {
                outputs->error = message_text(jq.invalid_get_msg(result));
                return -1;
            }
            jq.free(result);
            if (jq.halted(program->state)) {
                outputs->error = strdup("the expression called halt");
                return -1;
            }
            return 0;
        }
        if (outputs->count == limit) {
            jq.free(result);
            *more = 1;
            return 0;
        }
        jv text = jq.dump_string(result, 0);
        int failed = append(outputs, &capacity, jq.string_value(text), (size_t)jq.string_length_bytes(jq.copy(text)));
        jq.free(text);
        if (failed) {
            outputs->error = strdup("out of memory");
            return -1;
        }
        outputs->count += 1;
    }
}

void cjq_outputs_free(cjq_outputs *outputs) {
    free(outputs->text);
    free(outputs->error);
    memset(outputs, 0, sizeof *outputs);
}

cjq_value *cjq_get_path(const cjq_value *root, const char *path, size_t length, char **error) {
    *error = NULL;
    if (length > 0x7fffffff) {
        *error = strdup("the path is too long for jq");
        return NULL;
    }
    jv steps = jq.parse_sized(path, (int)length);
    if (jq.get_kind(steps) != JV_KIND_ARRAY) {
        jq.free(steps);
        *error = strdup("not a path");
        return NULL;
    }
    return boxed(jq.getpath(jq.copy(root->value), steps), "no value there", error);
}

int cjq_is_object(const cjq_value *value) {
    return jq.get_kind(value->value) == JV_KIND_OBJECT;
}
