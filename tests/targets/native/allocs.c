/* dbg calls --sum-by's allocator target: a program's own allocation
   wrappers, one asked small blocks often, one a few large ones, and a
   calloc-like one (count times size). */
#include <stdio.h>
#include <stdlib.h>

void *grab(size_t size) {
    return malloc(size);
}

void *grab_array(size_t nmemb, size_t size) {
    return calloc(nmemb, size);
}

int main(void) {
    void *kept[8];
    for (int i = 0; i < 5; i++)
        kept[i] = grab(100);  // @small
    kept[5] = grab(4000);  // @large
    kept[6] = grab_array(10, 24);  // @array
    for (int i = 0; i < 7; i++)
        free(kept[i]);
    printf("done\n");
    return 0;
}
