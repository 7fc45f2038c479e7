// The training data as the solver reads it: columns, labels, weights, and the presorted order.
#pragma once
#include <cstdint>
#include <vector>

namespace dpdt {

struct Dataset {
    int64_t n = 0;
    int64_t p = 0;
    int n_classes = 0;
    std::vector<double> columns;    // column-major copy of X: feature f at columns[f * n]
    std::vector<int32_t> y;         // class codes 0..n_classes-1
    std::vector<double> w;          // sample weights (sample_weight x class_weight), >= 0
    std::vector<int32_t> presorted; // p blocks of n sample ids, block f sorted by (x_f, id)

    // X is row-major n x p.
    Dataset(const double* X, const int32_t* labels, const double* weights, int64_t n_samples,
            int64_t n_features, int n_classes);

    double x(int64_t feature, int32_t sample) const { return columns[feature * n + sample]; }
    const double* column(int64_t feature) const { return columns.data() + feature * n; }
};

}  // namespace dpdt
