/* Counts forever, slowly: a program to attach to in another mount and PID
   namespace (tests/test_container_attach.py), built and run there. */
#include <unistd.h>

static int bump(int n) {
    int next = n + 1;  // @bump
    return next;
}

int main(void) {
    int n = 0;
    for (;;) {
        n = bump(n);  // @call
        usleep(20000);
    }
    return 0;
}
