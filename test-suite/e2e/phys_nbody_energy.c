// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// N-body potential energy over an array of structs {double x, y, z, m; int id;} with a
// malloc'd scratch buffer of per-body softened potentials; the int id picks a coupling
// and its shadow is left alone. Gradients w.r.t. every position and mass.
#include <stdlib.h>
#include "zyg_check.h"

typedef struct {
    double x, y, z, m;
    int id;
} body;

double potential(const body *b, int n, double eps) {
    double *phi = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        phi[i] = 0.0;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
            double r = sqrt(dx * dx + dy * dy + dz * dz + eps * eps);
            double g = (b[i].id ^ b[j].id) & 1 ? 1.0 : 0.5;
            phi[i] -= g * b[j].m / r;
        }
    }
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += 0.5 * b[i].m * phi[i];
    free(phi);
    return e;
}

enum { N = 5 };
/* z = (x, y, z, m) per body, then eps */
static double pot_flat(const double *z) {
    body b[N];
    for (int i = 0; i < N; i++) b[i] = (body){z[4 * i], z[4 * i + 1], z[4 * i + 2], z[4 * i + 3], 3 * i + 1};
    return potential(b, N, z[4 * N]);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main(void) {
    for (int q = 0; q < 2; q++) {
        double z[4 * N + 1];
        for (int i = 0; i < N; i++) {
            z[4 * i] = 1.5 * cos(1.3 * i + q);
            z[4 * i + 1] = 1.2 * sin(2.1 * i - q);
            z[4 * i + 2] = 0.4 * i - 0.8 + 0.1 * q;
            z[4 * i + 3] = 1.0 + 0.3 * i;
        }
        z[4 * N] = 0.1;
        body b[N], db[N];
        for (int i = 0; i < N; i++) {
            b[i] = (body){z[4 * i], z[4 * i + 1], z[4 * i + 2], z[4 * i + 3], 3 * i + 1};
            db[i] = (body){0, 0, 0, 0, -5};
        }
        double deps = __enzyme_autodiff((void *)potential, enzyme_dup, b, db, enzyme_const, N, z[4 * N]);
        for (int i = 0; i < N; i++) {
            check_close("dx", db[i].x, fd(pot_flat, z, 4 * N + 1, 4 * i), FD_RTOL, FD_ATOL);
            check_close("dy", db[i].y, fd(pot_flat, z, 4 * N + 1, 4 * i + 1), FD_RTOL, FD_ATOL);
            check_close("dz", db[i].z, fd(pot_flat, z, 4 * N + 1, 4 * i + 2), FD_RTOL, FD_ATOL);
            check_close("dm", db[i].m, fd(pot_flat, z, 4 * N + 1, 4 * i + 3), FD_RTOL, FD_ATOL);
            check_close("id shadow untouched", db[i].id, -5, 0, 0);
        }
        check_close("deps", deps, fd(pot_flat, z, 4 * N + 1, 4 * N), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
