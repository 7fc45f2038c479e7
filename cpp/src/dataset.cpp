#include "dpdt/dataset.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#include "dpdt/run_loop.hpp"

namespace dpdt {

namespace {

// An unsigned key ordered as the double is (-0.0 and 0.0 alike; no NaN here).
inline uint64_t order_key(double x) {
    if (x == 0.0) x = 0.0;
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
}

// Sorts ids by key, equal keys in their given order: a least-significant-digit radix sort, a byte
// a pass, skipping the bytes every key shares; one read counts every byte's values. (Wider digits
// save no time on these sizes and cost small data a large table to clear.) Sorting
// (value, id) pairs by comparison took 10 to 15% of a depth-3 fit.
void radix_sort(std::vector<uint64_t>& keys, std::vector<int32_t>& ids, std::vector<uint64_t>& keys_tmp,
                std::vector<int32_t>& ids_tmp, int64_t count) {
    constexpr int kBits = 8, kDigits = (64 + kBits - 1) / kBits, kBuckets = 1 << kBits;
    constexpr uint64_t kMask = kBuckets - 1;
    std::vector<int32_t> counts(static_cast<size_t>(kDigits) * kBuckets, 0);
    for (int64_t i = 0; i < count; ++i) {
        const uint64_t k = keys[i];
        for (int d = 0; d < kDigits; ++d) ++counts[d * kBuckets + ((k >> (kBits * d)) & kMask)];
    }
    std::vector<int32_t> start(kBuckets);
    for (int d = 0; d < kDigits; ++d) {
        const int shift = kBits * d;
        const int32_t* c = counts.data() + d * kBuckets;
        if (c[(keys[0] >> shift) & kMask] == count) continue;
        int32_t sum = 0;
        for (int b = 0; b < kBuckets; ++b) {
            start[b] = sum;
            sum += c[b];
        }
        for (int64_t i = 0; i < count; ++i) {
            const int32_t at = start[(keys[i] >> shift) & kMask]++;
            keys_tmp[at] = keys[i];
            ids_tmp[at] = ids[i];
        }
        std::swap(keys, keys_tmp);
        std::swap(ids, ids_tmp);
    }
}

}  // namespace

Dataset::Dataset(const double* X, int64_t n_samples, int64_t n_features)
    : n(n_samples), p(n_features), columns(n_samples * n_features), presorted(n_samples * n_features) {
    for (int64_t i = 0; i < n; ++i)
        for (int64_t f = 0; f < p; ++f) columns[f * n + i] = X[i * p + f];
    // Each block sorted by (x, id), missing values (NaN) last, in id order.
    std::vector<uint64_t> keys(n), keys_tmp(n);
    std::vector<int32_t> ids(n), ids_tmp(n);
    for (int64_t f = 0; f < p; ++f) {
        stop_point();   // presorting runs on a run loop's worker (run_polled)
        const double* col = column(f);
        int64_t present = 0;
        // The keys of the first two values seen (`distinct` of them so far, 3 meaning more).
        uint64_t first = 0, second = 0;
        int distinct = 0;
        for (int64_t i = 0; i < n; ++i) {
            if (std::isnan(col[i])) continue;
            const uint64_t key = order_key(col[i]);
            if (distinct == 0) {
                first = key;
                distinct = 1;
            } else if (key != first && distinct == 1) {
                second = key;
                distinct = 2;
            } else if (key != first && key != second) {
                distinct = 3;
            }
            keys[present] = key;
            ids[present++] = static_cast<int32_t>(i);
        }
        has_missing = has_missing || present < n;
        int32_t* block = presorted.data() + f * n;
        if (distinct <= 2) {
            // Two values at most (binary and one-hot features): a stable partition is the sort.
            const uint64_t low = distinct == 2 ? std::min(first, second) : first;
            int64_t at = 0;
            for (int64_t j = 0; j < present; ++j)
                if (keys[j] == low) block[at++] = ids[j];
            for (int64_t j = 0; j < present; ++j)
                if (keys[j] != low) block[at++] = ids[j];
        } else {
            radix_sort(keys, ids, keys_tmp, ids_tmp, present);
            std::copy(ids.begin(), ids.begin() + present, block);
        }
        for (int64_t i = 0, missing = present; i < n; ++i)
            if (std::isnan(col[i])) block[missing++] = static_cast<int32_t>(i);
    }
}

}  // namespace dpdt
