// The C++ header (include/zyg/zyg.hpp) in forward mode: zyg::autodiff<zyg::Forward> returns
// the tangent of the result (a float, or a struct of floats), with zyg::Duplicated(x, dx)
// for floats and pointers (whose shadows carry the tangents of memory in and out);
// zyg::Duplicated<R> as the result's activity gives (result, tangent), zyg::Const<R> the
// result. On a function, a lambda with captures and a function object; each tangent against
// central differences along the direction at several points.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O3 %s %t -I%S/../../include | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}
#include "zyg/zyg.hpp"

double energy(double x, const double *p, double *out, int n) {
    double e = 0;
    for (int i = 0; i < n; i++) {
        out[i] = x * p[i] * p[i];
        e += log1p(out[i] * out[i]);
    }
    return e;
}

struct Polar {
    double r, t;
};
Polar to_polar(double x, double y) { return Polar{sqrt(x * x + y * y), atan2(y, x)}; }

struct Spring {
    double stiffness, rest;
    double operator()(double a, double b) const {
        double d = b - a - rest;
        return 0.5 * stiffness * d * d;
    }
};

/* energy along x + h dx, p + h dp: the result, and out[k]. */
static double along(double x, const double *p, const double *dx_dp, double h, int k) {
    double q[3], out[3];
    for (int i = 0; i < 3; i++)
        q[i] = p[i] + h * dx_dp[i + 1];
    double e = energy(x + h * dx_dp[0], q, out, 3);
    return k < 0 ? e : out[k];
}

int main() {
    const double points[][2] = {{0.7, -0.3}, {-1.2, 0.25}, {2.0, 1.5}};
    for (auto &pt : points) {
        double x = pt[0], y = pt[1];
        double p[3] = {y, 0.5, -x}, dp[3] = {0.25, -1.0, 0.5}, out[3], dout[3] = {0, 0, 0};
        double dir[4] = {0.75, dp[0], dp[1], dp[2]};
        double de = zyg::autodiff<zyg::Forward>(energy, zyg::Duplicated(x, dir[0]), zyg::Duplicated(p, dp),
                                                zyg::Duplicated(out, dout), zyg::Const(3));
        double h = 1e-6;
        check_close("function tangent", de, (along(x, p, dir, h, -1) - along(x, p, dir, -h, -1)) / (2 * h), FD_RTOL,
                    FD_ATOL);
        for (int k = 0; k < 3; k++)
            check_close("memory tangent", dout[k], (along(x, p, dir, h, k) - along(x, p, dir, -h, k)) / (2 * h),
                        FD_RTOL, FD_ATOL);

        /* The result with its tangent, and the result alone. */
        double scratch[3];
        auto [e, de2] = zyg::autodiff<zyg::Forward, zyg::Duplicated<double>>(
            energy, zyg::Duplicated(x, 1.0), zyg::Const(p), zyg::Duplicated(scratch, dout), zyg::Const(3));
        check_close("primal", e, along(x, p, dir, 0, -1), EXACT_RTOL, EXACT_ATOL);
        double dir_x[4] = {1, 0, 0, 0};
        check_close("tangent beside primal", de2,
                    (along(x, p, dir_x, h, -1) - along(x, p, dir_x, -h, -1)) / (2 * h), FD_RTOL, FD_ATOL);
        double e_only = zyg::autodiff<zyg::Forward, zyg::Const<double>>(
            energy, zyg::Duplicated(x, 1.0), zyg::Const(p), zyg::Duplicated(scratch, dout), zyg::Const(3));
        check_close("primal alone", e_only, e, EXACT_RTOL, EXACT_ATOL);

        /* A struct result: the tangent of each field. */
        Polar dpol = zyg::autodiff<zyg::Forward>(to_polar, zyg::Duplicated(x, 1.0), zyg::Duplicated(y, 0.0));
        double r2 = x * x + y * y;
        check_close("struct tangent r", dpol.r, x / sqrt(r2), EXACT_RTOL, EXACT_ATOL);
        check_close("struct tangent t", dpol.t, -y / r2, EXACT_RTOL, EXACT_ATOL);

        /* A lambda capturing a constant by reference, and a function object. */
        double k = 2.5;
        auto wave = [&](double u, double v) { return sin(k * u) * v; };
        double dw = zyg::autodiff<zyg::Forward>(wave, zyg::Duplicated(x, 0.5), zyg::Duplicated(y, -2.0));
        check_close("lambda tangent", dw, 0.5 * k * cos(k * x) * y - 2.0 * sin(k * x), EXACT_RTOL, EXACT_ATOL);
        Spring s{3.0, 0.5};
        double ds = zyg::autodiff<zyg::Forward>(s, zyg::Duplicated(x, 1.0), zyg::Const(y));
        check_close("functor tangent", ds, -s.stiffness * (y - x - s.rest), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
