// The second-order boosting objective (XGBoost's): with per-sample gradient g and hessian h, a
// leaf's value is -G / (H + lambda) and its loss -G^2 / (2 (H + lambda)) + gamma.
// Statistics = [W, G, H], the sums of the sample weights, gradients and hessians.
#pragma once
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "dpdt/objectives/base.hpp"

namespace dpdt {

struct Newton : Objective<Newton> {
    static constexpr const char* kName = "newton";
    // Row i is (g_i, h_i), both already multiplied by the sample weight.
    using Target = double;
    static constexpr int kTargetDims = 2;

    const double* gh = nullptr;
    const double* w = nullptr;
    double reg_lambda = 1.0;
    double gamma = 0.0;

    static constexpr bool kGeneratorIsLoss = true;
    // A leaf's loss is negative and drops as samples of one sign of gradient are added.
    static constexpr bool kLossGrowsWithSamples = false;
    static constexpr bool kGainIsNewtonFraction = true;
    static constexpr bool kBoundedValue = true;

    static Newton make(const ObjectiveInputs& in) {
        if (in.y != nullptr && in.columns != 2) throw std::invalid_argument("y must hold (gradient, hessian) rows");
        Newton o;
        o.gh = static_cast<const double*>(in.y);
        o.w = in.w;
        o.reg_lambda = in.reg_lambda;
        o.gamma = in.gamma;
        return o;
    }

    int dim() const { return 3; }
    void add(double* s, int32_t i) const {
        s[0] += w[i];
        s[1] += gh[2 * static_cast<int64_t>(i)];
        s[2] += gh[2 * static_cast<int64_t>(i) + 1];
    }
    double loss(const double* s) const {
        const double denom = s[2] + reg_lambda;
        return (denom > 0.0 ? -0.5 * s[1] * s[1] / denom : 0.0) + gamma;
    }
    // The tree reports the leaf's loss itself, not per unit weight.
    double node_impurity(const double* s) const { return loss(s); }
    // Value bounds (base.hpp) on -G / (H + lambda): the second-order loss G v + (H + lambda) v^2 / 2
    // + gamma, whose minimum is loss(s).
    void check_bounded_value() const {}
    double scalar_value(const double* s) const {
        const double denom = s[2] + reg_lambda;
        return denom > 0.0 ? -s[1] / denom : 0.0;
    }
    double loss_at(const double* s, double v) const {
        const double denom = s[2] + reg_lambda;
        return (denom > 0.0 ? s[1] * v + 0.5 * denom * v * v : 0.0) + gamma;
    }
    void value_at(const double*, double v, double* out) const { out[0] = v; }
    int value_dim() const { return 1; }
    void value(const double* s, double* out) const {
        const double denom = s[2] + reg_lambda;
        out[0] = denom > 0.0 ? -s[1] / denom : 0.0;
    }
};

}  // namespace dpdt
