// Functions that move derivatives only through differentiated globals: given nothing active
// and returning nothing active by their signature, they read or write a global that holds
// derivatives. zyg once took such calls for inactive: `right(t)` below (an int in, a
// double out read from buf) was a constant, and `shift()` (nothing in, nothing out) was
// skipped, and the gradient was silently wrong (8 36 96 8 for 40 40 120 80). A call of a
// function that reaches such a global, itself or through its callees or callbacks, is now
// active. Checked against central differences at several points, -O0 and -O2.
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"


enum { N = 4 };
double buf[N], a[N], b[N];

// Reads buf: the only way its result depends on x.
__attribute__((noinline)) double right(int t) { return buf[(t + 1) % N]; }
// Through a callee of its own.
__attribute__((noinline)) double left(int t) { return right((t + N - 2) % N); }
// Nothing in, nothing out: b from a.
__attribute__((noinline)) void shift(void) {
    for (int i = 0; i < N; i++)
        b[i] = a[(i + 1) % N] * a[i];
}
// A callback reaching a global, passed to a function that calls it.
__attribute__((noinline)) double apply(double (*g)(int), int t) { return g(t); }

static double f(double *x) {
    double s = 0;
    for (int t = 0; t < N; t++)
        buf[t] = x[t] * x[t];
    for (int t = 0; t < N; t++)
        s += buf[t] * right(t) + 0.5 * left(t);
    return s;
}

static double g(double *x) {
    for (int i = 0; i < N; i++)
        a[i] = x[i] + 0.1 * i;
    shift();
    double s = 0;
    for (int i = 0; i < N; i++)
        s += b[i] * b[i];
    return s;
}

static double h(double *x) {
    for (int t = 0; t < N; t++)
        buf[t] = x[t] * (t + 1);
    double s = 0;
    for (int t = 0; t < N; t++)
        s += x[t] * apply(right, t);
    return s;
}

/* The gradient (the request names the function: a macro, not a pointer parameter) against
   central differences at x0. */
#define CHECK(name, fn, x0)                                                              \
    do {                                                                                  \
        double x[N], dx[N] = {0};                                                         \
        for (int i = 0; i < N; i++)                                                       \
            x[i] = (x0)[i];                                                               \
        __enzyme_autodiff((void *)fn, x, dx);                                             \
        for (int i = 0; i < N; i++) {                                                     \
            double p[N], m[N], hstep = 1e-6;                                              \
            for (int j = 0; j < N; j++)                                                   \
                p[j] = m[j] = (x0)[j];                                                    \
            p[i] += hstep;                                                                \
            m[i] -= hstep;                                                                \
            check_close(name, dx[i], (fn(p) - fn(m)) / (2 * hstep), 1e-6, 1e-6);          \
        }                                                                                 \
    } while (0)

int main(void) {
    const double points[3][N] = {{1, 2, 3, 4}, {-0.5, 0.25, 1.5, -2}, {0.3, -1.1, 0.7, 2.2}};
    for (int k = 0; k < 3; k++) {
        CHECK("f (a callee reads a global)", f, points[k]);
        CHECK("g (a callee writes a global from another)", g, points[k]);
        CHECK("h (a callback reads a global)", h, points[k]);
    }
    return zyg_report();
}
