// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// The fix the message of nullshadow_store_stops.c asks for: the work buffer passed with
// `enzyme_dup` and a shadow. The box holding it is copied through helpers; stores and loads
// through it are differentiated, and a constant table kept in another box beside it (a null
// shadow, read only) does not stop the program.
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"
struct box { double *p; const double *w; };
static const double weights[3] = {0.5, -2.0, 1.25};
__attribute__((noinline)) void put(struct box *b, int i, double v) { b->p[i] = v * b->w[i]; }
__attribute__((noinline)) double get(const struct box *b, int i) { return b->p[i]; }

double f(const double *x, double *scratch) {
    struct box b = {scratch, weights};
    double s = 0;
    for (int i = 0; i < 3; i++) put(&b, i, x[i] * x[i]);
    for (int i = 0; i < 3; i++) s += get(&b, i) * x[(i + 1) % 3];
    return s;
}

static double f_of(const double *x, void *u) { (void)u; double s[3]; return f(x, s); }

int main(void) {
    double pts[3][3] = {{1.5, -0.5, 2.0}, {0.25, 1.0, -1.0}, {-2.0, 0.75, 0.5}};
    for (int k = 0; k < 3; k++) {
        double *x = pts[k], dx[3] = {0}, s[3], ds[3] = {0};
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, s, ds);
        check_array_fd("df/dx", f_of, NULL, x, 3, dx);
        for (int i = 0; i < 3; i++) {
            int j = (i + 2) % 3; // x[i] is the factor of term j
            double want = 2 * x[i] * weights[i] * x[(i + 1) % 3] + weights[j] * x[j] * x[j];
            check_close("exact", dx[i], want, EXACT_RTOL, EXACT_ATOL);
        }
    }
    return zyg_report();
}
