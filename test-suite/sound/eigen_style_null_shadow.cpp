// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Eigen-style views: small objects that keep a pointer to their data, built on the stack and
// handed to out-of-line evaluators. Some views point at differentiated memory, some at a
// constant table: the table's pointer is kept in differentiated memory (a view inside a
// struct the evaluator reads), so its shadow there is null, meaning "not differentiated".
// The adjoint once accumulated through that null shadow (a crash at -O0; at -O2 LLVM turned
// the whole program into `unreachable`). Reads through it are constants now. Compiled with
// exceptions on, as users compile C++ (nothing here can throw, so clang emits no invoke).
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}

static const double table[4] = {1.5, -2.0, 0.25, 3.0};

struct View {
    const double *data;
    int n;
    double operator[](int i) const { return data[i]; }
};

struct Weighted {
    View weights; // constant table, or differentiated values
    View values;
};

__attribute__((noinline)) static double dot(const Weighted *w) {
    double s = 0;
    for (int i = 0; i < w->values.n; i++)
        s += w->weights[i] * w->values[i] * w->values[i];
    return s;
}

__attribute__((noinline)) static double dot_pair(const View *a, const View *b) {
    double s = 0;
    for (int i = 0; i < a->n; i++)
        s += (*a)[i] * (*b)[i];
    return s;
}

double f(double *x, int n) {
    Weighted fixed = {{table, n}, {x, n}};  // weights not differentiated
    Weighted self = {{x, n}, {x, n}};       // weights differentiated too
    View t = {table, n}, v = {x, n};
    return dot(&fixed) + 0.5 * dot(&self) + dot_pair(&t, &v);
}

static double f_of(const double *x, void *) { return f(const_cast<double *>(x), 4); }

int main() {
    double x[4] = {0.5, -1.0, 2.0, 0.3}, dx[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
    check_array_fd("df/dx", f_of, nullptr, x, 4, dx);
    for (int i = 0; i < 4; i++)
        check_close("exact", dx[i], 2 * table[i] * x[i] + 1.5 * x[i] * x[i] + table[i], EXACT_RTOL, EXACT_ATOL);
    return zyg_report();
}
