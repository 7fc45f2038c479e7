#include "dpdt/dataset.hpp"

#include <algorithm>
#include <numeric>

namespace dpdt {

Dataset::Dataset(const double* X, int64_t n_samples, int64_t n_features)
    : n(n_samples), p(n_features), columns(n_samples * n_features), presorted(n_samples * n_features) {
    for (int64_t i = 0; i < n; ++i)
        for (int64_t f = 0; f < p; ++f) columns[f * n + i] = X[i * p + f];
    for (int64_t f = 0; f < p; ++f) {
        int32_t* block = presorted.data() + f * n;
        std::iota(block, block + n, 0);
        const double* col = column(f);
        std::sort(block, block + n, [col](int32_t a, int32_t b) {
            return col[a] < col[b] || (col[a] == col[b] && a < b);
        });
    }
}

}  // namespace dpdt
