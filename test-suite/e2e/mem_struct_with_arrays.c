// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// An array of structs that contain arrays and an int tag (`{double c[3]; double r; int id;}`):
// a soft overlap energy between spheres, where fields are read through p[i].c[k]; the
// int field is read for control flow only and its shadow is left alone.
#include "zyg_check.h"

typedef struct {
    double c[3];
    double r;
    int id;
} sphere;

double overlap(const sphere *s, int n) {
    double e = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d2 = 0.0;
            for (int k = 0; k < 3; k++) {
                double d = s[i].c[k] - s[j].c[k];
                d2 += d * d;
            }
            double gap = sqrt(d2) - s[i].r - s[j].r;
            double w = (s[i].id + s[j].id) % 2 ? 2.0 : 1.0;
            e += w * log(1.0 + exp(-4.0 * gap));
        }
    for (int i = 0; i < n; i++)
        e += 0.1 * s[i].r * s[i].r;
    return e;
}

enum { N = 4 };
static double overlap_flat(const double *z) {
    sphere s[N];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++) s[i].c[k] = z[4 * i + k];
        s[i].r = z[4 * i + 3];
        s[i].id = i;
    }
    return overlap(s, N);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][4 * N] = {{0.0, 0.0, 0.0, 0.5, 1.0, 0.2, -0.1, 0.4, 0.3, 0.9, 0.5, 0.6, -0.7, 0.4, 0.8, 0.3},
                            {0.1, -0.2, 0.3, 0.7, 0.6, 0.8, 0.0, 0.2, -0.5, 0.4, -0.6, 0.45, 0.9, -0.3, 0.2, 0.55}};
    for (int q = 0; q < 2; q++) {
        sphere s[N], ds[N] = {{{0}, 0, 0}};
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < 3; k++) s[i].c[k] = pts[q][4 * i + k];
            s[i].r = pts[q][4 * i + 3];
            s[i].id = i;
            ds[i].id = 77; /* not a float: must be left as is */
        }
        __enzyme_autodiff((void *)overlap, enzyme_dup, s, ds, enzyme_const, N);
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < 3; k++)
                check_close("dc", ds[i].c[k], fd(overlap_flat, pts[q], 4 * N, 4 * i + k), FD_RTOL, FD_ATOL);
            check_close("dr", ds[i].r, fd(overlap_flat, pts[q], 4 * N, 4 * i + 3), FD_RTOL, FD_ATOL);
            check_close("id shadow untouched", ds[i].id, 77, 0, 0);
        }
    }
    return zyg_report();
}
