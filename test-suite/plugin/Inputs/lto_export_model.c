/* The other file of plugin/lto_export.c: the exported function, which calls `weight`,
 * defined in the file that calls the export. */
#include <math.h>

double weight(int i);

double energy(const double *x, int n) {
    double e = 0;
    for (int i = 0; i < n; i++)
        e += weight(i) * log(1 + x[i] * x[i]) + x[i] * x[(i + 1) % n];
    return e;
}
