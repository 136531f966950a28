/* A recursion a hundred calls deep, for the folding of `dbg stack`. */
#include <stdio.h>

static int depth(int n) {
    if (n == 0)
        return 0; // @base
    return 1 + depth(n - 1); // @recurse
}

int main(void) {
    printf("%d\n", depth(100));
    return 0;
}
