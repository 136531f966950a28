/* Runs until interrupted: a loop that never ends, with a short sleep. */
#include <unistd.h>

int main(void) {
    long count = 0;
    for (;;) {
        count++; /* @loop */
        if (count % 1000 == 0)
            usleep(1000);
    }
    return 0;
}
