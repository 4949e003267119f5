// cxx.cpp -- tests/auto: C++ functions compiled with -finstrument-functions
// must appear demangled (demo::Shape::area() const, demo::twice<int>(int)),
// and ECL_SCOPE (ecl.hpp) must enter and leave its region.
#include <cstdio>
#ifdef WITH_ECL
#include <ecl.hpp>
#endif

namespace demo {
struct Shape {
    double w, h;
    double area() const { return w * h; }
};
template <typename T> T twice(T x) { return 2 * x; }
}

static double scoped(int k)
{
#ifdef WITH_ECL
    ECL_SCOPE("scoped region");
#endif
    return k * 0.5;
}

int main()
{
    demo::Shape s{2, 3};
    double a = 0;
    for (int i = 0; i < 4; i++)
        a += s.area() + demo::twice<int>(i) + scoped(i);
    std::printf("%g\n", a);
    return 0;
}
