// Search's sweep of a state of depth two over one feature f's cuts: the depth-one value of both
// children of every cut at once. An objective whose leaf loss is sum base - max_k sum term_k
// (kLossIsSumLessMaxOfSums) has, for a set of sums T_k, C and a stump on feature g whose left
// side has sums L_k(s),
//   loss(s) = C - max_(k, j) [T_j + (L_k(s) - L_j(s))],
// so the best stump on g is C - max_(k, j) [T_j + max_s (L_k(s) - L_j(s))]. Adding f's samples
// to a child in f's order, one at a time, adds each to L_k - L_j at every threshold of g at or
// above its value (SuffixMax); the best stump of the child of every cut on g follows, in
// O(m log m K^2) for all the cuts of f and one g. Where a value a cut does not fit, the sweep
// reads only the first cut's left child and the last cut's right child of each block of cuts
// (the least of the block's, as a child's optimum grows with its samples), from flat sums by
// bucket of g (BucketMax) read once a block: its values bound the block's cuts. Once few
// blocks can still hold a better cut, their cuts' own values are read in one more pass
// (refine_blocks), and the search takes one at a time only the cuts those do not settle.
#pragma once
#include <cfloat>

#include "optimal/search.hpp"

namespace dpdt {
namespace {

// Readies the sweeps of the state of level l (depth two): none made yet. Per cut where its values
// fit kSweepBudget, else per block of cuts (sweep_blocks_), whose values only bound its cuts'.
template <class O>
void Search<O>::begin_sweeps(const Level& l) {
    if constexpr (O::kLossIsSumLessMaxOfSums) {
        const int K = obj_.sum_terms_count(), P = K * (K - 1);
        const int32_t m = l.m;
        const int64_t rows = (1 + K) * static_cast<int64_t>(m) * static_cast<int64_t>(sizeof(double));
        const int64_t per_cut = SuffixMax::bytes_for(exact_sums_ ? m : std::min(m, kSweepBuckets), P) + rows +
                                2 * data_.p * static_cast<int64_t>(m) * static_cast<int64_t>(sizeof(double));
        const int32_t blocks = forced_sweep_blocks_ > 0 ? forced_sweep_blocks_ : kSweepBlocks;
        const int64_t fine_width = (m + blocks - 1) / blocks + 1;
        const int64_t fine_buckets = std::min(m, kSweepFineBuckets);
        const int64_t per_block =
            BucketMax::bytes_for(kSweepBlockBuckets, P) + SuffixMax::bytes_for(fine_buckets, P) + rows +
            static_cast<int64_t>(sizeof(double)) * (2 * (data_.p + 1) * blocks + 2 * data_.p * (blocks / kSweepFineShare) * fine_width +
                                                    2 * fine_buckets * P + K * static_cast<int64_t>(m)) +
            static_cast<int64_t>(sizeof(int32_t)) * m;
        const bool in_blocks = forced_sweep_blocks_ > 0 || per_cut > kSweepBudget;
        // The 0-1 loss's own scans are chunked and end early, and below the root its
        // children's sets recur (the memo answers them): measured, its sweeps only pay at the
        // root, whose children nothing else meets.
        const bool root = &l == &levels_[0];
        sweeps_on_ = K > 1 && m >= kSweepLeast && (in_blocks ? per_block : per_cut) <= kSweepBudget &&
                     (!kCounts || root);
        if (!sweeps_on_) return;
        // The root's state is the same in every round of the root's schedule: its sweeps stay.
        if (root && sweeps_at_root_) return;
        sweeps_at_root_ = root;
        sweep_blocks_ = in_blocks ? blocks : 0;
        sweep_stride_ = in_blocks ? blocks : m;
        fine_width_ = in_blocks ? fine_width : 0;
        fine_most_ = blocks / kSweepFineShare;
        fine_run_ = std::max(1, blocks / kSweepRunShare);
        fine_slot_.assign(in_blocks ? static_cast<size_t>(data_.p) * blocks : 0, -1);
        fine_count_.assign(static_cast<size_t>(data_.p), 0);
        fine_ready_.assign(static_cast<size_t>(data_.p), 0);
        swept_made_.assign(static_cast<size_t>(data_.p), 0);
        sweep_group_.resize(static_cast<size_t>(data_.n));
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

// Whether feature f of the state of level l (depth two) is swept, sweeping it now if it is not
// yet. The search asks it only past the features' seeds (search_state), so that what it
// reads of the sweeps never depends on what an earlier task left swept.
template <class O>
bool Search<O>::swept(Level& l, int32_t f) {
    if (!sweeps_on_) return false;
    if (!swept_made_[f]) {
        sweep_cuts(l, f);
        swept_made_[f] = 1;
    }
    return true;
}

// The slot of swept_ that holds cut t of feature f (n_cuts of them): its block's.
template <class O>
int64_t Search<O>::sweep_slot(const Level& l, int32_t f, int32_t t) const {
    const int64_t n_cuts = l.n_cuts[f];
    if (sweep_blocks_ == 0 || n_cuts <= sweep_blocks_) return t;
    return ((t + 1) * static_cast<int64_t>(sweep_blocks_) - 1) / n_cuts;
}

// A lower bound of the children's values (their sum) at every cut strictly between cuts a and b
// of the swept feature f, whose left child is at least la and right child at least rb: from
// the blocks of those cuts, or their cuts' own values where refined and live under bar.
template <class O>
double Search<O>::swept_between(const Level& l, int32_t f, int32_t a, int32_t b, double la, double rb,
                                double bar) const {
    if (b - a < 2) return kInf;
    const double* left = swept_.data() + 2 * static_cast<int64_t>(f) * sweep_stride_;
    const double* right = left + sweep_stride_;
    const int64_t n_cuts = l.n_cuts[f];
    double bound = kInf;
    for (int64_t k = sweep_slot(l, f, a + 1), last = sweep_slot(l, f, b - 1); k <= last; ++k) {
        if (!fine_ready_[f] || !(left[k] + right[k] < bar)) {
            bound = std::min(bound, std::max(la, left[k]) + std::max(rb, right[k]));
            continue;
        }
        const int64_t first = k * n_cuts / sweep_blocks_, end = (k + 1) * n_cuts / sweep_blocks_;
        const int32_t s = fine_slot_[static_cast<int64_t>(f) * sweep_blocks_ + k];
        const double* fine = sweep_fine_.data() + (static_cast<int64_t>(f) * fine_most_ + s) * 2 * fine_width_;
        const double lo_left = std::max(la, left[k]), lo_right = std::max(rb, right[k]);
        for (int64_t t = std::max<int64_t>(a + 1, first), stop = std::min<int64_t>(b, end); t < stop; ++t)
            bound = std::min(bound, std::max(lo_left, fine[t - first]) + std::max(lo_right, fine[fine_width_ + t - first]));
    }
    return bound;
}

// The depth-one values of the children of every cut of feature f of the state of level l into
// swept_, less sweep_tol_: at (2 f) stride + slot the left child's, at (2 f + 1) stride + slot the
// right's. Per block of cuts, a slot holds the left child of the block's first cut and the right
// child of its last: the least of every cut's in the block (a child's optimum only grows with
// its samples).
template <class O>
void Search<O>::sweep_cuts(Level& l, int32_t f) {
    if constexpr (O::kLossIsSumLessMaxOfSums) {
        ++stats.sweeps;
        const int K = obj_.sum_terms_count(), P = K * (K - 1);
        const int32_t m = l.m;
        resize_within(swept_, static_cast<size_t>(2 * data_.p * sweep_stride_),
                      static_cast<size_t>(2 * data_.p * std::max<int64_t>(sweep_stride_, data_.n)));
        const int32_t n_cuts = l.n_cuts[f];
        const int32_t* cuts = l.cuts_of(f);
        const int32_t* ids = l.block(f);
        const bool blocks = sweep_blocks_ > 0 && n_cuts > sweep_blocks_;
        const int32_t slots = blocks ? sweep_blocks_ : n_cuts;
        // The cut whose left (side 0) or right (side 1) child slot k holds: the first or the last
        // of block k, which holds cuts [k n_cuts / slots, (k + 1) n_cuts / slots).
        auto cut_of = [&](int side, int32_t k) {
            return static_cast<int32_t>((static_cast<int64_t>(k) + side) * n_cuts / slots) - side;
        };
        double* values[2] = {swept_.data() + 2 * static_cast<int64_t>(f) * sweep_stride_,
                             swept_.data() + (2 * static_cast<int64_t>(f) + 1) * sweep_stride_};
        sweep_terms_.resize(static_cast<size_t>(K + 3 * P + K));
        double* terms = sweep_terms_.data();
        double* top = terms + K;
        double* sums = top + P;
        double* d = sums + K;
        double* d_pos = d + P;
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
        // Whether the child of slot `at` (sides step through the slots in the order their
        // samples join) is complete once position q joined.
        auto complete = [&](int side, int32_t at, int32_t q) {
            return at >= 0 && at < slots && (side == 0 ? cuts[cut_of(0, at)] == q : cuts[cut_of(1, at)] + 1 == q);
        };
        sweep_cost_.resize(static_cast<size_t>(2 * slots));
        for (int side = 0; side < 2; ++side) {
            double* v = values[side];
            double* cost = sweep_cost_.data() + side * slots;
            double c = 0.0, w = 0.0, base;
            std::fill(sums, sums + K, 0.0);
            int32_t at = side == 0 ? 0 : slots - 1;
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
                // The child of slot `at`: positions [0, cut] (left) or (cut, m) (right).
                while (complete(side, at, q)) {
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
            // Where the values are bounds anyway (without exact sums, or in blocks), past
            // kSweepBuckets values (kSweepBlockBuckets read at blocks), g's order is cut into that
            // many buckets of as many samples, and a threshold inside bucket b bounded by the one
            // below b plus every positive d of b's samples (a bucket's value; those between
            // buckets are below the next bucket's), so that the tree (the flat sums) stays small
            // enough to be read from the cache.
            const int32_t most = blocks ? kSweepBlockBuckets : kSweepBuckets;
            const bool buckets = (!sweep_exact_ || blocks) && groups > most;
            if (buckets) {
                groups = most;
                for (int32_t q = 0; q < m; ++q)
                    sweep_group_[by_g[q]] = static_cast<int32_t>(static_cast<int64_t>(q) * most / m);
            }
            for (int side = 0; side < 2; ++side) {
                double* v = values[side];
                const double* cost = sweep_cost_.data() + side * slots;
                if (blocks)
                    sweep_flat_.reset(groups, P);
                else
                    sweep_tree_.reset(groups, P);
                double c = 0.0;
                std::fill(sums, sums + K, 0.0);
                int32_t at = side == 0 ? 0 : slots - 1;
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
                    if (buckets)
                        for (int p = 0; p < P; ++p) d_pos[p] = std::max(0.0, d[p]);
                    if (blocks) {
                        sweep_flat_.add(b, buckets ? d_pos : d, d);
                    } else if (buckets) {
                        sweep_tree_.add_at_and_after(b, d_pos, d);
                    } else {
                        sweep_tree_.add_from(b, d);
                    }
                    bool read = false;
                    while (complete(side, at, q)) {
                        if (!read) {
                            if (blocks)
                                sweep_flat_.top(top);
                            else
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
            for (int32_t k = 0; k < slots; ++k) values[side][k] -= sweep_tol_;
        account();
    }
}

// Whether every block of feature f (swept by block) whose values leave its cuts below bar
// (live) has its cuts' own values (refined), refining them now if the runs of fine_run_ blocks
// that hold them number at most fine_most_ blocks: so that a search reads them or not by its
// bar alone, whatever an earlier task refined.
template <class O>
bool Search<O>::refine_live(Level& l, int32_t f, double bar) {
    const int32_t n_cuts = l.n_cuts[f], nb = sweep_blocks_;
    fine_ready_[f] = 0;
    if (n_cuts <= nb) return false;
    const double* left = swept_.data() + 2 * static_cast<int64_t>(f) * sweep_stride_;
    const double* right = left + sweep_stride_;
    int32_t* slot = fine_slot_.data() + static_cast<int64_t>(f) * nb;
    // The runs with a live block, whole.
    auto runs = [&](bool missing_only) {
        fine_missing_.clear();
        for (int32_t r0 = 0; r0 < nb; r0 += fine_run_) {
            const int32_t r1 = std::min(nb, r0 + fine_run_);
            bool live = false;
            for (int32_t k = r0; k < r1 && !live; ++k) live = left[k] + right[k] < bar;
            if (!live) continue;
            for (int32_t k = r0; k < r1; ++k)
                if (!missing_only || slot[k] < 0) fine_missing_.push_back(k);
        }
    };
    runs(false);
    if (static_cast<int32_t>(fine_missing_.size()) > fine_most_) return false;
    runs(true);
    if (!fine_missing_.empty()) {
        if (fine_count_[f] + static_cast<int32_t>(fine_missing_.size()) > fine_most_) {
            // Room for the live runs only: those refined before, no longer live, give theirs up.
            std::fill(slot, slot + nb, -1);
            fine_count_[f] = 0;
            runs(false);
        }
        refine_blocks(l, f);
    }
    fine_ready_[f] = 1;
    return true;
}

// The values of the children of cut t of feature f (swept), less sweep_tol_, into value[2]
// (left, right); whether they are the cut's own (by cut, or of a refined block live under
// bar), else those of its block (bounds of the cut's).
template <class O>
bool Search<O>::swept_cut(const Level& l, int32_t f, int32_t t, double bar, double* value) const {
    const int64_t k = sweep_slot(l, f, t);
    const double* left = swept_.data() + 2 * static_cast<int64_t>(f) * sweep_stride_;
    value[0] = left[k];
    value[1] = left[sweep_stride_ + k];
    const int32_t n_cuts = l.n_cuts[f];
    if (sweep_blocks_ == 0 || n_cuts <= sweep_blocks_) return true;
    if (!fine_ready_[f] || !(value[0] + value[1] < bar)) return false;
    const int32_t s = fine_slot_[static_cast<int64_t>(f) * sweep_blocks_ + k];
    const double* fine = sweep_fine_.data() + (static_cast<int64_t>(f) * fine_most_ + s) * 2 * fine_width_;
    const int32_t at = t - static_cast<int32_t>(k * n_cuts / sweep_blocks_);
    // (Both bound the cut's children: the finer is not always above in its last bits.)
    value[0] = std::max(value[0], fine[at]);
    value[1] = std::max(value[1], fine[fine_width_ + at]);
    return true;
}

// The values of the children of every cut in feature f's blocks fine_missing_ (whole runs of
// fine_run_ blocks, swept by block), less sweep_tol_, into their slots of sweep_fine_: as
// sweep_cuts reads them by cut, from a SuffixMax over kSweepFineBuckets buckets of g's order
// whose leaves hold the exact best threshold inside the bucket (its samples scanned), so that
// the values are depth_one's within the tolerance (a bound only where equal values straddle
// a bucket's end). Each run's tree is built afresh at its start, so that its values do not
// depend on which other runs are refined.
template <class O>
void Search<O>::refine_blocks(Level& l, int32_t f) {
    if constexpr (O::kLossIsSumLessMaxOfSums) {
        const int K = obj_.sum_terms_count(), P = K * (K - 1);
        const int32_t m = l.m, n_cuts = l.n_cuts[f], nb = sweep_blocks_;
        const int32_t* cuts = l.cuts_of(f);
        const int32_t* ids = l.block(f);
        // The weight left of cut t at pw[t + 1], the state's at pw[n_cuts + 1] (Level::prefix_w).
        const double* pw = l.prefix_w.data() + l.prefix_at(f);
        int32_t* slot = fine_slot_.data() + static_cast<int64_t>(f) * nb;
        const size_t fine_size = static_cast<size_t>(data_.p * fine_most_ * 2 * fine_width_);
        resize_within(sweep_fine_, fine_size, fine_size);
        for (int32_t k : fine_missing_) slot[k] = fine_count_[f]++;
        // A pass cut short (the time limit's Cut) leaves its blocks unrefined.
        struct Unrefined {
            std::vector<int32_t>& missing;
            int32_t* slot;
            int32_t& count;
            bool done = false;
            ~Unrefined() {
                if (done) return;
                for (int32_t k : missing) slot[k] = -1;
                count -= static_cast<int32_t>(missing.size());
            }
        } unrefined{fine_missing_, slot, fine_count_[f]};
        auto first_cut = [&](int32_t k) { return static_cast<int32_t>(static_cast<int64_t>(k) * n_cuts / nb); };
        auto last_cut = [&](int32_t k) { return first_cut(k + 1) - 1; };
        auto values_of = [&](int32_t k, int side) {
            return sweep_fine_.data() + ((static_cast<int64_t>(f) * fine_most_ + slot[k]) * 2 + side) * fine_width_;
        };
        // The refined blocks in the order each side's samples join them (side 0 from the first
        // position), and the cut `at` steps into block k from that side's end.
        const int32_t n_missing = static_cast<int32_t>(fine_missing_.size());
        auto block_at = [&](int side, int32_t r) { return fine_missing_[side == 0 ? r : n_missing - 1 - r]; };
        auto cut_in = [&](int side, int32_t k, int32_t at) { return side == 0 ? first_cut(k) + at : last_cut(k) - at; };
        // Whether the child of cut t on `side` is complete once position q joined.
        auto complete = [&](int side, int32_t t, int32_t q) { return side == 0 ? cuts[t] == q : cuts[t] + 1 == q; };
        // Whether block k opens (or closes) its run on `side`.
        auto opens = [&](int side, int32_t k) {
            return side == 0 ? k % fine_run_ == 0 : (k % fine_run_ == fine_run_ - 1 || k == nb - 1);
        };
        auto closes = [&](int side, int32_t k) { return opens(1 - side, k); };
        auto cost_of = [&](int side, int32_t t) {
            const double w_left = pw[t + 1];
            return split_cost(side == 0 ? w_left : pw[n_cuts + 1] - w_left);
        };
        sweep_terms_.resize(static_cast<size_t>(K + 4 * P + K));
        double* terms = sweep_terms_.data();
        double* top = terms + K;
        double* sums = top + P;
        double* d = sums + K;
        double* run = d + P;
        double* best_in = run + P;
        (void)terms;
        // Each sample's base and terms in f's order (the rows sweep_cuts left are the feature
        // swept last's).
        resize_within(sweep_rows_, static_cast<size_t>(m) * (1 + K), static_cast<size_t>(data_.n) * (1 + K));
        double* rows = sweep_rows_.data();
        for (int32_t q = 0; q < m; ++q) {
            double* row = rows + static_cast<int64_t>(q) * (1 + K);
            obj_.sum_terms(ids[q], row[0], row + 1);
        }
        // Calls add(q) for every sample as it joins `side` (position q), then visit(k, t, c) at
        // every cut t of the refined blocks as its child completes (base sum c, term sums).
        auto walk = [&](int side, auto&& add, auto&& visit) {
            double c = 0.0;
            std::fill(sums, sums + K, 0.0);
            int32_t r = 0, at = 0;
            for (int32_t step = 0; step < m && r < n_missing; ++step) {
                const int32_t q = side == 0 ? step : m - 1 - step;
                const double* row = rows + static_cast<int64_t>(q) * (1 + K);
                c += row[0];
                for (int k = 0; k < K; ++k) sums[k] += row[1 + k];
                add(q);
                const int32_t k = block_at(side, r);
                const int32_t t = cut_in(side, k, at);
                if (!complete(side, t, q)) continue;
                visit(k, t, c);
                if (++at > last_cut(k) - first_cut(k)) {
                    at = 0;
                    ++r;
                }
            }
        };
        auto leaf_of = [&](double c, const double* t) {
            double best = t[0];
            for (int k = 1; k < K; ++k) best = std::max(best, t[k]);
            return std::max(0.0, c - best);
        };
        for (int side = 0; side < 2; ++side)
            walk(side, [](int32_t) {}, [&](int32_t k, int32_t t, double c) {
                values_of(k, side)[t - first_cut(k)] = leaf_of(c, sums);
            });
        const int32_t G = std::min(m, kSweepFineBuckets);
        auto bucket_start = [&](int64_t b) { return static_cast<int32_t>((b * m + G - 1) / G); };
        // In g's order: each sample's position in f's order, and its terms.
        resize_within(fine_rank_, static_cast<size_t>(m), static_cast<size_t>(data_.n));
        resize_within(fine_terms_, static_cast<size_t>(m) * K, static_cast<size_t>(data_.n) * K);
        fine_at_.resize(static_cast<size_t>(G) * P);
        fine_start_.resize(static_cast<size_t>(G) * P);
        const int32_t* rank_f = rank_of(l, f);
        for (int32_t g = 0; g < data_.p; ++g) {
            stop_point();
            const int32_t* by_g = l.block(g);
            const double* col = data_.column(g);
            if (col[by_g[0]] == col[by_g[m - 1]]) continue;
            for (int32_t j = 0; j < m; ++j) {
                const int32_t i = by_g[j];
                const int32_t q = rank_f[i];
                fine_rank_[j] = q;
                std::copy(rows + static_cast<int64_t>(q) * (1 + K) + 1, rows + static_cast<int64_t>(q) * (1 + K) + 1 + K,
                          fine_terms_.data() + static_cast<int64_t>(j) * K);
                sweep_group_[i] = static_cast<int32_t>(static_cast<int64_t>(j) * G / m);
            }
            auto diff_at = [&](int32_t j) {
                const double* t = fine_terms_.data() + static_cast<int64_t>(j) * K;
                for (int k = 0, p = 0; k < K; ++k)
                    for (int jj = 0; jj < K; ++jj)
                        if (jj != k) d[p++] = t[k] - t[jj];
            };
            for (int side = 0; side < 2; ++side) {
                auto joined = [&](int32_t j, int32_t q) { return side == 0 ? fine_rank_[j] <= q : fine_rank_[j] >= q; };
                // The best prefix, over bucket b's positions, of its samples joined once q did
                // (0: the threshold before its first), into out; their sum into run.
                auto scan_bucket = [&](int32_t b, int32_t q, double* out) {
                    std::fill(run, run + P, 0.0);
                    std::fill(out, out + P, 0.0);
                    for (int32_t j = bucket_start(b), end = bucket_start(b + 1); j < end; ++j) {
                        if (!joined(j, q)) continue;
                        diff_at(j);
                        for (int p = 0; p < P; ++p) {
                            run[p] += d[p];
                            out[p] = std::max(out[p], run[p]);
                        }
                    }
                };
                bool in_run = false;
                auto add = [&](int32_t q) {
                    if (!in_run) return;
                    const int32_t i = ids[q];
                    const int32_t b = sweep_group_[i];
                    double* at = fine_at_.data() + static_cast<int64_t>(b) * P;
                    scan_bucket(b, q, best_in);
                    // (d, left by the scan, is not the joining sample's: recomputed.)
                    for (int p = 0; p < P; ++p) {
                        const double now = best_in[p];
                        best_in[p] = now - at[p];
                        at[p] = now;
                    }
                    const double* t = rows + static_cast<int64_t>(q) * (1 + K) + 1;
                    for (int k = 0, p = 0; k < K; ++k)
                        for (int jj = 0; jj < K; ++jj)
                            if (jj != k) d[p++] = t[k] - t[jj];
                    sweep_tree_.add_at_and_after(b, best_in, d);
                };
                walk(side, add, [&](int32_t k, int32_t t, double c) {
                    const int32_t q = side == 0 ? cuts[t] : cuts[t] + 1;
                    if (!in_run && opens(side, k) && t == (side == 0 ? first_cut(k) : last_cut(k))) {
                        // The run's tree afresh: every bucket's best prefix, and the sums below it.
                        std::vector<double>& below = fine_below_;
                        below.assign(static_cast<size_t>(P), 0.0);
                        for (int32_t b = 0; b < G; ++b) {
                            double* at = fine_at_.data() + static_cast<int64_t>(b) * P;
                            scan_bucket(b, q, at);
                            double* start = fine_start_.data() + static_cast<int64_t>(b) * P;
                            for (int p = 0; p < P; ++p) {
                                start[p] = below[p] + at[p];
                                below[p] += run[p];
                            }
                        }
                        sweep_tree_.assign(G, P, fine_start_.data());
                        in_run = true;
                    }
                    sweep_tree_.top(top);
                    double best = -kInf;
                    for (int kk = 0, p = 0; kk < K; ++kk)
                        for (int j = 0; j < K; ++j)
                            if (j != kk) best = std::max(best, sums[j] + top[p++]);
                    double& v = values_of(k, side)[t - first_cut(k)];
                    v = std::min(v, std::max(0.0, c - best) + cost_of(side, t));
                    if (closes(side, k) && t == (side == 0 ? last_cut(k) : first_cut(k))) in_run = false;
                });
            }
        }
        for (int32_t k : fine_missing_)
            for (int side = 0; side < 2; ++side)
                for (int32_t t = first_cut(k); t <= last_cut(k); ++t) values_of(k, side)[t - first_cut(k)] -= sweep_tol_;
        unrefined.done = true;
        account();
    }
}

}  // namespace
}  // namespace dpdt
