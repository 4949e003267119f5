/* fib.c -- tests/auto: a recursive program for compiler instrumentation
 * (-finstrument-functions): fib(20) makes 21891 calls of fib; skip_me is
 * called 3 times (the filter test leaves it out); autolib_square, from a
 * shared library, 5 times. */
#include <stdio.h>

int autolib_square(int x);

int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int skip_me(int x)
{
    return x + 1;
}

int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += skip_me(i);
    for (int i = 0; i < 5; i++)
        s += autolib_square(i);
    printf("fib(20) = %d, %d\n", fib(20), s);
    return 0;
}
