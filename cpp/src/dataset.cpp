#include "dpdt/dataset.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dpdt {

Dataset::Dataset(const double* X, int64_t n_samples, int64_t n_features)
    : n(n_samples), p(n_features), columns(n_samples * n_features), presorted(n_samples * n_features) {
    for (int64_t i = 0; i < n; ++i)
        for (int64_t f = 0; f < p; ++f) columns[f * n + i] = X[i * p + f];
    // Sorting (value, id) pairs keeps the comparisons in cache, unlike sorting ids by lookup.
    // Missing values (NaN) go last, in id order.
    std::vector<std::pair<double, int32_t>> keyed(static_cast<size_t>(n));
    for (int64_t f = 0; f < p; ++f) {
        const double* col = column(f);
        int64_t present = 0, missing = n;
        for (int64_t i = 0; i < n; ++i) {
            if (std::isnan(col[i])) continue;
            keyed[present++] = {col[i], static_cast<int32_t>(i)};
        }
        for (int64_t i = n - 1; i >= 0; --i)
            if (std::isnan(col[i])) keyed[--missing] = {col[i], static_cast<int32_t>(i)};
        has_missing = has_missing || present < n;
        std::sort(keyed.begin(), keyed.begin() + present);
        int32_t* block = presorted.data() + f * n;
        for (int64_t i = 0; i < n; ++i) block[i] = keyed[i].second;
    }
}

}  // namespace dpdt
