/* Loads a shared library at run time: its breakpoints are pending until then. */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    int (*square)(int) = (int (*)(int))dlsym(lib, "plugin_square");
    printf("%d\n", square(7));
    return 0;
}
