/* Twenty thousand calls of work(), slow enough to take a minute traced:
   each call writes its number to the progress file (argv[1]) as it begins,
   so a test knows how many calls were made when it killed the daemon. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int progress = -1;

int work(int i) {
    dprintf(progress, "%d\n", i);
    usleep(1000);
    return i * 2; // @work-return
}

int main(int argc, char **argv) {
    progress = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0600);
    int calls = argc > 2 ? atoi(argv[2]) : 20000;
    long total = 0;
    for (int i = 0; i < calls; i++)
        total += work(i);
    printf("%ld\n", total);
    return 0;
}
