// What a fit allocates in the core besides its solved states: the formula behind memory_limit,
// written once here from the layouts' own types (bound as dpdt._core.fixed_fit_bytes; Python adds
// the arrays it makes itself, dpdt/_memory.py). The solved states are counted by the solver as it
// goes, against Params::max_state_bytes.
//
// With n samples, p features, depth limit D, the largest generator budget B, T threads and a leaf
// statistic of S numbers, a fit holds, in bytes:
// - exact thresholds (ExactLayout): the Dataset's column copy and presort, 12 n p; per thread, the
//   children's sorted blocks of every depth, 4 n p D, and the CART generator's nodes, 4 n p B,
//   plus a membership mask of n;
// - bins (BinnedLayout): the codes, c n p (c = 1 byte up to 255 bins, else 2), and the Q
//   per-sample quantities the histograms sum in fixed point (FixedQuantities: int64 and their
//   double source), 16 Q n at their peak; per thread the children's id lists, 4 n D, the
//   generator's, 4 n B, and histograms of H = 8 (S + 1) (bins + 1) p bytes each: one always, and,
//   when n p >= H / 8 (states large enough to keep theirs, BinnedLayout::keeps_histogram, so that
//   a child's comes from its sibling's by subtraction), 2 (D + B) more per thread and one for the
//   root.
// Every term but the generator's is an upper bound reached when one child of each split keeps
// almost all samples; the generator's counts the levels its tree has when roughly balanced
// (generator_levels: B above stands for them). The training data itself (X, y, weights) is the
// caller's and not counted.
//
// A solved state holds, besides, its Solution (one std::make_shared block), its statistics, its
// hull and its actions, each a heap block, and, unless it is a last-level leaf, an entry of the
// solver's cache: state_bytes() when created, solved_bytes() more once its candidates are combined.
// Each heap block is counted as glibc's malloc lays it out (heap_chunk), since a state's blocks
// are small and the allocator's rounding is a third of their size.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/layout.hpp"

namespace dpdt {

struct FitShape {
    int64_t n = 0, p = 0;
    int64_t max_depth = 0;    // the search's depth limit
    int64_t max_budget = 0;   // the largest entry of Params::candidates
    int64_t n_threads = 1;
    int64_t stat_dim = 0;     // numbers in a leaf's statistics (the objective's dim())
    // Binned features: the bins of each feature (empty: exact thresholds), the bytes of a code
    // and the per-sample quantities the histograms sum (the objective's fixed_dim()).
    std::vector<int32_t> n_bins;
    int64_t code_bytes = 1;
    int64_t sample_quantities = 0;
};

// The heap a request of `bytes` takes under glibc's malloc: an 8-byte header, rounded up to 16,
// 32 at least; nothing for an empty request.
constexpr int64_t heap_chunk(int64_t bytes) {
    return bytes <= 0 ? 0 : std::max<int64_t>(32, (bytes + 8 + 15) / 16 * 16);
}

// The solver's cache key (a subset hash with the state's value bounds mixed in, its size and depth;
// solver_impl.hpp asserts it).
constexpr int64_t kStateKeyBytes = 2 * sizeof(uint64_t) + 2 * sizeof(int32_t);

// Bytes a state holds when created: its Solution, statistics of `stat_dim` numbers and one-point
// hull (its leaf), and its cache entry when `cached` (memory.cpp).
int64_t state_bytes(int64_t stat_dim, bool cached);
// Bytes a state holds more once solved, with room for `hull_points` points and `actions` actions
// (its vectors' capacities): the hull replaces the leaf's.
int64_t solved_bytes(int64_t hull_points, int64_t actions);

// The levels of the CART generator's nodes that the formula counts for a budget of B splits on n
// samples: its nodes' buffers (a pair per split) hold what the split node held, so all of them
// hold the samples once per level of the generator's tree. A best-first tree of B splits is
// about log2(B + 1) levels deep; twice that allows for lopsided splits. (B levels, and at most
// n - 1 splits, would be the bound, reached only by a chain of splits that each peel off a few
// samples.)
constexpr int64_t generator_levels(int64_t budget, int64_t n) {
    int64_t log2 = 0;
    while (log2 < 62 && (int64_t{1} << log2) < budget + 1) ++log2;
    return std::max<int64_t>(1, std::min({budget, n - 1, 2 * log2}));
}

// Bytes of the formula above, saturated at the int64 maximum (exact below 2^53).
inline int64_t fixed_fit_bytes(const FitShape& s) {
    constexpr double kIndex = sizeof(std::remove_const_t<std::remove_pointer_t<decltype(IdView::ids)>>);
    constexpr double kMask = sizeof(uint8_t);   // the solver's per-thread membership mask, per sample
    const double n = static_cast<double>(s.n), p = static_cast<double>(s.p);
    const double levels = static_cast<double>(std::min(s.max_depth, s.n) + generator_levels(s.max_budget, s.n));
    double bytes = 0.0;
    if (s.n_bins.empty()) {
        constexpr double kPresorted = sizeof(decltype(Dataset::columns)::value_type) +
                                      sizeof(decltype(Dataset::presorted)::value_type);
        constexpr double kBlock = sizeof(ExactLayout::Buffer::value_type);
        bytes = kPresorted * n * p + s.n_threads * (kBlock * n * p * levels + kMask * n);
    } else {
        constexpr double kQuantity = sizeof(int64_t) + sizeof(double);   // FixedQuantities: q and v
        constexpr double kCell = sizeof(std::remove_const_t<std::remove_pointer_t<decltype(IdView::hist)>>);
        double cells = 0.0;   // int64 numbers in one histogram
        for (int32_t b : s.n_bins) cells += static_cast<double>(b) + 1.0;
        cells *= static_cast<double>(s.stat_dim + 1);
        const double histogram = kCell * cells;
        const bool kept = n * p >= cells;
        const double per_thread = kIndex * n * levels + kMask * n + histogram * (1.0 + (kept ? 2.0 * levels : 0.0));
        bytes = static_cast<double>(s.code_bytes) * n * p + kQuantity * static_cast<double>(s.sample_quantities) * n +
                (kept ? histogram : 0.0) + static_cast<double>(s.n_threads) * per_thread;
    }
    const double most = static_cast<double>(std::numeric_limits<int64_t>::max());
    return bytes >= most ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(bytes);
}

}  // namespace dpdt
