// The example's model library: a small neural network (two dense layers, templates over
// their sizes and activation) fitted to points by its mean squared error plus weight decay.
// Its gradient comes from zyg: network.cpp's requests are filled in as clang compiles it,
// through zyg_target_gradients(model ...) in CMakeLists.txt.
#ifndef MODEL_MODEL_HPP
#define MODEL_MODEL_HPP

#include <vector>

namespace model {

struct Sample {
    double x0, x1, y;
};
using Dataset = std::vector<Sample>;

// The parameters: the hidden layer's 4x2 weights and 4 biases, the output's 4 weights and bias.
constexpr int n_params = 4 * 2 + 4 + 4 + 1;

// Points of a smooth surface to fit.
Dataset make_dataset(int n);
// The network's output at (x0, x1).
double predict(const double *params, double x0, double x1);
// The mean squared error on data, plus weight decay.
double loss(const double *params, const Dataset &data);
// d loss / d params, written to grad[0..n_params): a request inside the library.
void loss_gradient(const double *params, const Dataset &data, double *grad);

} // namespace model

extern "C" {
// The mean of the squared parameters.
double model_weight_decay(const double *params, int n);
// Its gradient, exported by zyg (EXPORT model_weight_decay ARGS dup,const NAME
// model_weight_decay_grad): adds d/dparams into d_params. zyg also writes this prototype to
// the build directory's model_grads.h (HEADER).
void model_weight_decay_grad(const double *params, double *d_params, int n);
}

#endif
