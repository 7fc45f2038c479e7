// Leaf statistics of classification: weighted class sums, their 0-1 loss and impurities.
#pragma once
#include <cmath>
#include <algorithm>

#include "dpdt/params.hpp"

namespace dpdt {

// Weighted misclassification of a leaf predicting its heaviest class.
inline double leaf_loss(const double* class_w, int K, double total) {
    double best = 0.0;
    for (int k = 0; k < K; ++k) best = std::max(best, class_w[k]);
    return std::max(0.0, total - best);
}

// Gini impurity from the sum of the squared class sums and their total (> 0).
inline double gini(double sum_of_squares, double total) {
    return std::max(0.0, 1.0 - sum_of_squares / (total * total));
}

// Impurity of the class proportions (not weighted by the node's mass).
inline double impurity(const double* class_w, int K, double total, Criterion criterion) {
    if (total <= 0.0) return 0.0;
    if (criterion == Criterion::Gini) {
        double sq = 0.0;
        for (int k = 0; k < K; ++k) sq += class_w[k] * class_w[k];
        return gini(sq, total);
    }
    double h = 0.0;
    for (int k = 0; k < K; ++k) {
        if (class_w[k] > 0.0) {
            const double q = class_w[k] / total;
            h -= q * std::log2(q);
        }
    }
    return std::max(0.0, h);
}

}  // namespace dpdt
