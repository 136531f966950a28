/* Going back on gdb (`dbg record`, `--back`): a count changed line by line. */
#include <stdio.h>

static int scale(int value, int factor)
{
    int scaled = value * factor;  // @scale
    return scaled;  // @scale-return
}

int main(void)
{
    int count = 1;  // @first
    count = count + 10;  // @add
    count = count * 2;  // @double
    int big = scale(count, 3);  // @call
    printf("count %d big %d\n", count, big);  // @print
    for (int i = 0; i < 3; i++) {
        count += i;  // @loop
    }
    return count == 25 ? 0 : 1;  // @exit
}
