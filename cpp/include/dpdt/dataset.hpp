// The features as the solver reads them: columns and the presorted order. Targets and sample
// weights belong to the objective (dpdt/objectives.hpp), so one Dataset serves many fits.
#pragma once
#include <cstdint>
#include <vector>

namespace dpdt {

struct Dataset {
    int64_t n = 0;
    int64_t p = 0;
    std::vector<double> columns;    // column-major copy of X: feature f at columns[f * n]
    std::vector<int32_t> presorted; // p blocks of n sample ids, block f sorted by (x_f, id), NaN last
    bool has_missing = false;       // some x is NaN

    // X is row-major n x p.
    Dataset(const double* X, int64_t n_samples, int64_t n_features);

    double x(int64_t feature, int32_t sample) const { return columns[feature * n + sample]; }
    const double* column(int64_t feature) const { return columns.data() + feature * n; }
};

}  // namespace dpdt
