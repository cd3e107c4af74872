// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// The full 2x2 Hessian of a loop-free scalar function f(x, y) = exp(x y) sin(x) + log(1 + x^2 y^4)
// + x^3 / y, by all four nestings: forward over forward, reverse over forward, forward over
// reverse and reverse over reverse (one outer request also asking for both partials at once,
// __enzyme_autodiff2). Each entry is checked against the closed form and against central
// differences of the first derivative; f_xy and f_yx agree. Three points, none on a zero.
#include "zyg_check.h"

static double f(double x, double y) { return exp(x * y) * sin(x) + log(1 + x * x * y * y * y * y) + x * x * x / y; }

static double fx_rev(double x, double y) { return __enzyme_autodiff((void *)f, x, enzyme_const, y); }
static double fy_rev(double x, double y) { return __enzyme_autodiff((void *)f, enzyme_const, x, y); }
static double fx_fwd(double x, double y) { return __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0); }
static double fy_fwd(double x, double y) { return __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0); }

static void exact(double x, double y, double H[2][2]) {
    double e = exp(x * y), s = sin(x), c = cos(x);
    double u = 1 + x * x * y * y * y * y;
    /* exp(xy) sin x */
    double axx = e * (y * y * s + 2 * y * c - s), axy = e * (x * y * s + s + x * c), ayy = e * x * x * s;
    /* log(u): u_x = 2 x y^4, u_y = 4 x^2 y^3 */
    double ux = 2 * x * pow(y, 4), uy = 4 * x * x * pow(y, 3), uxx = 2 * pow(y, 4), uxy = 8 * x * pow(y, 3), uyy = 12 * x * x * y * y;
    double bxx = uxx / u - ux * ux / (u * u), bxy = uxy / u - ux * uy / (u * u), byy = uyy / u - uy * uy / (u * u);
    /* x^3 / y */
    double cxx = 6 * x / y, cxy = -3 * x * x / (y * y), cyy = 2 * x * x * x / (y * y * y);
    H[0][0] = axx + bxx + cxx;
    H[0][1] = H[1][0] = axy + bxy + cxy;
    H[1][1] = ayy + byy + cyy;
}

#define CHECK(label, got, want, fd)                                    \
    do {                                                               \
        check_close(label " vs closed form", got, want, 1e-11, 1e-12); \
        check_close(label " vs FD", got, fd, FD_RTOL, FD_ATOL);         \
    } while (0)

int main(void) {
    double pts[3][2] = {{0.5, 0.8}, {1.2, -0.6}, {-0.9, 1.4}};
    for (int p = 0; p < 3; p++) {
        double x = pts[p][0], y = pts[p][1], H[2][2];
        exact(x, y, H);
        double fd_xx = FD2_0(fx_fwd, x, y), fd_xy = FD2_1(fx_fwd, x, y), fd_yx = FD2_0(fy_fwd, x, y), fd_yy = FD2_1(fy_fwd, x, y);
        /* forward over forward */
        CHECK("ff xx", __enzyme_fwddiff((void *)fx_fwd, x, 1.0, y, 0.0), H[0][0], fd_xx);
        CHECK("ff xy", __enzyme_fwddiff((void *)fx_fwd, x, 0.0, y, 1.0), H[0][1], fd_xy);
        CHECK("ff yy", __enzyme_fwddiff((void *)fy_fwd, x, 0.0, y, 1.0), H[1][1], fd_yy);
        /* reverse over forward */
        CHECK("rf yx", __enzyme_autodiff((void *)fy_fwd, x, enzyme_const, y), H[1][0], fd_yx);
        CHECK("rf xy", __enzyme_autodiff((void *)fx_fwd, enzyme_const, x, y), H[0][1], fd_xy);
        /* forward over reverse */
        CHECK("fr xx", __enzyme_fwddiff((void *)fx_rev, x, 1.0, y, 0.0), H[0][0], fd_xx);
        CHECK("fr yx", __enzyme_fwddiff((void *)fy_rev, x, 1.0, y, 0.0), H[1][0], fd_yx);
        CHECK("fr yy", __enzyme_fwddiff((void *)fy_rev, x, 0.0, y, 1.0), H[1][1], fd_yy);
        /* reverse over reverse, both partials of f_x and of f_y at once */
        zyg_grad2 gx = __enzyme_autodiff2((void *)fx_rev, x, y), gy = __enzyme_autodiff2((void *)fy_rev, x, y);
        CHECK("rr xx", gx.d0, H[0][0], fd_xx);
        CHECK("rr xy", gx.d1, H[0][1], fd_xy);
        CHECK("rr yx", gy.d0, H[1][0], fd_yx);
        CHECK("rr yy", gy.d1, H[1][1], fd_yy);
    }
    return zyg_report();
}
