// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// memcpy of an input into a local buffer that is then updated in place (the input itself
// stays untouched), double buffering with memcpy(prev, cur) between time steps, and a
// struct copied by assignment; the copies' adjoints flow back to the dup input.
#include <string.h>
#include "zyg_check.h"

enum { N = 6 };
typedef struct { double pos[2]; double scale; } state;

double diffuse(const double *x, const state *st, int steps) {
    double cur[N], prev[N];
    memcpy(cur, x, sizeof cur);
    for (int t = 0; t < steps; t++) {
        memcpy(prev, cur, sizeof prev);
        for (int i = 0; i < N; i++) {
            double l = prev[(i + N - 1) % N], r = prev[(i + 1) % N];
            cur[i] = prev[i] + 0.2 * (l - 2 * prev[i] + r) - 0.05 * prev[i] * prev[i] * prev[i];
        }
    }
    state s = *st; /* struct copy */
    s.pos[0] += cur[0];
    double e = s.scale * (s.pos[0] * s.pos[0] + s.pos[1] * cur[N - 1]);
    for (int i = 0; i < N; i++)
        e += cur[i] * (i + 1);
    return e;
}

/* z = (x[N], pos[2], scale) */
static double diffuse_flat(const double *z) {
    state s = {{z[N], z[N + 1]}, z[N + 2]};
    return diffuse(z, &s, 5);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    double pts[2][N + 3] = {{0.5, -0.8, 1.1, 0.2, -0.4, 0.9, 0.3, -0.6, 1.5},
                            {-0.3, 0.6, 0.1, 1.2, -1.0, 0.4, -0.5, 0.8, 0.7}};
    for (int q = 0; q < 2; q++) {
        double *z = pts[q], x[N], dx[N] = {0};
        for (int i = 0; i < N; i++) x[i] = z[i];
        state s = {{z[N], z[N + 1]}, z[N + 2]}, ds = {{0, 0}, 0};
        __enzyme_autodiff((void *)diffuse, enzyme_dup, x, dx, enzyme_dup, &s, &ds, enzyme_const, 5);
        for (int k = 0; k < N; k++) {
            check_close("x unchanged", x[k], z[k], 0, 0);
            check_close("dx", dx[k], fd(diffuse_flat, z, N + 3, k), FD_RTOL, FD_ATOL);
        }
        check_close("dpos0", ds.pos[0], fd(diffuse_flat, z, N + 3, N), FD_RTOL, FD_ATOL);
        check_close("dpos1", ds.pos[1], fd(diffuse_flat, z, N + 3, N + 1), FD_RTOL, FD_ATOL);
        check_close("dscale", ds.scale, fd(diffuse_flat, z, N + 3, N + 2), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
