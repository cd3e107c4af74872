// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode from C++ as Enzyme's users write it (exceptions on): `__enzyme_fwddiff` as a
// function template, `enzyme_dup` on doubles (value, tangent), a result written through a
// reference (`enzyme_dupnoneed` pointer and its shadow), a void function, and a std::array
// member function; checked against central differences.
#include <array>
#include <cmath>
#include <cstdio>

extern "C" {
#include "zyg_check.h"
}

template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

static void f(double x, double y, double &output) { output = x * y + 1.0 / y + std::exp(-x * x); }

struct Spring {
    std::array<double, 3> k{1.5, -0.25, 0.75};
    double energy(double x) const {
        double e = 0;
        for (double c : k) e += c * x * x + std::sin(c * x);
        return e;
    }
};

static double energy_of(const Spring *s, double x) { return s->energy(x); }

int main() {
    double xs[] = {3.0, -0.4, 1.2};
    for (double x : xs) {
        double y = 2.0 + x * 0.1, dx = 1.0, dy = 2.0, z = 0, dz = 0;
        __enzyme_fwddiff<void>((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dupnoneed, &z, &dz);
        double h = 1e-6, zp, zm;
        f(x + h * dx, y + h * dy, zp);
        f(x - h * dx, y - h * dy, zm);
        check_close("f's output along (dx, dy)", dz, (zp - zm) / (2 * h), FD_RTOL, FD_ATOL);
        Spring s;
        double de = __enzyme_fwddiff<double>((void *)energy_of, enzyme_const, &s, x, 1.0);
        check_close("Spring::energy", de, (energy_of(&s, x + h) - energy_of(&s, x - h)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
