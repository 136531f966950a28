/* A program that leaks from one call site: make_name() returns a copy the
 * caller never frees (argv[1] names, default 10), while the buffer made
 * by the other call site is freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *make_name(int i) {
    char *name = malloc(64); // @leaks
    snprintf(name, 64, "name-%d", i);
    return name;
}

static void tidy(void) {
    char *buffer = malloc(128);
    memset(buffer, 0, 128);
    free(buffer);
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 10;
    size_t length = 0;
    for (int i = 0; i < count; i++) {
        length += strlen(make_name(i)); // @calls_make_name
        tidy();
    }
    printf("%zu\n", length);
    return 0;
}
