#include <stdio.h>

const char *banner(int value)
{
    static char line[32];
    snprintf(line, sizeof line, "== %d ==", value);  // @banner
    return line;
}
