/* regcount.c -- tests/auto: counter samples with known values around
 * regions, through ecl.h (no perf_event): pal-view's counters per region
 * must come out exact. A boundary's value is the first sample after its
 * enter or leave. "work" counts; seven counters defined while regions are
 * open start mid-way; "level" goes down (a level: no deltas); "rec" is
 * entered recursively (its inclusive counts the outer instance once). */
#include <ecl.h>
#include <stdio.h>

int main(void)
{
    ecl_counter work = ecl_counter_define("work", "", ECL_COUNTER_INT);
    ecl_counter level = ecl_counter_define("level", "", ECL_COUNTER_INT);
    ecl_region a = ecl_region_define("a"), b = ecl_region_define("b"),
               rec = ecl_region_define("rec");
    ecl_counter_int(work, 0);
    ecl_counter_int(level, 50);
    ecl_enter(a);
    ecl_counter_int(work, 100);     /* a starts at 100 */
    ecl_counter_int(level, 40);
    ecl_enter(b);
    ecl_counter_int(work, 110);     /* b starts at 110 */
    ecl_counter late[7];
    for (int i = 0; i < 7; i++) {   /* new counters: a and b start at their first value */
        char name[16];
        snprintf(name, sizeof name, "late%d", i);
        late[i] = ecl_counter_define(name, "", ECL_COUNTER_INT);
        ecl_counter_int(late[i], 5 + i);
    }
    ecl_leave(b);
    ecl_counter_int(work, 150);     /* b: 40 */
    for (int i = 0; i < 7; i++)
        ecl_counter_int(late[i], 9 + 2 * i);    /* b: 4 + 2i */
    ecl_enter(rec);
    ecl_counter_int(work, 160);
    ecl_enter(rec);
    ecl_counter_int(work, 170);
    ecl_leave(rec);
    ecl_counter_int(work, 175);     /* inner rec: 5 */
    ecl_leave(rec);
    ecl_counter_int(work, 180);     /* outer rec: 20 inclusive, 15 exclusive */
    ecl_leave(a);
    ecl_counter_int(work, 200);     /* a: 100 inclusive, 100 - 40 - 20 = 40 exclusive */
    ecl_counter_int(level, 10);
    for (int i = 0; i < 7; i++)
        ecl_counter_int(late[i], 20 + 3 * i);   /* a: 15 + 2i, exclusive 11 + i */
    return ecl_finalize() == ECL_OK ? 0 : 1;
}
