// Classification: the weighted 0-1 loss; statistics = the weighted class sums. Ties are broken by
// the weighted impurity, which is also what the CART generator decreases.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "dpdt/criterion.hpp"
#include "dpdt/objectives/base.hpp"

namespace dpdt {

struct Classification : Objective<Classification> {
    static constexpr const char* kName = "classifier";
    using Target = int32_t;   // class codes 0..n_classes-1
    static constexpr int kTargetDims = 1;

    const int32_t* y = nullptr;
    const double* w = nullptr;
    int n_classes = 1;
    Criterion criterion = Criterion::Gini;

    // The generator ranks splits by impurity, not by the 0-1 loss.
    static constexpr bool kGeneratorIsLoss = false;
    static constexpr bool kLossGrowsWithSamples = true;
    static constexpr bool kZeroOneLossOnCounts = true;

    static Classification make(const ObjectiveInputs& in) {
        if (in.width < 1) throw std::invalid_argument("n_classes must be >= 1");
        Classification o;
        o.n_classes = in.width;
        o.criterion = in.criterion;
        o.w = in.w;
        o.y = static_cast<const int32_t*>(in.y);
        for (int64_t i = 0; o.y != nullptr && i < in.rows; ++i)
            if (o.y[i] < 0 || o.y[i] >= o.n_classes) throw std::invalid_argument("class codes must be in [0, n_classes)");
        return o;
    }

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
    // An added sample is at worst misclassified: its whole weight.
    void loss_rises(int64_t n, double* rise) const { std::fill(rise, rise + n, 1.0); }
    double tie(const double* s) const { return generator_impurity(s); }
    // W * impurity, what the CART generator's splits decrease.
    double generator_impurity(const double* s) const {
        const double t = weight(s);
        return t * impurity(s, n_classes, t, criterion);
    }
    // The impurity's decrease, or for gain_ratio the decrease over the split information (in
    // weight units, like a decrease).
    double generator_score(double parent, const double* l, const double* r) const {
        if (criterion == Criterion::GainRatio) {
            const double wl = weight(l), wr = weight(r), total = wl + wr;
            const double gain = parent - generator_impurity(l) - generator_impurity(r);
            const double pl = wl / total, pr = wr / total;
            return gain / -(pl * std::log2(pl) + pr * std::log2(pr));
        }
        return parent - generator_impurity(l) - generator_impurity(r);
    }
    // A split removes at most all the impurity; a gain ratio has no such bound.
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

}  // namespace dpdt
