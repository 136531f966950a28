/* The program the native benchmark steps through (C twin of target_loop.py). */
#include <stdio.h>

static long work(int n)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        total += (long)i * i;  // @step
    }
    return total;
}

int main(void)
{
    int values[10] = {0};
    long result = work(1000);  // @start
    printf("result %ld %zu\n", result, sizeof values / sizeof values[0]);
    return 0;
}
