/* A heap that grows without bound in one function: remember() appends
 * every reading to a list that nothing frees. The program runs for about
 * a second (argv[1] rounds, default 40) so massif sees the growth over
 * many snapshots; a little scratch memory comes and goes beside it.
 * argv[2] "crash": the program dies of SIGSEGV at the end instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct reading {
    struct reading *next;
    char payload[1000];
};

static struct reading *kept;

static void remember(int i) {
    struct reading *r = malloc(sizeof *r); // @grows
    memset(r->payload, i & 0xff, sizeof r->payload);
    r->next = kept;
    kept = r;
}

static int scratch(int i) {
    char *tmp = malloc(200); // @scratch
    memset(tmp, i & 0xff, 200);
    int sum = tmp[i % 200];
    free(tmp);
    return sum;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 40;
    long total = 0;
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < 100; i++) {
            remember(i); // @calls_remember
            total += scratch(i);
        }
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    if (argc > 2 && strcmp(argv[2], "crash") == 0) {
        volatile int *nowhere = NULL;
        return *nowhere; // @crash
    }
    printf("%ld\n", total);
    return 0;
}
