// Prints lines, then dies of SIGSEGV: what it printed must not be lost in
// the C library's buffer of a stdout that is not a terminal.
#include <stdio.h>

int main(void) {
    printf("first line\n");
    printf("second line\n");
    int *nowhere = 0;
    return *nowhere; // @crash
}
