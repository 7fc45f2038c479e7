// The bins of raw values, as the histogram layout (dpdt/layout.hpp) reads them: each feature's bins
// (their upper values, training values in increasing order, chosen from a sample of the rows) and
// the codes of all n x p values, both on the run loop's workers.
#pragma once
#include <cstdint>
#include <vector>

#include "dpdt/run_loop.hpp"

namespace dpdt {

// codes[i * p + f] = the first bin b of feature f whose upper value upper[offset[f] + b] is >= X[i * p + f]
// (the upper values of f are offset[f] .. offset[f + 1] - 1, at least one, increasing), or the
// feature's bin count for a missing value (NaN): numpy's searchsorted(upper_f, x, side="left").
// The upper values of each feature's bins, from `columns` (p columns of m sampled values, column f at
// columns[f * m], each sorted, NaN (missing) last: numpy's sort, much faster than std::sort) and present_max[f], the largest present value of f over all rows
// (NaN if none): the distinct present values if there are at most max_bins, else the distinct
// values among numpy's quantiles np.quantile(values, k / max_bins, method="inverted_cdf") for
// k = 1 .. max_bins; then present_max replaces every value from it on (the last bin holds every
// present value), merged into the last quantile's bin if that would make max_bins + 1 bins. A
// feature with no present value gets one bin, upper value 0. Of equal values (-0.0 and 0.0), the
// first in the column stands for them, as in numpy's unique.
std::vector<std::vector<double>> bin_uppers(const double* columns, int64_t m, int64_t p, const double* present_max,
                                            int max_bins, int n_threads, const Poll& poll);

template <class Code>
void bin_codes(const double* X, int64_t n, int64_t p, const double* upper, const int64_t* offset, Code* codes,
               int n_threads, const Poll& poll);

}  // namespace dpdt
