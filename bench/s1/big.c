/* A frame holding an array of 1,000,000 ints and a 10 MB string. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    int numbers[1000000];
    for (int i = 0; i < 1000000; i++)
        numbers[i] = i;
    char *text = malloc(10000001);
    memset(text, 'x', 10000000);
    text[10000000] = '\0';
    printf("%d %zu\n", numbers[999999], strlen(text)); // @big
    free(text);
    return 0;
}
