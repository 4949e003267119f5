/* autolib.c -- tests/auto: a shared library compiled with
 * -finstrument-functions, whose function must be named in the trace. */
int autolib_square(int x);

int autolib_square(int x)
{
    return x * x;
}
