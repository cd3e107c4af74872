// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode from C++ templates and lambdas (exceptions on): a function template
// instantiated for double and float, a class template with a member template, a generic
// Horner evaluation with the degree as a template parameter, lambdas (capturing by value
// and by reference) called directly inside the differentiated function, and a function
// template taking a lambda as its callable. Tangents against central differences.
#include <cmath>
#include <cstdio>

extern "C" {
#include "zyg_check.h"
}

template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

template <typename T> static T logistic(T x, T k) { return T(1) / (T(1) + std::exp(-k * x)); }

template <int Degree> static double horner(const double *c, double x) {
    double r = c[Degree];
    for (int i = Degree - 1; i >= 0; i--) r = r * x + c[i];
    return r;
}

template <typename T, int N> struct Window {
    T w[N];
    template <typename F> T apply(const T *x, F f) const {
        T s = 0;
        for (int i = 0; i < N; i++) s += w[i] * f(x[i]);
        return s;
    }
};

template <typename F> static double integrate(F f, double a, double b, int n) {
    double hstep = (b - a) / n, s = 0.5 * (f(a) + f(b));
    for (int i = 1; i < n; i++) s += f(a + i * hstep);
    return s * hstep;
}

static double with_lambdas(const double *x, double k) {
    double scale = 0.5 + k * k;
    int calls = 0;
    auto bump = [scale](double v) { return scale * std::exp(-v * v); };
    auto count_sq = [&calls, k](double v) {
        calls++;
        return std::sin(k * v) * v;
    };
    Window<double, 4> win{{0.1, 0.2, 0.3, 0.4}};
    double a = win.apply(x, bump);
    double b = win.apply(x, count_sq);
    double c = integrate([&](double s) { return logistic(s, k) * x[0]; }, 0.0, 1.0, 16);
    return a * b + c + horner<3>(x, k) + calls * 1e-3;
}

static float logistic_f(float x, float k) { return logistic<float>(x, k); }
static double logistic_d(double x, double k) { return logistic<double>(x, k); }

int main() {
    double h = 1e-6;
    double xs[2][4] = {{0.3, -0.5, 0.8, 1.1}, {-0.9, 0.4, 0.2, -1.3}};
    double dirs[3][4] = {{1, 0, 0, 0}, {0, 0, 0, 0}, {0.4, -0.2, 0.7, 0.1}};
    for (int p = 0; p < 2; p++)
        for (int d = 0; d < 3; d++) {
            double x[4], dx[4], xp[4], xm[4];
            for (int i = 0; i < 4; i++) x[i] = xs[p][i], dx[i] = dirs[d][i], xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
            double k = 1.3 - 0.5 * p, dk = d == 1 ? 1.0 : d == 2 ? -0.3 : 0.0;
            double t = __enzyme_fwddiff<double>((void *)with_lambdas, enzyme_dup, x, dx, k, dk);
            double want = (with_lambdas(xp, k + h * dk) - with_lambdas(xm, k - h * dk)) / (2 * h);
            check_close("lambdas, templates", t, want, FD_RTOL, FD_ATOL);
            double th = __enzyme_fwddiff<double>((void *)horner<3>, enzyme_dup, x, dx, k, dk);
            check_close("horner<3>", th, (horner<3>(xp, k + h * dk) - horner<3>(xm, k - h * dk)) / (2 * h), FD_RTOL, FD_ATOL);
            double v = x[1] + 0.2, dv = dx[0] + 0.5;
            double td = __enzyme_fwddiff<double>((void *)logistic_d, v, dv, k, dk);
            check_close("logistic<double>", td, (logistic_d(v + h * dv, k + h * dk) - logistic_d(v - h * dv, k - h * dk)) / (2 * h), FD_RTOL, FD_ATOL);
            float tf = __enzyme_fwddiff<float>((void *)logistic_f, (float)v, (float)dv, (float)k, (float)dk);
            double want_f = dv * FDF2_0(logistic_f, v, k) + dk * FDF2_1(logistic_f, v, k);
            check_close("logistic<float>", tf, want_f, FLOAT_RTOL, FLOAT_ATOL);
        }
    return zyg_report();
}
