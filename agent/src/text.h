// Owned strings: the one helper every file uses to replace a malloc'd string.
#ifndef CAMSYNC_AGENT_TEXT_H
#define CAMSYNC_AGENT_TEXT_H

#include <stdlib.h>
#include <string.h>

// Replaces *slot with a copy of `text` (NULL clears it). Returns 0, or -1 when out of memory.
static inline int text_set(char **slot, const char *text) {
    char *copy = NULL;
    if (text) {
        size_t n = strlen(text);
        copy = malloc(n + 1);
        if (!copy) return -1;
        memcpy(copy, text, n + 1);
    }
    free(*slot);
    *slot = copy;
    return 0;
}

static inline int text_equal(const char *a, const char *b) {
    return a && b && strcmp(a, b) == 0;
}

#endif
