// What the solver optimises, as traits: the sufficient statistics of a sample set, and the loss,
// tie-break, generator impurity and output value read from them. Every objective here is a sum over
// leaves of a function of the leaf's statistics, which is what makes the dynamic programme exact.
// Adding an objective means adding one struct here and instantiating the solver for it.
//
// The histograms of the binned layout sum per-sample quantities in fixed point, so that a sibling
// found by subtraction is bit-identical to one summed directly (dpdt/layout.hpp). An objective
// names those quantities (`fixed_dim`, `quantities`), how a sample adds them to the statistics
// (`add_fixed`), and which quantity's unit each statistic is counted in (`quantity_of`).
//
// What the generic search may assume of an objective is declared here, once per objective, and
// asked as O::kName (every objective declares every trait):
//   kGeneratorIsLoss       the generator's score is the loss's decrease, so its best split is the
//                          loss's best (the last level then needs no separate loss scan);
//   kLossGrowsWithSamples  a leaf's loss is >= 0 and never drops when samples are added: the
//                          bounds of the lookahead splitter and of the exact depth-2 candidate
//                          (dpdt/lookahead.hpp) hold, which they need;
//   kClassCounts           the statistics are the weighted counts of the class codes y (n_classes
//                          of them) and the loss the weighted 0-1 loss: the scans of
//                          split_search.hpp, screen.hpp and lookahead.hpp take their counting
//                          paths, which are written for Classification;
//   kNewtonGain            the statistics are [W, G, H] and the loss -G^2 / (2 (H + reg_lambda))
//                          + gamma: the binned scan compares gains as fractions (layout.hpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "dpdt/criterion.hpp"
#include "dpdt/params.hpp"

namespace dpdt {

// Weighted 0-1 loss; statistics = weighted class sums. Ties are broken by weighted impurity.
struct Classification {
    const int32_t* y = nullptr;   // class codes 0..n_classes-1
    const double* w = nullptr;
    int n_classes = 1;
    Criterion criterion = Criterion::Gini;

    // The generator ranks splits by impurity, not by the 0-1 loss.
    static constexpr bool kGeneratorIsLoss = false;
    static constexpr bool kLossGrowsWithSamples = true;
    static constexpr bool kClassCounts = true;
    static constexpr bool kNewtonGain = false;

    int dim() const { return n_classes; }
    void add(double* s, int32_t i) const { s[y[i]] += w[i]; }
    int fixed_dim() const { return 1; }
    void quantities(int32_t i, double* q) const { q[0] = w[i]; }
    void add_fixed(int64_t* s, int32_t i, const int64_t* q) const { s[y[i]] += q[0]; }
    int quantity_of(int) const { return 0; }
    double weight(const double* s) const {
        double t = 0.0;
        for (int k = 0; k < n_classes; ++k) t += s[k];
        return t;
    }
    double loss(const double* s) const { return leaf_loss(s, n_classes, weight(s)); }
    // A leaf with one class (every sample has positive weight) stays a leaf whatever alpha.
    bool improvable(const double* s) const { return loss(s) > 0.0; }
    double tie(const double* s) const { return generator_impurity(s); }
    // W * impurity, what the CART generator's splits decrease.
    double generator_impurity(const double* s) const {
        const double t = weight(s);
        return t * impurity(s, n_classes, t, criterion);
    }
    // What the generator maximises over the splits of a sample set whose generator impurity is
    // `parent` into children of statistics l and r: the impurity's decrease, or for gain_ratio the
    // decrease over the split information (in weight units, like a decrease).
    double generator_score(double parent, const double* l, const double* r) const {
        if (criterion == Criterion::GainRatio) {
            const double wl = weight(l), wr = weight(r), total = wl + wr;
            const double gain = parent - generator_impurity(l) - generator_impurity(r);
            const double pl = wl / total, pr = wr / total;
            return gain / -(pl * std::log2(pl) + pr * std::log2(pr));
        }
        return parent - generator_impurity(l) - generator_impurity(r);
    }
    // At least the generator score of any split of s (see the solver's CART generator): a split
    // removes at most all the impurity; a gain ratio has no such bound.
    double generator_score_bound(const double* s) const {
        return criterion == Criterion::GainRatio ? std::numeric_limits<double>::infinity() : generator_impurity(s);
    }
    double node_impurity(const double* s) const { return impurity(s, n_classes, weight(s), criterion); }
    int value_dim() const { return n_classes; }
    // Class sums found by subtraction can be a rounding error below zero.
    void value(const double* s, double* out) const {
        for (int k = 0; k < n_classes; ++k) out[k] = std::max(0.0, s[k]);
    }
};

// Weighted squared error summed over outputs; statistics = [W, sum w*y_j, sum w*y_j^2 for each j].
// The leaf predicts the weighted mean. Ties need no breaking beyond the number of splits.
struct SquaredError {
    const double* y = nullptr;   // n x n_outputs, row-major
    const double* w = nullptr;
    int n_outputs = 1;

    // The generator's score is the loss's decrease: its best split is the loss's best.
    static constexpr bool kGeneratorIsLoss = true;
    static constexpr bool kLossGrowsWithSamples = true;
    static constexpr bool kClassCounts = false;
    static constexpr bool kNewtonGain = false;

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
    int fixed_dim() const { return dim(); }
    void quantities(int32_t i, double* q) const {
        std::fill(q, q + dim(), 0.0);
        add(q, i);
    }
    void add_fixed(int64_t* s, int32_t, const int64_t* q) const {
        for (int d = 0; d < dim(); ++d) s[d] += q[d];
    }
    int quantity_of(int d) const { return d; }
    double weight(const double* s) const { return s[0]; }
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
    double tie(const double*) const { return 0.0; }
    double generator_impurity(const double* s) const { return loss(s); }
    double generator_score(double parent, const double* l, const double* r) const {
        return parent - generator_impurity(l) - generator_impurity(r);
    }
    double generator_score_bound(const double* s) const { return loss(s); }
    double node_impurity(const double* s) const { return s[0] > 0.0 ? loss(s) / s[0] : 0.0; }
    int value_dim() const { return n_outputs; }
    void value(const double* s, double* out) const {
        for (int j = 0; j < n_outputs; ++j) out[j] = s[0] > 0.0 ? s[1 + j] / s[0] : 0.0;
    }
};

// The second-order boosting objective (XGBoost's): with per-sample gradient g and hessian h, a
// leaf's value is -G / (H + lambda) and its loss -G^2 / (2 (H + lambda)) + gamma.
// Statistics = [W, G, H], the sums of the sample weights, gradients and hessians.
struct Newton {
    const double* g = nullptr;   // already multiplied by the sample weights
    const double* h = nullptr;
    const double* w = nullptr;
    double reg_lambda = 1.0;
    double gamma = 0.0;

    static constexpr bool kGeneratorIsLoss = true;
    // A leaf's loss is negative and drops as samples of one sign of gradient are added.
    static constexpr bool kLossGrowsWithSamples = false;
    static constexpr bool kClassCounts = false;
    static constexpr bool kNewtonGain = true;

    int dim() const { return 3; }
    void add(double* s, int32_t i) const {
        s[0] += w[i];
        s[1] += g[i];
        s[2] += h[i];
    }
    int fixed_dim() const { return 3; }
    void quantities(int32_t i, double* q) const { q[0] = w[i], q[1] = g[i], q[2] = h[i]; }
    void add_fixed(int64_t* s, int32_t, const int64_t* q) const {
        s[0] += q[0];
        s[1] += q[1];
        s[2] += q[2];
    }
    int quantity_of(int d) const { return d; }
    double weight(const double* s) const { return s[0]; }
    double loss(const double* s) const {
        const double denom = s[2] + reg_lambda;
        return (denom > 0.0 ? -0.5 * s[1] * s[1] / denom : 0.0) + gamma;
    }
    bool improvable(const double*) const { return true; }
    double tie(const double*) const { return 0.0; }
    double generator_impurity(const double* s) const { return loss(s); }
    double generator_score(double parent, const double* l, const double* r) const {
        return parent - generator_impurity(l) - generator_impurity(r);
    }
    // The children's losses have no lower bound of their own here.
    double generator_score_bound(const double*) const { return std::numeric_limits<double>::infinity(); }
    double node_impurity(const double* s) const { return loss(s); }
    int value_dim() const { return 1; }
    void value(const double* s, double* out) const {
        const double denom = s[2] + reg_lambda;
        out[0] = denom > 0.0 ? -s[1] / denom : 0.0;
    }
};

}  // namespace dpdt
