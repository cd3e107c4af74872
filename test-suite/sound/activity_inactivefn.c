// Functions the program declares inactive (`__enzyme_inactivefn`: one function pointer, or
// an array of them; zyg.h's ZYG_INACTIVE): their calls carry no derivative. The result of
// `scale_of` is a constant to zyg, `log_value` may store an active value to a global, and
// `total` may read differentiated memory; so the gradients are those of the model with
// those results held fixed, checked against finite differences of exactly that.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"
#include "zyg/zyg.h"

double logged;
ZYG_KEEP void log_value(double v);
void log_value(double v) { logged += v; }
ZYG_KEEP double scale_of(double x);
double scale_of(double x) { return 2 * x; }
ZYG_KEEP double total(const double *p, int n);
double total(const double *p, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}
ZYG_INACTIVE(log_value);
void *__enzyme_inactivefn_list[2] = {(void *)scale_of, (void *)total};

double model(double x) {
    log_value(x);
    return scale_of(x) * x + sin(x);
}
/* The model with the inactive result fixed at its value at x0. */
static double fixed_scale;
static double model_fixed(double x) { return fixed_scale * x + sin(x); }

double model2(const double *a, int n) { return total(a, n) * a[0] + a[1] * a[1]; }
static double fixed_total;
static double model2_fixed(const double *a, void *ctx) {
    (void)ctx;
    return fixed_total * a[0] + a[1] * a[1];
}

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.3 + 0.6 * k;
        double d = __enzyme_autodiff((void *)model, x);
        fixed_scale = scale_of(x);
        check_close("d model / dx, scale_of inactive", d, FD1(model_fixed, x), FD_RTOL, FD_ATOL);
        double whole = 4 * x + cos(x); /* what differentiating scale_of would give */
        check_close("differs from the active derivative", fabs(d - whole) > 0.1, 1, 0, 0);

        double a[4] = {0.5 + k, -1.2, 0.7, 2.0 - k}, da[4] = {0};
        __enzyme_autodiff((void *)model2, enzyme_dup, a, da, enzyme_const, 4);
        fixed_total = total(a, 4);
        check_array_fd("d model2 / da, total inactive", model2_fixed, 0, a, 4, da);
    }
    return zyg_report();
}
