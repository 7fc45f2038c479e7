// Search's sweep of a state of depth two over one feature f's cuts: the depth-one value of both
// children of every cut at once. An objective whose leaf loss is sum base - max_k sum term_k
// (kLossIsSumLessMaxOfSums) has, for a set of sums T_k, C and a stump on feature g whose left
// side has sums L_k(s),
//   loss(s) = C - max_(k, j) [T_j + (L_k(s) - L_j(s))],
// so the best stump on g is C - max_(k, j) [T_j + max_s (L_k(s) - L_j(s))]. Adding f's samples
// to a child in f's order, one at a time, adds each to L_k - L_j at every threshold of g at or
// above its value (SuffixMax); the best stump of the child of every cut on g follows, in
// O(m log m K^2) for all the cuts of f and one g.
#pragma once
#include <cfloat>

#include "optimal/search.hpp"

namespace dpdt {
namespace {

// Readies the sweeps of the state of level l (depth two): none made yet.
template <class O>
void Search<O>::begin_sweeps(const Level& l) {
    if constexpr (O::kLossIsSumLessMaxOfSums) {
        const int K = obj_.sum_terms_count();
        const int32_t m = l.m;
        const int64_t tree = SuffixMax::bytes_for(exact_sums_ ? m : std::min(m, kSweepBuckets), K * (K - 1));
        const int64_t values = (2 * data_.p + 1 + K) * m * static_cast<int64_t>(sizeof(double));
        // The 0-1 loss's own scans are chunked and end early, and below the root its
        // children's sets recur (the memo answers them): measured, its sweeps only pay at the
        // root, whose children nothing else meets.
        const bool root = &l == &levels_[0];
        sweeps_on_ = K > 1 && m >= kSweepLeast && tree + values <= kSweepBudget && (!kCounts || root);
        if (!sweeps_on_) return;
        // The root's state is the same in every round of the root's schedule: its sweeps stay.
        if (root && sweeps_at_root_) return;
        sweeps_at_root_ = root;
        swept_made_.assign(static_cast<size_t>(data_.p), 0);
        sweep_group_.resize(static_cast<size_t>(data_.n));
        cuts_seen_.assign(static_cast<size_t>(data_.p), 0);
        // Sums in another order than depth_one's differ in their last bits unless every sum is
        // exact: then the sweep's values are depth_one's, else they are bounds within tol.
        sweep_exact_ = exact_sums_;
        sweep_tol_ = 0.0;
        if (!sweep_exact_) {
            sweep_terms_.resize(static_cast<size_t>(K));
            double size = 0.0, base;
            const int32_t* ids = l.block(0);
            for (int32_t q = 0; q < m; ++q) {
                obj_.sum_terms(ids[q], base, sweep_terms_.data());
                size += std::abs(base) + alpha_ * obj_.w[ids[q]];
                for (int k = 0; k < K; ++k) size += std::abs(sweep_terms_[k]);
            }
            // (Policy::loss reports a regret below 1e-12 of its sum as 0.)
            sweep_tol_ = ((8.0 * m + 64.0) * DBL_EPSILON + 4e-12) * size;
        }
    }
}

// Whether the children of f's cuts in the state of level l are read from its sweep, made the
// first time it is asked after f's kSweepAfter-th evaluated cut.
template <class O>
bool Search<O>::swept(Level& l, int32_t f) {
    if (!sweeps_on_) return false;
    if (swept_made_[f]) return true;
    if (++cuts_seen_[f] <= kSweepAfter) return false;
    sweep_cuts(l, f);
    swept_made_[f] = 1;
    return true;
}

// The depth-one values of the children of every cut c of feature f of the state of level l into
// swept_: at 2 f m + c the left child's, at (2 f + 1) m + c the right's.
template <class O>
void Search<O>::sweep_cuts(Level& l, int32_t f) {
    if constexpr (O::kLossIsSumLessMaxOfSums) {
        ++stats.sweeps;
        const int K = obj_.sum_terms_count(), P = K * (K - 1);
        const int32_t m = l.m;
        resize_within(swept_, static_cast<size_t>(2 * data_.p) * m, static_cast<size_t>(2 * data_.p * data_.n));
        const int32_t n_cuts = l.n_cuts[f];
        const int32_t* cuts = l.cuts_of(f);
        const int32_t* ids = l.block(f);
        double* values[2] = {swept_.data() + 2 * static_cast<int64_t>(f) * m,
                             swept_.data() + (2 * static_cast<int64_t>(f) + 1) * m};
        sweep_terms_.resize(static_cast<size_t>(K + 3 * P + K));
        double* terms = sweep_terms_.data();
        double* top = terms + K;
        double* pos = top + P;
        double* sums = pos + P;
        double* d = sums + K;
        // A row keeps its base and terms, not the K (K - 1) differences of its terms: those are
        // one subtraction each to redo per g, and keeping them would more than double the rows.
        resize_within(sweep_rows_, static_cast<size_t>(m) * (1 + K), static_cast<size_t>(data_.n) * (1 + K));
        double* rows = sweep_rows_.data();
        // Each side's leaf first: its value, and its stumps' split cost added below.
        auto leaf_of = [&](double c, const double* t) {
            double best = t[0];
            for (int k = 1; k < K; ++k) best = std::max(best, t[k]);
            return std::max(0.0, c - best);
        };
        sweep_cost_.resize(static_cast<size_t>(2 * n_cuts));
        for (int side = 0; side < 2; ++side) {
            double* v = values[side];
            double* cost = sweep_cost_.data() + side * n_cuts;
            double c = 0.0, w = 0.0, base;
            std::fill(sums, sums + K, 0.0);
            int32_t at = side == 0 ? 0 : n_cuts - 1;
            for (int32_t step = 0; step < m; ++step) {
                const int32_t q = side == 0 ? step : m - 1 - step;
                const int32_t i = ids[q];
                obj_.sum_terms(i, base, terms);
                c += base;
                w += obj_.w[i];
                if (side == 0) {
                    // Each sample's base and terms, read by every g's sweep.
                    double* row = rows + static_cast<int64_t>(q) * (1 + K);
                    row[0] = base;
                    std::copy(terms, terms + K, row + 1);
                }
                for (int k = 0; k < K; ++k) sums[k] += terms[k];
                // The child of cut `at`: positions [0, cuts[at]] (left) or (cuts[at], m) (right).
                while (at >= 0 && at < n_cuts && (side == 0 ? cuts[at] == q : cuts[at] + 1 == q)) {
                    v[at] = leaf_of(c, sums);
                    cost[at] = split_cost(w);
                    at += side == 0 ? 1 : -1;
                }
            }
        }
        for (int32_t g = 0; g < data_.p; ++g) {
            stop_point();
            // Each sample's group: the rank of its value among the state's values of g.
            const int32_t* by_g = l.block(g);
            const double* col = data_.column(g);
            if (col[by_g[0]] == col[by_g[m - 1]]) continue;
            int32_t groups = 0;
            for (int32_t q = 0; q < m; ++q) {
                groups += q > 0 && col[by_g[q]] != col[by_g[q - 1]];
                sweep_group_[by_g[q]] = groups;
            }
            ++groups;
            // Without exact sums the values are bounds anyway: past kSweepBuckets values, g's
            // order is cut into that many buckets of as many samples, and a threshold inside
            // bucket b bounded by the one below b plus every positive d of b's samples (a
            // bucket's value; those between buckets are below the next bucket's), so that the
            // tree stays small enough to be read from the cache.
            const bool buckets = !sweep_exact_ && groups > kSweepBuckets;
            if (buckets) {
                groups = kSweepBuckets;
                for (int32_t q = 0; q < m; ++q)
                    sweep_group_[by_g[q]] = static_cast<int32_t>(static_cast<int64_t>(q) * kSweepBuckets / m);
            }
            for (int side = 0; side < 2; ++side) {
                double* v = values[side];
                const double* cost = sweep_cost_.data() + side * n_cuts;
                sweep_tree_.reset(groups, P);
                double c = 0.0;
                std::fill(sums, sums + K, 0.0);
                int32_t at = side == 0 ? 0 : n_cuts - 1;
                for (int32_t step = 0; step < m; ++step) {
                    const int32_t q = side == 0 ? step : m - 1 - step;
                    const int32_t i = ids[q];
                    const double* row = rows + static_cast<int64_t>(q) * (1 + K);
                    c += row[0];
                    for (int k = 0; k < K; ++k) sums[k] += row[1 + k];
                    // The differences d of pairs of the sample's terms, in top's order.
                    for (int k = 0, p = 0; k < K; ++k)
                        for (int j = 0; j < K; ++j)
                            if (j != k) d[p++] = row[1 + k] - row[1 + j];
                    const int32_t b = sweep_group_[i];
                    if (buckets) {
                        for (int p = 0; p < P; ++p) pos[p] = std::max(0.0, d[p]);
                        sweep_tree_.add_at_and_after(b, pos, d);
                    } else {
                        sweep_tree_.add_from(b, d);
                    }
                    bool read = false;
                    while (at >= 0 && at < n_cuts && (side == 0 ? cuts[at] == q : cuts[at] + 1 == q)) {
                        if (!read) {
                            sweep_tree_.top(top);
                            read = true;
                        }
                        double best = -kInf;
                        for (int k = 0, p = 0; k < K; ++k)
                            for (int j = 0; j < K; ++j)
                                if (j != k) best = std::max(best, sums[j] + top[p++]);
                        v[at] = std::min(v[at], std::max(0.0, c - best) + cost[at]);
                        at += side == 0 ? 1 : -1;
                    }
                }
            }
        }
        for (int side = 0; side < 2; ++side)
            for (int32_t t = 0; t < n_cuts; ++t) values[side][t] -= sweep_tol_;
        account();
    }
}

}  // namespace
}  // namespace dpdt
