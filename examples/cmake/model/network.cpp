// The model: a network of two dense layers as templates over their sizes and activation,
// and its loss over a std::vector of samples. loss_gradient asks zyg for the loss's
// gradient with Enzyme's __enzyme_autodiff; zyg differentiates through the templates, the
// vector's iteration and tanh.
#include "model/model.hpp"

#include "zyg/zyg.h"

#include <cmath>
#include <cstring>

// The request: a call of a function whose name is __enzyme_autodiff, filled in by zyg.
extern "C" void __enzyme_autodiff(void *, ...);

namespace {

struct Tanh {
    static double apply(double s) { return std::tanh(s); }
};
struct Identity {
    static double apply(double s) { return s; }
};

// A dense layer reading its Out x In weights, then its Out biases, from a parameter array.
template <int In, int Out, class Activation> class Dense {
  public:
    static constexpr int size = Out * In + Out;
    explicit Dense(const double *params) : weights_(params), biases_(params + Out * In) {}

    void forward(const double *in, double *out) const {
        for (int o = 0; o < Out; o++) {
            double s = biases_[o];
            for (int i = 0; i < In; i++)
                s += weights_[o * In + i] * in[i];
            out[o] = Activation::apply(s);
        }
    }

  private:
    const double *weights_, *biases_;
};

class Network {
  public:
    using Hidden = Dense<2, 4, Tanh>;
    using Output = Dense<4, 1, Identity>;
    static_assert(Hidden::size + Output::size == model::n_params, "model.hpp's n_params");

    explicit Network(const double *params) : hidden_(params), output_(params + Hidden::size) {}

    double operator()(double x0, double x1) const {
        double in[2] = {x0, x1}, h[4], y[1];
        hidden_.forward(in, h);
        output_.forward(h, y);
        return y[0];
    }

  private:
    Hidden hidden_;
    Output output_;
};

} // namespace

extern "C" double model_weight_decay(const double *params, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += params[i] * params[i];
    return s / n;
}

namespace model {

Dataset make_dataset(int n) {
    Dataset data;
    for (int i = 0; i < n; i++) {
        double x0 = -1 + 2.0 * i / (n - 1), x1 = std::sin(3.0 * i);
        data.push_back({x0, x1, std::sin(x0) * std::cos(x1) + 0.5 * x0 * x1});
    }
    return data;
}

double predict(const double *params, double x0, double x1) { return Network(params)(x0, x1); }

double loss(const double *params, const Dataset &data) {
    Network net(params);
    double s = 0;
    for (const Sample &sample : data) {
        double r = net(sample.x0, sample.x1) - sample.y;
        s += r * r;
    }
    return s / data.size() + 1e-2 * model_weight_decay(params, n_params);
}

void loss_gradient(const double *params, const Dataset &data, double *grad) {
    std::memset(grad, 0, n_params * sizeof(double));
    // The reference parameter is passed as the pointer it is; the data are constants.
    __enzyme_autodiff(reinterpret_cast<void *>(&loss), enzyme_dup, params, grad, enzyme_const, &data);
}

} // namespace model
