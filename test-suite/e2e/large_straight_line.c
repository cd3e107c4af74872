// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: FileCheck --check-prefix=IR %s < %t.O2.grad.ll
// RUN: %grad-run -O2 %s %t.big -DFOUR_TIMES | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// One straight-line function of 1,024 steps (about 10,000 instructions in one block). Most of
// its values are used only in their own block, so their adjoints are summed in SSA values
// rather than per-value slots (zyg-transform/src/adjoint.rs), and the primal's block, larger
// than LLVM's SLP vectorizer can search in reasonable time, is marked noimplicitfloat
// (zyg-driver/src/grad.rs). With FOUR_TIMES (4,096 steps, which clang -O2 vectorises in
// part) the adjoint's block has about 190,000 instructions, and the pipeline runs without
// LLVM's VectorCombine (48 s with it, 4 s without). The gradient is checked against central
// differences.
// IR: attributes #{{[0-9]+}} = { {{.*}}noimplicitfloat
#include "zyg_check.h"

#define STEP                                                                       \
    {                                                                              \
        double t = v * w;                                                          \
        double s = sin(t + x[2]);                                                  \
        w = 0.5 * v + 0.25 * s * x[3];                                             \
        v = 0.5 * s + 0.1 * t + 0.05 * x[(int)(sizeof(double) & 3)];               \
    }
#define STEP4 STEP STEP STEP STEP
#define STEP16 STEP4 STEP4 STEP4 STEP4
#define STEP64 STEP16 STEP16 STEP16 STEP16
#define STEP256 STEP64 STEP64 STEP64 STEP64
#define STEP1024 STEP256 STEP256 STEP256 STEP256

double chain(const double *x) {
    double v = x[0], w = x[1];
    STEP1024
#ifdef FOUR_TIMES
    STEP1024 STEP1024 STEP1024
#endif
    return v * w + v;
}

static double chain_of(const double *x, void *ctx) {
    (void)ctx;
    return chain(x);
}

int main(void) {
    double inputs[3][4] = {{0.3, -0.7, 0.2, 1.1}, {1.2, 0.4, -0.5, 0.6}, {-0.9, 0.8, 1.3, -0.4}};
    for (int n = 0; n < 3; n++) {
        double dx[4] = {0};
        __enzyme_autodiff((void *)chain, inputs[n], dx);
        check_array_fd("d chain / dx", chain_of, 0, inputs[n], 4, dx);
    }
    return zyg_report();
}
