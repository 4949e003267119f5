/* header_ecl.c -- ecl/ecl.h must compile on its own, first and alone. */
#include "ecl/ecl.h"
#include "ecl/ecl.h"   /* and twice: include guard */

int main(void)
{
    return 0;
}
