// zyg.hpp's zyg::release_tape_cache(): the C++ spelling of `__zyg_release_tape_cache()`,
// inlined into its caller (so it releases the caches of the file it is called in). A
// gradient taken with zyg::autodiff keeps its tape's chunks cached (heap bytes in use,
// mallinfo2); the call gives them back; the gradients taken between releases are the same
// and match central differences.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O2 %s %t -I%S/../../include | FileCheck %s
// CHECK: ok cached
// CHECK: ok released
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
#include "zyg_heap.h"
}
#include "zyg/zyg.hpp"
#include <cstring>
#include <vector>

enum { N = 100000 };

double chain(const double *x, int n) {
    double s = 0, c = 1;
    for (int i = 0; i < n; i++) {
        s += c * sin(x[i]);
        c = 0.5 * c + 0.5 * cos(x[i]);
    }
    return s;
}

static double chain_of(const double *x, void *ctx) { return chain(x, *(int *)ctx); }

int main() {
    std::vector<double> x(N), dx(N), first(N);
    for (int i = 0; i < N; i++)
        x[i] = 0.3 * sin(0.001 * i) + 1e-3 * (i % 7);
    long before = zyg_heap_in_use();
    zyg::autodiff<zyg::Reverse>(chain, zyg::Duplicated(x.data(), first.data()), zyg::Const(int(N)));
    check_cached(before);
    zyg::release_tape_cache();
    check_released(before);
    for (int round = 0; round < 2; round++) {
        std::fill(dx.begin(), dx.end(), 0.0);
        zyg::autodiff<zyg::Reverse>(chain, zyg::Duplicated(x.data(), dx.data()), zyg::Const(int(N)));
        zyg::release_tape_cache();
        check_close("same gradient after release", std::memcmp(dx.data(), first.data(), sizeof(double) * N) == 0, 1, 0, 0);
    }
    int n = N;
    check_array_fd_every("d chain / dx[k]", chain_of, &n, x.data(), N, first.data(), N / 5);
    return zyg_report();
}
