// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %zyg grad -v %t.O2.ll -o %t.v.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// RUN: %zyg grad -v %t.O0.ll -o %t.v0.ll 2>&1 | FileCheck --check-prefix=REPORT0 %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Float values rebuilt in the adjoint instead of stored (zyg-transform/src/recompute.rs):
// a product or sum a backpropagator reads, whose operands the tape holds anyway for other
// backpropagators (or once per loop activation), or the adjoint loads again (these
// functions only read their inputs: zyg-transform/src/reload.rs), is computed again from
// them. Each loop
// below needs such a value (the argument of sin, a partial product, a converted float, a
// splat of a scalar in a vectorised loop); its gradient is checked against central
// differences, and the -v report shows the record without the rebuilt value.
#include "zyg_check.h"

#define N 6

// t = a*b is read by the backpropagator of t*c, and a, b, c are loaded again (for the
// backpropagators of a*b and t*c): 8 bytes per iteration, not 32.
// REPORT0-DAG: triple: loop {{.*}} at line [[#@LINE+4]]: 8 bytes per iteration (1 values,
// REPORT-DAG: triple: loop {{.*}} at line [[#@LINE+4]]: 16 bytes per iteration (2 values,
double triple(const double *a, const double *b, const double *c, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i] * c[i];
    return s;
}

// sin reads p = a*b, whose operands a*b's backpropagator stores: p is rebuilt.
// REPORT0-DAG: sine: loop {{.*}} at line [[#@LINE+4]]: 8 bytes per iteration (1 values,
// REPORT-DAG: sine: loop {{.*}} at line [[#@LINE+4]]: 16 bytes per iteration (2 values,
double sine(const double *a, const double *b, int n) {
    double z = 0.0;
    for (int i = 0; i < n; i++)
        z += sin(a[i] * b[i]) + a[i];
    return z;
}

// cos reads p = x[i] * (double)i, p's backpropagator reads (double)i, and the outer
// product's reads x[i] and cos(p): the conversion is rebuilt from the induction variable,
// p from it and the stored x[i].
// REPORT0-DAG: ramp: loop {{.*}} at line [[#@LINE+4]]: 16 bytes per iteration (2 values,
// REPORT-DAG: ramp: loop {{.*}} at line [[#@LINE+4]]: 32 bytes per iteration (4 values,
double ramp(const double *x, int n) {
    double z = 0.0;
    for (int i = 0; i < n; i++)
        z += cos(x[i] * (double)i) * x[i];
    return z;
}

// The inner loop reads w = 2 y[i] (from the outer loop, stored once per outer iteration)
// and q = 0.1 w x[j] (read by sin): q is rebuilt from w and x[j], loaded again; the inner
// loop keeps no record at all.
// REPORT0-DAG: nested: loop {{.*}} at line [[#@LINE+4]]: 16 bytes per iteration (1 values, 0 shadows, 0 callee tapes, 1 control-flow
// REPORT-DAG: nested: loop {{.*}} at line [[#@LINE+4]]: 24 bytes per iteration (2 values, 0 shadows, 0 callee tapes, 2 control-flow
double nested(const double *x, const double *y, int n) {
    double z = 0.0;
    for (int i = 0; i < n; i++) {
        double w = 2.0 * y[i] - x[i];
        for (int j = 0; j < n; j++)
            z += sin(0.1 * w * x[j]);
    }
    return z;
}

// Floats widened to double: u is read by sin and by u*u's backpropagator, f by f*f's
// (in float): u is rebuilt from the stored f.
// REPORT-DAG: widen: loop {{.*}} at line [[#@LINE+4]]: 16 bytes per iteration (2 values,
double widen(const float *f, int n) {
    double z = 0.0;
    for (int i = 0; i < n; i++) {
        double u = (double)f[i];
        z += sin(u) * u + (double)(f[i] * f[i]) - 0.25 * (-u);
    }
    return z;
}

// A select whose arms are stored anyway: m is rebuilt from them and the stored condition.
// REPORT-DAG: clip: loop {{.*}} at line [[#@LINE+4]]: 24 bytes per iteration (4 values,
double clip(const double *a, const double *b, int n) {
    double z = 0.0;
    for (int i = 0; i < n; i++) {
        double p = a[i] * b[i];
        double m = p > 0.1 ? p : 0.1 * a[i] * a[i];
        z += sin(m);
    }
    return z;
}

// The shape of GMM's Q x: out[j] += l * x[i], vectorised over j at -O2 with a splat of
// x[i]; the splat is rebuilt from x[i], which the scalar remainder's adjoint stores.
// REPORT-DAG: qx: loop {{.*}} at line [[#@LINE+6]]: 40 bytes per iteration (3 values, 1 shadows
void qtimesx(int d, const double *l, const double *x, double *out) {
    for (int i = 0; i < d; i++)
        out[i] = x[i] * x[i];
    int k = 0;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            out[j] += l[k++] * x[i];
}

double qx(const double *l, const double *x, int d) {
    double out[16];
    qtimesx(d, l, x, out);
    double z = 0.0;
    for (int i = 0; i < d; i++)
        z += sin(out[i]);
    return z;
}

// Fixed sizes for the finite-difference checks (inputs through one array).
static double triple_of(const double *v, void *n) { return triple(v, v + N, v + 2 * N, *(int *)n); }
static double sine_of(const double *v, void *n) { return sine(v, v + N, *(int *)n); }
static double ramp_of(const double *v, void *n) { return ramp(v, *(int *)n); }
static double nested_of(const double *v, void *n) { return nested(v, v + N, *(int *)n); }
static double clip_of(const double *v, void *n) { return clip(v, v + N, *(int *)n); }
static double qx_of(const double *v, void *d) { return qx(v, v + 40, *(int *)d); }

static float fv[N];
static double widen_of(const double *v, void *n) {
    for (int i = 0; i < *(int *)n; i++)
        fv[i] = (float)v[i];
    return widen(fv, *(int *)n);
}

int main(void) {
    int sizes[3] = {N, 1, 0};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        double v[3 * N], g[3 * N];
        for (int i = 0; i < 3 * N; i++)
            v[i] = 0.3 + 0.7 * sin(1.3 * i + c);

        for (int i = 0; i < 3 * N; i++)
            g[i] = 0.0;
        __enzyme_autodiff((void *)triple, v, g, v + N, g + N, v + 2 * N, g + 2 * N, n);
        check_array_fd("d triple", triple_of, &n, v, 3 * N, g);

        for (int i = 0; i < 3 * N; i++)
            g[i] = 0.0;
        __enzyme_autodiff((void *)sine, v, g, v + N, g + N, n);
        check_array_fd("d sine", sine_of, &n, v, 2 * N, g);

        for (int i = 0; i < 3 * N; i++)
            g[i] = 0.0;
        __enzyme_autodiff((void *)ramp, v, g, n);
        check_array_fd("d ramp", ramp_of, &n, v, N, g);

        for (int i = 0; i < 3 * N; i++)
            g[i] = 0.0;
        __enzyme_autodiff((void *)nested, v, g, v + N, g + N, n);
        check_array_fd("d nested", nested_of, &n, v, 2 * N, g);

        for (int i = 0; i < 3 * N; i++)
            g[i] = 0.0;
        __enzyme_autodiff((void *)clip, v, g, v + N, g + N, n);
        check_array_fd("d clip", clip_of, &n, v, 2 * N, g);

        // float inputs: the gradient in float against float differences of the same
        // function (exact in the float inputs: compare with the derivative formula).
        float gf[N] = {0};
        for (int i = 0; i < n; i++)
            fv[i] = (float)v[i];
        __enzyme_autodiff((void *)widen, fv, gf, n);
        for (int i = 0; i < n; i++) {
            double u = (double)fv[i];
            double want = cos(u) * u + sin(u) + 2.0 * (double)fv[i] + 0.25;
            check_close("d widen", gf[i], want, 1e-6, 1e-6);
        }
        (void)widen_of;
    }
    int dims[4] = {1, 2, 5, 9};
    for (int c = 0; c < 4; c++) {
        int d = dims[c];
        // l: 40 entries (d(d-1)/2 = 36 used at most), then x: 9.
        double v[49], g[49] = {0};
        for (int i = 0; i < 49; i++)
            v[i] = 0.2 + 0.6 * cos(0.7 * i + c);
        __enzyme_autodiff((void *)qx, v, g, v + 40, g + 40, d);
        check_array_fd("d qx", qx_of, &d, v, 49, g);
    }
    return zyg_report();
}
