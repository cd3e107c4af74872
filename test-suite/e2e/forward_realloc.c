// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through `realloc`: the tangents move with the data they belong to. A buffer
// grown by doubling as values are appended, one shrunk and grown again (the kept part keeps
// its tangents), one started by realloc(NULL, n), and results copied out of a reallocated
// buffer into a `dup` output; in vector mode (width 3) too. Checked against central
// differences along each direction, at several sizes (leaks show under valgrind).
#include <stdlib.h>
#include <string.h>
#include "zyg_check.h"

extern int enzyme_width;

static double grow(const double *x, int n) {
    int cap = 2, len = 0;
    double *buf = malloc(cap * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int r = 0; r < 2; r++) {
            if (len == cap) {
                cap *= 2;
                buf = realloc(buf, cap * sizeof(double));
            }
            buf[len++] = r ? sin(x[i]) : x[i] * x[i];
        }
    double s = 0;
    for (int i = 0; i < len; i++) s += buf[i] * (i + 1);
    free(buf);
    return s;
}

static double shrink(const double *x, int n) {
    double *buf = realloc(NULL, 16 * sizeof(double));
    for (int i = 0; i < 16; i++) buf[i] = exp(0.1 * x[i % n]) * (i + 1);
    buf = realloc(buf, 4 * sizeof(double));
    buf = realloc(buf, 10 * sizeof(double));
    for (int i = 4; i < 10; i++) buf[i] = x[(i + 1) % n] * buf[i - 4];
    double s = 0;
    for (int i = 0; i < 10; i++) s += buf[i] * buf[i] * 0.01;
    free(buf);
    return s;
}

/* out[i] = cumulative products of tanh(x), built in a reallocated buffer. */
static void copy_out(const double *x, double *out, int n) {
    double *buf = NULL;
    double p = 1;
    for (int i = 0; i < n; i++) {
        buf = realloc(buf, (i + 1) * sizeof(double));
        p *= tanh(x[i]) + 1.5;
        buf[i] = p;
    }
    memcpy(out, buf, n * sizeof(double));
    free(buf);
}

typedef struct { double d0, d1, d2; } t3;
t3 __enzyme_fwddiff3(void *, ...) __asm__("__enzyme_fwddiff");

#define MAXN 40
static double xp[MAXN], xm[MAXN];

static double along(double (*f)(const double *, int), const double *x, const double *v, int n) {
    double h = 1e-6;
    for (int i = 0; i < n; i++) {
        xp[i] = x[i] + h * v[i];
        xm[i] = x[i] - h * v[i];
    }
    return (f(xp, n) - f(xm, n)) / (2 * h);
}

int main(int argc, char **argv) {
    (void)argv;
    double x[MAXN], v[3][MAXN], dx[MAXN] = {0};
    for (int i = 0; i < MAXN; i++) {
        x[i] = 0.3 * cos(1.7 * i) + 0.2;
        v[0][i] = sin(0.9 * i + 0.1);
        v[1][i] = 1.0 / (i + 1);
        v[2][i] = (i % 3) - 1.0;
    }
    int sizes[3] = {argc, argc + 4, argc + 30}; /* 1, 5, 31 */
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        for (int d = 0; d < 3; d++) {
            check_close("grow", __enzyme_fwddiff((void *)grow, enzyme_dup, x, v[d], enzyme_const, n), along(grow, x, v[d], n),
                        FD_RTOL, FD_ATOL);
            check_close("shrink", __enzyme_fwddiff((void *)shrink, enzyme_dup, x, v[d], enzyme_const, n),
                        along(shrink, x, v[d], n), FD_RTOL, FD_ATOL);
        }
        t3 g = __enzyme_fwddiff3((void *)grow, enzyme_width, 3, enzyme_dup, x, v[0], v[1], v[2], enzyme_const, n);
        check_close("grow width 3 lane 0", g.d0, along(grow, x, v[0], n), FD_RTOL, FD_ATOL);
        check_close("grow width 3 lane 1", g.d1, along(grow, x, v[1], n), FD_RTOL, FD_ATOL);
        check_close("grow width 3 lane 2", g.d2, along(grow, x, v[2], n), FD_RTOL, FD_ATOL);

        double out[MAXN], dout[MAXN], op[MAXN], om[MAXN], h = 1e-6;
        __enzyme_fwddiff((void *)copy_out, enzyme_dup, x, v[0], enzyme_dup, out, dout, enzyme_const, n);
        for (int i = 0; i < n; i++) {
            xp[i] = x[i] + h * v[0][i];
            xm[i] = x[i] - h * v[0][i];
        }
        copy_out(xp, op, n);
        copy_out(xm, om, n);
        for (int i = 0; i < n; i++) check_close("copy_out", dout[i], (op[i] - om[i]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    (void)dx;
    return zyg_report();
}
