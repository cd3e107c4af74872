// One-step C++ builds through the pass plugin, exceptions on (clang++'s default): a class
// template over std::vector, a request inside `try` (made with invoke), zyg.hpp's
// zyg::autodiff on a capturing lambda, and a member function called through an object.
// Gradients against central differences at several points, at -O0, -O2 and -O3.
// RUN: %plugin-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O3 %s %t.v3 -I%S/../../include %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}
#include "zyg/zyg.hpp"
#include <stdexcept>
#include <vector>

template <typename T> class Polynomial {
  public:
    explicit Polynomial(std::vector<T> c) : coefficients(std::move(c)) {}
    T operator()(T x) const {
        T s = 0;
        for (size_t i = coefficients.size(); i-- > 0;)
            s = s * x + coefficients[i];
        return s;
    }

  private:
    std::vector<T> coefficients;
};

struct Layer {
    std::vector<double> w;
    double forward(const double *x, int n) const {
        if (n > (int)w.size())
            throw std::invalid_argument("too many inputs");
        double s = 0;
        for (int i = 0; i < n; i++)
            s += std::tanh(w[i] * x[i]);
        return s * s;
    }
};

static double poly_at(double x) {
    Polynomial<double> p({1.0, -2.0, 0.5, 0.25});
    return p(std::sin(x));
}

static double layer_forward(const Layer *layer, const double *x, int n) { return layer->forward(x, n); }
static double layer_of(const double *x, void *ctx) { return layer_forward((const Layer *)ctx, x, 4); }

int main() {
    const double points[] = {-1.1, 0.35, 2.2};
    Layer layer{{0.5, -1.5, 2.0, 0.75}};
    for (double x : points) {
        double d = __enzyme_autodiff((void *)poly_at, x);
        check_close("polynomial", d, FD1(poly_at, x), FD_RTOL, FD_ATOL);

        double in[4] = {x, 0.5 * x, 1 - x, 0.25}, din[4] = {0, 0, 0, 0};
        try {
            __enzyme_autodiff((void *)layer_forward, enzyme_const, &layer, enzyme_dup, in, din, enzyme_const, 4);
        } catch (const std::exception &e) {
            check_close("no exception", 1, 0, 0, 0);
        }
        check_array_fd("layer", layer_of, &layer, in, 4, din);

        double k = 1.5 + x;
        auto f = [&](double u, double v) { return k * u * std::exp(v) + poly_at(u * v); };
        auto [du, dv] = zyg::autodiff<zyg::Reverse>(f, zyg::Active(x), zyg::Active(0.5));
        double h = 1e-6;
        check_close("lambda d/du", du, (f(x + h, 0.5) - f(x - h, 0.5)) / (2 * h), FD_RTOL, FD_ATOL);
        check_close("lambda d/dv", dv, (f(x, 0.5 + h) - f(x, 0.5 - h)) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
