/* A program that leaks from one call site: make_name() returns a copy the
 * caller never frees (argv[1] names, default 10), while the buffer made
 * by the other call site is freed. argv[2] "many": twelve more functions
 * leak too, each under a deep stack, for an answer that must be cut. */
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

#define LEAKER(n) static void *leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_##n(int depth) { \
        return depth ? leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_##n(depth - 1) : malloc(8 * (n + 1)); }
LEAKER(0) LEAKER(1) LEAKER(2) LEAKER(3) LEAKER(4) LEAKER(5)
LEAKER(6) LEAKER(7) LEAKER(8) LEAKER(9) LEAKER(10) LEAKER(11)

static void *kept[12];

static void leak_many(void) {
    void *(*leakers[12])(int) = {
        leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_0, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_1, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_2,
        leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_3, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_4, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_5,
        leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_6, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_7, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_8,
        leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_9, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_10, leaker_with_a_name_long_enough_to_make_each_line_of_its_stack_long_11};
    for (int i = 0; i < 12; i++)
        kept[i] = leakers[i](6);
    for (int i = 0; i < 12; i++)
        kept[i] = NULL; /* lost: nothing points at them any more */
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 10;
    size_t length = 0;
    for (int i = 0; i < count; i++) {
        length += strlen(make_name(i)); // @calls_make_name
        tidy();
    }
    if (argc > 2 && strcmp(argv[2], "many") == 0)
        leak_many();
    printf("%zu\n", length);
    return 0;
}
