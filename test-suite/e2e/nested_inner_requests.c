// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Outer requests over functions holding inner requests in different arrangements:
// (1) two different inner requests in one function, g(x, y) = f_x (reverse) * h_y (forward);
// (2) the same inner gradient called in a loop, G(x) = sum_k w_k f_x(x + k/4, y), differentiated
//     by forward mode and by reverse mode (the inner function is loop-free);
// (3) the outer request in main, the inner request in a helper two calls down.
// Each is checked against central differences of the outer function and a closed form.
#include "zyg_check.h"

static double f(double x, double y) { return sin(x * y) + x * x * y; }
static double h(double x, double y) { return exp(0.3 * x) * log(y); }
static double f_x(double x, double y) { return __enzyme_autodiff((void *)f, x, enzyme_const, y); } /* y cos(xy) + 2xy */
static double h_y(double x, double y) { return __enzyme_fwddiff((void *)h, x, 0.0, y, 1.0); }      /* exp(0.3x) / y */

/* (1) */
static double g(double x, double y) { return f_x(x, y) * h_y(x, y); }
/* (2) */
static double G(double x, double y) {
    double s = 0;
    for (int k = 0; k < 4; k++) s += (1.0 + k) * f_x(x + 0.25 * k, y);
    return s;
}
/* (3) */
static double deeper(double x, double y) { return 2 * f_x(x, y) + h_y(x, y); }
static double outer(double x, double y) { return deeper(x * x, y) - x; }

static double fx_exact(double x, double y) { return y * cos(x * y) + 2 * x * y; }
static double fxx_exact(double x, double y) { return -y * y * sin(x * y) + 2 * y; }
static double fxy_exact(double x, double y) { return cos(x * y) - x * y * sin(x * y) + 2 * x; }

int main(void) {
    double pts[3][2] = {{0.5, 1.5}, {1.1, 0.7}, {-0.8, 2.3}};
    for (int p = 0; p < 3; p++) {
        double x = pts[p][0], y = pts[p][1];
        double hy = exp(0.3 * x) / y, fx = fx_exact(x, y);
        /* (1) d/dx and d/dy of g */
        double gx = fxx_exact(x, y) * hy + fx * 0.3 * hy, gy = fxy_exact(x, y) * hy - fx * hy / y;
        check_close("(1) dg/dx fwd", __enzyme_fwddiff((void *)g, x, 1.0, y, 0.0), gx, 1e-12, 1e-13);
        check_close("(1) dg/dx FD", __enzyme_fwddiff((void *)g, x, 1.0, y, 0.0), FD2_0(g, x, y), FD_RTOL, FD_ATOL);
        check_close("(1) dg/dy rev", __enzyme_autodiff((void *)g, enzyme_const, x, y), gy, 1e-12, 1e-13);
        check_close("(1) dg/dy FD", __enzyme_autodiff((void *)g, enzyme_const, x, y), FD2_1(g, x, y), FD_RTOL, FD_ATOL);
        /* (2) */
        double Gx = 0, Gy = 0;
        for (int k = 0; k < 4; k++) {
            Gx += (1.0 + k) * fxx_exact(x + 0.25 * k, y);
            Gy += (1.0 + k) * fxy_exact(x + 0.25 * k, y);
        }
        double Gfx = __enzyme_fwddiff((void *)G, x, 1.0, y, 0.0);
        zyg_grad2 Gr = __enzyme_autodiff2((void *)G, x, y);
        check_close("(2) dG/dx fwd", Gfx, Gx, 1e-12, 1e-13);
        check_close("(2) dG/dx FD", Gfx, FD2_0(G, x, y), FD_RTOL, FD_ATOL);
        check_close("(2) dG/dx rev", Gr.d0, Gx, 1e-12, 1e-13);
        check_close("(2) dG/dy rev", Gr.d1, Gy, 1e-12, 1e-13);
        check_close("(2) dG/dy FD", Gr.d1, FD2_1(G, x, y), FD_RTOL, FD_ATOL);
        /* (3) d/dx outer = 2x (2 f_xx(x^2, y) + 0.3 exp(0.3 x^2) / y) - 1 */
        double ox = 2 * x * (2 * fxx_exact(x * x, y) + 0.3 * exp(0.3 * x * x) / y) - 1;
        check_close("(3) d outer/dx fwd", __enzyme_fwddiff((void *)outer, x, 1.0, y, 0.0), ox, 1e-12, 1e-13);
        check_close("(3) d outer/dx rev", __enzyme_autodiff((void *)outer, x, enzyme_const, y), ox, 1e-12, 1e-13);
        check_close("(3) d outer/dx FD", __enzyme_autodiff((void *)outer, x, enzyme_const, y), FD2_0(outer, x, y), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
