// C++ (exceptions on): function and class templates instantiated for double and float:
// a templated dot product and polynomial (a class template with the degree as a template
// parameter and a member evaluating it), differentiated through both instantiations.
// RUN: %clangxx -O0 -g -I %include -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll && %clangxx %t.O0.grad.ll -lm -o %t.O0.exe && %t.O0.exe | FileCheck %s
// RUN: %clangxx -O2 -g -I %include -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.grad.ll && %clangxx %t.O2.grad.ll -lm -o %t.O2.exe && %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}

template <typename T> T dot(const T *a, const T *b, int n) {
    T s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

template <typename T, int N> struct Poly {
    T c[N];
    T operator()(T x) const { // Horner
        T r = c[N - 1];
        for (int i = N - 2; i >= 0; i--)
            r = r * x + c[i];
        return r;
    }
};

template <typename T> T model(const Poly<T, 4> *p, const T *x, int n) {
    T s = 0;
    for (int i = 0; i < n; i++)
        s += (*p)(x[i]) * (*p)(x[i]);
    return s + dot(x, x, n) * dot(p->c, p->c, 4);
}

extern "C" double model_d(const Poly<double, 4> *p, const double *x, int n) { return model(p, x, n); }
extern "C" float model_f(const Poly<float, 4> *p, const float *x, int n) { return model(p, x, n); }

enum { N = 5 };
static double flat_d(const double *z) {
    Poly<double, 4> p;
    for (int i = 0; i < 4; i++) p.c[i] = z[i];
    return model_d(&p, z + 4, N);
}
static double flat_f(const float *z) {
    Poly<float, 4> p;
    for (int i = 0; i < 4; i++) p.c[i] = z[i];
    return model_f(&p, z + 4, N);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}
static double fdf(const float *z, int n, int k) { // in float, step as FDF's
    float a[64], b[64];
    double h = ZYG_STEPF * (fabs(z[k]) > 1.0 ? fabs(z[k]) : 1.0);
    for (int i = 0; i < n; i++) a[i] = b[i] = z[i];
    a[k] = (float)(z[k] + h);
    b[k] = (float)(z[k] - h);
    return (flat_f(a) - flat_f(b)) / ((double)a[k] - (double)b[k]);
}

int main() {
    double pts[2][4 + N] = {{0.5, -0.3, 0.2, 0.1, 0.7, -0.4, 1.1, 0.25, -0.9},
                            {-0.2, 0.6, -0.1, 0.3, -0.5, 0.8, 0.35, -1.2, 0.6}};
    for (int q = 0; q < 2; q++) {
        Poly<double, 4> p, dp = {};
        double x[N], dx[N] = {};
        for (int i = 0; i < 4; i++) p.c[i] = pts[q][i];
        for (int i = 0; i < N; i++) x[i] = pts[q][4 + i];
        __enzyme_autodiff((void *)model_d, enzyme_dup, &p, &dp, enzyme_dup, x, dx, enzyme_const, (int)N);
        for (int k = 0; k < 4; k++) check_close("double dc", dp.c[k], fd(flat_d, pts[q], 4 + N, k), FD_RTOL, FD_ATOL);
        for (int k = 0; k < N; k++) check_close("double dx", dx[k], fd(flat_d, pts[q], 4 + N, 4 + k), FD_RTOL, FD_ATOL);

        Poly<float, 4> pf, dpf = {};
        float xf[N], dxf[N] = {}, zf[4 + N];
        for (int i = 0; i < 4 + N; i++) zf[i] = (float)pts[q][i];
        for (int i = 0; i < 4; i++) pf.c[i] = zf[i];
        for (int i = 0; i < N; i++) xf[i] = zf[4 + i];
        __enzyme_autodifff((void *)model_f, enzyme_dup, &pf, &dpf, enzyme_dup, xf, dxf, enzyme_const, (int)N);
        for (int k = 0; k < 4; k++) check_close("float dc", dpf.c[k], fdf(zf, 4 + N, k), FLOAT_RTOL, FLOAT_ATOL);
        for (int k = 0; k < N; k++) check_close("float dx", dxf[k], fdf(zf, 4 + N, 4 + k), FLOAT_RTOL, FLOAT_ATOL);
    }
    return zyg_report();
}
