/* dbg stacks' C target: two threads that take two locks in opposite orders
   and deadlock; main waits for them for ever. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;

static void *forward(void *arg) {
    (void)arg;
    pthread_mutex_lock(&first);
    usleep(100000);
    pthread_mutex_lock(&second);  // @forward-blocks
    return NULL;
}

static void *backward(void *arg) {
    (void)arg;
    pthread_mutex_lock(&second);
    usleep(100000);
    pthread_mutex_lock(&first);  // @backward-blocks
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, forward, NULL);
    pthread_create(&b, NULL, backward, NULL);
    printf("deadlocked\n");
    fflush(stdout);
    pthread_join(a, NULL);  // @main-waits
    pthread_join(b, NULL);
    return 0;
}
