// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t | FileCheck %s
// CHECK: step 0 energy
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The standard library's out-of-line functions that never carry a derivative pass through
// inside a differentiated function (exceptions on): printing an active value with
// std::cout, formatting it with std::to_string and a std::ostringstream, building and
// comparing std::strings, hashing it with std::hash<double>, and a std::runtime_error
// thrown with a message on a path not taken. Reverse and forward mode against the closed
// form and central differences at several points.
#include "zyg_check.h"
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

static double energy(double x, int step) {
    if (x > 100)
        throw std::runtime_error("x out of range: " + std::to_string(x));
    double y = x * x;
    if (step == 0)
        std::cout << "step " << step << " energy " << y << std::endl;
    std::ostringstream os;
    os << "energy(" << x << ") = " << y;
    std::string label = os.str();
    if (label.compare(0, 6, "energy") != 0 || label.size() > 200)
        y += 1; // never: the label is as built
    std::size_t h = std::hash<double>{}(y);
    double pick = (h % 2 == 0) ? 0.0 : 0.0; // a hash decides nothing differentiable
    return y * sin(x) + pick;
}

static double exact(double x) { return 2 * x * sin(x) + x * x * cos(x); }

static double energy0(double x) { return energy(x, 1); }

int main() {
    const double xs[3] = {0.7, -1.2, 2.5};
    for (int k = 0; k < 3; k++) {
        double x = xs[k];
        double d = __enzyme_autodiff((void *)energy, x, enzyme_const, k);
        check_close("d/dx", d, exact(x), 1e-12, 1e-12);
        check_close("d/dx vs FD", d, FD1(energy0, x), FD_RTOL, FD_ATOL);
        double t = __enzyme_fwddiff((void *)energy, x, 1.0, k);
        check_close("tangent", t, exact(x), 1e-12, 1e-12);
    }
    return zyg_report();
}
