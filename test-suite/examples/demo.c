/* zyg's demo: the gradient of a small model with a loop, a branch and math calls, next to
 * a finite-difference estimate. Build and run it with `bash ci/demo.sh`. */
#include <math.h>
#include <stdio.h>

extern int enzyme_const;
typedef struct { double d_amplitude, d_decay; } gradient;
gradient __enzyme_autodiff(void *, ...);

/* Squared error of a damped oscillation a * exp(-k t) * cos(3 t) against samples of the
 * true signal (a = 1.5, k = 0.4), integrated until the signal has died out. */
double loss(double amplitude, double decay, int samples) {
    double err = 0.0, t = 0.0;
    int i = 0;
    while (i < samples) {
        double model = amplitude * exp(-decay * t) * cos(3.0 * t);
        double truth = 1.5 * exp(-0.4 * t) * cos(3.0 * t);
        double e = model - truth;
        err += e > 0 ? e * e : 0.5 * e * e;   /* an asymmetric penalty: a branch */
        t += 0.05;
        i++;
        if (fabs(truth) < 1e-6 && t > 10.0)
            break;
    }
    return err;
}

int main(void) {
    double a = 1.2, k = 0.7;
    gradient g = __enzyme_autodiff((void *)loss, a, k, enzyme_const, 400);
    double h = 1e-6;
    double fa = (loss(a + h, k, 400) - loss(a - h, k, 400)) / (2 * h);
    double fk = (loss(a, k + h, 400) - loss(a, k - h, 400)) / (2 * h);
    printf("loss(%.2f, %.2f)       = %.10f\n", a, k, loss(a, k, 400));
    printf("d loss / d amplitude  = %.10f   (finite differences: %.10f)\n", g.d_amplitude, fa);
    printf("d loss / d decay      = %.10f   (finite differences: %.10f)\n", g.d_decay, fk);
    return 0;
}
