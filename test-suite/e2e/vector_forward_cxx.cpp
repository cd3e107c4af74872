// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Vector forward mode from C++ (exceptions on, as clang compiles C++ by default): a class
// with methods and a template functor, std::array members, a static member function as the
// differentiated entry, float and double lanes, and a Jacobian of a vector-valued method
// through `enzyme_dupv`. Each lane against width-1 forward mode and central differences.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>

extern "C" {
#include "zyg_check.h"
extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
}

template <typename R, typename... T> R __enzyme_fwddiff(void *, T...) noexcept;
template <int W> struct Lanes {
    double d[W];
};
template <int W> struct LanesF {
    float d[W];
};

template <typename T> struct Softplus {
    T operator()(T v) const { return std::log1p(std::exp(v)); }
};

struct Arm {
    std::array<double, 3> len{1.0, 0.7, 0.4};
    /* the arm's tip for joint angles q (a planar 3-link arm) */
    void tip(const double *q, double *xy) const {
        double a = 0, x = 0, y = 0;
        for (size_t i = 0; i < len.size(); i++) {
            a += q[i];
            x += len[i] * std::cos(a);
            y += len[i] * std::sin(a);
        }
        xy[0] = x;
        xy[1] = y;
    }
    double cost(const double *q) const {
        double xy[2];
        tip(q, xy);
        Softplus<double> sp;
        return sp(xy[0] - 1.0) + sp(xy[1]) * 0.5 + 0.1 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    }
    static double cost_of(const Arm *arm, const double *q) { return arm->cost(q); }
    static void tip_of(const Arm *arm, const double *q, double *xy) { arm->tip(q, xy); }
};

static float smoothf(float x, float y) {
    Softplus<float> sp;
    return sp(x * y) - std::sqrt(x * x + y * y + 1.0f);
}

int main() {
    Arm arm;
    double q[3] = {0.3, -0.5, 0.8};
    double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    /* the gradient of the cost by three lanes of forward mode */
    auto g = __enzyme_fwddiff<Lanes<3>>((void *)Arm::cost_of, enzyme_width, 3, enzyme_const, &arm, enzyme_dupv,
                                        sizeof e[0], q, e);
    for (int k = 0; k < 3; k++) {
        double one = __enzyme_fwddiff<double>((void *)Arm::cost_of, enzyme_const, &arm, enzyme_dup, q, e[k]);
        double qp[3], qm[3];
        std::memcpy(qp, q, sizeof q), std::memcpy(qm, q, sizeof q);
        qp[k] += 1e-6, qm[k] -= 1e-6;
        check_close("cost lane = width 1", g.d[k], one, EXACT_RTOL, EXACT_ATOL);
        check_close("cost lane vs FD", g.d[k], (arm.cost(qp) - arm.cost(qm)) / 2e-6, FD_RTOL, FD_ATOL);
    }
    /* the tip's 2 x 3 Jacobian, columns by lane */
    double xy[2], J[3][2];
    __enzyme_fwddiff<void>((void *)Arm::tip_of, enzyme_width, 3, enzyme_const, &arm, enzyme_dupv, sizeof e[0], q, e,
                           enzyme_dupnoneedv, sizeof J[0], xy, J);
    for (int k = 0; k < 3; k++) {
        double qp[3], qm[3], p[2], m[2];
        std::memcpy(qp, q, sizeof q), std::memcpy(qm, q, sizeof q);
        qp[k] += 1e-6, qm[k] -= 1e-6;
        arm.tip(qp, p), arm.tip(qm, m);
        for (int i = 0; i < 2; i++) check_close("tip Jacobian", J[k][i], (p[i] - m[i]) / 2e-6, FD_RTOL, FD_ATOL);
    }
    /* float lanes */
    float x = 0.8f, y = -0.3f;
    auto t = __enzyme_fwddiff<LanesF<2>>((void *)smoothf, enzyme_width, 2, x, 1.0f, 0.0f, y, 0.0f, 1.0f);
    check_close("float d/dx", t.d[0], FDF2_0(smoothf, x, y), FLOAT_RTOL, FLOAT_ATOL);
    check_close("float d/dy", t.d[1], FDF2_1(smoothf, x, y), FLOAT_RTOL, FLOAT_ATOL);
    return zyg_report();
}
