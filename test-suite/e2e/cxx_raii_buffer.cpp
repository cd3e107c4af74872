// C++ (exceptions on): an RAII buffer class owning new[] memory (constructor allocates,
// destructor delete[]s, operator[] returns a reference), two of them as scratch in the
// differentiated function; the object's pointer field is memory holding a pointer.
// RUN: %clangxx -O0 -g -I %include -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll && %clangxx %t.O0.grad.ll -lm -o %t.O0.exe && %t.O0.exe | FileCheck %s
// RUN: %clangxx -O2 -g -I %include -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.grad.ll && %clangxx %t.O2.grad.ll -lm -o %t.O2.exe && %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}

class Buffer {
    double *p;
    int n;

  public:
    explicit Buffer(int n_) : p(new double[n_]), n(n_) {}
    ~Buffer() { delete[] p; }
    double &operator[](int i) { return p[i]; }
    int size() const { return n; }
};

extern "C" double raii_loss(const double *x, int n) {
    Buffer b(n), c(n);
    for (int i = 0; i < b.size(); i++)
        b[i] = x[i] * x[i] + sin(x[i]);
    for (int i = 0; i < c.size(); i++)
        c[i] = b[i] * b[(i + 1) % n];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += c[i] * (i + 1);
    return s;
}

enum { N = 5 };
static double loss_n(const double *x) { return raii_loss(x, N); }

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main() {
    double pts[2][N] = {{0.5, -1.0, 2.0, 0.3, -0.6}, {1.1, 0.2, -0.8, 0.9, -1.4}};
    for (int q = 0; q < 2; q++) {
        double dx[N] = {};
        __enzyme_autodiff((void *)raii_loss, enzyme_dup, pts[q], dx, enzyme_const, (int)N);
        for (int k = 0; k < N; k++)
            check_close("dx", dx[k], fd(loss_n, pts[q], N, k), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
