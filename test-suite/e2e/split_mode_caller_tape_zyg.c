// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Tapes in the caller's memory in zyg's own spelling, as zyg.h declares it:
// `__zyg_augmentsize`, `zyg_allocated`, `zyg_tape`; the forward half declared `void *`
// returns the caller's pointer. Several tapes in a stack array, reversed in another order,
// against the known derivative of a product.
#include "zyg/zyg.h"
#include "zyg_check.h"

double prod(const double *x, int n) {
    double p = 1.0;
    for (int i = 0; i < n; i++)
        p *= x[i];
    return p;
}

int main(void) {
    enum { N = 5, TAPES = 4 };
    __SIZE_TYPE__ size = __zyg_augmentsize((void *)prod, zyg_dup, zyg_const);
    _Alignas(16) char memory[TAPES * 512];
    check_close("tapes fit", TAPES * size <= sizeof memory, 1, 0, 0);
    double x[TAPES][N], dx[TAPES][N] = {{0}};
    for (int k = 0; k < TAPES; k++) {
        for (int i = 0; i < N; i++) x[k][i] = 0.5 + 0.25 * i - 0.3 * k;
        void *t = __zyg_augmentfwd((void *)prod, zyg_allocated, size, zyg_tape, memory + k * size, zyg_dup, x[k], dx[k],
                                   zyg_const, N);
        check_close("the caller's pointer back", t == memory + k * size, 1, 0, 0);
    }
    for (int k = TAPES - 1; k >= 0; k--)
        __zyg_reverse_void((void *)prod, zyg_dup, x[k], dx[k], zyg_const, N, 1.0 + k, zyg_allocated, size, zyg_tape,
                           memory + k * size);
    for (int k = 0; k < TAPES; k++)
        for (int i = 0; i < N; i++) {
            double want = 1.0 + k;
            for (int j = 0; j < N; j++)
                if (j != i)
                    want *= x[k][j];
            check_close("dprod/dx", dx[k][i], want, EXACT_RTOL, 1e-14);
        }
    return zyg_report();
}
