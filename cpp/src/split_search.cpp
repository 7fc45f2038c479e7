#include "dpdt/split_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dpdt/criterion.hpp"

namespace dpdt {
namespace detail {

namespace {

// Up to this many classes the one-pass scan is the faster; beyond, its O(K) per scored position
// loses to the two passes' O(1) per sample (fits of 5000 samples at depth 3, measured: even at 16
// classes, 4.5 to 6 times slower at 200).
constexpr int kMaxFewClasses = 12;

// Weighted impurity W * imp of a side.
inline double weighted_impurity(const double* cw, int K, double total, Criterion criterion) {
    return total * impurity(cw, K, total, criterion);
}

// Among the positions of loss[first..last] within tol of the lowest, the first of lowest tie(j);
// where the lowest loss exceeds cannot_win_above, simply the first (tie = +inf, tie(j) not called).
template <class Tie>
SplitRecord lowest_loss(const Dataset& data, const int32_t* ids, int64_t f, const double* loss, CutRange range,
                        double lowest, double tol, double cannot_win_above, Tie&& tie) {
    SplitRecord best;
    if (!(lowest < 0.5 * kNoThreshold)) return best;
    const bool skip_tie = lowest > cannot_win_above;
    int32_t best_j = -1, ties = 0;
    for (int32_t j = range.first; j <= range.last; ++j) {
        if (loss[j] > lowest + tol) continue;
        if ((ties++ & 255) == 0) stop_point();   // a tie costs O(K)
        const double t = skip_tie ? std::numeric_limits<double>::infinity() : tie(j);
        if (best_j < 0 || t < best.tie - tol) {
            best.score = loss[j];
            best.tie = t;
            best_j = j;
        }
        if (skip_tie) break;
    }
    best.feature = static_cast<int32_t>(f);
    best.threshold = midpoint(data.x(f, ids[best_j]), data.x(f, ids[best_j + 1]));
    best.n_left = best_j + 1;
    return best;
}

// Many classes (scoring a position costs O(K), so best_01_split_few_classes would cost O(m K)):
// a forward pass takes each position's left loss, a backward pass adds its right
// loss, both with running maxima of class sums that only grow. Each pass splits its class sums
// between two arrays by the parity of the position, so that consecutive samples of one class
// (the common case in sorted order) do not wait on each other's store. The tie-break impurity,
// needing every class sum, is found by replaying the scan up to the tied positions.
SplitRecord best_01_split_many_classes(const Dataset& data, const Classification& obj, const int32_t* ids,
                                       int32_t m, int64_t f, const LeafLimits& limits, const double* class_w,
                                       ScanScratch& scratch, double cannot_win_above) {
    const int K = obj.n_classes;
    const double* col = data.column(f);
    const int32_t* y = obj.y;
    const double* w = obj.w;
    double total = 0.0;
    for (int k = 0; k < K; ++k) total += class_w[k];
    const CutRange range = cut_range(m, limits);
    if (range.first > range.last) return SplitRecord{};
    scratch.loss.resize(static_cast<size_t>(m));
    scratch.sums.assign(2 * static_cast<size_t>(K), 0.0);
    double* loss = scratch.loss.data();
    double* even = scratch.sums.data();
    double* odd = even + K;
    // Adds sample j to one side's class sums, raising `largest` to its class's sum and `weight`.
    auto add = [&](int32_t j, double& largest, double& weight) {
        const int32_t i = ids[j];
        double* own = j % 2 == 0 ? even : odd;
        const double* other = j % 2 == 0 ? odd : even;
        const int k = y[i];
        largest = max_of(largest, (own[k] += w[i]) + other[k]);
        weight += w[i];
    };
    double wl = 0.0, max_left = 0.0;
    for (int32_t j = 0; j < range.first; ++j) add(j, max_left, wl);
    double x = col[ids[range.first]];
    const bool weighed = limits.min_weight > 0.0;
    for (int32_t j = range.first; j <= range.last; ++j) {
        add(j, max_left, wl);
        const double next = col[ids[j + 1]];
        double penalty = cut_penalty(x, next);
        if (weighed) penalty += light_penalty(wl, limits.min_weight) + light_penalty(total - wl, limits.min_weight);
        loss[j] = max_of(0.0, wl - max_left) + penalty;
        x = next;
    }
    std::fill(even, even + 2 * K, 0.0);
    double wr = 0.0, max_right = 0.0, lowest = kNoThreshold;
    for (int32_t j = m - 1; j > range.last + 1; --j) add(j, max_right, wr);
    for (int32_t j = range.last + 1; j > range.first; --j) {
        add(j, max_right, wr);
        const double l = loss[j - 1] + max_of(0.0, wr - max_right);
        loss[j - 1] = l;
        lowest = min_of(lowest, l);
    }
    if (!(lowest < 0.5 * kNoThreshold)) return SplitRecord{};
    const double tol = 1e-12 * total;
    // The replay: class sums up to each tied position, in order.
    scratch.sums.assign(2 * static_cast<size_t>(K), 0.0);
    double* left = scratch.sums.data();
    double* right = left + K;
    int32_t replayed = 0;
    double w_left = 0.0;
    auto tie = [&](int32_t j) {
        for (; replayed <= j; ++replayed) {
            const int32_t i = ids[replayed];
            left[y[i]] += w[i];
            w_left += w[i];
        }
        for (int k = 0; k < K; ++k) right[k] = std::max(0.0, class_w[k] - left[k]);
        const double w_right = std::max(0.0, total - w_left);
        return weighted_impurity(left, K, w_left, obj.criterion) + weighted_impurity(right, K, w_right, obj.criterion);
    };
    return lowest_loss(data, ids, f, loss, range, lowest, tol, cannot_win_above, tie);
}

// A few classes: one pass adds each sample to the left's class sums, and scores a position only
// where it might be chosen. Moving samples of total weight v from right to left changes the 0-1
// loss by at most v (each side's error moves by at most the weight it gains or loses), so after a
// position of loss `loss` the scan may pass over the next `loss - best` of weight unscored: none of
// those positions can come within tol of the best. That skips most positions, whose score costs
// O(K). The class sums alternate between two arrays by the parity of the position, so that
// consecutive samples of one class (the common case in sorted order) do not wait on each other's
// store. A position of loss above `cannot_win_above` loses to an earlier feature's split and is
// passed over like the others, so the scan may return no split.
SplitRecord best_01_split_few_classes(const Dataset& data, const Classification& obj, const int32_t* ids,
                                      int32_t m, int64_t f, const LeafLimits& limits, const double* class_w,
                                      ScanScratch& scratch, double cannot_win_above) {
    const int K = obj.n_classes;
    const double* col = data.column(f);
    const int32_t* y = obj.y;
    const double* w = obj.w;
    double total = 0.0;
    for (int k = 0; k < K; ++k) total += class_w[k];
    const double tol = 1e-12 * total;
    const CutRange range = cut_range(m, limits);
    SplitRecord best;
    if (range.first > range.last) return best;
    scratch.sums.assign(4 * static_cast<size_t>(K), 0.0);
    scratch.right.resize(static_cast<size_t>(K));
    double* even = scratch.sums.data();
    double* odd = even + K;
    double* kept = odd + K;     // the left's class sums at the best position so far
    double* current = kept + K; // the left's class sums at the position scored
    double w_left = 0.0;
    auto add = [&](int32_t j) {
        const int32_t i = ids[j];
        (j % 2 == 0 ? even : odd)[y[i]] += w[i];
        w_left += w[i];
    };
    // The children's weighted impurity for the left's class sums `left` of weight `weight`.
    auto impurity_of = [&](const double* left, double weight) {
        double* right = scratch.right.data();
        for (int k = 0; k < K; ++k) right[k] = std::max(0.0, class_w[k] - left[k]);
        return weighted_impurity(left, K, weight, obj.criterion) +
               weighted_impurity(right, K, std::max(0.0, total - weight), obj.criterion);
    };
    for (int32_t j = 0; j < range.first; ++j) add(j);
    double best_loss = cannot_win_above, kept_weight = 0.0, next_scored = -std::numeric_limits<double>::infinity();
    int32_t best_j = -1;
    bool tie_known = false;
    for (int32_t j = range.first; j <= range.last; ++j) {
        add(j);
        if (w_left < next_scored) continue;
        double largest_left = 0.0, largest_right = 0.0;
        for (int k = 0; k < K; ++k) {
            const double left = even[k] + odd[k];
            largest_left = max_of(largest_left, left);
            largest_right = max_of(largest_right, class_w[k] - left);
        }
        const double loss = max_of(0.0, w_left - largest_left) + max_of(0.0, (total - w_left) - largest_right);
        const double gap = loss - best_loss - tol;
        next_scored = gap > 0.0 ? w_left + gap : w_left;
        if (gap > 0.0 || !cut_between(col[ids[j]], col[ids[j + 1]]) ||
            !limits.allow(j + 1, m - j - 1, w_left, total - w_left))
            continue;
        for (int k = 0; k < K; ++k) current[k] = even[k] + odd[k];
        if (best_j >= 0 && loss >= best_loss - tol) {
            // A tie in loss goes to the lower weighted impurity of the children.
            if (!tie_known) best.tie = impurity_of(kept, kept_weight);
            tie_known = true;
            const double tie = impurity_of(current, w_left);
            if (!(tie < best.tie - tol)) continue;
            best.tie = tie;
        } else {
            tie_known = false;
        }
        std::copy(current, current + K, kept);
        kept_weight = w_left;
        best.score = loss;
        best_loss = std::min(best_loss, loss);
        best_j = j;
    }
    if (best_j < 0) return best;
    if (!tie_known) best.tie = impurity_of(kept, kept_weight);
    best.feature = static_cast<int32_t>(f);
    best.threshold = midpoint(col[ids[best_j]], col[ids[best_j + 1]]);
    best.n_left = best_j + 1;
    return best;
}

// Two classes: the right side's majority is max(c0 - l0, c1 - l1) and the class sums live in
// registers. This scan keeps its branches: a branch-free one, computing every position, was
// measured slower on two classes, whose loss is cheap where a threshold may go.
template <bool Gini>
SplitRecord best_01_split_binary(const Dataset& data, const Classification& obj, const int32_t* ids, int32_t m,
                                 int64_t f, const LeafLimits& limits, const double* class_w, double cannot_win_above) {
    const double* col = data.column(f);
    const int32_t* y = obj.y;
    const double* w = obj.w;
    const double c0 = class_w[0], c1 = class_w[1], total = c0 + c1;
    const double tol = 1e-12 * total;
    double l0 = 0.0, l1 = 0.0;
    SplitRecord best;
    int32_t best_j = -1;
    for (int32_t j = 0; j + 1 < m; ++j) {
        const int32_t i = ids[j];
        const double wi = w[i];
        const bool is1 = y[i] != 0;
        l0 += is1 ? 0.0 : wi;
        l1 += is1 ? wi : 0.0;
        if (!cut_between(col[i], col[ids[j + 1]])) continue;
        const double wl = l0 + l1;
        if (!limits.allow(j + 1, m - j - 1, wl, total - wl)) continue;
        const double r0 = std::max(0.0, c0 - l0), r1 = std::max(0.0, c1 - l1);
        const double loss = std::min(l0, l1) + std::min(r0, r1);
        if (best_j >= 0 && loss > best.score + tol) continue;
        if (loss > cannot_win_above) {
            // This feature cannot win: its first split of least loss will do, with no impurity.
            if (best_j < 0 || loss < best.score - tol) {
                best.score = loss;
                best.tie = std::numeric_limits<double>::infinity();
                best_j = j;
            }
            continue;
        }
        // Gini's W_L gini_L is 2 l0 l1 / W_L, with fewer operations than from the class sums.
        const double left[2] = {l0, l1}, right[2] = {r0, r1};
        const double tie = Gini ? 2.0 * l0 * l1 / wl + 2.0 * r0 * r1 / (r0 + r1)
                                : weighted_impurity(left, 2, wl, obj.criterion) +
                                      weighted_impurity(right, 2, r0 + r1, obj.criterion);
        // Lower loss wins; a tie in loss goes to the lower weighted impurity of the children.
        if (best_j < 0 || loss < best.score - tol || tie < best.tie - tol) {
            best.score = loss;
            best.tie = tie;
            best_j = j;
        }
    }
    if (best_j >= 0) {
        best.feature = static_cast<int32_t>(f);
        best.threshold = midpoint(col[ids[best_j]], col[ids[best_j + 1]]);
        best.n_left = best_j + 1;
    }
    return best;
}

}  // namespace

SplitRecord best_01_split(const Dataset& data, const Classification& obj, const int32_t* ids, int32_t m,
                          int64_t f, const LeafLimits& limits, const double* class_w, ScanScratch& scratch,
                          double cannot_win_above) {
    if (obj.n_classes == 2) {
        return obj.criterion == Criterion::Gini
                   ? best_01_split_binary<true>(data, obj, ids, m, f, limits, class_w, cannot_win_above)
                   : best_01_split_binary<false>(data, obj, ids, m, f, limits, class_w, cannot_win_above);
    }
    if (obj.n_classes <= kMaxFewClasses)
        return best_01_split_few_classes(data, obj, ids, m, f, limits, class_w, scratch, cannot_win_above);
    return best_01_split_many_classes(data, obj, ids, m, f, limits, class_w, scratch, cannot_win_above);
}

}  // namespace detail

void all_splits(const Dataset& data, const double* weights, NodeView node, const LeafLimits& limits,
                double total, int per_feature, std::vector<SplitRecord>& out) {
    out.clear();
    std::vector<int32_t> order_scratch;
    for (int64_t f = 0; f < data.p; ++f) {
        stop_point();
        const double* col = data.column(f);
        for_each_order(data, node, f, order_scratch, [&](ScanOrder order) {
            const int32_t* ids = order.ids;
            double wl = 0.0;
            int quantile = 1;
            for (int32_t j = 0; j + 1 < node.m; ++j) {
                wl += weights[ids[j]];
                const double xj = col[ids[j]], xn = col[ids[j + 1]];
                if (!cut_between(xj, xn)) continue;
                const int32_t n_left = j + 1;
                if (!limits.allow(n_left, node.m - n_left, wl, total - wl)) continue;
                if (per_feature > 0) {
                    // The first valid threshold at or after each of the per_feature weighted
                    // quantiles (by weight, so that a weight of k is k repeated samples).
                    const double at = wl * (per_feature + 1);
                    if (quantile > per_feature || at < quantile * total * (1.0 - 1e-12)) continue;
                    while (quantile <= per_feature && quantile * total * (1.0 - 1e-12) <= at) ++quantile;
                }
                SplitRecord s;
                s.feature = static_cast<int32_t>(f);
                s.threshold = midpoint(xj, xn);
                s.n_left = n_left;
                s.missing_left = order.missing_left;
                out.push_back(s);
            }
        });
    }
}

int32_t count_missing(const Dataset& data, NodeView node, int64_t f) {
    if (!data.has_missing) return 0;
    const int32_t* ids = node.block(f);
    const double* col = data.column(f);
    const int32_t* first_missing =
        std::partition_point(ids, ids + node.m, [col](int32_t i) { return !std::isnan(col[i]); });
    return static_cast<int32_t>(ids + node.m - first_missing);
}

int32_t count_left(const Dataset& data, NodeView node, int32_t feature, double threshold) {
    const int32_t* ids = node.block(feature);
    const double* col = data.column(feature);
    const int32_t present = node.m - count_missing(data, node, feature);
    const int32_t* it = std::upper_bound(ids, ids + present, threshold,
                                         [col](double t, int32_t i) { return t < col[i]; });
    return static_cast<int32_t>(it - ids);
}

void partition(const Dataset& data, NodeView node, const uint8_t* in_left, int32_t n_left,
               int32_t* left, int32_t* right) {
    const int32_t n_right = node.m - n_left;
    // No stop point here: the caller clears `in_left` after, and a Cut in between would leave
    // the thread's mask dirty for its next partition.
    for (int64_t f = 0; f < data.p; ++f) {
        const int32_t* ids = node.block(f);
        int32_t* l = left + f * static_cast<int64_t>(n_left);
        int32_t* r = right + f * static_cast<int64_t>(n_right);
        // Branch-free: each id is written to both sides and kept on one. The write past the end
        // of a block lands on the next block's first slot, rewritten after (one slot of slack).
        int32_t nl = 0, nr = 0;
        for (int32_t j = 0; j < node.m; ++j) {
            const int32_t i = ids[j];
            const int32_t go_left = in_left[i];
            l[nl] = i;
            r[nr] = i;
            nl += go_left;
            nr += 1 - go_left;
        }
    }
}

}  // namespace dpdt
