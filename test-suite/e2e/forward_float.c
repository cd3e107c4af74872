// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: %grad-run -O3 %s %t.fast -march=native -ffast-math | FileCheck %s
// RUN: grep -q "llvm.vector.reduce.fadd" %t.fast.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode on single-precision code: a float scalar function (the request declared
// with a float result, `__enzyme_fwddifff`, its float arguments passed as doubles through
// the varargs as C does, and also through a cast to a float prototype), a float array
// reduction that clang vectorises in the -ffast-math run (llvm.vector.reduce.fadd), and
// float libm calls (expf, logf, sqrtf, tanhf, powf). Tangents against finite differences
// taken in float (FLOAT_RTOL/ATOL) and against central differences in double of the same
// formula.
#include <string.h>
#include "zyg_check.h"

float __enzyme_fwddifff(void *, ...);
typedef float (*fwd_ff)(void *, float, float, float, float);

static float g(float x, float y) {
    float a = expf(-0.5f * x * x) * y + logf(1.0f + y * y);
    return a * sqrtf(1.0f + x * x) + tanhf(x * y) - powf(fabsf(y) + 1.0f, 0.5f * x);
}

/* the same formula in double: a check on the float tangent with finite differences in
 * double (the float one's truncation and rounding are then not in the way) */
static double g_double(double x, double y) {
    double a = exp(-0.5 * x * x) * y + log(1.0 + y * y);
    return a * sqrt(1.0 + x * x) + tanh(x * y) - pow(fabs(y) + 1.0, 0.5 * x);
}

#define N 16
static float energy(const float *v, float k, int n) {
    float s = 0;
    for (int i = 0; i < n; i++) s += v[i] * v[i] * k + sinf(v[i]);
    return s;
}
static double energy_double(const float *v, const float *dv, double t, double k) {
    double s = 0;
    for (int i = 0; i < N; i++) {
        double e = (double)v[i] + t * dv[i];
        s += e * e * k + sin(e);
    }
    return s;
}

int main(void) {
    float pts[3][2] = {{0.4f, 1.3f}, {-1.1f, 0.6f}, {1.8f, -0.7f}};
    float dirs[3][2] = {{1, 0}, {0, 1}, {0.6f, -0.8f}};
    double h = 1e-6;
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            float x = pts[p][0], y = pts[p][1], dx = dirs[d][0], dy = dirs[d][1];
            float t = __enzyme_fwddifff((void *)g, x, dx, y, dy);
            float t2 = ((fwd_ff)__enzyme_fwddifff)((void *)g, x, dx, y, dy);
            double exact = (g_double(x + h * dx, y + h * dy) - g_double(x - h * dx, y - h * dy)) / (2 * h);
            check_close("g against double differences", t, exact, 1e-5, 1e-5);
            check_close("g through a float prototype", t2, t, 0, 0);
            double fdx = FDF2_0(g, x, y), fdy = FDF2_1(g, x, y);
            check_close("g against float differences", t, dx * fdx + dy * fdy, FLOAT_RTOL, FLOAT_ATOL);
        }
    float v[N], dv[N];
    for (int i = 0; i < N; i++) v[i] = 0.1f * i - 0.7f, dv[i] = (i % 3) - 1.0f + 0.25f;
    float ks[] = {0.5f, 1.75f};
    for (int q = 0; q < 2; q++) {
        float k = ks[q], dk = q ? 0.5f : 0.0f;
        float t = __enzyme_fwddifff((void *)energy, enzyme_dup, v, dv, k, dk, enzyme_const, N);
        double want = (energy_double(v, dv, h, k + h * dk) - energy_double(v, dv, -h, k - h * dk)) / (2 * h);
        check_close("float array reduction", t, want, 1e-5, 1e-5);
    }
    return zyg_report();
}
