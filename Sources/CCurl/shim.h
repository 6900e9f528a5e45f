// Typed, non-variadic wrappers around libcurl's variadic setters and getters.
//
// Swift cannot call C variadic functions, and clang imports curl's headers without the
// typecheck-gcc.h checks (it claims to be GNUC 4.2), so a wrong argument type would compile and
// misbehave silently. Every option therefore goes through the wrapper for its exact C type:
// `long`, `curl_off_t`, `const char *`, `void *`, or one of the callback types. Swift code never
// calls curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt directly.
#ifndef FEEDCLI_CCURL_SHIM_H
#define FEEDCLI_CCURL_SHIM_H

#include <curl/curl.h>

// MARK: easy options

static inline CURLcode feed_easy_setopt_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode feed_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode feed_easy_setopt_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode feed_easy_setopt_pointer(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode feed_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode feed_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback v) {
    return curl_easy_setopt(h, o, v);
}
/// For CURLOPT_XFERINFOFUNCTION.
static inline CURLcode feed_easy_setopt_xferinfo_callback(CURL *h, CURLoption o, curl_xferinfo_callback v) {
    return curl_easy_setopt(h, o, v);
}

// MARK: easy info

static inline CURLcode feed_easy_getinfo_long(CURL *h, CURLINFO i, long *v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode feed_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode feed_easy_getinfo_string(CURL *h, CURLINFO i, char **v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode feed_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) {
    return curl_easy_getinfo(h, i, v);
}
/// For CURLINFO_ACTIVESOCKET (a connect-only connection's socket).
static inline CURLcode feed_easy_getinfo_socket(CURL *h, CURLINFO i, curl_socket_t *v) {
    return curl_easy_getinfo(h, i, v);
}

// MARK: multi options

static inline CURLMcode feed_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
    return curl_multi_setopt(m, o, v);
}
static inline CURLMcode feed_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) {
    return curl_multi_setopt(m, o, v);
}

#endif
