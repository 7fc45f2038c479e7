// The 0-1 loss's threshold scans of a depth-one state (Scan01 for two classes, ScanK for more),
// resumable a chunk at a time so that a scan and the filter that feeds it can end early once no
// later threshold can matter. Classification's counting fast paths.
#pragma once
#include <algorithm>
#include <cstdint>

#include "optimal/outcome.hpp"

namespace dpdt {
namespace {

// binary_01_loss's scan, resumable: the thresholds after positions [k0, k1) of `ids` (sorted by
// col; position k1 read as the next sample), on two classes of sums c0, c1; x is col at k0.
// split_w[2 i + c] is sample i's weight if its class is c, else 0.0: each class's sum adds the
// same doubles in the same order as adding the weight to its own class only (l + 0.0 == l), with
// no branch on the class, which the data makes unpredictable.
//
// With exact sums (exact_w instead of split_w: [2 i] sample i's weight signed + for class 1 and -
// for class 0, [2 i + 1] its class-1 weight) the scan keeps d = l1 - l0 and l1 instead: the loss
// min(l0, l1) + min(c0 - l0, c1 - l1) is min(c0, c1, c0 + d, c1 - d), every term exact, so a
// position beats the best so far (at most min(c0, c1) after the first) exactly when d leaves
// (best - c0, c1 - best): two compares a sample instead of the loss.
struct Scan01 {
    double c0, c1, x;
    double l0 = 0.0, l1 = 0.0, best = kInf;
    double d = 0.0;   // exact sums: l1 - l0 (l0 not kept)
    // kDistinct: every position taken for a threshold, as if col took a different value at
    // every sample (x is not kept).
    template <bool kDistinct>
    void run(const double* col, const int32_t* ids, int32_t k0, int32_t k1, const double* split_w, int32_t& j) {
        for (int32_t k = k0; k < k1; ++k) {
            const int32_t i = ids[k];
            l0 += split_w[2 * i];
            l1 += split_w[2 * i + 1];
            const double loss = std::min(l0, l1) + std::min(c0 - l0, c1 - l1);
            if constexpr (kDistinct) {
                if (loss < best) {
                    best = loss;
                    j = k;
                }
            } else {
                const double next = col[ids[k + 1]];
                if (next != x && loss < best) {
                    best = loss;
                    j = k;
                }
                x = next;
            }
        }
    }
    template <bool kDistinct>
    void run_exact(const double* col, const int32_t* ids, int32_t k0, int32_t k1, const double* exact_w, int32_t& j) {
        const double lightest = std::min(c0, c1);
        double below = best - c0, above = c1 - best;   // -inf and inf before the first position
#pragma GCC unroll 4
        for (int32_t k = k0; k < k1; ++k) {
            const int32_t i = ids[k];
            d += exact_w[2 * i];
            l1 += exact_w[2 * i + 1];
            bool threshold = true;
            if constexpr (!kDistinct) {
                const double next = col[ids[k + 1]];
                threshold = next != x;
                x = next;
            }
            if (threshold && (d < below || d > above)) {
                best = std::min(lightest, std::min(c0 + d, c1 - d));
                j = k;
                below = best - c0;
                above = c1 - best;
            }
        }
    }
    void run(bool every, bool exact, const double* col, const int32_t* ids, int32_t k0, int32_t k1,
             const double* weights, int32_t& j) {
        if (exact) {
            if (every)
                run_exact<true>(col, ids, k0, k1, weights, j);
            else
                run_exact<false>(col, ids, k0, k1, weights, j);
        } else if (every) {
            run<true>(col, ids, k0, k1, weights, j);
        } else {
            run<false>(col, ids, k0, k1, weights, j);
        }
    }
    // With exact sums: whether no later threshold matters. The left side's lighter class only
    // grows and bounds every later loss; once it reaches the lowest loss so far (ties keep the
    // first), or makes a stump of split cost `cost` no better than `bar` (the caller keeps only
    // a better one), what the scan returns decides nothing different.
    bool done(double cost, double bar) const {
        const double floor_loss = std::min(l1 - d, l1);
        return floor_loss >= best || floor_loss + cost >= bar;
    }
};
constexpr int32_t kScanChunk = 32;

// multiclass_01_loss's scan with exact sums: forward only, resumable, and with Scan01's early
// end. Every sum is exact, so the right side's weight and class sums are the totals less the
// left's (the same doubles as the backward pass's sums), and a threshold's loss is the one that
// pass gives. The right side's heaviest class is only looked for where the loss could beat the
// best so far: the right's class sums only shrink, so the last one found bounds it from above.
struct ScanK {
    const int32_t* y;
    const double* w;
    const double* c;   // the class sums of all the samples scanned
    int K;
    double total;
    double* left;      // K class sums, zero at the start
    double wl = 0.0, max_left = 0.0, best = kInf;
    double max_right = kInf;   // at least the right side's heaviest class

    void run(const double* col, const int32_t* ids, int32_t k0, int32_t k1, int32_t& j) {
        for (int32_t k = k0; k < k1; ++k) {
            const int32_t i = ids[k];
            max_left = std::max(max_left, left[y[i]] += w[i]);
            wl += w[i];
            if (col[i] == col[ids[k + 1]]) continue;
            const double left_loss = wl - max_left, wr = total - wl;
            if (!(left_loss + (wr - max_right) < best)) continue;
            max_right = 0.0;
            for (int k2 = 0; k2 < K; ++k2) max_right = std::max(max_right, c[k2] - left[k2]);
            const double loss = left_loss + (wr - max_right);
            if (loss < best) {
                best = loss;
                j = k;
            }
        }
    }
    // Scan01::done's argument: the left side's loss only grows and bounds every later loss.
    bool done(double cost, double bar) const {
        const double floor_loss = wl - max_left;
        return floor_loss >= best || floor_loss + cost >= bar;
    }
};

}  // namespace
}  // namespace dpdt
