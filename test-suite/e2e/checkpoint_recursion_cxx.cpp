// RUN: %grad-run -O0 %s %t -fexceptions | FileCheck %s
// RUN: %grad-run -O2 %s %t -fexceptions | FileCheck %s
// RUN: %zyg grad -v %t.O2.ll -o %t.v.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Checkpointed recursion in C++ with exceptions on: the minor in `new double[]`, freed with
// `delete[]` (zyg-transform/src/checkpoint.rs); a recursion over a std::vector keeps its
// tape (with the vector to destroy, the call is an `invoke`), and both gradients are right.
// REPORT-DAG: call to {{.*}}det_new{{.*}} checkpointed
// REPORT-DAG: call to {{.*}}det_vec{{.*}} taped: it may throw (an `invoke`)
#include <vector>
#include "zyg_check.h"

double det_new(const double *a, int n) {
    if (n == 1)
        return a[0] * a[0] + a[0];
    double r = 0.0, s = 1.0;
    double *m = new double[(n - 1) * (n - 1)];
    for (int j = 0; j < n; j++) {
        for (int i = 1; i < n; i++)
            for (int k = 0, c = 0; k < n; k++)
                if (k != j)
                    m[(i - 1) * (n - 1) + c++] = a[i * n + k];
        r += s * a[j] * det_new(m, n - 1);
        s = -s;
    }
    delete[] m;
    return r;
}

double det_vec(const double *a, int n) {
    if (n == 1)
        return a[0] * a[0] + a[0];
    double r = 0.0, s = 1.0;
    std::vector<double> m((n - 1) * (n - 1));
    for (int j = 0; j < n; j++) {
        for (int i = 1; i < n; i++)
            for (int k = 0, c = 0; k < n; k++)
                if (k != j)
                    m[(i - 1) * (n - 1) + c++] = a[i * n + k];
        r += s * a[j] * det_vec(m.data(), n - 1);
        s = -s;
    }
    return r;
}

typedef double (*fn)(const double *, int);
static double fd(fn f, const double *x, int len, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < len; i++)
        a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (f(a, n) - f(b, n)) / (2 * h);
}

#define CHECK(label, f, n, q)                                                          \
    do {                                                                               \
        double x[64], dx[64] = {0};                                                    \
        for (int i = 0; i < (n) * (n); i++)                                            \
            x[i] = 0.9 * sin(1.7 * i + (q)) + 0.05 * i;                                \
        try {                                                                          \
            __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (n));        \
        } catch (...) {                                                                \
            printf("FAIL %s threw\n", label);                                          \
        }                                                                              \
        for (int k = 0; k < (n) * (n); k++)                                            \
            check_close(label, dx[k], fd(f, x, (n) * (n), (n), k), FD_RTOL, FD_ATOL);  \
    } while (0)

int main() {
    for (int q = 0; q < 3; q++) {
        CHECK("det_new n=5", det_new, 5, q);
        CHECK("det_vec n=5", det_vec, 5, q);
    }
    return zyg_report();
}
