// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %valgrind %t.O0.exe > /dev/null
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %valgrind %t.O2.exe > /dev/null
// RUN: %grad-run -O3 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// std::shared_ptr and std::weak_ptr in the function differentiated (exceptions on): values
// held by make_shared and by a shared_ptr of `new`, copies sharing them, a weak_ptr locked
// (its reference counts are atomic read-modify-writes and a compare-exchange, which carry no
// derivative), and the last owner freeing the memory. Reverse and forward mode against closed forms and central differences at several points.
// Under valgrind (%valgrind) the generated code makes no invalid access or free, frees
// what it allocates, and frees shadows with `free` (forward mode once released calloc'ed
// shadows with operator delete: a mismatched free).
#include "zyg_check.h"
#include <memory>

struct Params {
    double a, b;
};

static double model(double x) {
    auto p = std::make_shared<double>(x * x);
    auto q = p; // a second owner of the same double
    std::shared_ptr<Params> ps(new Params{x, 2 * x});
    std::weak_ptr<Params> w = ps;
    double extra = 0;
    if (auto locked = w.lock())
        extra = locked->a * locked->b;
    p.reset();
    return *q * sin(*q) + extra;
}

static double exact(double x) {
    double u = x * x;
    return 2 * x * (sin(u) + u * cos(u)) + 4 * x;
}

int main() {
    const double xs[3] = {0.7, -0.4, 1.3};
    for (double x : xs) {
        double d = __enzyme_autodiff((void *)model, x);
        check_close("shared d/dx", d, exact(x), 1e-12, 1e-12);
        check_close("shared d/dx vs FD", d, FD1(model, x), FD_RTOL, FD_ATOL);
        double t = __enzyme_fwddiff((void *)model, x, 1.0);
        check_close("shared tangent", t, exact(x), 1e-12, 1e-12);
    }
    return zyg_report();
}
