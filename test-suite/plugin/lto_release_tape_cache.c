// `__zyg_release_tape_cache()` in a program of two files through full LTO: the gradient is
// requested in Inputs/lto_release_model.c and the cache released here. Each compile leaves
// the declaration for the link, where the whole program is one module, so the call
// releases the gradient's cache (heap bytes in use, mallinfo2); the gradient matches
// central differences before and after. A ThinLTO compile of this file (no requests, only
// the release) is not refused: it is filled in with nothing to release.
// REQUIRES: lld
// RUN: %clang -O2 -flto -fpass-plugin=%plugin -I %include -I %S/../../include -c %s -o %t.O2.main.o
// RUN: %clang -O2 -flto -fpass-plugin=%plugin -c %S/Inputs/lto_release_model.c -o %t.O2.model.o
// RUN: %clang -O2 -flto -fuse-ld=lld -Wl,--load-pass-plugin=%plugin %t.O2.main.o %t.O2.model.o -lm -o %t.O2.exe
// RUN: %t.O2.exe | FileCheck %s
// RUN: %clang -O0 -flto -fpass-plugin=%plugin -I %include -I %S/../../include -c %s -o %t.O0.main.o
// RUN: %clang -O0 -flto -fpass-plugin=%plugin -c %S/Inputs/lto_release_model.c -o %t.O0.model.o
// RUN: %clang -O0 -flto -fuse-ld=lld -Wl,--load-pass-plugin=%plugin %t.O0.main.o %t.O0.model.o -lm -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clang -O2 -flto=thin -fpass-plugin=%plugin -I %include -I %S/../../include -c %s -o %t.thin.o
// CHECK: ok cached
// CHECK: ok released
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg/zyg.h"
#include "zyg_check.h"
#include "zyg_heap.h"
#include <string.h>

enum { N = 100000 };

double chain(const double *x, int n);
void chain_gradient(const double *x, double *dx, int n);

static double chain_of(const double *x, void *ctx) { return chain(x, *(int *)ctx); }

int main(void) {
    double *x = malloc(sizeof(double) * N), *dx = malloc(sizeof(double) * N), *first = malloc(sizeof(double) * N);
    for (int i = 0; i < N; i++)
        x[i] = 0.3 * sin(0.001 * i) + 1e-3 * (i % 7);
    long before = zyg_heap_in_use();
    chain_gradient(x, first, N);
    check_cached(before);
    __zyg_release_tape_cache();
    check_released(before);
    chain_gradient(x, dx, N);
    __zyg_release_tape_cache();
    check_close("same gradient after release", memcmp(dx, first, sizeof(double) * N) == 0, 1, 0, 0);
    int n = N;
    check_array_fd_every("d chain / dx[k]", chain_of, &n, x, N, first, N / 5);
    free(x);
    free(dx);
    free(first);
    return zyg_report();
}
