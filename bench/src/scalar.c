/* Scalar-heavy kernels, each with a hand-written gradient: chains of sin/cos, a scalar loop
 * of 10^6 iterations, logsumexp, logistic regression, a 2-layer MLP, Bessel J_nu by its
 * series, and a branchy function. Inputs come from the ADBench generator (seeded). */
#include "bench.h"
#include "scalar.h"

/* ------------------------------------------------------------------------------------------
 * sin/cos chains: sum_i g(x_i), g = 32 rounds of v <- v + sin(v) cos(1.1 v) / 10 (a map whose
 * derivative stays between 0.01 and 100 over the chain) */

#define SC_DEPTH 32

static double sc_chain(double v) {
    for (int k = 0; k < SC_DEPTH; k++)
        v = v + 0.1 * sin(v) * cos(1.1 * v);
    return v;
}

static double sincos_sum(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += sc_chain(x[i]);
    return s;
}

typedef struct {
    bench_grad g;
    int n;
    double *x;
} vec_ctx;

static vec_ctx *vec_new(int n, int grad_len, uint64_t seed, double lo, double hi) {
    vec_ctx *c = (vec_ctx *)calloc(1, sizeof *c);
    c->n = n;
    bench_grad_init(&c->g, grad_len);
    c->x = (double *)malloc(sizeof(double) * n);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++)
        c->x[i] = adb_rng_uniform(&r, lo, hi);
    return c;
}

void vec_free(void *p) {
    vec_ctx *c = (vec_ctx *)p;
    bench_grad_free(&c->g);
    free(c->x);
    free(c);
}

void *sincos_setup(int n, uint64_t seed) { return vec_new(n, n, seed, -3.0, 3.0); }

double sincos_primal(void *p) {
    vec_ctx *c = (vec_ctx *)p;
    return sincos_sum(c->x, c->n);
}

double sincos_zyg(void *p) {
    vec_ctx *c = (vec_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->n);
    ZB_AUTODIFFV((void *)sincos_sum, enzyme_dup, c->x, c->g.zyg, enzyme_const, c->n);
    return c->g.zyg[0];
}

/* forward mode along each chain: d/dv (v + sin v cos(1.1 v) / 10)
 *                                 = 1 + (cos v cos(1.1 v) - 1.1 sin v sin(1.1 v)) / 10 */
double sincos_hand(void *p) {
    vec_ctx *c = (vec_ctx *)p;
    double s = 0.0;
    for (int i = 0; i < c->n; i++) {
        double v = c->x[i], dv = 1.0;
        for (int k = 0; k < SC_DEPTH; k++) {
            double sv = sin(v), cv = cos(v), s11 = sin(1.1 * v), c11 = cos(1.1 * v);
            dv *= 1.0 + 0.1 * (cv * c11 - 1.1 * sv * s11);
            v = v + 0.1 * sv * c11;
        }
        c->g.hand[i] = dv;
        s += v;
    }
    return s;
}

/* ------------------------------------------------------------------------------------------
 * a scalar loop: x^n by n multiplications (n = 10^6) */

static double pow_loop(double x, int n) {
    double r = 1.0;
    for (int i = 0; i < n; i++)
        r *= x;
    return r;
}

typedef struct {
    bench_grad g;
    int n;
    double x;
} loop_ctx;

void *loop_setup(int n, uint64_t seed) {
    loop_ctx *c = (loop_ctx *)calloc(1, sizeof *c);
    bench_grad_init(&c->g, 1);
    c->n = n;
    adb_rng r = adb_rng_new(seed);
    c->x = 1.0 + adb_rng_uniform(&r, 0.5, 1.0) / n; /* x^n stays near e^0.75 */
    return c;
}

void loop_free(void *p) {
    loop_ctx *c = (loop_ctx *)p;
    bench_grad_free(&c->g);
    free(c);
}

double loop_primal(void *p) {
    loop_ctx *c = (loop_ctx *)p;
    return pow_loop(c->x, c->n);
}

double loop_zyg(void *p) {
    loop_ctx *c = (loop_ctx *)p;
    c->g.zyg[0] = ZB_AUTODIFF((void *)pow_loop, c->x, enzyme_const, c->n);
    return c->g.zyg[0];
}

/* the product rule carried along the loop: d(r x) = dr x + r */
double loop_hand(void *p) {
    loop_ctx *c = (loop_ctx *)p;
    double r = 1.0, dr = 0.0, x = c->x;
    for (int i = 0; i < c->n; i++) {
        dr = dr * x + r;
        r *= x;
    }
    c->g.hand[0] = dr;
    return r;
}

/* ------------------------------------------------------------------------------------------
 * logsumexp over n values (scalar.h) */

void *lse_setup(int n, uint64_t seed) { return vec_new(n, n, seed, -5.0, 5.0); }

double lse_primal(void *p) {
    vec_ctx *c = (vec_ctx *)p;
    return logsumexp(c->x, c->n);
}

double lse_zyg(void *p) {
    vec_ctx *c = (vec_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->n);
    ZB_AUTODIFFV((void *)logsumexp, enzyme_dup, c->x, c->g.zyg, enzyme_const, c->n);
    return c->g.zyg[0];
}

double lse_hand(void *p) {
    vec_ctx *c = (vec_ctx *)p;
    return logsumexp_grad(c->x, c->n, c->g.hand);
}

/* ------------------------------------------------------------------------------------------
 * logistic regression: mean of softplus(-y_i (w . x_i + b)) over n samples of d features,
 * labels +-1; the gradient with respect to w and b (w[d] is the bias) */

static double logreg_loss(const double *w, const double *X, const double *y, int n, int d) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double z = w[d];
        for (int j = 0; j < d; j++)
            z += w[j] * X[(size_t)i * d + j];
        double t = -y[i] * z;
        s += t > 0 ? t + log1p(exp(-t)) : log1p(exp(t));
    }
    return s / n;
}

typedef struct {
    bench_grad g;
    int n, d;
    double *w, *X, *y;
} logreg_ctx;

void *logreg_setup(int n, int d, uint64_t seed) {
    logreg_ctx *c = (logreg_ctx *)calloc(1, sizeof *c);
    c->n = n;
    c->d = d;
    bench_grad_init(&c->g, d + 1);
    c->w = (double *)malloc(sizeof(double) * (d + 1));
    c->X = (double *)malloc(sizeof(double) * n * d);
    c->y = (double *)malloc(sizeof(double) * n);
    adb_rng r = adb_rng_new(seed);
    for (int j = 0; j <= d; j++)
        c->w[j] = adb_rng_uniform(&r, -0.5, 0.5);
    for (int i = 0; i < n * d; i++)
        c->X[i] = adb_rng_uniform(&r, -1.0, 1.0);
    for (int i = 0; i < n; i++)
        c->y[i] = adb_rng_unit(&r) < 0.5 ? -1.0 : 1.0;
    return c;
}

void logreg_free(void *p) {
    logreg_ctx *c = (logreg_ctx *)p;
    bench_grad_free(&c->g);
    free(c->w);
    free(c->X);
    free(c->y);
    free(c);
}

double logreg_primal(void *p) {
    logreg_ctx *c = (logreg_ctx *)p;
    return logreg_loss(c->w, c->X, c->y, c->n, c->d);
}

double logreg_zyg(void *p) {
    logreg_ctx *c = (logreg_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->g.n);
    ZB_AUTODIFFV((void *)logreg_loss, enzyme_dup, c->w, c->g.zyg, enzyme_const, c->X, enzyme_const, c->y,
                 enzyme_const, c->n, enzyme_const, c->d);
    return c->g.zyg[0];
}

/* d softplus(t) / dt = sigmoid(t) */
double logreg_hand(void *p) {
    logreg_ctx *c = (logreg_ctx *)p;
    int n = c->n, d = c->d;
    const double *w = c->w, *X = c->X, *y = c->y;
    double *dw = c->g.hand, s = 0.0;
    bench_zero(dw, (size_t)d + 1);
    for (int i = 0; i < n; i++) {
        const double *xi = &X[(size_t)i * d];
        double z = w[d];
        for (int j = 0; j < d; j++)
            z += w[j] * xi[j];
        double t = -y[i] * z;
        s += t > 0 ? t + log1p(exp(-t)) : log1p(exp(t));
        double dz = -y[i] / (1.0 + exp(-t)) / n;
        for (int j = 0; j < d; j++)
            dw[j] += dz * xi[j];
        dw[d] += dz;
    }
    return s / n;
}

/* ------------------------------------------------------------------------------------------
 * a 2-layer MLP (scalar.h) */

typedef struct {
    bench_grad g;
    int batch, d, h, o;
    double *theta, *X;
    int *labels;
} mlp_ctx;

void *mlp_setup(int batch, int d, int h, int o, uint64_t seed) {
    mlp_ctx *c = (mlp_ctx *)calloc(1, sizeof *c);
    c->batch = batch;
    c->d = d;
    c->h = h;
    c->o = o;
    int np = h * d + h + o * h + o;
    bench_grad_init(&c->g, np);
    c->theta = (double *)malloc(sizeof(double) * np);
    c->X = (double *)malloc(sizeof(double) * batch * d);
    c->labels = (int *)malloc(sizeof(int) * batch);
    mlp_generate(batch, d, h, o, seed, c->theta, c->X, c->labels);
    return c;
}

void mlp_free(void *p) {
    mlp_ctx *c = (mlp_ctx *)p;
    bench_grad_free(&c->g);
    free(c->theta);
    free(c->X);
    free(c->labels);
    free(c);
}

double mlp_primal(void *p) {
    mlp_ctx *c = (mlp_ctx *)p;
    return mlp_loss(c->theta, c->X, c->labels, c->batch, c->d, c->h, c->o);
}

double mlp_zyg(void *p) {
    mlp_ctx *c = (mlp_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->g.n);
    ZB_AUTODIFFV((void *)mlp_loss, enzyme_dup, c->theta, c->g.zyg, enzyme_const, c->X, enzyme_const, c->labels,
                 enzyme_const, c->batch, enzyme_const, c->d, enzyme_const, c->h, enzyme_const, c->o);
    return c->g.zyg[0];
}

double mlp_hand(void *p) {
    mlp_ctx *c = (mlp_ctx *)p;
    return mlp_loss_grad(c->theta, c->X, c->labels, c->batch, c->d, c->h, c->o, c->g.hand);
}

/* ------------------------------------------------------------------------------------------
 * Bessel J_nu(x) by its power series, sum_m (-1)^m (x/2)^(2m+nu) / (m! Gamma(m+nu+1)), each
 * term from the previous one; the sum over n points, differentiated with respect to x (nu
 * constant) */

static double bessel_j(double nu, double x, int terms) {
    double h = 0.5 * x;
    double term = exp(nu * log(h) - lgamma(nu + 1.0));
    double sum = term;
    for (int m = 1; m < terms; m++) {
        term *= -h * h / (m * (m + nu));
        sum += term;
    }
    return sum;
}

static double bessel_sum(const double *xs, const double *nus, int n, int terms) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += bessel_j(nus[i], xs[i], terms);
    return s;
}

typedef struct {
    bench_grad g;
    int n, terms;
    double *xs, *nus;
} bessel_ctx;

void *bessel_setup(int n, int terms, uint64_t seed) {
    bessel_ctx *c = (bessel_ctx *)calloc(1, sizeof *c);
    c->n = n;
    c->terms = terms;
    bench_grad_init(&c->g, n);
    c->xs = (double *)malloc(sizeof(double) * n);
    c->nus = (double *)malloc(sizeof(double) * n);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++) {
        c->xs[i] = adb_rng_uniform(&r, 0.5, 10.0);
        c->nus[i] = adb_rng_uniform(&r, 0.0, 3.0);
    }
    return c;
}

void bessel_free(void *p) {
    bessel_ctx *c = (bessel_ctx *)p;
    bench_grad_free(&c->g);
    free(c->xs);
    free(c->nus);
    free(c);
}

double bessel_primal(void *p) {
    bessel_ctx *c = (bessel_ctx *)p;
    return bessel_sum(c->xs, c->nus, c->n, c->terms);
}

double bessel_zyg(void *p) {
    bessel_ctx *c = (bessel_ctx *)p;
    bench_zero(c->g.zyg, (size_t)c->n);
    ZB_AUTODIFFV((void *)bessel_sum, enzyme_dup, c->xs, c->g.zyg, enzyme_const, c->nus, enzyme_const, c->n,
                 enzyme_const, c->terms);
    return c->g.zyg[0];
}

/* term_m is proportional to x^(2m+nu): its derivative is term_m (2m + nu) / x */
double bessel_hand(void *p) {
    bessel_ctx *c = (bessel_ctx *)p;
    double s = 0.0;
    for (int i = 0; i < c->n; i++) {
        double nu = c->nus[i], x = c->xs[i], h = 0.5 * x;
        double term = exp(nu * log(h) - lgamma(nu + 1.0));
        double sum = term, dsum = term * nu;
        for (int m = 1; m < c->terms; m++) {
            term *= -h * h / (m * (m + nu));
            sum += term;
            dsum += term * (2 * m + nu);
        }
        c->g.hand[i] = dsum / x;
        s += sum;
    }
    return s;
}

/* ------------------------------------------------------------------------------------------
 * a branchy scalar function of two variables (nested conditions, a switch, math calls),
 * differentiated at n points, one request per point */

static double branchy(double x, double y) {
    double s;
    if (x > y)
        s = sin(x) * y + exp(-x * x);
    else if (x < -1.0)
        s = log(1.0 + x * x) - cos(y);
    else
        s = x * y * y + tanh(x);
    switch ((int)floor(fabs(y)) % 3) {
    case 0: s += sqrt(1.0 + y * y); break;
    case 1: s *= 1.5; break;
    default: s -= x; break;
    }
    return s;
}

typedef struct {
    bench_grad g; /* d/dx at every point, then d/dy */
    int n;
    double *xs, *ys;
} branchy_ctx;

void *branchy_setup(int n, uint64_t seed) {
    branchy_ctx *c = (branchy_ctx *)calloc(1, sizeof *c);
    c->n = n;
    bench_grad_init(&c->g, 2 * n);
    c->xs = (double *)malloc(sizeof(double) * n);
    c->ys = (double *)malloc(sizeof(double) * n);
    adb_rng r = adb_rng_new(seed);
    for (int i = 0; i < n; i++) {
        c->xs[i] = adb_rng_uniform(&r, -2.0, 2.0);
        c->ys[i] = adb_rng_uniform(&r, -2.4, 2.4);
    }
    return c;
}

void branchy_free(void *p) {
    branchy_ctx *c = (branchy_ctx *)p;
    bench_grad_free(&c->g);
    free(c->xs);
    free(c->ys);
    free(c);
}

double branchy_primal(void *p) {
    branchy_ctx *c = (branchy_ctx *)p;
    double s = 0.0;
    for (int i = 0; i < c->n; i++)
        s += branchy(c->xs[i], c->ys[i]);
    return s;
}

double branchy_zyg(void *p) {
    branchy_ctx *c = (branchy_ctx *)p;
    for (int i = 0; i < c->n; i++) {
        zb_grad2 g = ZB_AUTODIFF2((void *)branchy, c->xs[i], c->ys[i]);
        c->g.zyg[i] = g.d0;
        c->g.zyg[c->n + i] = g.d1;
    }
    return c->g.zyg[0];
}

double branchy_hand(void *p) {
    branchy_ctx *c = (branchy_ctx *)p;
    double total = 0.0;
    for (int i = 0; i < c->n; i++) {
        double x = c->xs[i], y = c->ys[i], s, dx, dy;
        if (x > y) {
            double e = exp(-x * x);
            s = sin(x) * y + e;
            dx = cos(x) * y - 2 * x * e;
            dy = sin(x);
        } else if (x < -1.0) {
            s = log(1.0 + x * x) - cos(y);
            dx = 2 * x / (1.0 + x * x);
            dy = sin(y);
        } else {
            double t = tanh(x);
            s = x * y * y + t;
            dx = y * y + 1 - t * t;
            dy = 2 * x * y;
        }
        switch ((int)floor(fabs(y)) % 3) {
        case 0: {
            double q = sqrt(1.0 + y * y);
            s += q;
            dy += y / q;
            break;
        }
        case 1:
            s *= 1.5;
            dx *= 1.5;
            dy *= 1.5;
            break;
        default:
            s -= x;
            dx -= 1.0;
            break;
        }
        c->g.hand[i] = dx;
        c->g.hand[c->n + i] = dy;
        total += s;
    }
    return total;
}
