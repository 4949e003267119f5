/* header_pal.c -- pal/pal.h must compile on its own, first and alone. */
#include "pal/pal.h"
#include "pal/pal.h"   /* and twice: include guard */

int main(void)
{
    return 0;
}
