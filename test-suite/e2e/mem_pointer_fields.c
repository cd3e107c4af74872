// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Pointers kept in differentiated memory: a matrix struct { int rows, cols; double *data; }
// whose shadow struct points to the shadow data (Enzyme's convention), an array of row
// pointers built inside the function, and a linked list of nodes on the heap.
#include <stdlib.h>
#include "zyg_check.h"

typedef struct { int rows, cols; double *data; } mat;

double frob_tanh(const mat *m) {
    double s = 0.0;
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++)
            s += tanh(m->data[i * m->cols + j]) * (i + 1);
    return s;
}

double rows_product(double *x, int n) {
    double *rows[3];
    for (int r = 0; r < 3; r++)
        rows[r] = x + r * n;  // pointers into the dup argument, kept in a stack array
    double s = 0.0;
    for (int j = 0; j < n; j++)
        s += rows[0][j] * rows[1][j] + sin(rows[2][j]) * rows[(j + 1) % 3][j];
    return s;
}

typedef struct node { double value; struct node *next; } node;

double list_sum(const double *x, int n) {
    node *head = NULL;
    for (int i = 0; i < n; i++) {  // a list on the heap, nodes holding active values
        node *e = malloc(sizeof(node));
        e->value = x[i] * x[i];
        e->next = head;
        head = e;
    }
    double s = 0.0, w = 1.0;
    for (node *e = head; e; e = e->next) {
        s += w * exp(-e->value);
        w += 0.5;
    }
    while (head) {
        node *next = head->next;
        free(head);
        head = next;
    }
    return s;
}

static double fd_mat(mat *m, int k) {
    double keep = m->data[k], h = 1e-6;
    m->data[k] = keep + h;
    double up = frob_tanh(m);
    m->data[k] = keep - h;
    double down = frob_tanh(m);
    m->data[k] = keep;
    return (up - down) / (2 * h);
}

static double fd_arr(double (*f)(double *, int), double *x, int len, int n, int k) {
    double keep = x[k], h = 1e-6;
    (void)len;
    x[k] = keep + h;
    double up = f(x, n);
    x[k] = keep - h;
    double down = f(x, n);
    x[k] = keep;
    return (up - down) / (2 * h);
}

static double list_sum_mut(double *x, int n) { return list_sum(x, n); }

int main(void) {
    double data[6] = {0.3, -0.8, 1.4, 0.2, -1.1, 0.6}, ddata[6] = {0};
    mat m = {2, 3, data}, dm = {2, 3, ddata};
    __enzyme_autodiff((void *)frob_tanh, enzyme_dup, &m, &dm);
    for (int k = 0; k < 6; k++)
        check_close("dfrob/ddata", ddata[k], fd_mat(&m, k), FD_RTOL, FD_ATOL);
    check_close("shadow struct pointer kept", dm.data == ddata, 1.0, 0, 0);

    double x[12] = {0.5, -0.2, 0.9, 1.3, -0.7, 0.4, 0.1, 0.8, -1.2, 0.6, -0.3, 0.25}, dx[12] = {0};
    __enzyme_autodiff((void *)rows_product, enzyme_dup, x, dx, enzyme_const, 4);
    for (int k = 0; k < 12; k++)
        check_close("drows/dx", dx[k], fd_arr(rows_product, x, 12, 4, k), FD_RTOL, FD_ATOL);

    double dl[12] = {0};
    __enzyme_autodiff((void *)list_sum, enzyme_dup, x, dl, enzyme_const, 7);
    for (int k = 0; k < 7; k++)
        check_close("dlist/dx", dl[k], fd_arr(list_sum_mut, x, 12, 7, k), FD_RTOL, FD_ATOL);
    return zyg_report();
}
