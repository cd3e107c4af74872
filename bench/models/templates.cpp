// A C++ model for the plugin's compile-time benchmark (bench/src/bin/plugin_time.rs): not
// timed at run time, only compiled. It is the C++ a user of the plugin would write: class
// templates over the scalar type, std::vector for the layers and the activations (grown by
// push_back, so the allocation and copy code of <vector> is in the module),
// function templates for the activations, a lambda, std::accumulate and std::inner_product,
// and two gradient requests, instantiated for double.
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
}

namespace model {

struct Tanh {
    template <typename T> static T apply(T v) { return std::tanh(v); }
};
struct Softplus {
    template <typename T> static T apply(T v) { return std::log1p(std::exp(v)); }
};

// One dense layer: out = Act(W in + b), W row-major (rows x cols), read from a flat
// parameter array at `offset`.
template <typename T, typename Act> struct Dense {
    std::size_t rows, cols, offset;
    std::size_t size() const { return rows * cols + rows; }
    std::vector<T> forward(const T *params, const std::vector<T> &in) const {
        std::vector<T> out(rows);
        const T *w = params + offset, *b = w + rows * cols;
        for (std::size_t r = 0; r < rows; r++) {
            T s = std::inner_product(in.begin(), in.end(), w + r * cols, b[r]);
            out[r] = Act::apply(s);
        }
        return out;
    }
};

template <typename T> struct Mlp {
    std::vector<Dense<T, Tanh>> hidden;
    Dense<T, Softplus> last;

    Mlp(const std::vector<std::size_t> &widths, std::size_t outputs) : last{0, 0, 0} {
        std::size_t offset = 0;
        for (std::size_t i = 0; i + 1 < widths.size(); i++) {
            hidden.push_back(Dense<T, Tanh>{widths[i + 1], widths[i], offset});
            offset += hidden.back().size();
        }
        last = Dense<T, Softplus>{outputs, widths.back(), offset};
    }

    T loss(const T *params, const T *x, const T *y, std::size_t batch) const {
        T total = 0;
        const std::size_t inputs = hidden.front().cols;
        for (std::size_t n = 0; n < batch; n++) {
            std::vector<T> a;
            for (std::size_t i = 0; i < inputs; i++)
                a.push_back(x[n * inputs + i]);
            for (const auto &layer : hidden)
                a = layer.forward(params, a);
            std::vector<T> b = last.forward(params, a);
            auto sq = [&](T acc, std::size_t k) { return acc + (b[k] - y[n * last.rows + k]) * (b[k] - y[n * last.rows + k]); };
            std::vector<std::size_t> idx(b.size());
            std::iota(idx.begin(), idx.end(), std::size_t{0});
            total += std::accumulate(idx.begin(), idx.end(), T(0), sq);
        }
        return total / T(batch);
    }
};

// A polynomial of degree N-1 by Horner's rule, fitted by least squares with an L2 penalty.
template <typename T, int N> T poly_fit(const T *c, const std::vector<T> &xs, const std::vector<T> &ys, T lambda) {
    T s = 0;
    for (std::size_t i = 0; i < xs.size(); i++) {
        T r = c[N - 1];
        for (int k = N - 2; k >= 0; k--)
            r = r * xs[i] + c[k];
        s += (r - ys[i]) * (r - ys[i]);
    }
    T reg = std::inner_product(c, c + N, c, T(0));
    return s + lambda * reg;
}

} // namespace model

extern "C" double mlp_loss(const double *params, const double *x, const double *y, int batch) {
    model::Mlp<double> net({16, 32, 32, 16}, 4);
    return net.loss(params, x, y, (std::size_t)batch);
}

extern "C" double poly_loss(const double *c, const double *x, const double *y, int n) {
    std::vector<double> xs, ys;
    for (int i = 0; i < n; i++) {
        xs.push_back(x[i]);
        ys.push_back(y[i]);
    }
    return model::poly_fit<double, 6>(c, xs, ys, 1e-3);
}

// Gradients with respect to the parameters (the data constant).
extern "C" void mlp_grad(const double *params, double *dparams, const double *x, const double *y, int batch) {
    __enzyme_autodiff((void *)mlp_loss, enzyme_dup, params, dparams, enzyme_const, x, enzyme_const, y,
                      enzyme_const, batch);
}

extern "C" void poly_grad(const double *c, double *dc, const double *x, const double *y, int n) {
    __enzyme_autodiff((void *)poly_loss, enzyme_dup, c, dc, enzyme_const, x, enzyme_const, y, enzyme_const, n);
}
