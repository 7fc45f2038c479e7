// Policy: each leaf chooses one of k actions for all its samples, and the tree maximises the total
// weighted reward, from rewards r (n x k), the reward of each action for each sample. The loss is
// the regret against each sample's own best action, sum_i w_i max_a r_ia - max_a sum_i w_i r_ia:
// >= 0, and it never drops as samples are added (the max of a sum is at most the sum of the maxes),
// like the 0-1 loss, which is the regret of one-hot rewards. Statistics = [W, sum w max_a r_a,
// sum w r_1, ..., sum w r_k]; the leaf's value is the k mean rewards (Python predicts their
// argmax). Ties need no breaking beyond the number of splits: an impurity would cost k more
// statistics and mean nothing to a policy.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "dpdt/objectives/base.hpp"

namespace dpdt {

struct Policy : Objective<Policy> {
    static constexpr const char* kName = "policy";
    // n x n_actions, row-major: Python passes them shifted to a row minimum of 0 and divided by
    // one scale, so that the tolerances below never see raw units.
    using Target = double;
    static constexpr int kTargetDims = 2;

    const double* r = nullptr;
    const double* w = nullptr;
    int n_actions = 1;

    // The generator's score is the regret's decrease (econml's greedy PolicyTree's criterion).
    static constexpr bool kGeneratorIsLoss = true;
    static constexpr bool kLossGrowsWithSamples = true;

    static Policy make(const ObjectiveInputs& in) {
        Policy o;
        o.n_actions = in.y != nullptr && in.width == 0 ? static_cast<int>(in.columns) : in.width;
        if (o.n_actions < 1) throw std::invalid_argument("a policy needs at least one action");
        if (in.y != nullptr && in.columns != o.n_actions)
            throw std::invalid_argument("the rewards must have one column per action");
        o.r = static_cast<const double*>(in.y);
        o.w = in.w;
        return o;
    }

    int dim() const { return 2 + n_actions; }
    void add(double* s, int32_t i) const {
        const double wi = w[i];
        const double* ri = r + static_cast<int64_t>(i) * n_actions;
        double best = ri[0];
        for (int a = 1; a < n_actions; ++a) best = std::max(best, ri[a]);
        s[0] += wi;
        s[1] += wi * best;
        for (int a = 0; a < n_actions; ++a) s[2 + a] += wi * ri[a];
    }
    // The regret cancels when one action is every sample's best: what is left below a relative
    // 1e-12 of the best reward's sum is rounding, and such a leaf must report exactly 0.
    double loss(const double* s) const {
        if (s[0] <= 0.0) return 0.0;
        double chosen = s[2];
        for (int a = 1; a < n_actions; ++a) chosen = std::max(chosen, s[2 + a]);
        const double regret = s[1] - chosen;
        return regret > 1e-12 * std::abs(s[1]) ? regret : 0.0;
    }
    bool improvable(const double* s) const { return loss(s) > 0.0; }
    // An added sample raises the regret of its leaf's action by at most its best reward less
    // that action's: at most its rewards' spread.
    void loss_rises(int64_t n, double* rise) const {
        for (int64_t i = 0; i < n; ++i) {
            const double* ri = r + i * n_actions;
            const auto [lo, hi] = std::minmax_element(ri, ri + n_actions);
            rise[i] = *hi - *lo;
        }
    }
    // The children's regrets are >= 0: a split removes at most the parent's.
    double generator_score_bound(const double* s) const { return loss(s); }
    int value_dim() const { return n_actions; }
    void value(const double* s, double* out) const {
        for (int a = 0; a < n_actions; ++a) out[a] = s[0] > 0.0 ? s[2 + a] / s[0] : 0.0;
    }
};

}  // namespace dpdt
