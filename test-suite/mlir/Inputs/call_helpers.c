#include "zyg_memref.h"
double _mlir_ciface_model(double x, double y, double z, int64_t n);
void _mlir_ciface_dmodel(zyg_grad3 *out, double x, double y, double z, int64_t n);

static int64_t N;
static double model_n(double x, double y, double z) { return _mlir_ciface_model(x, y, z, N); }

int main(void) {
    double xs[] = {0.3, 0.7, -0.4}, ys[] = {0.5, -0.2, 0.9}, zs[] = {1.1, 0.8, -1.3};
    int64_t ns[] = {0, 1, 5, 12};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++) {
            N = ns[k];
            zyg_grad3 g;
            _mlir_ciface_dmodel(&g, xs[i], ys[i], zs[i], N);
            CHECK_FD3(model_n, xs[i], ys[i], zs[i], g);
        }
    return zyg_report();
}
