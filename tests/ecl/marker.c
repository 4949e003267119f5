/* marker.c -- records a marker of LENGTH bytes ('x' repeated), then the
 * marker "short", and ends. tests/ecl/marker.sh checks how a text too long
 * for a buffer is cut and flagged.
 *
 *   marker LENGTH */
#include <ecl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = argc == 2 ? atol(argv[1]) : -1;
    if (n < 0) {
        fprintf(stderr, "usage: marker LENGTH\n");
        return 2;
    }
    char *text = malloc((size_t)n + 1);
    if (text == NULL)
        return 1;
    memset(text, 'x', (size_t)n);
    text[n] = '\0';
    ecl_marker(text);
    ecl_marker("short");
    free(text);
    return ecl_finalize() == ECL_OK ? 0 : 1;
}
