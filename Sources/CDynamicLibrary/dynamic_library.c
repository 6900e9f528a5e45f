#include "cdynamic_library.h"

#include <stddef.h>

void *cdl_open_first(const char *const *names) {
    for (const char *const *name = names; *name; name++) {
        void *library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (library) return library;
    }
    return NULL;
}
