// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Calls through function pointers on active values: a constant table of functions chosen by
// an index known only at run time (one of them the library's `sin`, whose address the table
// takes), and a struct of callbacks with active weights passed with a shadow whose pointers
// come from `__enzyme_virtualreverse` (Enzyme's shadow of a function pointer). Reverse and
// forward mode, against closed forms and central differences at several points.
#include "zyg_check.h"

void *__enzyme_virtualreverse(void *);

static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static double softplus(double x) { return log(1 + exp(x)); }

static double (*const table[])(double) = {sq, cube, sin, softplus};

static double deriv(int which, double x) {
    switch (which) {
    case 0:
        return 2 * x;
    case 1:
        return 3 * x * x;
    case 2:
        return cos(x);
    default:
        return exp(x) / (1 + exp(x));
    }
}

/* sum_i x_i * table[which_i](x_i) */
static double by_table(const double *x, const int *which, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * table[which[i]](x[i]);
    return s;
}

typedef struct {
    double (*f)(double);
    double (*g)(double);
    double w;
} Term;

/* sum_i w_i f_i(x) g_i(x) */
static double by_terms(double x, Term *terms, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += terms[i].w * terms[i].f(x) * terms[i].g(x);
    return s;
}

static double by_table_fd(const double *x, const int *which, int n, int k) {
    double up[4], down[4], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++)
        up[i] = down[i] = x[i];
    up[k] += h;
    down[k] -= h;
    return (by_table(up, which, n) - by_table(down, which, n)) / (2 * h);
}

int main(void) {
    const int choices[3][4] = {{0, 1, 2, 3}, {3, 3, 1, 0}, {2, 0, 2, 1}};
    for (int t = 0; t < 3; t++) {
        const int *which = choices[t];
        double x[4], dx[4] = {0};
        for (int i = 0; i < 4; i++)
            x[i] = 0.4 + 0.3 * i - 0.5 * t;
        __enzyme_autodiff((void *)by_table, enzyme_dup, x, dx, enzyme_const, which, enzyme_const, 4);
        double tangent_want = 0, tx[4];
        for (int i = 0; i < 4; i++) {
            double want = table[which[i]](x[i]) + x[i] * deriv(which[i], x[i]);
            check_close("table d/dx", dx[i], want, 1e-12, 1e-12);
            check_close("table d/dx vs FD", dx[i], by_table_fd(x, which, 4, i), FD_RTOL, FD_ATOL);
            tx[i] = 1.0 - 0.25 * i;
            tangent_want += tx[i] * want;
        }
        double tangent = __enzyme_fwddiff((void *)by_table, enzyme_dup, x, tx, enzyme_const, which, enzyme_const, 4);
        check_close("table tangent", tangent, tangent_want, 1e-12, 1e-12);

        Term terms[2] = {{table[which[0]], cube, 0.5 + t}, {sin, table[which[1]], -1.5}};
        /* The shadow's function pointers as Enzyme's users fill them in. */
        Term dterms[2] = {{(double (*)(double))__enzyme_virtualreverse((void *)table[which[0]]),
                           (double (*)(double))__enzyme_virtualreverse((void *)cube), 0},
                          {(double (*)(double))__enzyme_virtualreverse((void *)sin),
                           (double (*)(double))__enzyme_virtualreverse((void *)table[which[1]]), 0}};
        double y = 0.3 + 0.2 * t;
        double dy = __enzyme_autodiff((void *)by_terms, y, enzyme_dup, terms, dterms, enzyme_const, 2);
        double f0 = terms[0].f(y), g1 = terms[1].g(y);
        double want_y = terms[0].w * (deriv(which[0], y) * cube(y) + f0 * 3 * y * y) +
                        terms[1].w * (cos(y) * g1 + sin(y) * deriv(which[1], y));
        check_close("terms d/dy", dy, want_y, 1e-12, 1e-12);
        check_close("terms d/dw0", dterms[0].w, f0 * cube(y), 1e-12, 1e-12);
        check_close("terms d/dw1", dterms[1].w, sin(y) * g1, 1e-12, 1e-12);
    }
    return zyg_report();
}
