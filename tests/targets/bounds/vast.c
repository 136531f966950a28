/* A 10,000,000-element array and a 100,000-element one in main's frame: dbg asks the debugger for a page of their children, never for all (tests/faults/test_vast_arrays.py). */
#include <stdio.h>
static double fill(double *big, int n) {
    for (int i = 0; i < n; i++) big[i] = i * 0.5;
    return big[n - 1];
}
int main(void) {
    static int arr[10000000];
    double big[100000];
    for (int i = 0; i < 10000000; i++) arr[i] = i;
    fill(big, 100000);
    printf("%d %g\n", arr[9999999], big[99999]); // @here
    printf("done\n"); // @after
    return 0;
}
