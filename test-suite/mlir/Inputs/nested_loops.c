#include "zyg_memref.h"
double _mlir_ciface_kernel(memref1_f64 *x, memref1_f64 *y, double s);
double _mlir_ciface_dkernel(memref1_f64 *x, memref1_f64 *dx, memref1_f64 *y, memref1_f64 *dy, double s);

static double x[5] = {0.1, -0.4, 0.9, 1.3, -1.1}, y[3] = {0.5, -0.2, 0.8}, s = 0.7;
static double loss(void) {
    memref1_f64 X = MEMREF1(x, 5), Y = MEMREF1(y, 3);
    return _mlir_ciface_kernel(&X, &Y, s);
}

int main(void) {
    double dx[5] = {0}, dy[3] = {0};
    memref1_f64 X = MEMREF1(x, 5), DX = MEMREF1(dx, 5), Y = MEMREF1(y, 3), DY = MEMREF1(dy, 3);
    double ds = _mlir_ciface_dkernel(&X, &DX, &Y, &DY, s);
    check_close("ds", ds, fd_at(loss, &s), FD_RTOL, FD_ATOL);
    check_array("dx", dx, loss, x, 5);
    check_array("dy", dy, loss, y, 3);
    return zyg_report();
}
