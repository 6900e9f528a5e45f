#ifndef CDYNAMIC_LIBRARY_H
#define CDYNAMIC_LIBRARY_H

#include <dlfcn.h>

/// Loading a C library on first use, shared by the shims of jq (CJQ) and libpq (CPostgres), so
/// that commands which never need the library do not pay for loading it at start-up.
///
/// Each shim keeps a table of the library's functions, each field typed from the library's own
/// header (`__typeof__(jq_init) *init;`), fills it once (`pthread_once`) with `cdl_open_first`
/// and `CDL_RESOLVE`, and reports why it could not as a static string.

/// Opens the first of `names` (NULL-terminated: the soname first, then the development name)
/// that loads, its symbols bound at once and kept out of the global namespace; NULL when none
/// does.
void *cdl_open_first(const char *const *names);

/// Sets `table.field` to `library`'s `symbol`, cast to the field's own type (so a table whose
/// field does not match the header's declaration does not compile); true when it was found.
#define CDL_RESOLVE(library, table, field, symbol) \
    (((table).field = (__typeof__((table).field))dlsym((library), #symbol)) != NULL)

#endif
