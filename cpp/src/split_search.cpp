#include "dpdt/split_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dpdt/criterion.hpp"

namespace dpdt {

void class_weights(const Dataset& data, NodeView node, double* class_w, double* total) {
    std::fill(class_w, class_w + data.n_classes, 0.0);
    double t = 0.0;
    const int32_t* ids = node.block(0);
    for (int32_t j = 0; j < node.m; ++j) {
        const int32_t i = ids[j];
        class_w[data.y[i]] += data.w[i];
        t += data.w[i];
    }
    *total = t;
}

namespace {

// Weighted impurity W * imp of a side.
inline double weighted_impurity(const double* cw, int K, double total, Criterion criterion) {
    return total * impurity(cw, K, total, criterion);
}

// Class sums left and right of a point sweeping through a node's samples in one feature's order,
// with what the searches read at each threshold kept up to date in O(1) per sample.
template <Criterion C>
struct ClassSweep {
    int K = 0;
    std::vector<double> left, right;
    double wl = 0.0, wr = 0.0;
    int32_t count = 0;            // samples on the left
    double last_x = 0.0;          // value of the last sample moved left
    double stat_left = 0.0, stat_right = 0.0;   // gini: sums of squared class sums

    void reset(const double* class_w, double total, int n_classes) {
        K = n_classes;
        left.assign(K, 0.0);
        right.assign(class_w, class_w + K);
        wl = 0.0;
        wr = total;
        count = 0;
        stat_left = 0.0;
        stat_right = 0.0;
        for (int k = 0; k < K; ++k) stat_right += right[k] * right[k];
    }
    void move_left(int k, double w, double x) {
        if (C == Criterion::Gini) {
            stat_left += w * (2.0 * left[k] + w);
            stat_right += w * (w - 2.0 * right[k]);
        }
        left[k] += w;
        right[k] = std::max(0.0, right[k] - w);
        wl += w;
        wr = std::max(0.0, wr - w);
        ++count;
        last_x = x;
    }
    // W_L * imp_L + W_R * imp_R. Gini reads its running sums; entropy is recomputed from the class
    // sums, since running sums of x log x drift and would break exact ties (k samples of weight 1
    // must give the tree of one sample of weight k).
    double child_impurity() const {
        if (C == Criterion::Gini)
            return (wl > 0.0 ? wl - stat_left / wl : 0.0) + (wr > 0.0 ? wr - stat_right / wr : 0.0);
        return weighted_impurity(left.data(), K, wl, C) + weighted_impurity(right.data(), K, wr, C);
    }
};

template <Criterion C>
SplitRecord best_impurity_split_impl(const Dataset& data, NodeView node, const std::vector<int32_t>& features,
                                     const LeafLimits& limits, const double* class_w, double total,
                                     double* decrease) {
    SplitRecord best;
    double best_child_impurity = 0.0;
    ClassSweep<C> sw;
    for (int32_t f : features) {
        const int32_t* ids = node.block(f);
        const double* col = data.column(f);
        if (node.m < 2 || col[ids[0]] == col[ids[node.m - 1]]) continue;
        sw.reset(class_w, total, data.n_classes);
        for (int32_t j = 0; j + 1 < node.m; ++j) {
            const int32_t i = ids[j];
            sw.move_left(data.y[i], data.w[i], col[i]);
            const double xn = col[ids[j + 1]];
            if (sw.last_x == xn) continue;
            if (!limits.allow(sw.count, node.m - sw.count, sw.wl, sw.wr) || sw.wl <= 0.0 || sw.wr <= 0.0)
                continue;
            const double child = sw.child_impurity();
            if (!best.found() || child < best_child_impurity) {
                best_child_impurity = child;
                best.feature = f;
                best.threshold = midpoint(sw.last_x, xn);
                best.n_left = sw.count;
            }
        }
    }
    if (best.found()) {
        best.score = weighted_impurity(class_w, data.n_classes, total, C) - best_child_impurity;
        *decrease = best.score;
    } else {
        *decrease = 0.0;
    }
    return best;
}

template <Criterion C>
void best_01_splits_impl(const Dataset& data, NodeView node, const LeafLimits& limits, StumpSearch& st) {
    const int K = data.n_classes;
    const int64_t p = data.p;
    const int32_t m = node.m;
    const double tol = 1e-12 * st.total;
    st.best.assign(p, SplitRecord{});
    // Largest class sum of every suffix (from a backward pass), so that the 0-1 loss of each
    // threshold costs O(1) whatever the number of classes.
    std::vector<double> suffix(K), suffix_max(m + 1), left(K), right(K);
    double total_sq = 0.0;
    for (int k = 0; k < K; ++k) total_sq += st.class_w[k] * st.class_w[k];
    for (int64_t f = 0; f < p; ++f) {
        const int32_t* ids = node.block(f);
        const double* col = data.column(f);
        if (m < 2 || col[ids[0]] == col[ids[m - 1]]) continue;
        std::fill(suffix.begin(), suffix.end(), 0.0);
        double running_max = 0.0;
        suffix_max[m] = 0.0;
        for (int32_t j = m - 1; j >= 0; --j) {
            const int32_t i = ids[j];
            const double c = suffix[data.y[i]] += data.w[i];
            running_max = std::max(running_max, c);
            suffix_max[j] = running_max;
        }
        std::fill(left.begin(), left.end(), 0.0);
        double wl = 0.0, max_left = 0.0;
        double sq_left = 0.0, sq_right = total_sq;   // sums of squared class sums (gini)
        // W_L * imp_L + W_R * imp_R of the current threshold.
        auto child_impurity = [&](double wr) {
            if (C == Criterion::Gini)
                return (wl > 0.0 ? wl - sq_left / wl : 0.0) + (wr > 0.0 ? wr - sq_right / wr : 0.0);
            for (int k = 0; k < K; ++k) right[k] = std::max(0.0, st.class_w[k] - left[k]);
            return weighted_impurity(left.data(), K, wl, C) + weighted_impurity(right.data(), K, wr, C);
        };
        double best_loss = 0.0, best_tie = 0.0;
        int32_t best_j = -1;
        for (int32_t j = 0; j + 1 < m; ++j) {
            const int32_t i = ids[j];
            const int k = data.y[i];
            const double w = data.w[i];
            if (C == Criterion::Gini) {
                const double r = st.class_w[k] - left[k];
                sq_left += w * (2.0 * left[k] + w);
                sq_right += w * (w - 2.0 * r);
            }
            const double c = left[k] += w;
            max_left = std::max(max_left, c);
            wl += w;
            const double x = col[i], next = col[ids[j + 1]];
            if (x == next || !limits.allow(j + 1, m - j - 1, wl, st.total - wl)) continue;
            const double wr = std::max(0.0, st.total - wl);
            const double loss = std::max(0.0, wl - max_left) + std::max(0.0, wr - suffix_max[j + 1]);
            if (best_j >= 0 && loss > best_loss + tol) continue;
            const double tie = child_impurity(wr);
            // Lower loss wins; a tie in loss goes to the lower weighted impurity of the children.
            if (best_j < 0 || loss < best_loss - tol || tie < best_tie - tol) {
                best_loss = loss;
                best_tie = tie;
                best_j = j;
            }
        }
        if (best_j < 0) continue;
        SplitRecord& best = st.best[f];
        best.feature = static_cast<int32_t>(f);
        best.threshold = midpoint(col[ids[best_j]], col[ids[best_j + 1]]);
        best.n_left = best_j + 1;
        best.score = best_loss;
        best.tie = best_tie;
    }
}

}  // namespace

SplitRecord best_impurity_split(const Dataset& data, NodeView node, const std::vector<int32_t>& features,
                                Criterion criterion, const LeafLimits& limits, const double* class_w,
                                double total, double* decrease) {
    if (criterion == Criterion::Gini)
        return best_impurity_split_impl<Criterion::Gini>(data, node, features, limits, class_w, total, decrease);
    return best_impurity_split_impl<Criterion::Entropy>(data, node, features, limits, class_w, total, decrease);
}

void best_01_splits(const Dataset& data, NodeView node, Criterion criterion, const LeafLimits& limits,
                    StumpSearch& search) {
    if (criterion == Criterion::Gini)
        best_01_splits_impl<Criterion::Gini>(data, node, limits, search);
    else
        best_01_splits_impl<Criterion::Entropy>(data, node, limits, search);
}

void all_splits(const Dataset& data, NodeView node, const LeafLimits& limits, double total, int per_feature,
                std::vector<SplitRecord>& out) {
    out.clear();
    for (int64_t f = 0; f < data.p; ++f) {
        const int32_t* ids = node.block(f);
        const double* col = data.column(f);
        double wl = 0.0;
        int quantile = 1;
        for (int32_t j = 0; j + 1 < node.m; ++j) {
            wl += data.w[ids[j]];
            const double xj = col[ids[j]], xn = col[ids[j + 1]];
            if (xj == xn) continue;
            const int32_t n_left = j + 1;
            if (!limits.allow(n_left, node.m - n_left, wl, total - wl)) continue;
            if (per_feature > 0) {
                // The first valid threshold at or after each of the per_feature quantiles.
                if (quantile > per_feature ||
                    static_cast<int64_t>(n_left) * (per_feature + 1) < static_cast<int64_t>(quantile) * node.m)
                    continue;
                while (quantile <= per_feature &&
                       static_cast<int64_t>(quantile) * node.m <= static_cast<int64_t>(n_left) * (per_feature + 1))
                    ++quantile;
            }
            SplitRecord s;
            s.feature = static_cast<int32_t>(f);
            s.threshold = midpoint(xj, xn);
            s.n_left = n_left;
            out.push_back(s);
        }
    }
}

void left_class_weights(const Dataset& data, NodeView node, const SplitRecord& split, double* class_w) {
    std::fill(class_w, class_w + data.n_classes, 0.0);
    const int32_t* ids = node.block(split.feature);
    for (int32_t j = 0; j < split.n_left; ++j) class_w[data.y[ids[j]]] += data.w[ids[j]];
}

int32_t count_left(const Dataset& data, NodeView node, int32_t feature, double threshold) {
    const int32_t* ids = node.block(feature);
    const double* col = data.column(feature);
    const int32_t* it = std::upper_bound(ids, ids + node.m, threshold,
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
