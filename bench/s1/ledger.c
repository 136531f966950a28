/* A small ledger: the program the S1 benchmark debugs. */
#include <stdio.h>

static int post(const int *entries, int count)
{
    int balance = 0;
    int opening = 0;
    for (int number = 0; number < count; number++) {
        int amount = entries[number];
        if (number == 0)
            opening = amount; // @loop
        balance += amount;
        if (balance < 0)
            balance = 0;
    }
    return balance - opening;
}

int main(void)
{
    int entries[] = {120, -30, 45, -200, 80, 15, -5, 60, 10, -25, 35, 5};
    printf("change %d\n", post(entries, 12));
    return 0;
}
