#include "dpdt/tree.hpp"

#include <cmath>

namespace dpdt {

void apply(const int64_t* children_left, const int64_t* children_right, const int64_t* feature,
           const double* threshold, const uint8_t* missing_left, const double* X, int64_t n, int64_t p,
           int64_t* leaves) {
    for (int64_t i = 0; i < n; ++i) {
        const double* row = X + i * p;
        int64_t node = 0;
        while (children_left[node] != kLeaf) {
            const double x = row[feature[node]];
            const bool left = std::isnan(x) ? missing_left[node] != 0 : x <= threshold[node];
            node = left ? children_left[node] : children_right[node];
        }
        leaves[i] = node;
    }
}

}  // namespace dpdt
