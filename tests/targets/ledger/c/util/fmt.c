#include <stdio.h>

const char *money(int cents)
{
    static char text[32];
    snprintf(text, sizeof text, "%d.%02d", cents / 100, cents % 100);  // @fmt
    return text;
}
