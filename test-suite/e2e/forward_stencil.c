// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: sed -n '/^define internal void @heat(/,/^}/p' %t.native.O3.ll | grep -q "x double>"
// RUN: sed -n '/^define internal double @laplace2d(/,/^}/p' %t.native.O3.ll | grep -q "x double>"
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through stencils that clang vectorises at -O3 -march=native (the greps check
// that vector code reached zyg in both functions): explicit heat-equation steps on a 1-D
// rod (three-point stencil, ping-pong buffers), a 2-D five-point Laplacian with a nonlinear
// source (restrict pointers), and a weighted sum over the grid. Output tangents against
// central differences along the same direction.
#include <string.h>
#include "zyg_check.h"

#define N 40
#define NX 12
#define NY 10

/* no `restrict` here: inlined into heat, it leaves llvm.experimental.noalias.scope.decl,
 * which zyg refuses (bugs/fwd_noalias_scope_decl.c) */
static void heat_step(double *out, const double *in, double nu, int n) {
    out[0] = in[0];
    out[n - 1] = in[n - 1];
    for (int i = 1; i < n - 1; i++) out[i] = in[i] + nu * (in[i - 1] - 2.0 * in[i] + in[i + 1]);
}

/* `steps` explicit steps; u holds the result */
static void heat(double *u, double *work, double nu, int steps, int n) {
    for (int s = 0; s < steps; s++) {
        heat_step(work, u, nu, n);
        heat_step(u, work, nu, n);
    }
}

static double laplace2d(const double *restrict g, double *restrict lap, double k) {
    double e = 0;
    for (int j = 1; j < NY - 1; j++)
        for (int i = 1; i < NX - 1; i++) {
            int c = j * NX + i;
            double v = g[c - 1] + g[c + 1] + g[c - NX] + g[c + NX] - 4.0 * g[c];
            lap[c] = v + k * g[c] * g[c] * g[c];
            e += lap[c] * g[c];
        }
    return e;
}

int main(void) {
    double h = 1e-6;
    for (int q = 0; q < 2; q++) {
        double u[N], du[N], w[N], dw[N], up[N], um[N], wp[N], wm[N];
        for (int i = 0; i < N; i++) {
            u[i] = sin(0.3 * i + q) + 0.1 * q * i;
            du[i] = q ? cos(0.7 * i) : (i == N / 2);
            up[i] = u[i] + h * du[i], um[i] = u[i] - h * du[i];
        }
        memset(dw, 0, sizeof dw);
        double nu = 0.2 + 0.05 * q, dnu = q ? 0.3 : 0.0;
        __enzyme_fwddiff((void *)heat, enzyme_dup, u, du, enzyme_dup, w, dw, nu, dnu, enzyme_const, 5, enzyme_const, N);
        heat(up, wp, nu + h * dnu, 5, N);
        heat(um, wm, nu - h * dnu, 5, N);
        for (int i = 0; i < N; i++) check_close("heat u", du[i], (up[i] - um[i]) / (2 * h), FD_RTOL, FD_ATOL);
        for (int i = 0; i < N; i++) check_close("heat work", dw[i], (wp[i] - wm[i]) / (2 * h), FD_RTOL, FD_ATOL);

        double g[NX * NY], dg[NX * NY], gp[NX * NY], gm[NX * NY];
        double lap[NX * NY], dlap[NX * NY], lp[NX * NY], lm[NX * NY];
        memset(lap, 0, sizeof lap), memset(dlap, 0, sizeof dlap), memset(lp, 0, sizeof lp), memset(lm, 0, sizeof lm);
        for (int c = 0; c < NX * NY; c++) {
            g[c] = 0.5 * sin(0.11 * c + q) * cos(0.07 * c);
            dg[c] = q ? 0.2 * cos(0.3 * c) : (c == 5 * NX + 4);
            gp[c] = g[c] + h * dg[c], gm[c] = g[c] - h * dg[c];
        }
        double k = 0.8, dk = q ? -0.5 : 0.0;
        double t = __enzyme_fwddiff((void *)laplace2d, enzyme_dup, g, dg, enzyme_dup, lap, dlap, k, dk);
        double ep = laplace2d(gp, lp, k + h * dk), em = laplace2d(gm, lm, k - h * dk);
        check_close("laplace energy", t, (ep - em) / (2 * h), FD_RTOL, FD_ATOL);
        for (int c = 0; c < NX * NY; c++) check_close("laplace", dlap[c], (lp[c] - lm[c]) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
