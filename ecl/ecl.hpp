// ecl.hpp -- ECL interface layer for C++: a region id defined once and a scope
// guard that enters a region where it is constructed and leaves it where it
// is destroyed, on every way out of the scope (return, break, exception).
//
//   #include <ecl.hpp>
//   void solve() {
//       ECL_SCOPE("solve");               // the region "solve", id cached per site
//       ...
//   }
//   static const ecl::region io("io");    // or a region object of your own
//   { ecl::scope s(io); write_all(); }
//
// Everything here is inline over ecl.h; link with libecl-core (or libecl).
#ifndef ECL_HPP
#define ECL_HPP

#include <ecl.h>

namespace ecl {

// A region: its name is defined once, at construction.
class region {
public:
    explicit region(const char *name) : id_(ecl_region_define(name)) {}
    ecl_region id() const { return id_; }

private:
    ecl_region id_;
};

// Enters a region now and leaves it at the end of the enclosing scope.
class scope {
public:
    explicit scope(ecl_region id) : id_(id) { ecl_enter(id_); }
    explicit scope(const region &r) : id_(r.id()) { ecl_enter(id_); }
    ~scope() { ecl_leave(id_); }
    scope(const scope &) = delete;
    scope &operator=(const scope &) = delete;

private:
    ecl_region id_;
};

} // namespace ecl

#define ECL_CAT2_(a, b) a##b
#define ECL_CAT_(a, b) ECL_CAT2_(a, b)
// A scope guard for the region name, its id defined at the site's first run
// (thread-safe, as every function-local static) and kept in a static.
#define ECL_SCOPE(name)                                                            \
    static const ::ecl::region ECL_CAT_(ecl_region_, __LINE__)(name);              \
    ::ecl::scope ECL_CAT_(ecl_scope_, __LINE__)(ECL_CAT_(ecl_region_, __LINE__))

#endif // ECL_HPP
