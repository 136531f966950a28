/* A 100,000-element struct array and a function that never returns: dbg's bounds (tests/faults/test_bounds.py, bench/bounds.py). */
#include <stdio.h>
struct item { int id; double price; };
static struct item items[100000];
static volatile int stop_spinning = 0;
int spin(void) { while (!stop_spinning) { } return 1; }
int main(void) {
    for (int i = 0; i < 100000; i++) { items[i].id = i; items[i].price = i * 0.5; }
    printf("%d\n", items[5].id); /* @here */
    return spin == 0;
}
