/* A program with memcheck errors for `dbg memcheck` (tests/test_memcheck.py):
   a struct field read before it is set, a read past a malloc'd array, a free
   of memory already freed, and 32 bytes never freed (a leak). The @ marks
   name the lines the tests look up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct account {
    int id;
    int balance;
};

static int total(const int *values, int count) {
    int sum = 0;
    for (int i = 0; i <= count; i++) {  // one too many
        sum += values[i];  // @past_end
    }
    return sum;
}

int main(int argc, char **argv) {  // @main
    struct account acct;  // @acct_decl
    acct.id = argc;
    if (acct.balance > 100) {  // @uninit_use
        printf("rich\n");
    }
    int *values = malloc(4 * sizeof(int));  // @values_alloc
    for (int i = 0; i < 4; i++) {
        values[i] = i * 10;
    }
    int sum = total(values, 4);
    printf("sum %d\n", sum);
    free(values);  // @first_free
    free(values);  // @double_free
    char *note = malloc(32);  // @leak
    strcpy(note, "never freed");
    printf("done %d %s\n", acct.id, note);
    return 0;
}
