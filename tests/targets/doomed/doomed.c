/* Writes its pid to the file named by its argument, then loops until killed. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    FILE *out = fopen(argv[1], "w");
    fprintf(out, "%d", (int)getpid());
    fclose(out);
    long count = 0;
    for (;;) {
        count++; // @loop
    }
    return 0;
}
