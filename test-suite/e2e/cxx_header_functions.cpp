// The C++ header (include/zyg/zyg.hpp) on plain functions: zyg::autodiff<zyg::Reverse> with
// several Active, Duplicated, DuplicatedNoNeed and Const arguments (float and double, a
// reference parameter, an enum and a bool), a function template's instances, a function
// returning void (outputs through memory) and zyg::ReverseWithPrimal; each gradient against
// central differences at several points. At -O0 the header's arguments reach the request
// through stack slots, which zyg promotes first (zyg-driver's callsite::promote), in main
// alone, which stays `optnone`.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O3 %s %t -I%S/../../include | FileCheck %s
// The promotion leaves -O0's main unoptimised otherwise: it keeps `optnone`.
// RUN: FileCheck %s --check-prefix=KEPT < %t.O0.grad.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// KEPT: define {{.*}} @main() {{.*}}#[[MAIN:[0-9]+]]
// KEPT: attributes #[[MAIN]] = { {{.*}}optnone
extern "C" {
#include "zyg_check.h"
}
#include "zyg/zyg.hpp"

enum class Shape { line, square };

/* Several active scalars, an array read through a const pointer, an integer, an enum. */
double model(double a, const double *xs, float b, int n, Shape s, bool twice) {
    double r = 0;
    for (int i = 0; i < n; i++) {
        double t = a * xs[i] + b;
        r += s == Shape::square ? t * t : t;
    }
    return twice ? 2 * r : r;
}

/* A reference parameter, read and written. */
double scale_in_place(double &v, double k) {
    v = v * k;
    return v * v;
}

/* Outputs through memory. */
void residuals(const double *p, double *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = sin(p[i]) * p[(i + 1) % n];
}

template <typename T> T poly(T x, const T *c, int n) {
    T r = c[n - 1];
    for (int i = n - 2; i >= 0; i--)
        r = r * x + c[i];
    return r;
}

static double at_a(double a, const double *xs, float b) { return model(a, xs, b, 3, Shape::square, true); }
struct point {
    double a;
    float b;
};
static double model_of_xs(const double *xs, void *ctx) {
    point *at = (point *)ctx;
    return model(at->a, xs, at->b, 3, Shape::square, true);
}

int main() {
    const double points[][2] = {{0.7, -0.3}, {-1.2, 0.25}, {2.0, 1.5}};
    for (auto &pt : points) {
        double a = pt[0];
        float b = (float)pt[1];
        double xs[3] = {0.5, -1.0, 2.0}, dxs[3] = {0, 0, 0};
        /* Two actives (double and float), a Duplicated array, integers and an enum as Const. */
        auto [da, db] = zyg::autodiff<zyg::Reverse>(model, zyg::Active(a), zyg::Duplicated(xs, dxs), zyg::Active(b),
                                                    zyg::Const(3), zyg::Const(Shape::square), zyg::Const(true));
        static_assert(std::is_same_v<decltype(db), float>, "a float's gradient is a float");
        check_close("model d/da", da, FD3_0(at_a, a, xs, b), FD_RTOL, FD_ATOL);
        double want_db = 0; /* float b: exactly, 2 sum 2 (a x_i + b) */
        for (int i = 0; i < 3; i++)
            want_db += 4 * (a * xs[i] + b);
        check_close("model d/db", db, want_db, 1e-6, 1e-6);
        point at = {a, b};
        check_array_fd("model d/dxs", model_of_xs, &at, xs, 3, dxs);

        /* DuplicatedNoNeed, and the gradient accumulates (+=) into the shadow. */
        double acc[3] = {1, 1, 1};
        auto none = zyg::autodiff<zyg::Reverse>(model, zyg::Const(a), zyg::DuplicatedNoNeed(xs, acc),
                                                zyg::Const(b), zyg::Const(3), zyg::Const(Shape::square),
                                                zyg::Const(true));
        static_assert(std::tuple_size_v<decltype(none)> == 0, "no Active argument, no gradient");
        for (int i = 0; i < 3; i++)
            check_close("accumulates", acc[i], 1 + dxs[i], EXACT_RTOL, EXACT_ATOL);

        /* A reference parameter: Duplicated<double &>. d/dv (v k)^2 = 2 v k^2. */
        double v = a, dv = 0;
        auto [dk] = zyg::autodiff<zyg::Reverse>(scale_in_place, zyg::Duplicated<double &>(v, dv), zyg::Active(pt[1]));
        check_close("reference d/dv", dv, 2 * a * pt[1] * pt[1], EXACT_RTOL, EXACT_ATOL);
        check_close("reference d/dk", dk, 2 * a * a * pt[1], EXACT_RTOL, EXACT_ATOL);

        /* A void function: the shadow of `out` seeds, that of `p` receives. */
        double p[3] = {a, pt[1], 0.3}, dp[3] = {0, 0, 0}, out[3], dout[3] = {1, 0.5, -2};
        double seed[3] = {1, 0.5, -2};
        zyg::autodiff<zyg::Reverse>(residuals, zyg::Duplicated(p, dp), zyg::Duplicated(out, dout), zyg::Const(3));
        for (int k = 0; k < 3; k++) {
            double want = 0;
            for (int i = 0; i < 3; i++) {
                double d = (i == k ? cos(p[i]) * p[(i + 1) % 3] : 0) + ((i + 1) % 3 == k ? sin(p[i]) : 0);
                want += seed[i] * d;
            }
            check_close("void d/dp", dp[k], want, EXACT_RTOL, EXACT_ATOL);
            check_close("void seed consumed", dout[k], 0, 0, 0);
        }

        /* Function templates, both instances; ReverseWithPrimal gives the result first. */
        double c[4] = {1, -2, 0.5, 3}, dc[4] = {0, 0, 0, 0};
        auto [y, dx] = zyg::autodiff<zyg::ReverseWithPrimal>(poly<double>, zyg::Active(a), zyg::Const(c),
                                                             zyg::Const(4));
        check_close("template primal", y, poly(a, c, 4), EXACT_RTOL, EXACT_ATOL);
        check_close("template d/dx", dx, 3 * 3 * a * a + 2 * 0.5 * a - 2, EXACT_RTOL, EXACT_ATOL);
        zyg::autodiff<zyg::Reverse>(poly<double>, zyg::Const(a), zyg::Duplicated(c, dc), zyg::Const(4));
        for (int i = 0; i < 4; i++)
            check_close("template d/dc", dc[i], pow(a, i), EXACT_RTOL, EXACT_ATOL);
        float cf[3] = {0.5f, 1.5f, -1.0f};
        auto [dxf] = zyg::autodiff<zyg::Reverse>(poly<float>, zyg::Active(b), zyg::Const(cf), zyg::Const(3));
        check_close("float template d/dx", dxf, 1.5 - 2.0 * b, 1e-6, 1e-6);
    }
    return zyg_report();
}
