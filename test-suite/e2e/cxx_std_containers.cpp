// C++ with exceptions on: the standard library's std::array, std::unique_ptr (of an array
// and of a scalar), lambdas capturing by reference, and std::accumulate inside the
// differentiated functions, and std::vector grown by push_back and std::deque; their
// gradients against finite differences at -O0 and -O2. (At -O0 the growth code goes
// through small header functions, `std::max` returning a reference among them, which zyg
// inlines in the copy it reads: see `prepare::inline_small_inline_functions`.)
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include <array>
#include <cmath>
#include <deque>
#include <memory>
#include <numeric>
#include <vector>
extern "C" {
#include "zyg_check.h"
}

enum { N = 5 };

double with_array(const double *x, int) {
    std::array<double, N> a{};
    for (int i = 0; i < N; i++)
        a[i] = std::exp(x[i] * 0.3);
    return std::accumulate(a.begin(), a.end(), 0.0) * a[1];
}

double with_unique_ptrs(const double *x, int n) {
    std::unique_ptr<double[]> w(new double[n]);
    for (int i = 0; i < n; i++)
        w[i] = x[i] * (i + 1);
    auto total = std::make_unique<double>(0.0);
    for (int i = 0; i < n; i++)
        *total += w[i] * w[i];
    return *total;
}

double with_lambdas(const double *x, int n) {
    double k = 1.5;
    auto f = [&](double v) { return k * v * v + std::tanh(v); };
    auto g = [](double a, double b) { return a * b; };
    double s = 0;
    for (int i = 0; i < n; i++)
        s += f(x[i]) + g(x[i], x[(i + 1) % n]);
    return s;
}

double with_push_back(const double *x, int n) {
    std::vector<double> v;
    for (int i = 0; i < n; i++)
        v.push_back(x[i] * x[i]);
    for (int i = 0; i < n; i++)
        v.push_back(std::sin(v[i]) * x[(i + 1) % n]);
    double s = 0;
    for (double e : v)
        s += e;
    return s;
}

double with_deque(const double *x, int n) {
    std::deque<double> d;
    for (int i = 0; i < n; i++) {
        d.push_back(x[i]);
        d.push_front(x[i] * 2);
    }
    double s = 0;
    for (double e : d)
        s += e * e;
    return s;
}

typedef double (*fn_t)(const double *, int);

static void check_fd(const char *name, fn_t f, const double *x, const double *dx) {
    for (int k = 0; k < N; k++) {
        double a[N], b[N], h = ZYG_STEP(x[k]);
        for (int i = 0; i < N; i++)
            a[i] = b[i] = x[i];
        a[k] += h;
        b[k] -= h;
        check_close(name, dx[k], (f(a, N) - f(b, N)) / (2 * h), FD_RTOL, FD_ATOL);
    }
}

// A macro, so that each request names its function directly at -O0 too.
#define CHECK_GRAD(f)                                                                                    \
    for (int q = 0; q < 2; q++) {                                                                        \
        double x[2][N] = {{0.5, -1.0, 2.0, 0.3, -0.6}, {1.1, 0.2, -0.8, 0.9, -1.4}}, dx[N] = {};         \
        __enzyme_autodiff((void *)f, enzyme_dup, x[q], dx, enzyme_const, (int)N);                         \
        check_fd(#f, f, x[q], dx);                                                                       \
    }

int main() {
    CHECK_GRAD(with_array);
    CHECK_GRAD(with_unique_ptrs);
    CHECK_GRAD(with_lambdas);
    CHECK_GRAD(with_push_back);
    CHECK_GRAD(with_deque);
    return zyg_report();
}
