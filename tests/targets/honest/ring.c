/* A ring of numbers and a word counter: `dbg set` on fields, elements and
 * pointers, expressions that call functions, and a condition gdb and lldb
 * cannot evaluate (strcmp has no debug info). */
#include <stdio.h>
#include <string.h>

struct ring {
    int cap;
    int len;
    int items[4];
};

int twice(int x)
{
    return x * 2;  // @twice
}

int count_words(const char *text, const char *word)
{
    int n = 0;
    const char *p = text;
    while ((p = strstr(p, word)) != NULL) {
        n++;  // @count
        p += strlen(word);
    }
    return n;
}

int main(void)
{
    struct ring r = {4, 2, {10, 20, 30, 40}};
    struct ring *rp = &r;
    int *first = &r.items[0];
    const char *word = "the";
    int total = twice(r.len);  // @call
    total += count_words("the cat and the hat", word);  // @after-call
    printf("%d %d %d %d\n", total, rp->cap, r.items[2], *first);  // @print
    return 0;
}
