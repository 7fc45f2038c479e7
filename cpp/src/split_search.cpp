#include "dpdt/split_search.hpp"

#include <algorithm>
#include <cmath>

#include "dpdt/criterion.hpp"

namespace dpdt {
namespace detail {

namespace {

// Weighted impurity W * imp of a side.
inline double weighted_impurity(const double* cw, int K, double total, Criterion criterion) {
    return total * impurity(cw, K, total, criterion);
}

template <Criterion C>
SplitRecord best_01_split_impl(const Dataset& data, const Classification& obj, const int32_t* ids, int32_t m,
                               int64_t f, const LeafLimits& limits, const double* class_w,
                               std::vector<double>& scratch) {
    const int K = obj.n_classes;
    const double* col = data.column(f);
    const int32_t* y = obj.y;
    const double* w = obj.w;
    double total = 0.0, total_sq = 0.0;
    for (int k = 0; k < K; ++k) {
        total += class_w[k];
        total_sq += class_w[k] * class_w[k];
    }
    const double tol = 1e-12 * total;
    // scratch = [left (K) | right (K)]
    scratch.assign(2 * static_cast<size_t>(K), 0.0);
    double* left = scratch.data();
    double* right = left + K;
    // The right side's class sums class_w - left only shrink as the threshold moves right, so
    // their largest is non-increasing: its value at an earlier threshold bounds it from above,
    // and the loss from below. It is recomputed, in O(K), only where that bound fails to rule
    // the threshold out, which spares a backward pass over the samples.
    double right_max = 0.0;
    for (int k = 0; k < K; ++k) right_max = std::max(right_max, class_w[k]);
    double wl = 0.0, max_left = 0.0;
    double sq_left = 0.0, sq_right = total_sq;   // sums of squared class sums (gini)
    // W_L * imp_L + W_R * imp_R of the current threshold.
    auto child_impurity = [&](double wr) {
        if (C == Criterion::Gini)
            return (wl > 0.0 ? wl - sq_left / wl : 0.0) + (wr > 0.0 ? wr - sq_right / wr : 0.0);
        for (int k = 0; k < K; ++k) right[k] = std::max(0.0, class_w[k] - left[k]);
        return weighted_impurity(left, K, wl, C) + weighted_impurity(right, K, wr, C);
    };
    SplitRecord best;
    int32_t best_j = -1;
    for (int32_t j = 0; j + 1 < m; ++j) {
        const int32_t i = ids[j];
        const int k = y[i];
        const double wi = w[i];
        if (C == Criterion::Gini) {
            const double r = class_w[k] - left[k];
            sq_left += wi * (2.0 * left[k] + wi);
            sq_right += wi * (wi - 2.0 * r);
        }
        const double c = left[k] += wi;
        max_left = std::max(max_left, c);
        wl += wi;
        if (!cut_between(col[i], col[ids[j + 1]]) || !limits.allow(j + 1, m - j - 1, wl, total - wl)) continue;
        const double wr = std::max(0.0, total - wl);
        if (best_j >= 0 && std::max(0.0, wl - max_left) + std::max(0.0, wr - right_max) > best.score + tol) continue;
        right_max = 0.0;
        for (int c = 0; c < K; ++c) right_max = std::max(right_max, class_w[c] - left[c]);
        const double loss = std::max(0.0, wl - max_left) + std::max(0.0, wr - right_max);
        if (best_j >= 0 && loss > best.score + tol) continue;
        const double tie = child_impurity(wr);
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

// Two classes: the right side's majority is max(c0 - l0, c1 - l1), no backward pass needed, and
// the class sums live in registers.
template <Criterion C>
SplitRecord best_01_split_binary(const Dataset& data, const Classification& obj, const int32_t* ids, int32_t m,
                                 int64_t f, const LeafLimits& limits, const double* class_w) {
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
        const double left[2] = {l0, l1}, right[2] = {r0, r1};
        const double tie = weighted_impurity(left, 2, wl, C) + weighted_impurity(right, 2, r0 + r1, C);
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
                          int64_t f, const LeafLimits& limits, const double* class_w, std::vector<double>& scratch) {
    const bool gini = obj.criterion == Criterion::Gini;
    if (obj.n_classes == 2)
        return gini ? best_01_split_binary<Criterion::Gini>(data, obj, ids, m, f, limits, class_w)
                    : best_01_split_binary<Criterion::Entropy>(data, obj, ids, m, f, limits, class_w);
    return gini ? best_01_split_impl<Criterion::Gini>(data, obj, ids, m, f, limits, class_w, scratch)
                : best_01_split_impl<Criterion::Entropy>(data, obj, ids, m, f, limits, class_w, scratch);
}

}  // namespace detail

void all_splits(const Dataset& data, const double* weights, NodeView node, const LeafLimits& limits,
                double total, int per_feature, std::vector<SplitRecord>& out) {
    out.clear();
    std::vector<int32_t> order_scratch;
    for (int64_t f = 0; f < data.p; ++f) {
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
