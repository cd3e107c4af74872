/* Newton's method with conjugate gradients (Newton-CG) on the extended Rosenbrock function,
 * using zyg's Hessian-vector products: forward mode (`__enzyme_fwddiff`) over the gradient
 * (`__enzyme_autodiff`). The Hessian is never formed; each CG step costs one product.
 *
 * The program first checks a Hessian-vector product and the dense Hessian against central
 * differences of the gradient, then minimises from the classic start (-1.2, 1, -1.2, 1, ...)
 * and checks that it reaches the minimum at (1, ..., 1). Exit status 0 when all holds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 10

/* sum over pairs of 100 (x[2i+1] - x[2i]^2)^2 + (1 - x[2i])^2 */
static double rosenbrock(const double *x, int n) {
    double f = 0;
    for (int i = 0; i + 1 < n; i += 2) {
        double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
        f += 100 * a * a + b * b;
    }
    return f;
}

/* g += gradient of rosenbrock at x */
static void gradient(const double *x, double *g, int n) {
    __enzyme_autodiff((void *)rosenbrock, enzyme_dup, x, g, enzyme_const, n);
}

/* hv = H(x) v (and g = the gradient); both are cleared here */
static void hessian_vector(const double *x, const double *v, double *g, double *hv, int n) {
    memset(g, 0, sizeof(double) * n);
    memset(hv, 0, sizeof(double) * n);
    __enzyme_fwddiff((void *)gradient, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, n);
}

static double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* Solves H p = -g approximately by conjugate gradients (stops at negative curvature). */
static void newton_direction(const double *x, const double *g, double *p, int n) {
    double r[N], d[N], hd[N], scratch[N];
    memset(p, 0, sizeof(double) * n);
    for (int i = 0; i < n; i++) r[i] = d[i] = -g[i];
    double rr = dot(r, r, n);
    for (int it = 0; it < 2 * n && sqrt(rr) > 1e-12; it++) {
        hessian_vector(x, d, scratch, hd, n);
        double curvature = dot(d, hd, n);
        if (curvature <= 0) {
            if (it == 0) memcpy(p, d, sizeof(double) * n); /* steepest descent */
            return;
        }
        double alpha = rr / curvature;
        for (int i = 0; i < n; i++) {
            p[i] += alpha * d[i];
            r[i] -= alpha * hd[i];
        }
        double rr_next = dot(r, r, n);
        for (int i = 0; i < n; i++) d[i] = r[i] + rr_next / rr * d[i];
        rr = rr_next;
    }
}

static int check_hessian(const double *x, int n) {
    double H[N * N], e[N], g[N], gp[N], gm[N], xp[N], xm[N], h = 1e-6;
    int bad = 0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) e[i] = i == j;
        hessian_vector(x, e, g, H + j * n, n);
        memcpy(xp, x, sizeof xp);
        memcpy(xm, x, sizeof xm);
        xp[j] += h;
        xm[j] -= h;
        memset(gp, 0, sizeof gp);
        memset(gm, 0, sizeof gm);
        gradient(xp, gp, n);
        gradient(xm, gm, n);
        for (int i = 0; i < n; i++) {
            double fd = (gp[i] - gm[i]) / (2 * h);
            if (fabs(H[j * n + i] - fd) > 1e-5 * (1 + fabs(fd))) bad++;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (fabs(H[i * n + j] - H[j * n + i]) > 1e-9 * (1 + fabs(H[i * n + j]))) bad++;
    printf("dense Hessian at the start: %s (%d x %d, against central differences of the gradient, symmetric)\n",
           bad ? "WRONG" : "ok", n, n);
    return bad;
}

int main(void) {
    double x[N], g[N], p[N], trial[N];
    for (int i = 0; i < N; i++) x[i] = i % 2 ? 1.0 : -1.2;
    int bad = check_hessian(x, N);
    int it = 0;
    for (; it < 100; it++) {
        memset(g, 0, sizeof g);
        gradient(x, g, N);
        double gnorm = sqrt(dot(g, g, N));
        printf("iteration %2d: f = %.6e, |gradient| = %.3e\n", it, rosenbrock(x, N), gnorm);
        if (gnorm < 1e-10) break;
        newton_direction(x, g, p, N);
        /* backtracking line search (Armijo) */
        double f0 = rosenbrock(x, N), step = 1, slope = dot(g, p, N);
        for (;;) {
            for (int i = 0; i < N; i++) trial[i] = x[i] + step * p[i];
            if (rosenbrock(trial, N) <= f0 + 1e-4 * step * slope || step < 1e-12) break;
            step /= 2;
        }
        memcpy(x, trial, sizeof x);
    }
    double err = 0;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(x[i] - 1));
    int converged = err < 1e-8;
    printf("minimum %s after %d Newton steps: max |x_i - 1| = %.2e\n", converged ? "found" : "NOT found", it, err);
    return bad || !converged;
}
