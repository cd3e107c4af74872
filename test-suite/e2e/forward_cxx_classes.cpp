// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode from C++ (exceptions on): a class with private state, a constructor, const
// and non-const member functions (one updating the object's fields, whose tangents live in
// the shadow object), a derived class calling its base's member function, and a free
// function taking the object by reference. The object is `enzyme_dup` (its shadow an object
// of tangents). Tangents against central differences along the same direction.
#include <cmath>
#include <cstdio>

extern "C" {
#include "zyg_check.h"
}

template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

class Oscillator {
  public:
    Oscillator(double k, double c, double x, double v) : k_(k), c_(c), x_(x), v_(v) {}
    double energy() const { return 0.5 * v_ * v_ + 0.5 * k_ * x_ * x_; }
    void advance(double dt) {  /* semi-implicit Euler, updates the fields */
        double a = -k_ * x_ - c_ * v_ + 0.1 * std::sin(x_);
        v_ += dt * a;
        x_ += dt * v_;
    }
    double position() const { return x_; }

  protected:
    double k_, c_, x_, v_;
};

class Duffing : public Oscillator {
  public:
    Duffing(double k, double c, double beta, double x, double v) : Oscillator(k, c, x, v), beta_(beta) {}
    double energy() const { return Oscillator::energy() + 0.25 * beta_ * x_ * x_ * x_ * x_; }
    void advance(double dt) {
        Oscillator::advance(dt);
        v_ -= dt * beta_ * x_ * x_ * x_;
    }

  private:
    double beta_;
};

static double run_osc(Oscillator &o, int steps) {
    for (int s = 0; s < steps; s++) o.advance(0.02);
    return o.energy() + o.position();
}

static double run_duffing(Duffing *d, double dt, int steps) {
    for (int s = 0; s < steps; s++) d->advance(dt);
    return d->energy();
}

int main() {
    double h = 1e-6;
    double pts[3][4] = {{2.0, 0.1, 0.5, 0.0}, {3.5, 0.3, -0.2, 1.1}, {1.2, 0.05, 1.4, -0.6}};
    double dirs[3][4] = {{0, 0, 1, 0}, {1, 0, 0, 0}, {0.3, -0.5, 0.2, 0.7}};
    for (int p = 0; p < 3; p++)
        for (int d = 0; d < 3; d++) {
            const double *a = pts[p], *da = dirs[d];
            Oscillator o(a[0], a[1], a[2], a[3]), dO(da[0], da[1], da[2], da[3]);
            double t = __enzyme_fwddiff<double>((void *)run_osc, enzyme_dup, &o, &dO, enzyme_const, 50);
            Oscillator op(a[0] + h * da[0], a[1] + h * da[1], a[2] + h * da[2], a[3] + h * da[3]);
            Oscillator om(a[0] - h * da[0], a[1] - h * da[1], a[2] - h * da[2], a[3] - h * da[3]);
            double fp = run_osc(op, 50), fm = run_osc(om, 50);
            check_close("Oscillator (by reference)", t, (fp - fm) / (2 * h), FD_RTOL, FD_ATOL);
            check_close("shadow object's position", dO.position(), (op.position() - om.position()) / (2 * h), FD_RTOL, FD_ATOL);

            Duffing du(a[0], a[1], 0.4, a[2], a[3]), ddu(da[0], da[1], 0.5 * d, da[2], da[3]);
            double dt = 0.015, ddt = d == 2 ? 0.01 : 0.0;
            t = __enzyme_fwddiff<double>((void *)run_duffing, enzyme_dup, &du, &ddu, dt, ddt, enzyme_const, 40);
            Duffing dp(a[0] + h * da[0], a[1] + h * da[1], 0.4 + h * 0.5 * d, a[2] + h * da[2], a[3] + h * da[3]);
            Duffing dm(a[0] - h * da[0], a[1] - h * da[1], 0.4 - h * 0.5 * d, a[2] - h * da[2], a[3] - h * da[3]);
            fp = run_duffing(&dp, dt + h * ddt, 40), fm = run_duffing(&dm, dt - h * ddt, 40);
            check_close("Duffing (derived class, by pointer)", t, (fp - fm) / (2 * h), FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
