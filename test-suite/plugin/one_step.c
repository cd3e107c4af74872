// One-step builds through the pass plugin: clang fills in the requests while it compiles,
// at -O0, -O2 and -O3 (with AVX2 where the machine has it), and every gradient is checked
// against central differences at several points.
// RUN: %plugin-run -O0 %s %t | FileCheck %s
// RUN: %plugin-run -O2 %s %t | FileCheck %s
// RUN: %plugin-run -O3 %s %t.v3 %march-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"

/* Scalar code with a branch and math calls. */
double scalar(double x, double y) {
    double s = sin(x) * exp(0.5 * y);
    if (x > y)
        s += x * x / (1 + y * y);
    return s + log1p(x * x);
}

/* A loop over arrays: a weighted sum of squares of an affine map. */
typedef struct {
    int n;
    const double *w;
} model_t;

static double loss_of(const double *x, void *ctx) {
    const model_t *m = ctx;
    double total = 0;
    for (int i = 0; i < m->n; i++) {
        double r = m->w[i] * x[i] - tanh(x[(i + 1) % m->n]);
        total += r * r;
    }
    return total;
}

double loss(const double *x, const model_t *m) { return loss_of(x, (void *)m); }

/* Writes through its output pointer: gradients through memory (enzyme_dup). */
void softmax(const double *x, double *out, int n) {
    double max = x[0], sum = 0;
    for (int i = 1; i < n; i++)
        max = x[i] > max ? x[i] : max;
    for (int i = 0; i < n; i++)
        sum += out[i] = exp(x[i] - max);
    for (int i = 0; i < n; i++)
        out[i] /= sum;
}
static double softmax_first(const double *x, void *ctx) {
    double out[8];
    softmax(x, out, *(int *)ctx);
    return out[0] + 2 * out[2];
}

int main(void) {
    const double points[3][2] = {{0.3, -0.7}, {1.4, 0.2}, {-0.8, 2.5}};
    for (int p = 0; p < 3; p++) {
        double x = points[p][0], y = points[p][1];
        zyg_grad2 g = __enzyme_autodiff2((void *)scalar, x, y);
        CHECK_FD2(scalar, x, y, g);
    }
    double w[6] = {0.5, -1.2, 2.0, 0.3, 1.1, -0.4};
    model_t m = {6, w};
    for (int p = 0; p < 3; p++) {
        double x[6], dx[6] = {0};
        for (int i = 0; i < 6; i++)
            x[i] = 0.3 * (i - 2) + 0.7 * p;
        __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, &m);
        check_array_fd("loss", loss_of, &m, x, 6, dx);
    }
    for (int p = 0; p < 3; p++) {
        int n = 5;
        double x[5], dx[5] = {0}, out[5], dout[5] = {1, 0, 2, 0, 0};
        for (int i = 0; i < n; i++)
            x[i] = sin(1.7 * i + p);
        __enzyme_autodiff((void *)softmax, enzyme_dup, x, dx, enzyme_dupnoneed, out, dout, enzyme_const, n);
        check_array_fd("softmax", softmax_first, &n, x, n, dx);
    }
    return zyg_report();
}
