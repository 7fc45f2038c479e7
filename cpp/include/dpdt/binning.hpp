// The bin codes of raw values, as the histogram layout (dpdt/layout.hpp) reads them. Python chooses
// each feature's bins (their upper values, training values in increasing order); the coding is the
// pass over all n x p values, on the run loop's workers.
#pragma once
#include <cstdint>

#include "dpdt/run_loop.hpp"

namespace dpdt {

// codes[i * p + f] = the first bin b of feature f whose upper value upper[offset[f] + b] is >= X[i * p + f]
// (the upper values of f are offset[f] .. offset[f + 1] - 1, at least one, increasing), or the
// feature's bin count for a missing value (NaN): numpy's searchsorted(upper_f, x, side="left").
template <class Code>
void bin_codes(const double* X, int64_t n, int64_t p, const double* upper, const int64_t* offset, Code* codes,
               int n_threads, const Poll& poll);

}  // namespace dpdt
