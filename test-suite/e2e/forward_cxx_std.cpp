// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode from C++ through the standard library's containers, read-only: a
// std::array of coefficients inside a struct (range-for, operator[], size()), a
// std::vector<double> of knots read through a const reference (data(), size(), iterators,
// made outside the differentiated function) for a piecewise-linear interpolation with a
// binary search and a range-for over the vector; the active data are `enzyme_dup` doubles.
// Then a std::vector<double> itself `enzyme_dup`: its shadow a second vector of the same
// size whose elements are the tangents. Tangents against central differences.
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" {
#include "zyg_check.h"
}

/* noexcept: main owns a std::vector, so a request that may throw would be an `invoke`,
 * which zyg refuses (README: declare the entry point noexcept) */
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...) noexcept;

struct Filter {
    std::array<double, 5> taps{0.1, 0.25, 0.3, 0.25, 0.1};
    double response(const double *x, int n) const {
        double e = 0;
        for (int i = 0; i + (int)taps.size() <= n; i++) {
            double s = 0;
            for (std::size_t k = 0; k < taps.size(); k++) s += taps[k] * x[i + k];
            e += s * s;
        }
        return e;
    }
};

/* piecewise linear interpolation of the values `vals` at knots `knots` (read-only vector) */
static double interp(const std::vector<double> &knots, const double *vals, double t) {
    std::size_t lo = 0, hi = knots.size() - 1;
    while (hi - lo > 1) {
        std::size_t mid = (lo + hi) / 2;
        if (knots[mid] <= t) lo = mid; else hi = mid;
    }
    double w = (t - knots[lo]) / (knots[hi] - knots[lo]);
    return (1 - w) * vals[lo] + w * vals[hi];
}

static double model(const Filter *f, const std::vector<double> *knots, const double *vals, double t, int n) {
    double sum = 0;
    for (double k : *knots) sum += k * interp(*knots, vals, 0.5 * (k + t));
    return f->response(vals, n) + sum + interp(*knots, vals, t) * std::sin(t);
}

static double vec_norm(const std::vector<double> &v, double p) {
    double s = 0;
    for (std::size_t i = 0; i < v.size(); i++) s += std::pow(std::fabs(v[i]) + 0.1, p);
    return std::pow(s, 1.0 / p);
}
static double vec_norm_ptr(const std::vector<double> *v, double p) { return vec_norm(*v, p); }

int main() {
    const int n = 9;
    std::vector<double> knots;
    for (int i = 0; i < n; i++) knots.push_back(0.5 * i + 0.05 * i * i);
    Filter f;
    double h = 1e-6;
    double ts[] = {0.77, 2.31, 3.9};
    for (int q = 0; q < 3; q++)
        for (int d = 0; d < 2; d++) {
            double vals[n], dvals[n], vp[n], vm[n];
            for (int i = 0; i < n; i++) {
                vals[i] = std::cos(0.6 * i + q);
                dvals[i] = d ? 0.2 * std::sin(1.1 * i) : (i == 3);
                vp[i] = vals[i] + h * dvals[i], vm[i] = vals[i] - h * dvals[i];
            }
            double t = ts[q], dt = d ? 0.5 : 0.0;
            double got = __enzyme_fwddiff<double>((void *)model, enzyme_const, &f, enzyme_const, &knots, enzyme_dup, vals, dvals, t, dt, enzyme_const, n);
            double want = (model(&f, &knots, vp, t + h * dt, n) - model(&f, &knots, vm, t - h * dt, n)) / (2 * h);
            check_close("model along (dvals, dt)", got, want, FD_RTOL, FD_ATOL);
            double r = __enzyme_fwddiff<double>((void *)interp, enzyme_const, &knots, enzyme_dup, vals, dvals, t, dt);
            check_close("interp", r, (interp(knots, vp, t + h * dt) - interp(knots, vm, t - h * dt)) / (2 * h), FD_RTOL, FD_ATOL);
        }
    for (int q = 0; q < 2; q++) {
        std::vector<double> v, dv, vp, vm;
        for (int i = 0; i < 7; i++) {
            v.push_back(0.3 * i - 0.8 + 0.05 * q);  /* away from 0: fabs is smooth there */
            dv.push_back(q ? 0.1 * (i % 3) - 0.1 : (i == 5));
            vp.push_back(v[i] + h * dv[i]);
            vm.push_back(v[i] - h * dv[i]);
        }
        double p = 2.5 + q, dp = q ? 0.4 : 0.0;
        double got = __enzyme_fwddiff<double>((void *)vec_norm_ptr, enzyme_dup, &v, &dv, p, dp);
        double want = (vec_norm(vp, p + h * dp) - vec_norm(vm, p - h * dp)) / (2 * h);
        check_close("std::vector as dup", got, want, FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
