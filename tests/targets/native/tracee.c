/* dbg trace's native target: a recursive function that prints its own calls,
 * a loop of locals for --lines, a call left by longjmp, and a tiny function
 * called COUNT times (argv[2]) to measure traced calls a second. */
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf escape;
static sem_t inside, release;

int tri(int n)  // @tri-def
{
    printf("call tri(%d)\n", n);  // @tri-first
    int sum = n <= 0 ? 0 : n + tri(n - 1);  // @tri-rec
    printf("tri(%d) = %d\n", n, sum);
    return sum;
}

double average(const int *values, int count)  // @average-def
{
    int total = 0;  // @average-first
    for (int i = 0; i < count; i++) {  // @average-for
        total += values[i];  // @average-add
    }
    double mean = (double)total / count;  // @average-mean
    return mean;  // @average-return
}

void bail(int code)
{
    printf("bail(%d)\n", code);
    longjmp(escape, code);
}

int tick(int i)
{
    return i & 7;
}

/* One line each: a debugger that stops at a function's first address finds
 * its argument not yet stored. inner ends the program from inside both. */
int inner(int v) { if (v > 2) exit(3); return v; }
int outer(int v) { return inner(v) + 1; }

/* Threads: `waiter` is inside `held` (in its thread) while the main thread
 * calls `mark`. */
int held(int n)
{
    sem_post(&inside);
    sem_wait(&release);
    return n;
}

int mark(int n)
{
    return n + 1;  // @mark
}

static void *waiter(void *arg)
{
    held(2);
    return arg;
}

int report(int v)
{
    tick(v);  // @report-tick
    int twice = v * 2;  // @report-twice
    return twice;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "tri";
    if (strcmp(mode, "tri") == 0) {
        int got = tri(4);  // @call-tri
        printf("result %d\n", got);
        int values[] = {3, 5, 10};
        printf("average %.2f\n", average(values, 3));  // @call-average
        report(5);
    } else if (strcmp(mode, "jump") == 0) {
        if (setjmp(escape) == 0) {
            // bail's return address is where setjmp's second return goes on.
            bail(7);
        }
        printf("escaped\n");  // @escaped
        tri(1);  // @after-jump
    } else if (strcmp(mode, "exit") == 0) {
        for (int i = 0; i < 5; i++) {
            printf("outer(%d) = %d\n", i, outer(i));
        }
    } else if (strcmp(mode, "threads") == 0) {
        pthread_t thread;
        sem_init(&inside, 0, 0);
        sem_init(&release, 0, 0);
        pthread_create(&thread, NULL, waiter, NULL);
        sem_wait(&inside);
        mark(1);
        sem_post(&release);
        pthread_join(thread, NULL);
        printf("threads done\n");
    } else if (strcmp(mode, "ticks") == 0) {
        int count = argc > 2 ? atoi(argv[2]) : 20000;
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += tick(i);
        }
        printf("ticks %d total %ld\n", count, total);  // @ticks-done
    }
    return 0;  // @main-return
}
