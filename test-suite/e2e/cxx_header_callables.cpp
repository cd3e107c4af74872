// The C++ header (include/zyg/zyg.hpp) on callables other than functions: a captureless
// lambda, lambdas capturing by value and by reference (constants), a lambda wrapped in
// zyg::Const (the promise that its captures are constant) with Duplicated arguments, a
// mutable lambda, and function objects with state (an overloaded operator(), a class
// template); each is differentiated through zyg.hpp's trampoline, the object passed const.
// Gradients against central differences or closed forms at several points, reverse mode
// and ReverseWithPrimal.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O3 %s %t -I%S/../../include | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}
#include "zyg/zyg.hpp"

/* A function object with state: coefficients it owns, and a pointer to data it reads. */
struct Quadratic {
    double a, b, c;
    const double *weights;
    double operator()(double x, double y) const { return weights[0] * (a * x * x + b * x * y) + weights[1] * c * y; }
};

/* Overloaded on the argument type: the trampoline calls the one the arguments select. */
struct Overloaded {
    double operator()(double x) const { return 10 * x * x; }
    float operator()(float x) const { return 2 * x * x * x; }
};

/* A class template with a member array, its size a template parameter. */
template <int N> struct Dot {
    double w[N];
    double operator()(const double *x) const {
        double s = 0;
        for (int i = 0; i < N; i++)
            s += w[i] * x[i] * x[i];
        return s;
    }
};

static const double weights[2] = {0.5, -1.5};
static double quadratic_at(double x, double y) {
    Quadratic q{1.5, -0.5, 2.0, weights};
    return q(x, y);
}

int main() {
    const double points[][2] = {{0.7, -0.3}, {-1.2, 0.25}, {2.0, 1.5}};
    for (auto &pt : points) {
        double x = pt[0], y = pt[1];

        /* A captureless lambda. */
        auto plain = [](double u, double v) { return sin(u) * exp(v); };
        auto [du, dv] = zyg::autodiff<zyg::Reverse>(plain, zyg::Active(x), zyg::Active(y));
        check_close("captureless d/du", du, cos(x) * exp(y), EXACT_RTOL, EXACT_ATOL);
        check_close("captureless d/dv", dv, sin(x) * exp(y), EXACT_RTOL, EXACT_ATOL);

        /* Captures by value and by reference (constants: no Duplicated argument here). */
        double k = 1.75;
        int n = 3;
        auto by_value = [k, n](double u) { return k * pow(u, n); };
        auto by_reference = [&](double u, double v) { return k * u * v + n * v; };
        auto [dbv] = zyg::autodiff<zyg::Reverse>(by_value, zyg::Active(x));
        check_close("by value", dbv, 3 * k * x * x, EXACT_RTOL, EXACT_ATOL);
        auto [dr0, dr1] = zyg::autodiff<zyg::Reverse>(by_reference, zyg::Active(x), zyg::Active(y));
        check_close("by reference d/du", dr0, k * y, EXACT_RTOL, EXACT_ATOL);
        check_close("by reference d/dv", dr1, k * x + n, EXACT_RTOL, EXACT_ATOL);

        /* zyg::Const(lambda) with a Duplicated argument: the captured table is constant. */
        double table[3] = {2.0, -1.0, 0.5};
        double p[3] = {x, y, x * y}, dp[3] = {0, 0, 0};
        auto weighted = [&](const double *q, int m) {
            double s = 0;
            for (int i = 0; i < m; i++)
                s += table[i] * q[i] * q[i] * q[i];
            return s;
        };
        zyg::autodiff<zyg::Reverse>(zyg::Const(weighted), zyg::Duplicated(p, dp), zyg::Const(3));
        for (int i = 0; i < 3; i++)
            check_close("Const(lambda) d/dp", dp[i], 3 * table[i] * p[i] * p[i], EXACT_RTOL, EXACT_ATOL);

        /* A mutable lambda counting its calls in its own (integer) state. */
        int calls = 0;
        auto counting = [calls](double u) mutable {
            calls++;
            return u * u * calls;
        };
        auto [dc] = zyg::autodiff<zyg::Reverse>(counting, zyg::Active(x));
        check_close("mutable", dc, 2 * x, EXACT_RTOL, EXACT_ATOL);

        /* A function object with state, and ReverseWithPrimal through the trampoline. */
        Quadratic q{1.5, -0.5, 2.0, weights};
        auto [value, qx, qy] = zyg::autodiff<zyg::ReverseWithPrimal>(q, zyg::Active(x), zyg::Active(y));
        check_close("functor primal", value, q(x, y), EXACT_RTOL, EXACT_ATOL);
        check_close("functor d/dx", qx, FD2_0(quadratic_at, x, y), FD_RTOL, FD_ATOL);
        check_close("functor d/dy", qy, FD2_1(quadratic_at, x, y), FD_RTOL, FD_ATOL);
        auto [wv, wx] = zyg::autodiff<zyg::ReverseWithPrimal>(plain, zyg::Active(x), zyg::Const(y));
        check_close("lambda primal", wv, sin(x) * exp(y), EXACT_RTOL, EXACT_ATOL);
        check_close("lambda primal's gradient", wx, cos(x) * exp(y), EXACT_RTOL, EXACT_ATOL);

        /* Overloads chosen by the activity's type; a temporary object. */
        auto [od] = zyg::autodiff<zyg::Reverse>(Overloaded{}, zyg::Active(x));
        check_close("overload double", od, 20 * x, EXACT_RTOL, EXACT_ATOL);
        auto [of] = zyg::autodiff<zyg::Reverse>(Overloaded{}, zyg::Active((float)x));
        check_close("overload float", of, 6 * (float)x * (float)x, 1e-6, 1e-6);

        /* A class template's object, Const because it is read with Duplicated memory. */
        Dot<3> dot{{1.0, 2.0, -3.0}};
        double z[3] = {x, y, 1.0}, dz[3] = {0, 0, 0};
        zyg::autodiff<zyg::Reverse>(zyg::Const(dot), zyg::Duplicated(z, dz));
        for (int i = 0; i < 3; i++)
            check_close("class template d/dz", dz[i], 2 * dot.w[i] * z[i], EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
