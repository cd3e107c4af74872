// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// C++: Hessian-vector products, forward over reverse, of function templates instantiated for
// two sizes (a templated smooth energy over a std::array-like fixed array, with a functor
// for the pair term). Checked against central differences of the gradient along v at three
// points and three directions per size.
#include <cmath>
#include <cstring>
extern "C" {
#include "zyg_check.h"
}

struct Pair {
    double k;
    /* always inlined: at -O0 a call to a helper of two active scalars loses a tangent in forward
     * over reverse today (reported with a reproducer) */
    __attribute__((always_inline)) double operator()(double a, double b) const { return k * std::log(1 + (a - b) * (a - b)) + std::exp(0.2 * a * b); }
};

template <int N, typename P>
static double energy(const double *x, const P &pair) {
    double s = 0;
    for (int i = 0; i + 1 < N; i++) s += pair(x[i], x[i + 1]);
    for (int i = 0; i < N; i++) s += 0.25 * x[i] * x[i] * x[i] * x[i];
    return s;
}

template <int N>
static void grad(const double *x, double *dx, const Pair *p) {
    __enzyme_autodiff((void *)energy<N, Pair>, enzyme_dup, x, dx, enzyme_const, p);
}

template <int N>
static void check_size(const Pair &p) {
    double pts[3][N], dirs[3][N];
    for (int i = 0; i < N; i++) {
        pts[0][i] = 0.1 * (i + 1);
        pts[1][i] = std::sin(1.0 + 2 * i);
        pts[2][i] = 1.2 * std::cos(0.7 * i) - 0.3;
        dirs[0][i] = i == 0;
        dirs[1][i] = i == N - 1;
        dirs[2][i] = std::cos(1.1 * i + 0.5);
    }
    for (int q = 0; q < 3; q++)
        for (int d = 0; d < 3; d++) {
            const double *x = pts[q], *v = dirs[d];
            double dx[N] = {0}, hv[N] = {0};
            __enzyme_fwddiff((void *)grad<N>, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, &p);
            double h = 1e-6, xp[N], xm[N], gp[N] = {0}, gm[N] = {0};
            for (int i = 0; i < N; i++) {
                xp[i] = x[i] + h * v[i];
                xm[i] = x[i] - h * v[i];
            }
            grad<N>(xp, gp, &p);
            grad<N>(xm, gm, &p);
            for (int i = 0; i < N; i++) check_close("Hv vs FD of the gradient", hv[i], (gp[i] - gm[i]) / (2 * h), FD_RTOL, FD_ATOL);
        }
}

int main() {
    Pair p{0.7};
    check_size<3>(p);
    check_size<6>(p);
    return zyg_report();
}
