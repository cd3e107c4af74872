// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loops the adjoint counts without a recorded trip count (test-suite/ir/trip_count.ll):
// at -O2 clang leaves them by `icmp eq %i.next, %n`, here with a 32-bit unsigned counter
// (the count is widened), a vectorised loop (step 2 or 4 up to n rounded down, then a
// remainder loop) and an inner loop whose bound changes with the outer index. Checked
// against central differences, with trip counts 1, 2, 3 and 9.
#include "zyg_check.h"

struct sizes { unsigned n, m; };

double loops(const double *x, struct sizes s) {
    double acc = 0.0;
    for (unsigned i = 0; i != s.n; i++)
        acc = acc * 0.9 + sin(x[i % 4] * acc + 0.1 * i);
    double dot = 0.0;
    for (unsigned i = 0; i < 8 * s.m; i++)
        dot += x[i % 4] * x[(i + 1) % 4] * (1.0 + 0.01 * i);
    for (unsigned i = 0; i < s.m; i++)
        for (unsigned j = 0; j <= i; j++)
            acc += cos(x[j % 4] * dot * 0.1 + i);
    return acc + dot;
}

static double loops_of(const double *x, void *s) { return loops(x, *(struct sizes *)s); }

int main(void) {
    double x[4] = {0.3, -0.7, 0.2, 1.1};
    struct sizes cases[4] = {{1, 1}, {2, 3}, {3, 2}, {9, 9}};
    for (int c = 0; c < 4; c++) {
        double dx[4] = {0};
        __enzyme_autodiff((void *)loops, x, dx, cases[c]);
        check_array_fd("d loops / dx", loops_of, &cases[c], x, 4, dx);
    }
    return zyg_report();
}
