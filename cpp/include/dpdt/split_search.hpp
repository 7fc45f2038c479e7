// Split search on a node whose samples are kept sorted by every feature, generic over the
// objective (dpdt/objective.hpp), with classification's hot loops specialised.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/objective.hpp"
#include "dpdt/params.hpp"

namespace dpdt {

// A node's samples: p blocks of m sample ids, block f sorted by feature f.
// Invariant: every block holds the same set of ids.
struct NodeView {
    int32_t m = 0;
    const int32_t* blocks = nullptr;
    const int32_t* block(int64_t f) const { return blocks + f * static_cast<int64_t>(m); }
};

// What a valid split leaves on each side.
struct LeafLimits {
    int min_samples = 1;
    double min_weight = 0.0;
    bool allow(int32_t n_left, int32_t n_right, double w_left, double w_right) const {
        return n_left >= min_samples && n_right >= min_samples && w_left >= min_weight &&
               w_right >= min_weight;
    }
};

struct SplitRecord {
    int32_t feature = -1;
    double threshold = 0.0;
    int32_t n_left = 0;        // samples [0, n_left) of the feature's block go left
    double score = 0.0;        // what the search optimised
    double tie = 0.0;          // its secondary key
    bool found() const { return feature >= 0; }
};

// Midpoint between consecutive distinct values; a value equal to it goes left.
inline double midpoint(double lo, double hi) {
    double t = lo / 2.0 + hi / 2.0;
    if (!(t < hi)) t = lo;
    return t;
}

// Sufficient statistics of the node's samples (or of the first n of one block).
template <class O>
void node_stats(const O& obj, const int32_t* ids, int32_t n, double* stats) {
    std::fill(stats, stats + obj.dim(), 0.0);
    for (int32_t j = 0; j < n; ++j) obj.add(stats, ids[j]);
}

// Every valid threshold of every feature, in (feature, threshold) order; with per_feature > 0 only
// the first valid threshold at or after each of per_feature evenly spaced weighted quantiles of a
// feature.
void all_splits(const Dataset& data, const double* weights, NodeView node, const LeafLimits& limits,
                double total, int per_feature, std::vector<SplitRecord>& out);

// Number of samples of the node going left of `threshold` on `feature` (binary search in its block).
int32_t count_left(const Dataset& data, NodeView node, int32_t feature, double threshold);

// Stable partition of every block: ids with in_left[id] == 1 go to `left` (p x n_left), ids with
// in_left[id] == 0 to `right`. Both outputs need one slot of slack after their p blocks.
void partition(const Dataset& data, NodeView node, const uint8_t* in_left, int32_t n_left,
               int32_t* left, int32_t* right);

namespace detail {

// The threshold scan shared by both searches: calls visit(j, left_stats, right_stats, w_left,
// w_right) at every valid threshold between samples j and j + 1 of feature f's block.
template <class O, class Visit>
void scan_thresholds(const Dataset& data, const O& obj, NodeView node, int64_t f, const LeafLimits& limits,
                     const double* stats, std::vector<double>& left, std::vector<double>& right, Visit&& visit) {
    const int D = obj.dim();
    const int32_t* ids = node.block(f);
    const double* col = data.column(f);
    std::fill(left.begin(), left.end(), 0.0);
    const double total = obj.weight(stats);
    for (int32_t j = 0; j + 1 < node.m; ++j) {
        obj.add(left.data(), ids[j]);
        if (col[ids[j]] == col[ids[j + 1]]) continue;
        const double wl = obj.weight(left.data());
        if (!limits.allow(j + 1, node.m - j - 1, wl, total - wl)) continue;
        for (int d = 0; d < D; ++d) right[d] = stats[d] - left[d];
        visit(j, left.data(), right.data());
    }
}

// Classification's 0-1 scan: the largest class sum of every suffix comes from a backward pass and
// the impurity from running sums, so each threshold costs O(1) whatever the number of classes.
SplitRecord best_01_split(const Dataset& data, const Classification& obj, NodeView node, int64_t f,
                          const LeafLimits& limits, const double* class_w, std::vector<double>& scratch);

// Classification's impurity scan (gini with running sums of squares).
SplitRecord best_impurity_split(const Dataset& data, const Classification& obj, NodeView node, int64_t f,
                                const LeafLimits& limits, const double* class_w);

}  // namespace detail

// For every feature, the split of lowest loss (ties: lower tie-break value, then lower threshold);
// score = loss of the two children, tie = their tie-break value. Not found where a feature has no
// valid threshold.
template <class O>
void best_loss_splits(const Dataset& data, const O& obj, NodeView node, const LeafLimits& limits,
                      const double* stats, std::vector<SplitRecord>& out) {
    out.assign(data.p, SplitRecord{});
    const double tol = 1e-11 * (std::abs(obj.loss(stats)) + obj.weight(stats));
    std::vector<double> left(obj.dim()), right(obj.dim()), scratch;
    for (int64_t f = 0; f < data.p; ++f) {
        const int32_t* ids = node.block(f);
        if (node.m < 2 || data.x(f, ids[0]) == data.x(f, ids[node.m - 1])) continue;
        if constexpr (std::is_same_v<O, Classification>) {
            out[f] = detail::best_01_split(data, obj, node, f, limits, stats, scratch);
        } else {
            SplitRecord& best = out[f];
            detail::scan_thresholds(data, obj, node, f, limits, stats, left, right,
                                    [&](int32_t j, const double* l, const double* r) {
                const double loss = obj.loss(l) + obj.loss(r);
                if (best.found() && loss > best.score + tol) return;
                const double tie = obj.tie(l) + obj.tie(r);
                if (!best.found() || loss < best.score - tol || tie < best.tie - tol) {
                    best.feature = static_cast<int32_t>(f);
                    best.n_left = j + 1;
                    best.score = loss;
                    best.tie = tie;
                }
            });
            if (best.found())
                best.threshold = midpoint(data.x(f, ids[best.n_left - 1]), data.x(f, ids[best.n_left]));
        }
    }
}

// The split of largest decrease of the generator impurity among `features` (CART's rule). Ties go
// to the lower feature index, then the lower threshold. score = the decrease.
template <class O>
SplitRecord best_generator_split(const Dataset& data, const O& obj, NodeView node,
                                 const std::vector<int32_t>& features, const LeafLimits& limits,
                                 const double* stats) {
    SplitRecord best;
    std::vector<double> left(obj.dim()), right(obj.dim());
    // Near-equal splits (rounding noise of sums taken in another order) tie, and ties keep the
    // first: weights of k and k repeated samples then give the same tree.
    const double tol = 1e-11 * std::abs(obj.generator_impurity(stats)) + 1e-300;
    for (int32_t f : features) {
        const int32_t* ids = node.block(f);
        if (node.m < 2 || data.x(f, ids[0]) == data.x(f, ids[node.m - 1])) continue;
        SplitRecord cand;
        if constexpr (std::is_same_v<O, Classification>) {
            cand = detail::best_impurity_split(data, obj, node, f, limits, stats);
        } else {
            detail::scan_thresholds(data, obj, node, f, limits, stats, left, right,
                                    [&](int32_t j, const double* l, const double* r) {
                if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                const double child = obj.generator_impurity(l) + obj.generator_impurity(r);
                if (!cand.found() || child < cand.score - tol) {
                    cand.feature = f;
                    cand.n_left = j + 1;
                    cand.score = child;
                }
            });
            if (cand.found())
                cand.threshold = midpoint(data.x(f, ids[cand.n_left - 1]), data.x(f, ids[cand.n_left]));
        }
        if (cand.found() && (!best.found() || cand.score < best.score - tol)) best = cand;
    }
    if (best.found()) best.score = obj.generator_impurity(stats) - best.score;
    return best;
}

}  // namespace dpdt
