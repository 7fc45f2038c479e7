// Squared error: the weighted squared error summed over outputs; statistics = [W, sum w*y_j,
// sum w*y_j^2 for each output j]. The leaf predicts the weighted mean. Ties need no breaking beyond
// the number of splits.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "dpdt/objectives/base.hpp"

namespace dpdt {

struct SquaredError : Objective<SquaredError> {
    static constexpr const char* kName = "regressor";
    using Target = double;   // n x n_outputs, row-major
    static constexpr int kTargetDims = 2;

    const double* y = nullptr;
    const double* w = nullptr;
    int n_outputs = 1;

    // The generator's score is the loss's decrease: its best split is the loss's best.
    static constexpr bool kGeneratorIsLoss = true;
    static constexpr bool kLossGrowsWithSamples = true;

    static SquaredError make(const ObjectiveInputs& in) {
        SquaredError o;
        o.n_outputs = in.y != nullptr && in.width == 0 ? static_cast<int>(in.columns) : in.width;
        if (o.n_outputs < 1) throw std::invalid_argument("a regressor needs at least one output");
        if (in.y != nullptr && in.columns != o.n_outputs)
            throw std::invalid_argument("y must have one column per output");
        o.y = static_cast<const double*>(in.y);
        o.w = in.w;
        return o;
    }

    int dim() const { return 1 + 2 * n_outputs; }
    void add(double* s, int32_t i) const {
        const double wi = w[i];
        const double* yi = y + static_cast<int64_t>(i) * n_outputs;
        s[0] += wi;
        for (int j = 0; j < n_outputs; ++j) {
            s[1 + j] += wi * yi[j];
            s[1 + n_outputs + j] += wi * yi[j] * yi[j];
        }
    }
    // sum w y^2 - (sum w y)^2 / W cancels: what is left below a relative 1e-12 of sum w y^2 is
    // rounding, and a leaf that fits exactly must report exactly 0 (Python centres y so that the
    // cancellation stays small).
    double loss(const double* s) const {
        if (s[0] <= 0.0) return 0.0;
        double sse = 0.0, scale = 0.0;
        for (int j = 0; j < n_outputs; ++j) {
            sse += std::max(0.0, s[1 + n_outputs + j] - s[1 + j] * s[1 + j] / s[0]);
            scale += s[1 + n_outputs + j];
        }
        return sse > 1e-12 * scale ? sse : 0.0;
    }
    bool improvable(const double* s) const { return loss(s) > 0.0; }
    // A sample y added to a leaf of weight W and mean m raises its squared error by
    // w W / (W + w) (y - m)^2 <= w (y - m)^2, and m lies within the targets' range [lo, hi].
    void loss_rises(int64_t n, double* rise) const {
        std::fill(rise, rise + n, 0.0);
        for (int j = 0; j < n_outputs; ++j) {
            double lo = y[j], hi = y[j];
            for (int64_t i = 1; i < n; ++i) {
                lo = std::min(lo, y[i * n_outputs + j]);
                hi = std::max(hi, y[i * n_outputs + j]);
            }
            for (int64_t i = 0; i < n; ++i) {
                const double v = y[i * n_outputs + j];
                rise[i] += std::max((v - lo) * (v - lo), (hi - v) * (hi - v));
            }
        }
    }
    // The children's losses are >= 0: a split removes at most the parent's.
    double generator_score_bound(const double* s) const { return loss(s); }
    int value_dim() const { return n_outputs; }
    void value(const double* s, double* out) const {
        for (int j = 0; j < n_outputs; ++j) out[j] = s[0] > 0.0 ? s[1 + j] / s[0] : 0.0;
    }
};

}  // namespace dpdt
