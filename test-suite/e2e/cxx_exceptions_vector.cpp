// C++ with exceptions on: a std::vector inside the differentiated function (its
// destructor runs on the landing pad of every call that may throw) and a `throw` on bad
// input. The gradient matches finite differences; when the primal throws while the
// gradient is computed, the exception reaches the caller's `catch` (the request is an
// invoke), the vector is destroyed, and later requests still give right gradients.
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: caught too big
// CHECK: ALL OK
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
extern "C" {
#include "zyg_check.h"
}

enum { N = 4 };

double loss(const double *x, int n) {
    std::vector<double> v(n);
    for (int i = 0; i < n; i++)
        v[i] = x[i] * x[i] + std::sin(x[i]);
    if (v[0] > 100.0)
        throw std::domain_error("too big");
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[(i + 1) % n];
    return s;
}

static void check_at(const double *x) {
    double dx[N] = {};
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, (int)N);
    for (int k = 0; k < N; k++) {
        double a[N], b[N], h = ZYG_STEP(x[k]);
        for (int i = 0; i < N; i++)
            a[i] = b[i] = x[i];
        a[k] += h;
        b[k] -= h;
        check_close("dx", dx[k], (loss(a, N) - loss(b, N)) / (2 * h), FD_RTOL, FD_ATOL);
    }
}

int main() {
    std::string label = "kept";  // a local with a destructor: the requests are invokes
    double x1[N] = {0.3, -1.2, 2.0, 0.7}, x2[N] = {-0.4, 0.9, 1.5, -2.2};
    check_at(x1);
    double big[N] = {20, 1, 1, 1}, dbig[N] = {};
    try {
        __enzyme_autodiff((void *)loss, enzyme_dup, big, dbig, enzyme_const, (int)N);
        std::printf("FAIL: no exception\n");
    } catch (const std::domain_error &e) {
        std::printf("caught %s\n", e.what());
    }
    check_at(x2);
    check_at(x1);
    return label == "kept" ? zyg_report() : 1;
}
