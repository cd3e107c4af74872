#include "zyg_memref.h"
#define N 5
typedef struct { float dw, db; } grad_wb;
float _mlir_ciface_logistic(memref1_f32 *xs, memref1_f32 *ys, float w, float b);
void _mlir_ciface_dlogistic(grad_wb *out, memref1_f32 *xs, memref1_f32 *ys, float w, float b);

static float xs[N] = {0.5f, -1.0f, 2.0f, 0.1f, -0.7f}, ys[N] = {1, 0, 1, 0, 1};
static float loss(float w, float b) {
    memref1_f32 X = {xs, xs, 0, {N}, {1}}, Y = {ys, ys, 0, {N}, {1}};
    return _mlir_ciface_logistic(&X, &Y, w, b);
}

int main(void) {
    float ws[] = {0.3f, -1.2f, 2.0f}, bs[] = {0.1f, 0.5f, -0.4f};
    memref1_f32 X = {xs, xs, 0, {N}, {1}}, Y = {ys, ys, 0, {N}, {1}};
    for (int i = 0; i < 3; i++) {
        grad_wb g;
        _mlir_ciface_dlogistic(&g, &X, &Y, ws[i], bs[i]);
        zyg_gradf2 gf = {g.dw, g.db};
        CHECK_FDF2(loss, ws[i], bs[i], gf);
    }
    return zyg_report();
}
