/* A word counter that crashes: main hands wc_count a NULL counter, and the
 * store into it dies by SIGSEGV. tests/test_core.py makes a core of it. */
#include <stdio.h>

struct counter {
    const char *name;
    int words;
};

static int wc_count(struct counter *c, const char *text) {
    int words = 0;
    int in_word = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ') {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            words++;
        }
    }
    c->words = words;  // @crash
    return words;
}

int main(void) {
    struct counter *c = NULL;
    const char *text = "the quick brown fox";
    int total = wc_count(c, text);  // @call
    printf("%d words\n", total);
    return 0;
}
