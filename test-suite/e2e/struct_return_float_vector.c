// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Gradient structs whose first two fields are floats: the x86-64 C ABI packs those into one
// <2 x float> register, so the request's IR result type has fewer fields than there are
// `out` arguments:
//   { float, float, float }  -> { <2 x float>, float }
//   { float, float, double } -> { <2 x float>, double }
// (struct_return_mixed.c has the other mixed shapes, float_pair.c the plain <2 x float>.)
#include "zyg_check.h"

typedef struct { float da, db, dc; } g_fff;
typedef struct { float da, db; double dx; } g_ffd;
g_fff __enzyme_autodiff_fff(void *, ...);
g_ffd __enzyme_autodiff_ffd(void *, ...);

float k_fff(float a, float b, float c) { return a * b * c + a * a; }
double k_ffd(float a, float b, long n, double x) { return a * x * n + b * b * x; }

int main(void) {
    double pts[][3] = {{0.5, -1.25, 2.0}, {-1.5, 0.75, -0.5}, {2.25, 0.5, 1.5}};
    for (int i = 0; i < 3; i++) {
        float a = (float)pts[i][0], b = (float)pts[i][1], c = (float)pts[i][2];
        double x = pts[i][2];
        printf("a = %g, b = %g, x = %g\n", a, b, x);

        g_fff g1 = __enzyme_autodiff_fff((void *)k_fff, a, b, c);
        check_close("fff da", g1.da, b * c + 2 * a, 1e-6, 1e-6);
        check_close("fff db", g1.db, a * c, 1e-6, 1e-6);
        check_close("fff dc", g1.dc, a * b, 1e-6, 1e-6);

        g_ffd g2 = __enzyme_autodiff_ffd((void *)k_ffd, a, b, 3L, x);
        check_close("ffd da", g2.da, x * 3, 1e-6, 1e-6);
        check_close("ffd db", g2.db, 2 * b * x, 1e-6, 1e-6);
        check_close("ffd dx", g2.dx, a * 3.0 + (double)b * b, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
