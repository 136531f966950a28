/* Reads lines from its stdin, a prompt before each: as many as its argument
   says (default 3), or up to the end of the file. For tests/test_stdin.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int wanted = argc > 1 ? atoi(argv[1]) : 3;
    char text[256];
    int got = 0; // @before
    while (got < wanted) {
        printf("line %d? ", got + 1);
        fflush(stdout);
        if (fgets(text, sizeof text, stdin) == NULL) {
            printf("EOF after %d lines\n", got);
            break;
        }
        text[strcspn(text, "\n")] = '\0';
        got++; // @got
        printf("read %d: %s\n", got, text);
    }
    printf("done: %d lines\n", got); // @done
    return 0;
}
