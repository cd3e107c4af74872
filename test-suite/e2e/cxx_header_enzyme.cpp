// Enzyme's C++ spelling (include/enzyme/enzyme over zyg.hpp): code written for Enzyme's
// header compiles unchanged and keeps Enzyme's result shapes: enzyme::autodiff with
// enzyme::Reverse (tuple<tuple<gradients...>>), enzyme::ReverseWithPrimal
// (tuple<tuple<gradients...>, result>), enzyme::Forward (tuple<tangent>, or
// tuple<result, tangent> with Duplicated<R>), an explicit result activity, reference
// arguments (Duplicated<const float &>, Const<const T &>), a function object, class template
// argument deduction, and the templated entry point __enzyme_autodiff<R>(...). Each against
// closed forms or central differences at several points.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O3 %s %t -I%S/../../include | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}
#include <enzyme/enzyme>
#include <vector>

double foo(double x, double y) { return x * y * y; }
double square(double x) { return x * x; }
float cube_ref(const float &x) { return x * x * x; }
double sum_vec(const std::vector<double> &v) {
    double s = 0;
    for (double e : v)
        s += e * e;
    return s;
}
double scaled_sum(const double *v, std::size_t n, const std::vector<double> &scale) {
    double s = 0;
    for (std::size_t i = 0; i < n; i++)
        s += scale[i] * sin(v[i]);
    return s;
}

struct overload {
    double operator()(double x) { return x * 10; }
    float operator()(float x) { return x * 2; }
};
struct pair {
    double x, y;
};

int main() {
    const double points[] = {0.7, -1.3, 2.25};
    for (double x : points) {
        double y = 0.5 - x;
        enzyme::Active<double> x1{x};
        enzyme::tuple<enzyme::tuple<double>> dsq =
            enzyme::autodiff<enzyme::Reverse, enzyme::Active<double>>(square, x1);
        check_close("explicit result activity", enzyme::get<0>(enzyme::get<0>(dsq)), 2 * x, EXACT_RTOL, EXACT_ATOL);
        enzyme::tuple<enzyme::tuple<double>, double> withp = enzyme::autodiff<enzyme::ReverseWithPrimal>(square, x1);
        check_close("ReverseWithPrimal gradient", enzyme::get<0>(enzyme::get<0>(withp)), 2 * x, EXACT_RTOL,
                    EXACT_ATOL);
        check_close("ReverseWithPrimal result", enzyme::get<1>(withp), x * x, EXACT_RTOL, EXACT_ATOL);

        auto g = enzyme::autodiff<enzyme::Reverse>(foo, enzyme::Active<double>(x), enzyme::Active(y));
        check_close("d foo/dx", enzyme::get<0>(enzyme::get<0>(g)), FD2_0(foo, x, y), FD_RTOL, FD_ATOL);
        check_close("d foo/dy", enzyme::get<1>(enzyme::get<0>(g)), FD2_1(foo, x, y), FD_RTOL, FD_ATOL);

        auto o = enzyme::autodiff<enzyme::Reverse>(overload{}, enzyme::Active<float>((float)x));
        check_close("functor overload", enzyme::get<0>(enzyme::get<0>(o)), 2, EXACT_RTOL, EXACT_ATOL);

        float xf = (float)x, dxf = 0;
        enzyme::autodiff<enzyme::Reverse>(cube_ref, enzyme::Duplicated<const float &>{xf, dxf});
        check_close("Duplicated<const float &>", dxf, 3 * xf * xf, 1e-6, 1e-6);

        std::vector<double> v{x, y, 1.5}, dv(3, 0.0);
        enzyme::autodiff<enzyme::Reverse>(sum_vec, enzyme::DuplicatedNoNeed<const std::vector<double> &>{v, dv});
        for (int i = 0; i < 3; i++)
            check_close("vector reference", dv[i], 2 * v[i], EXACT_RTOL, EXACT_ATOL);

        double w[3] = {x, y, 0.25}, dw[3] = {0, 0, 0};
        std::vector<double> scale{1.0, -2.0, 0.5};
        enzyme::autodiff<enzyme::Reverse>(scaled_sum, enzyme::Duplicated<const double *>{w, dw},
                                          enzyme::Const{std::size_t(3)},
                                          enzyme::Const<const std::vector<double> &>{scale});
        for (int i = 0; i < 3; i++)
            check_close("Const<const T &>", dw[i], scale[i] * cos(w[i]), EXACT_RTOL, EXACT_ATOL);

        enzyme::tuple<double, double> fw =
            enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(square, enzyme::Duplicated<double>(x, 1.0));
        check_close("forward result", enzyme::get<0>(fw), x * x, EXACT_RTOL, EXACT_ATOL);
        check_close("forward tangent", enzyme::get<1>(fw), 2 * x, EXACT_RTOL, EXACT_ATOL);
        double t = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(foo, enzyme::Duplicated{x, 1.0},
                                                                    enzyme::Duplicated{y, 0.5}));
        check_close("forward default", t, FD2_0(foo, x, y) + 0.5 * FD2_1(foo, x, y), FD_RTOL, FD_ATOL);

        auto &&[z1, z2] = __enzyme_autodiff<pair>((void *)foo, enzyme_out, x, enzyme_out, y);
        check_close("templated entry d/dx", z1, y * y, EXACT_RTOL, EXACT_ATOL);
        check_close("templated entry d/dy", z2, 2 * x * y, EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
