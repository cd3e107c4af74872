// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Loops computed in float: a Newton iteration for the cube root, run until it converges
// (data-dependent trip count, negative inputs too), and a float accumulation over a double
// input (fptrunc in, fpext out). Gradients against exact derivatives, to float accuracy.
#include "zyg_check.h"

float cube_root(float a) {
    float x = a;
    int it = 0;
    while (fabsf(x * x * x - a) > 4e-6f * fabsf(a) && it < 80) {
        x = x - (x * x * x - a) / (3.0f * x * x);
        it++;
    }
    return x;
}

double float_sum(double t, int n) {
    float s = 0.0f, tf = (float)t;              // fptrunc
    for (int i = 1; i <= n; i++)
        s += tf * tf / (float)i;
    return (double)s * t;                       // fpext
}

int main(void) {
    float as[] = {2.0f, 0.3f, -5.0f, 27.0f};
    for (int i = 0; i < 4; i++) {
        float a = as[i];
        double r = cbrt((double)a);
        check_close("d cbrt (float)", __enzyme_autodifff((void *)cube_root, a), 1.0 / (3.0 * r * r), 1e-4, 1e-6);
    }
    double ts[] = {0.5, -1.25, 2.0};
    for (int i = 0; i < 3; i++) {
        double t = ts[i], h = 0.0;
        for (int k = 1; k <= 10; k++)
            h += 1.0 / k;
        // f = (t^2 h) t up to float rounding of the sum: f' = 3 t^2 h.
        check_close("d float_sum", __enzyme_autodiff((void *)float_sum, t, 10), 3 * t * t * h, 1e-5, 1e-6);
    }
    return zyg_report();
}
