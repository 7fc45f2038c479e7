// A fitted tree as flat parallel arrays, in scikit-learn's tree_ layout (leaf sentinel -1).
#pragma once
#include <cstdint>
#include <vector>

namespace dpdt {

constexpr int64_t kLeaf = -1;

struct TreeArrays {
    std::vector<int64_t> children_left, children_right, feature;
    std::vector<double> threshold;
    std::vector<uint8_t> missing_left;   // 1: a missing value goes left (scikit-learn's missing_go_to_left)
    std::vector<double> value;   // node_count x value_dim: the objective's value of each node
    std::vector<double> impurity;
    std::vector<int64_t> n_node_samples;
    std::vector<double> weighted_n_node_samples;
    int64_t node_count() const { return static_cast<int64_t>(feature.size()); }
};

// Leaf reached by each row of X (row-major n x p); x[feature] <= threshold goes left, a missing
// (NaN) value goes left where missing_left is 1.
void apply(const int64_t* children_left, const int64_t* children_right, const int64_t* feature,
           const double* threshold, const uint8_t* missing_left, const double* X, int64_t n, int64_t p,
           int64_t* leaves);

}  // namespace dpdt
