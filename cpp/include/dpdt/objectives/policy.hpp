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
    // It is flat: a split whose children keep the node's best action decreases it by 0, and most
    // do, so the generator would stop, or split where the first tie falls, where a split that
    // changes nothing now lets the next level gain. Its second key tells those splits apart
    // (generator_secondary): the greedy tree's where no split gains, the lexicographic tree's
    // among near ties, and the search takes the candidates of both trees.
    static constexpr bool kGeneratorIsLoss = true;
    static constexpr bool kLossGrowsWithSamples = true;
    static constexpr bool kGeneratorHasSecondary = true;
    // The regret is the best rewards' sum less the chosen action's (less rounding: see loss).
    static constexpr bool kLossIsSumLessMaxOfSums = true;
    // Decreases below this share of the node's regret tie in the lexicographic tree.
    static constexpr double kTies = 0.01;
    // Rewards are heavy-tailed scores: the decrease is often largest for a split that cuts off a
    // few samples of extreme rewards, which gains little and spends the level. The generators
    // keep 5 % of a node's samples on each side, as econml's greedy tree does (its
    // min_balancedness_tol=0.45), so that its tree is one the search contains; the exact last
    // level, where no later split is at stake, is not held to it.
    static constexpr double kGeneratorMinShare = 0.05;

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
    int sum_terms_count() const { return n_actions; }
    void sum_terms(int32_t i, double& base, double* terms) const {
        const double wi = w[i];
        const double* ri = r + static_cast<int64_t>(i) * n_actions;
        double best = ri[0];
        for (int a = 1; a < n_actions; ++a) best = std::max(best, ri[a]);
        base = wi * best;
        for (int a = 0; a < n_actions; ++a) terms[a] = wi * ri[a];
    }
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
    // The decrease is >= 0; one rounded below 0 would stop the generator at a split it takes at 0.
    double generator_score(double parent, const double* left, const double* right) const {
        return std::max(0.0, parent - loss(left) - loss(right));
    }
    double generator_ties(const double* s) const { return kTies * loss(s); }
    // The decrease of the squared error of the reward contrasts r_a - mean_b r_b over the
    // children (less the parent's term, which all splits share): a regression tree on the
    // actions' effects, which grows where their means differ, whichever action wins. It reads
    // the sums the loss reads, so it costs no statistic.
    double generator_secondary(const double* left, const double* right) const {
        return contrast_fit(left) + contrast_fit(right);
    }
    // sum_a (sum w c_a)^2 / W of a node's contrasts c_a = r_a - mean_b r_b.
    double contrast_fit(const double* s) const {
        if (s[0] <= 0.0) return 0.0;
        double mean = 0.0;
        for (int a = 0; a < n_actions; ++a) mean += s[2 + a];
        mean /= n_actions;
        double fit = 0.0;
        for (int a = 0; a < n_actions; ++a) fit += (s[2 + a] - mean) * (s[2 + a] - mean);
        return fit / s[0];
    }
    int value_dim() const { return n_actions; }
    void value(const double* s, double* out) const {
        for (int a = 0; a < n_actions; ++a) out[a] = s[0] > 0.0 ? s[2 + a] / s[0] : 0.0;
    }
};

}  // namespace dpdt
