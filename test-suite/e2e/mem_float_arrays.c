// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.o3 %march-v3 | FileCheck %s
// RUN: %grad-run -O2 %s %t.fast -ffast-math | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// float (not double) arrays: a float dup input and float dup weights, a float stack buffer
// updated in place, a float heap buffer, and a float accumulation returned as float.
// Checked against finite differences taken in float (FLOAT_RTOL/FLOAT_ATOL).
#include <stdlib.h>
#include "zyg_check.h"

float score(const float *x, float *w, int n) {
    float buf[8];
    float *h = malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        buf[i] = tanhf(x[i] * w[i]);
    for (int i = 1; i < n; i++)
        buf[i] += 0.5f * buf[i - 1];
    for (int i = 0; i < n; i++)
        h[i] = buf[i] * buf[i] + sinf(w[i]);
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += h[i] * (float)(i + 1);
    free(h);
    return s;
}

enum { N = 6 };
/* float finite difference in component k of z = (x, w); step as in zyg_check.h's FDF */
static double fdf(const float *z, int k) {
    float a[2 * N], b[2 * N];
    double h = ZYG_STEPF * (fabs(z[k]) > 1.0 ? fabs(z[k]) : 1.0);
    for (int i = 0; i < 2 * N; i++) a[i] = b[i] = z[i];
    a[k] = (float)(z[k] + h);
    b[k] = (float)(z[k] - h);
    return ((double)score(a, a + N, N) - (double)score(b, b + N, N)) / ((double)a[k] - (double)b[k]);
}

int main(void) {
    float pts[2][2 * N] = {{0.5f, -0.8f, 1.2f, 0.3f, -0.4f, 0.9f, 1.1f, 0.7f, -0.5f, 0.9f, 1.3f, -0.2f},
                           {-0.6f, 0.4f, 0.2f, -1.1f, 0.8f, 0.05f, 0.3f, -0.9f, 1.2f, 0.6f, -0.4f, 1.0f}};
    for (int q = 0; q < 2; q++) {
        float *z = pts[q], dx[N] = {0}, dw[N] = {0};
        __enzyme_autodifff((void *)score, enzyme_dup, z, dx, enzyme_dup, z + N, dw, enzyme_const, N);
        for (int k = 0; k < N; k++) {
            check_close("dx", dx[k], fdf(z, k), FLOAT_RTOL, FLOAT_ATOL);
            check_close("dw", dw[k], fdf(z, N + k), FLOAT_RTOL, FLOAT_ATOL);
        }
    }
    return zyg_report();
}
