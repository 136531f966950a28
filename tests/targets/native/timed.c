/* dbg trace --time's C target: a slow function called from two sites,
   twice from one and once from the other, and a quick one called often. */
#include <stdio.h>
#include <time.h>

static void nap(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

int slow(int ms) {
    nap(ms);
    return ms;
}

int quick(int x) {
    return x + 1;
}

int main(void) {
    for (int i = 0; i < 2; i++)
        slow(60);  // @site-a
    slow(120);  // @site-b
    int total = 0;
    for (int i = 0; i < 20; i++)
        total = quick(total);
    printf("done %d\n", total);
    return 0;
}
