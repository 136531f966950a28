/* A native hot spot for the profilers: `find` scans a table linearly and is
   called from two sites of unequal cost (lookup_many asks four times as much
   as lookup_few), so `dbg callers find` has two call sites with different
   shares. Built with -DFIXED, `find` is a binary search over the sorted
   table: the fix that `dbg profile diff` shows.

   usage: scan [ROUNDS] [crash]   ("crash": abort after the work, by SIGSEGV)
   It prints the seconds its work took by its own clocks, wall and CPU
   (bench/profile.py reads them: what a profiler costs the program, without
   the profiler's own start and end; the CPU time is the figure a loaded
   machine does not blur). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIZE 4000

static int table[SIZE];

__attribute__((noinline)) static int find(const int *xs, int n, int key) {
#ifdef FIXED
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (xs[mid] == key) return mid;
        if (xs[mid] < key) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
#else
    /* One line, so that every line the loop's code is told by is this one. */
    for (int i = 0; i < n; i++) if (xs[i] == key) return i; // @scan
    return -1;
#endif
}

__attribute__((noinline)) static long lookup_few(int round) {
    long found = 0;
    for (int k = 0; k < 50; k++) {
        found += find(table, SIZE, (round * 7 + k * 13) % (2 * SIZE)); // @few
    }
    return found;
}

__attribute__((noinline)) static long lookup_many(int round) {
    long found = 0;
    for (int k = 0; k < 200; k++) {
        found += find(table, SIZE, (round * 11 + k * 17) % (2 * SIZE)); // @many
    }
    return found;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 400;
    for (int i = 0; i < SIZE; i++) table[i] = 2 * i;
    long sum = 0;
    struct timespec began, ended, cpu_began, cpu_ended;
    clock_gettime(CLOCK_MONOTONIC, &began);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_began);
    for (int r = 0; r < rounds; r++) {
        sum += lookup_few(r);
        sum += lookup_many(r);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu_ended);
    clock_gettime(CLOCK_MONOTONIC, &ended);
    printf("sum %ld in %.6f s (cpu %.6f s)\n", sum,
           (double)(ended.tv_sec - began.tv_sec) + (ended.tv_nsec - began.tv_nsec) / 1e9,
           (double)(cpu_ended.tv_sec - cpu_began.tv_sec)
               + (cpu_ended.tv_nsec - cpu_began.tv_nsec) / 1e9);
    fflush(stdout);
    if (argc > 2 && strcmp(argv[2], "crash") == 0) {
        volatile int *nowhere = NULL;
        return *nowhere; // @crash
    }
    return 0;
}
