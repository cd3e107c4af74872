// REQUIRES: openmp
// RUN: %grad-run-omp -O0 %s %t -fopenmp | FileCheck %s
// RUN: %grad-run-omp -O2 %s %t -fopenmp | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loop nests: `collapse(2)` over a matrix (one worksharing loop over rows times columns,
// the indices divided back out), and a parallel loop over rows with a serial inner loop
// (a matrix-vector product). Gradients in the matrix and the vector.
#include <math.h>
#include "zyg_omp.h"

#define R 7
#define C 9

static double collapsed(const double *a, const double *v, double *out, int r, int c) {
#pragma omp parallel for collapse(2)
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            out[i * c + j] = tanh(a[i * c + j] * v[j]) + 0.1 * i;
    double s = 0;
    for (int k = 0; k < r * c; k++)
        s += out[k] * out[k];
    return s;
}

static double matvec(const double *a, const double *v, double *out, int r, int c) {
#pragma omp parallel for schedule(static, 2)
    for (int i = 0; i < r; i++) {
        double acc = 0;
        for (int j = 0; j < c; j++)
            acc += a[i * c + j] * v[j];
        out[i] = acc * acc;
    }
    double s = 0;
    for (int i = 0; i < r; i++)
        s += sqrt(1 + out[i]);
    return s;
}

static double v0[C], a0[R * C];
static double collapsed_of_a(const double *a, void *ctx) {
    (void)ctx;
    double out[R * C];
    return collapsed(a, v0, out, R, C);
}
static double collapsed_of_v(const double *v, void *ctx) {
    (void)ctx;
    double out[R * C];
    return collapsed(a0, v, out, R, C);
}
static double matvec_of_a(const double *a, void *ctx) {
    (void)ctx;
    double out[R];
    return matvec(a, v0, out, R, C);
}
static double matvec_of_v(const double *v, void *ctx) {
    (void)ctx;
    double out[R];
    return matvec(a0, v, out, R, C);
}

int main(void) {
    for (int k = 0; k < R * C; k++)
        a0[k] = sin(0.37 * k);
    for (int j = 0; j < C; j++)
        v0[j] = 0.2 * j - 0.8;
    double serial[2][R * C + C];
    ZYG_FOR_TEAMS(t) {
        double da[2][R * C] = {{0}}, dv[2][C] = {{0}}, out[R * C], dout[R * C] = {0};
        __enzyme_autodiff((void *)collapsed, enzyme_dup, a0, da[0], enzyme_dup, v0, dv[0], enzyme_dup, out, dout,
                          enzyme_const, R, enzyme_const, C);
        __enzyme_autodiff((void *)matvec, enzyme_dup, a0, da[1], enzyme_dup, v0, dv[1], enzyme_dup, out, dout,
                          enzyme_const, R, enzyme_const, C);
        check_array_fd("collapsed, a", collapsed_of_a, 0, a0, R * C, da[0]);
        check_array_fd("collapsed, v", collapsed_of_v, 0, v0, C, dv[0]);
        check_array_fd("matvec, a", matvec_of_a, 0, a0, R * C, da[1]);
        check_array_fd("matvec, v", matvec_of_v, 0, v0, C, dv[1]);
        for (int m = 0; m < 2; m++) {
            if (t == 1) {
                for (int k = 0; k < R * C; k++)
                    serial[m][k] = da[m][k];
                for (int j = 0; j < C; j++)
                    serial[m][R * C + j] = dv[m][j];
            }
            check_same_as_serial("teams, a", da[m], serial[m], R * C);
            check_same_as_serial("teams, v", dv[m], serial[m] + R * C, C);
        }
    }
    return zyg_report();
}
