#include "dpdt/binning.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dpdt {

namespace {

// Rows a task codes: blocks of rows keep both the reads of X and the writes of codes contiguous.
constexpr int64_t kRowsPerTask = 1 << 14;
// Rows coded feature after feature while they stay in the L1/L2 caches (rows of a few hundred
// bytes: a few hundred of them).
constexpr int64_t kRowsPerBlock = 256;

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

// One feature's upper values (see bin_uppers), from its sorted column.
std::vector<double> uppers_of(const double* column, int64_t m, double present_max, int max_bins) {
    int64_t present = 0;
    while (present < m && !std::isnan(column[present])) ++present;
    std::vector<double> distinct;
    std::vector<int64_t> below;   // below[k]: the values up to distinct[k], included (a cumsum)
    for (int64_t i = 0; i < present; ++i) {
        if (i > 0 && !(column[i - 1] <= column[i]))
            throw std::invalid_argument("bin_uppers needs every column sorted, missing values last");
        if (i == 0 || column[i] != column[i - 1]) {
            distinct.push_back(column[i]);
            below.push_back(0);
        }
        ++below.back();
    }
    for (int64_t i = present; i < m; ++i)
        if (!std::isnan(column[i]))
            throw std::invalid_argument("bin_uppers needs every column sorted, missing values last");
    for (size_t k = 1; k < below.size(); ++k) below[k] += below[k - 1];
    if (static_cast<int64_t>(distinct.size()) > max_bins) {
        // The least value whose empirical CDF reaches each level, in numpy's arithmetic: the
        // levels arange(1, B + 1) / B times the sample size, against the cumulated counts as doubles.
        std::vector<double> picked;
        const auto size = static_cast<double>(present);
        for (int b = 1; b <= max_bins; ++b) {
            const double target = static_cast<double>(b) / static_cast<double>(max_bins) * size;
            const auto reached = std::partition_point(below.begin(), below.end(), [&](int64_t c) {
                return static_cast<double>(c) < target;
            }) - below.begin();
            const double v = distinct[std::min<size_t>(static_cast<size_t>(reached), distinct.size() - 1)];
            if (picked.empty() || picked.back() != v) picked.push_back(v);
        }
        distinct = std::move(picked);
    }
    if (std::isnan(present_max)) return {0.0};
    std::vector<double> upper;
    if (distinct.empty() || distinct.back() < present_max) {
        for (double v : distinct)
            if (v < present_max) upper.push_back(v);
        upper.push_back(present_max);
    } else {
        upper = std::move(distinct);
    }
    if (static_cast<int64_t>(upper.size()) > max_bins) {
        upper[static_cast<size_t>(max_bins) - 1] = upper.back();
        upper.resize(static_cast<size_t>(max_bins));
    }
    return upper;
}

}  // namespace

std::vector<std::vector<double>> bin_uppers(const double* columns, int64_t m, int64_t p, const double* present_max,
                                            int max_bins, int n_threads, const Poll& poll) {
    std::vector<std::vector<double>> uppers(static_cast<size_t>(p));
    RunLoop loop(std::max(1, static_cast<int>(std::min<int64_t>(n_threads, p))), 0.0, poll);
    loop.run([&](int) { return p; },
             [&](int, int64_t f) {
                 stop_point();
                 uppers[static_cast<size_t>(f)] = uppers_of(columns + f * m, m, present_max[f], max_bins);
             },
             [] { return Progress{}; });
    return uppers;
}

template <class Code>
void bin_codes(const double* X, int64_t n, int64_t p, const double* upper, const int64_t* offset, Code* codes,
               int n_threads, const Poll& poll) {
    const int64_t n_tasks = (n + kRowsPerTask - 1) / kRowsPerTask;
    RunLoop loop(std::max(1, static_cast<int>(std::min<int64_t>(n_threads, n_tasks))), 0.0, poll);
    loop.run([&](int) { return n_tasks; },
             [&](int, int64_t task) {
                 stop_point();
                 const int64_t begin = task * kRowsPerTask, end = std::min(n, begin + kRowsPerTask);
                 // A block's rows stay in cache while every feature of them is coded.
                 for (int64_t block = begin; block < end; block += kRowsPerBlock) {
                     const int64_t stop = std::min(end, block + kRowsPerBlock);
                     for (int64_t f = 0; f < p; ++f)
                         for (int64_t i = block; i < stop; i += kLanes)
                             code_lanes(X, p, f, i, static_cast<int>(std::min<int64_t>(kLanes, stop - i)),
                                        upper + offset[f], offset[f + 1] - offset[f], codes);
                 }
             },
             [] { return Progress{}; });
}

template void bin_codes<uint8_t>(const double*, int64_t, int64_t, const double*, const int64_t*, uint8_t*, int,
                                 const Poll&);
template void bin_codes<uint16_t>(const double*, int64_t, int64_t, const double*, const int64_t*, uint16_t*, int,
                                  const Poll&);

}  // namespace dpdt
