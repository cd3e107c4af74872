// C++ (exceptions on): a model class whose parameters are member arrays, evaluated by
// const and non-const member functions (the object is the dup argument, reached through
// `this`), with a member that updates internal state in place before the loss is read.
// RUN: %clangxx -O0 -g -I %include -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll && %clangxx %t.O0.grad.ll -lm -o %t.O0.exe && %t.O0.exe | FileCheck %s
// RUN: %clangxx -O2 -g -I %include -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.grad.ll && %clangxx %t.O2.grad.ll -lm -o %t.O2.exe && %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}

class Filter {
  public:
    double taps[4];
    double gain;
    double state[4];
    int order;

    double apply(double in) { // shifts the delay line in place
        for (int i = order - 1; i > 0; i--)
            state[i] = state[i - 1];
        state[0] = in;
        double y = 0.0;
        for (int i = 0; i < order; i++)
            y += taps[i] * state[i];
        return gain * tanh(y);
    }
    double penalty() const {
        double s = 0.0;
        for (int i = 0; i < order; i++)
            s += taps[i] * taps[i];
        return 0.01 * s + 0.1 * (gain - 1.0) * (gain - 1.0);
    }
};

extern "C" double filter_loss(Filter *f, const double *signal, const double *target, int n) {
    double l = 0.0;
    for (int t = 0; t < n; t++) {
        double e = f->apply(signal[t]) - target[t];
        l += e * e;
    }
    return l + f->penalty();
}

enum { T = 8 };
static double sig[T] = {0.5, -0.2, 0.8, 1.0, -0.6, 0.3, 0.1, -0.9};
static double tgt[T] = {0.3, 0.1, 0.5, 0.6, -0.2, 0.0, 0.2, -0.4};
/* z = (taps[4], gain, state[4]) */
static double loss_flat(const double *z) {
    Filter f;
    for (int i = 0; i < 4; i++) f.taps[i] = z[i], f.state[i] = z[5 + i];
    f.gain = z[4];
    f.order = 4;
    return filter_loss(&f, sig, tgt, T);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main() {
    double pts[2][9] = {{0.6, -0.3, 0.2, 0.1, 1.2, 0.1, -0.2, 0.3, 0.0}, {-0.4, 0.5, 0.3, -0.2, 0.8, 0.4, 0.2, -0.1, 0.5}};
    for (int q = 0; q < 2; q++) {
        Filter f, df = {};
        for (int i = 0; i < 4; i++) f.taps[i] = pts[q][i], f.state[i] = pts[q][5 + i];
        f.gain = pts[q][4];
        f.order = 4;
        df.order = 123; // an int field of the shadow: left alone
        __enzyme_autodiff((void *)filter_loss, enzyme_dup, &f, &df, enzyme_const, sig, enzyme_const, tgt, enzyme_const,
                          (int)T);
        for (int k = 0; k < 4; k++) {
            check_close("dtaps", df.taps[k], fd(loss_flat, pts[q], 9, k), FD_RTOL, FD_ATOL);
            check_close("dstate", df.state[k], fd(loss_flat, pts[q], 9, 5 + k), FD_RTOL, FD_ATOL);
        }
        check_close("dgain", df.gain, fd(loss_flat, pts[q], 9, 4), FD_RTOL, FD_ATOL);
        check_close("order shadow untouched", df.order, 123, 0, 0);
    }
    return zyg_report();
}
