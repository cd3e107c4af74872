// Fits a line y = a x + b to noisy points by gradient descent, with the gradient of the
// squared error from zyg's C++ header: a lambda capturing the data (constants) differentiated
// with respect to its two Active arguments, and the same loss as a function of a parameter
// array through Duplicated. Checks both against central differences, then that descent
// converges to the least-squares solution.
#include "zyg/zyg.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

// The loss over parameters p = {a, b}: the mean squared error of the line on the points.
double loss(const double *p, const double *xs, const double *ys, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double r = p[0] * xs[i] + p[1] - ys[i];
        s += r * r;
    }
    return s / n;
}

int main() {
    std::vector<double> xs, ys;
    for (int i = 0; i < 20; i++) {
        double x = 0.25 * i;
        xs.push_back(x);
        ys.push_back(1.5 * x - 0.75 + 0.1 * std::sin(7.0 * i)); // a line and some "noise"
    }
    int n = (int)xs.size();
    int failures = 0;

    // The loss as a lambda of (a, b), capturing the data: the data are constants.
    auto mse = [&](double a, double b) {
        double p[2] = {a, b};
        return loss(p, xs.data(), ys.data(), n);
    };
    double a = 0, b = 0;
    for (int step = 0; step < 2000; step++) {
        auto [da, db] = zyg::autodiff<zyg::Reverse>(mse, zyg::Active(a), zyg::Active(b));
        if (step == 0) {
            double h = 1e-6;
            double fa = (mse(a + h, b) - mse(a - h, b)) / (2 * h), fb = (mse(a, b + h) - mse(a, b - h)) / (2 * h);
            if (std::fabs(da - fa) > 1e-6 * (1 + std::fabs(fa)) || std::fabs(db - fb) > 1e-6 * (1 + std::fabs(fb))) {
                std::printf("FAIL gradient: (%g, %g), finite differences (%g, %g)\n", da, db, fa, fb);
                failures++;
            }
        }
        a -= 0.1 * da;
        b -= 0.1 * db;
    }

    // The same gradient for a parameter array: Duplicated accumulates into dp.
    double p[2] = {a, b}, dp[2] = {0, 0};
    zyg::autodiff<zyg::Reverse>(loss, zyg::Duplicated(p, dp), zyg::Const(xs.data()), zyg::Const(ys.data()),
                                zyg::Const(n));
    auto [da, db] = zyg::autodiff<zyg::Reverse>(mse, zyg::Active(a), zyg::Active(b));
    if (std::fabs(dp[0] - da) > 1e-12 || std::fabs(dp[1] - db) > 1e-12) {
        std::printf("FAIL Duplicated (%g, %g) and Active (%g, %g) disagree\n", dp[0], dp[1], da, db);
        failures++;
    }

    // Least squares in closed form, to compare with.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sx += xs[i], sy += ys[i], sxx += xs[i] * xs[i], sxy += xs[i] * ys[i];
    }
    double a_ls = (n * sxy - sx * sy) / (n * sxx - sx * sx), b_ls = (sy - a_ls * sx) / n;
    if (std::fabs(a - a_ls) > 1e-6 || std::fabs(b - b_ls) > 1e-6) {
        std::printf("FAIL descent reached (%g, %g), least squares is (%g, %g)\n", a, b, a_ls, b_ls);
        failures++;
    }
    std::printf("fit: y = %.6f x + %.6f (least squares %.6f x + %.6f)\n", a, b, a_ls, b_ls);
    std::printf("%s\n", failures ? "FAILED" : "ok: gradients match finite differences, descent converged");
    return failures != 0;
}
