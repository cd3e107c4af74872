// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// C++17 aligned operator new and delete (over-aligned types: `operator new(size_t,
// std::align_val_t)`, its array form and nothrow form, and the sized aligned deletes) as
// scratch memory. The shadows are as aligned as the memory and freed with it (forward mode
// calls the same aligned delete on the shadow). Reverse mode against central differences,
// forward mode against the reverse gradient.
#include <new>
extern "C" {
#include "zyg_check.h"
}

struct alignas(64) Block {
    double v[4];
};

static double loss(const double *x, int n) {
    Block *blocks = new Block[n];
    Block *acc = new Block;
    Block *spare = new (std::nothrow) Block;
    if (!spare)
        return 0;
    for (int i = 0; i < 4; i++)
        acc->v[i] = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            blocks[i].v[j] = x[i] * (j + 1) + x[(i + j) % n] * x[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            acc->v[j] += blocks[i].v[j] * blocks[(i + 1) % n].v[3 - j];
    for (int j = 0; j < 4; j++)
        spare->v[j] = sin(acc->v[j]);
    double s = spare->v[0] + 2 * spare->v[1] - spare->v[2] * spare->v[3];
    delete[] blocks;
    delete acc;
    delete spare;
    return s;
}

static double loss_ctx(const double *x, void *) { return loss(x, 5); }

int main() {
    double points[2][5] = {{0.3, -0.5, 0.8, 0.1, -0.2}, {0.4, 0.2, -0.7, 0.5, 0.35}};
    for (int p = 0; p < 2; p++) {
        double dx[5] = {0};
        __enzyme_autodiff((void *)loss, points[p], dx, 5);
        check_array_fd("reverse", loss_ctx, 0, points[p], 5, dx);
        for (int k = 0; k < 5; k++) {
            double dir[5] = {0};
            dir[k] = 1;
            double t = __enzyme_fwddiff((void *)loss, points[p], dir, 5);
            check_close("forward", t, dx[k], 1e-10, 1e-12);
        }
    }
    return zyg_report();
}
