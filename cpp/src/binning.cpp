#include "dpdt/binning.hpp"

#include <algorithm>
#include <cmath>

namespace dpdt {

namespace {

// Rows a task codes: blocks of rows keep both the reads of X and the writes of codes contiguous.
constexpr int64_t kRowsPerTask = 1 << 14;

// Rows searched together: their binary searches over one feature's upper values take the same
// steps, so the loads of the lanes overlap instead of each waiting for the last.
constexpr int kLanes = 16;

// codes[(first + k) * p + f] for the rows first .. first + count - 1 (count <= kLanes): the first
// index of values[0, n_values) that is >= x, or n_values for NaN (which fails every comparison).
template <class Code>
void code_lanes(const double* X, int64_t p, int64_t f, int64_t first, int count, const double* values,
                int64_t n_values, Code* codes) {
    double x[kLanes];
    int64_t at[kLanes];
    for (int k = 0; k < count; ++k) {
        x[k] = X[(first + k) * p + f];
        at[k] = 0;
    }
    // Invariant: the answer lies in [at, at + len] for every lane.
    for (int64_t len = n_values; len > 1;) {
        const int64_t half = len / 2;
        for (int k = 0; k < count; ++k) at[k] += values[at[k] + half - 1] < x[k] ? half : 0;
        len -= half;
    }
    for (int k = 0; k < count; ++k) {
        const int64_t index = std::isnan(x[k]) ? n_values : at[k] + (values[at[k]] < x[k]);
        codes[(first + k) * p + f] = static_cast<Code>(index);
    }
}

}  // namespace

template <class Code>
void bin_codes(const double* X, int64_t n, int64_t p, const double* upper, const int64_t* offset, Code* codes,
               int n_threads, const Poll& poll) {
    const int64_t n_tasks = (n + kRowsPerTask - 1) / kRowsPerTask;
    RunLoop loop(std::max(1, static_cast<int>(std::min<int64_t>(n_threads, n_tasks))), 0.0, poll);
    loop.run([&](int) { return n_tasks; },
             [&](int, int64_t task) {
                 stop_point();
                 const int64_t begin = task * kRowsPerTask, end = std::min(n, begin + kRowsPerTask);
                 for (int64_t f = 0; f < p; ++f)
                     for (int64_t i = begin; i < end; i += kLanes)
                         code_lanes(X, p, f, i, static_cast<int>(std::min<int64_t>(kLanes, end - i)),
                                    upper + offset[f], offset[f + 1] - offset[f], codes);
             },
             [] { return Progress{}; });
}

template void bin_codes<uint8_t>(const double*, int64_t, int64_t, const double*, const int64_t*, uint8_t*, int,
                                 const Poll&);
template void bin_codes<uint16_t>(const double*, int64_t, int64_t, const double*, const int64_t*, uint16_t*, int,
                                  const Poll&);

}  // namespace dpdt
