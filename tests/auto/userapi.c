/* userapi.c -- tests/auto: regions by name with no define first: the
 * ECL_ENTER/ECL_LEAVE macros (id cached per call site) and
 * ecl_enter_name/ecl_leave_name; the same name gives the same region. */
#include <ecl.h>
#include <stdio.h>

int main(void)
{
    for (int i = 0; i < 10; i++) {
        ECL_ENTER("outer");
        for (int j = 0; j < 3; j++) {
            ecl_enter_name("inner");
            ecl_leave_name("inner");
        }
        ECL_LEAVE("outer");
    }
    ecl_enter_name("outer");     /* the same region as the macro's */
    ecl_leave_name("outer");
    ecl_enter_name("");          /* nothing */
    ecl_leave_name(NULL);
    printf("%s\n", ecl_trace_path() ? "traced" : "not traced");
    return ecl_finalize() == ECL_OK ? 0 : 1;
}
