/* header_edl.c -- edl/edl.h must compile on its own, first and alone. */
#include "edl/edl.h"
#include "edl/edl.h"   /* and twice: include guard */

int main(void)
{
    return 0;
}
