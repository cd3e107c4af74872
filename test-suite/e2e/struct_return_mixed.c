// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Gradient structs that mix float and double, in the shapes the x86-64 C ABI gives them:
//   { double, float }        -> { double, float }
//   { float, double }        -> { float, double }
//   { float, double, float } -> 24 bytes, through sret memory
// (struct_return_float_vector.c has the shapes that start with a <2 x float>.)
// Integer arguments (int, long, unsigned) sit between the floating-point ones and are
// const without a marker.
#include "zyg_check.h"

typedef struct { double dx; float db; } g_df;
typedef struct { float da; double dx; } g_fd;
typedef struct { float da; double dx; float db; } g_fdf;
g_df __enzyme_autodiff_df(void *, ...);
g_fd __enzyme_autodiff_fd(void *, ...);
g_fdf __enzyme_autodiff_fdf(void *, ...);

float k_df(double x, int k, float b) { return (float)(x * x * k) + b * b * b; }
double k_fd(float a, long n, double x) { return sin(a * x) + n * (double)a; }
double k_fdf(float a, long n, double x, unsigned u, float b) { return a * x + (double)u * b * b - n * x * x; }

int main(void) {
    double pts[][3] = {{0.5, -1.25, 2.0}, {-1.5, 0.75, -0.5}, {2.25, 0.5, 1.5}};
    for (int i = 0; i < 3; i++) {
        float a = (float)pts[i][0], b = (float)pts[i][1];
        double x = pts[i][2];
        printf("a = %g, b = %g, x = %g\n", a, b, x);

        g_df g3 = __enzyme_autodiff_df((void *)k_df, x, -2, b);
        check_close("df dx", g3.dx, 2 * x * -2, 1e-6, 1e-6);
        check_close("df db", g3.db, 3 * b * b, 1e-6, 1e-6);

        g_fd g4 = __enzyme_autodiff_fd((void *)k_fd, a, 5L, x);
        check_close("fd da", g4.da, x * cos(a * x) + 5.0, 1e-6, 1e-6);
        check_close("fd dx", g4.dx, a * cos(a * x), 1e-12, 1e-14);

        g_fdf g5 = __enzyme_autodiff_fdf((void *)k_fdf, a, 2L, x, 7u, b);
        check_close("fdf da", g5.da, x, 1e-6, 1e-6);
        check_close("fdf dx", g5.dx, a - 2 * 2 * x, EXACT_RTOL, EXACT_ATOL);
        check_close("fdf db", g5.db, 7.0 * 2 * b, 1e-6, 1e-6);
    }
    return zyg_report();
}
