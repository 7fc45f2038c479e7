// Classification: the weighted 0-1 loss; statistics = the weighted class sums. Ties are broken by
// the weighted impurity, which is also what the CART generator decreases.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

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
    static constexpr bool kBoundedValue = true;
    // The 0-1 loss is the weight less the heaviest class's.
    static constexpr bool kLossIsSumLessMaxOfSums = true;

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
    int sum_terms_count() const { return n_classes; }
    void sum_terms(int32_t i, double& base, double* terms) const {
        base = w[i];
        std::fill(terms, terms + n_classes, 0.0);
        terms[y[i]] = w[i];
    }
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
    // Value bounds (base.hpp) on P(class 1) of two classes: a leaf outputting p predicts class 1
    // when p > 1/2 (argmax keeps class 0 on a tie), and its 0-1 loss is the other class's weight.
    void check_bounded_value() const {
        if (n_classes > 2)
            throw std::invalid_argument("monotonic_cst is only supported for binary classification, not for " +
                                        std::to_string(n_classes) + " classes");
    }
    double scalar_value(const double* s) const {
        if (n_classes < 2) return 0.0;
        const double c0 = std::max(0.0, s[0]), c1 = std::max(0.0, s[1]);
        return c0 + c1 > 0.0 ? c1 / (c0 + c1) : 0.0;
    }
    double loss_at(const double* s, double p) const {
        if (n_classes < 2) return loss(s);
        return std::max(0.0, p > 0.5 ? s[0] : s[1]);
    }
    // The class sums of the same weight in proportions [1 - p, p].
    void value_at(const double* s, double p, double* out) const {
        if (n_classes < 2) return value(s, out);
        const double w = std::max(0.0, s[0]) + std::max(0.0, s[1]);
        out[0] = w * (1.0 - p);
        out[1] = w * p;
    }
    int value_dim() const { return n_classes; }
    // Class sums found by subtraction can be a rounding error below zero.
    void value(const double* s, double* out) const {
        for (int k = 0; k < n_classes; ++k) out[k] = std::max(0.0, s[k]);
    }
};

}  // namespace dpdt
