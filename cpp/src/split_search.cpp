#include "dpdt/split_search.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace

SplitRecord best_impurity_split(const Dataset& data, NodeView node, const std::vector<int32_t>& features,
                                Criterion criterion, const LeafLimits& limits, const double* class_w,
                                double total, double* decrease) {
    const int K = data.n_classes;
    std::vector<double> left(K), right(K);
    SplitRecord best;
    double best_child_impurity = 0.0;
    for (int32_t f : features) {
        const int32_t* ids = node.block(f);
        const double* col = data.column(f);
        if (node.m < 2 || col[ids[0]] == col[ids[node.m - 1]]) continue;
        std::fill(left.begin(), left.end(), 0.0);
        double wl = 0.0;
        for (int32_t j = 0; j + 1 < node.m; ++j) {
            const int32_t i = ids[j];
            left[data.y[i]] += data.w[i];
            wl += data.w[i];
            const double xj = col[i], xn = col[ids[j + 1]];
            if (xj == xn) continue;
            const int32_t n_left = j + 1;
            const double wr = total - wl;
            if (!limits.allow(n_left, node.m - n_left, wl, wr) || wl <= 0.0 || wr <= 0.0) continue;
            for (int k = 0; k < K; ++k) right[k] = class_w[k] - left[k];
            const double child = weighted_impurity(left.data(), K, wl, criterion) +
                                 weighted_impurity(right.data(), K, wr, criterion);
            if (!best.found() || child < best_child_impurity) {
                best_child_impurity = child;
                best.feature = f;
                best.threshold = midpoint(xj, xn);
                best.n_left = n_left;
            }
        }
    }
    if (best.found()) {
        const double parent = weighted_impurity(class_w, K, total, criterion);
        best.score = parent - best_child_impurity;
        *decrease = best.score;
    } else {
        *decrease = 0.0;
    }
    return best;
}

void best_01_splits(const Dataset& data, NodeView node, Criterion criterion, const LeafLimits& limits,
                    const double* class_w, double total, std::vector<SplitRecord>& out,
                    std::vector<double>& left_class_w) {
    const int K = data.n_classes;
    const int64_t p = data.p;
    out.assign(p, SplitRecord{});
    left_class_w.assign(p * K, 0.0);
    std::vector<double> left(K), right(K);
    const double tol = 1e-12 * total;
    for (int64_t f = 0; f < p; ++f) {
        const int32_t* ids = node.block(f);
        const double* col = data.column(f);
        if (node.m < 2 || col[ids[0]] == col[ids[node.m - 1]]) continue;
        std::fill(left.begin(), left.end(), 0.0);
        double wl = 0.0;
        SplitRecord& best = out[f];
        for (int32_t j = 0; j + 1 < node.m; ++j) {
            const int32_t i = ids[j];
            left[data.y[i]] += data.w[i];
            wl += data.w[i];
            const double xj = col[i], xn = col[ids[j + 1]];
            if (xj == xn) continue;
            const int32_t n_left = j + 1;
            const double wr = total - wl;
            if (!limits.allow(n_left, node.m - n_left, wl, wr)) continue;
            double max_left = 0.0, max_right = 0.0;
            for (int k = 0; k < K; ++k) {
                right[k] = class_w[k] - left[k];
                max_left = std::max(max_left, left[k]);
                max_right = std::max(max_right, right[k]);
            }
            const double loss = std::max(0.0, wl - max_left) + std::max(0.0, wr - max_right);
            if (best.found() && loss > best.score + tol) continue;
            const double child = weighted_impurity(left.data(), K, wl, criterion) +
                                 weighted_impurity(right.data(), K, std::max(wr, 0.0), criterion);
            if (best.found() && loss >= best.score - tol && child >= best.tie - tol) continue;
            best.feature = static_cast<int32_t>(f);
            best.threshold = midpoint(xj, xn);
            best.n_left = n_left;
            best.score = loss;
            best.tie = child;
            std::copy(left.begin(), left.end(), left_class_w.begin() + f * K);
        }
    }
}

void all_splits(const Dataset& data, NodeView node, const LeafLimits& limits, double total,
                std::vector<SplitRecord>& out) {
    out.clear();
    for (int64_t f = 0; f < data.p; ++f) {
        const int32_t* ids = node.block(f);
        const double* col = data.column(f);
        double wl = 0.0;
        for (int32_t j = 0; j + 1 < node.m; ++j) {
            wl += data.w[ids[j]];
            const double xj = col[ids[j]], xn = col[ids[j + 1]];
            if (xj == xn) continue;
            const int32_t n_left = j + 1;
            if (!limits.allow(n_left, node.m - n_left, wl, total - wl)) continue;
            SplitRecord s;
            s.feature = static_cast<int32_t>(f);
            s.threshold = midpoint(xj, xn);
            s.n_left = n_left;
            out.push_back(s);
        }
    }
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
        for (int32_t j = 0; j < node.m; ++j) {
            const int32_t i = ids[j];
            if (in_left[i]) *l++ = i; else *r++ = i;
        }
    }
}

}  // namespace dpdt
