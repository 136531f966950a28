/* A small ledger: the C twin of the behaviour targets (ledger.py, main.go,
 * Ledger.java carry the same @markers). */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *money(int cents);
const char *banner(int value);

int fee(int amount)
{
    int charge = amount * 2 / 100;  // @fee
    return amount + charge;  // @fee-return
}

int entries_first(int count)
{
    int first = count * 0;  // @yield
    return first;
}

int check_entry(int value)
{
    if (value < 0) {
        fprintf(stderr, "bad entry %d\n", value);
        abort();  // @raise
    }
    return value;
}

int tri(int n)
{
    int result = 0;  // @tri
    if (n > 0) {
        result = n + tri(n - 1);  // @tri-rec
    }
    printf("tri(%d)=%d\n", n, result);
    fflush(stdout);
    return result;  // @tri-return
}

int audit(int total)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 16);
    path[n > 0 ? n : 0] = '\0';
    strcpy(strrchr(path, '/') + 1, "liblate.so");
    void *lib = dlopen(path, RTLD_NOW);  /* loaded only here, after the start */
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 0;
    }
    int (*check)(int) = (int (*)(int))dlsym(lib, "check");
    return check(total);  // @call-late
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int total = 0;  // @main-first
    for (int i = 0; i < 5; i++) {
        total += i * 100;  // @loop
    }
    // @no-code: a comment, no code on this line
    int charged = fee(total);  // @call-fee
    printf("%s\n", money(charged));  // @after-fee
    int first = entries_first(3);  // @call-gen
    printf("%s %d\n", banner(first), audit(charged));  // @after-gen
    fflush(stdout);
    if (strcmp(mode, "raise") == 0) {
        check_entry(-3);  // @call-raise
    }
    if (strcmp(mode, "exit3") == 0) {
        exit(3);
    }
    if (strcmp(mode, "kill") == 0) {
        kill(getpid(), SIGKILL);
    }
    if (strcmp(mode, "segv") == 0) {
        int *nowhere = NULL;
        *nowhere = 1;  // @segv
    }
    if (strcmp(mode, "tri") == 0 && argc > 2) {
        tri(atoi(argv[2]));  // @call-tri
    }
    if (strcmp(mode, "sum") == 0) {
        int added = 0;
        for (int k = 2; k < argc; k++) {
            added += check_entry(atoi(argv[k]));  // @call-check
        }
        printf("sum=%d\n", added);
        fflush(stdout);
    }
    fprintf(stderr, "done\n");
    return 0;  // @main-return
}
