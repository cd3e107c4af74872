// Checks the model library's gradients (model/network.cpp, filled in by zyg's plugin) against
// central finite differences: the loss's gradient at several parameter vectors, and the
// exported model_weight_decay_grad against its closed form. Then a few steps of gradient
// descent must lower the loss. Prints one line per check and exits non-zero on a mismatch.
#include "model/model.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

int failures = 0;

bool close(double got, double want, double tolerance) {
    return std::fabs(got - want) <= tolerance * (1 + std::fabs(want));
}

// Parameters spread over [-1, 1], different for each seed.
std::vector<double> parameters(int seed) {
    std::vector<double> p(model::n_params);
    for (int i = 0; i < model::n_params; i++)
        p[i] = std::sin(1.7 * i + 2.3 * seed + 0.4);
    return p;
}

void check_loss_gradient(const model::Dataset &data, int seed) {
    std::vector<double> p = parameters(seed), grad(model::n_params);
    model::loss_gradient(p.data(), data, grad.data());
    for (int i = 0; i < model::n_params; i++) {
        const double h = 1e-6, saved = p[i];
        p[i] = saved + h;
        double up = model::loss(p.data(), data);
        p[i] = saved - h;
        double down = model::loss(p.data(), data);
        p[i] = saved;
        double fd = (up - down) / (2 * h);
        if (!close(grad[i], fd, 1e-6)) {
            std::printf("FAIL d loss / d p[%d] at point %d: zyg %.12g, finite differences %.12g\n", i, seed, grad[i], fd);
            failures++;
        }
    }
}

void check_weight_decay(int seed) {
    std::vector<double> p = parameters(seed), d(model::n_params, 0.0);
    model_weight_decay_grad(p.data(), d.data(), model::n_params);
    for (int i = 0; i < model::n_params; i++) {
        double want = 2 * p[i] / model::n_params;
        if (!close(d[i], want, 1e-12)) {
            std::printf("FAIL d weight_decay / d p[%d] at point %d: zyg %.12g, closed form %.12g\n", i, seed, d[i], want);
            failures++;
        }
    }
}

} // namespace

int main() {
    model::Dataset data = model::make_dataset(24);
    const int points = 4;
    for (int seed = 0; seed < points; seed++) {
        check_loss_gradient(data, seed);
        check_weight_decay(seed);
    }
    std::printf("gradcheck: %d points x %d parameters: loss gradient against central differences, "
                "exported weight-decay gradient against 2p/n\n",
                points, model::n_params);

    // Gradient descent with zyg's gradient must make progress.
    std::vector<double> p = parameters(0), grad(model::n_params);
    double first = model::loss(p.data(), data);
    for (int step = 0; step < 300; step++) {
        model::loss_gradient(p.data(), data, grad.data());
        for (int i = 0; i < model::n_params; i++)
            p[i] -= 0.1 * grad[i];
    }
    double last = model::loss(p.data(), data);
    std::printf("gradcheck: descent lowered the loss from %.6f to %.6f\n", first, last);
    if (!(last < 0.5 * first)) {
        std::printf("FAIL descent: the loss did not halve\n");
        failures++;
    }
    if (failures) {
        std::printf("gradcheck: FAILED (%d mismatches)\n", failures);
        return 1;
    }
    std::printf("gradcheck: ok: gradients match\n");
    return 0;
}
