// One thread's exact search (Search): its scratch for every depth, its memo, and the reads of
// the shared caches. The class lists what it does; the definitions are grouped by concern:
//   samples.hpp        the state's samples in every feature's order, and its children's;
//   depth_one.hpp      a state of depth one: every threshold of every feature scanned;
//   depth_two.hpp      a state of depth two on binary features: from its pair counts (MurTree);
//   depth_two_sweep.hpp  a state of depth two: every cut's children of one feature at once;
//   state_search.hpp   a state of depth >= 2: its intervals of thresholds, best bound first.
// The root's schedule (which root feature, under which bar, in which round) is root_schedule.hpp.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include "dpdt/criterion.hpp"
#include "dpdt/dataset.hpp"
#include "dpdt/objectives/classification.hpp"
#include "dpdt/params.hpp"
#include "dpdt/run_loop.hpp"
#include "dpdt/split_search.hpp"
#include "dpdt/subset_hash.hpp"
#include "optimal/bounds.hpp"
#include "optimal/caches.hpp"
#include "optimal/keep_in_order.hpp"
#include "optimal/level.hpp"
#include "optimal/outcome.hpp"
#include "optimal/pairs.hpp"
#include "optimal/root_task.hpp"
#include "optimal/scans.hpp"
#include "optimal/sweep.hpp"

namespace dpdt {
namespace {

// O: an objective whose loss is >= 0 and never drops when samples are added
// (kLossGrowsWithSamples), which the bounds need; with kZeroOneLossOnCounts the 0-1 loss's
// counting fast paths (scans.hpp, pair counts, the caches of solved sets) serve it.
template <class O>
class Search {
    static_assert(O::kLossGrowsWithSamples, "the bounds need a loss that only grows with samples");
    static constexpr bool kCounts = O::kZeroOneLossOnCounts;

  public:
    Search(const Dataset& data, const O& obj, const Params& params, double alpha, double total,
           RunLoop& loop, std::atomic<int64_t>& states_seen, HeldBytes& held, SolvedStates& solved,
           DepthTwoCache& depth_twos)
        : data_(data), obj_(obj), alpha_(alpha), total_(total),
          expected_(params.complexity == Complexity::ExpectedTests), max_states_(params.max_states), loop_(loop),
          states_seen_(states_seen), held_(held), solved_(solved),
          depth_twos_(depth_twos),
          levels_(static_cast<size_t>(params.max_depth) + 1), memo_(data.n), class_w_(obj.dim()),
          gen_left_(obj.dim()), gen_right_(obj.dim()), forced_sweep_blocks_(params.sweep_blocks) {
        const int64_t rank_slots = std::clamp<int64_t>(kRankBudget / std::max<int64_t>(data.n, 1), 1, data.p);
        for (Level& l : levels_) {
            l.rank_slots = rank_slots;
            l.rank_slot.assign(static_cast<size_t>(data.p), -1);
            l.slot_feature.assign(static_cast<size_t>(rank_slots), -1);
        }
        mixes_.resize(static_cast<size_t>(2 * data.n));
        for (int32_t i = 0; i < static_cast<int32_t>(data.n); ++i) {
            mixes_[2 * i] = mix_a(i);
            mixes_[2 * i + 1] = mix_b(i);
        }
        few_ties_.assign(static_cast<size_t>(data.p), 0);
        for (int64_t g = 0; g < data.p; ++g) {
            const int32_t* sorted = data.presorted.data() + g * data.n;
            const double* col = data.column(g);
            int64_t ties = 0;
            for (int64_t k = 0; k + 1 < data.n; ++k) ties += col[sorted[k]] == col[sorted[k + 1]];
            few_ties_[g] = 16 * ties <= data.n;
        }
        if constexpr (kCounts) {
            count_classes(data, obj, total);
        } else {
            // Each sample's share of the statistics, as add() makes it (the same doubles).
            const int dim = obj.dim();
            rise_w_.resize(static_cast<size_t>(data.n));
            obj.loss_rises(data.n, rise_w_.data());
            for (int64_t i = 0; i < data.n; ++i) {
                rise_w_[i] *= obj.w[i];
                rise_total_ += rise_w_[i];
            }
            contributions_.assign(static_cast<size_t>(data.n * dim), 0.0);
            for (int32_t i = 0; i < static_cast<int32_t>(data.n); ++i) obj.add(contributions_.data() + i * dim, i);
        }
        caches_states_ = pairs_ != nullptr && alpha_ == 0.0;
        if (caches_states_) {
            sample_words_ = (data.n + 63) / 64;
            upper_bits_.assign(static_cast<size_t>(data.p * sample_words_), 0);
            for (int64_t f = 0; f < data.p; ++f) {
                const double* col = data.column(f);
                uint64_t* bits = upper_bits_.data() + f * sample_words_;
                for (int64_t i = 0; i < data.n; ++i)
                    bits[i / 64] |= static_cast<uint64_t>(col[i] == pairs_->hi(f)) << (i % 64);
            }
            for (int64_t i = 0; i < data.n; ++i) max_w_ = std::max(max_w_, obj.w[i]);
            similar_.reset(levels_.size() + 1, sample_words_);
        }
        in_order_ = data.p * data.p * data.n <= kAlongBudget;
        narrow_along_ = data.n <= (int64_t{1} << 16);
        if (in_order_) along_made_.assign(static_cast<size_t>(data.p), 0);
        Level& root = levels_[0];
        root.m = static_cast<int32_t>(data.n);
        root.presorted = data.presorted.data();
        account();
    }
    ~Search() { held_.charge(-charged_); }
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;

  private:
    // The 0-1 loss's weights as its scans read them, and its pair counts where every feature is
    // binary and every sum exact (exact_weight_exponent).
    void count_classes(const Dataset& data, const O& obj, double total) {
        const int q = exact_weight_exponent(obj.w, data.n, total);
        exact_sums_ = q >= 0;
        if (obj.n_classes == 2) {
            split_w_.assign(static_cast<size_t>(2 * data.n), 0.0);
            for (int64_t i = 0; i < data.n; ++i) split_w_[2 * i + (obj.y[i] != 0)] = obj.w[i];
            if (exact_sums_) {
                exact_w_.resize(static_cast<size_t>(2 * data.n));
                for (int64_t i = 0; i < data.n; ++i) {
                    exact_w_[2 * i] = obj.y[i] != 0 ? obj.w[i] : -obj.w[i];
                    exact_w_[2 * i + 1] = split_w_[2 * i + 1];
                }
            }
        }
        if (exact_sums_) {
            pairs_ = std::make_unique<PairCounts>(data, obj, q);
            if (!pairs_->usable()) pairs_.reset();
        }
    }

  public:
    FitStats stats;

    // Whether a found tree is a function of the state alone whatever ub (see Solved): then the
    // root features may share their incumbent (search_optimal).
    bool order_free() const { return caches_states_; }

    // CART's tree of depth <= depth on all samples (best gini split at every node), each
    // subtree replaced by a leaf where that does not raise the objective: the incumbent a search
    // stopped by the clock can always return.
    Outcome greedy_root(int depth) { return greedy(0, depth); }

    // The root's bounds when the clock stopped its search: its leaf's value, and what every
    // split of it has when its optimum at depth - 1 is at least `shallower` (any_split_bound).
    double root_leaf_value() {
        const Level& l = levels_[0];
        std::vector<double> cw(obj_.dim());
        const double w = sums(l.block(0), l.m, cw.data());
        return leaf_value(cw.data(), w);
    }
    double any_root_split_bound(int depth, double shallower) const {
        if constexpr (kCounts)
            return any_split_bound(shallower, total_, kappa(depth - 1), split_cost(total_));
        else
            return any_split_bound(shallower, rise(rise_total_, total_, depth - 1), 1.0, split_cost(total_));
    }

    // The features by their gini score at the root, best first (ties: lower feature).
    std::vector<int32_t> root_order() {
        Level& l = levels_[0];
        std::vector<double> cw(obj_.dim());
        sums(l.block(0), l.m, cw.data());
        std::vector<double> score(static_cast<size_t>(data_.p), -kInf);
        for (int32_t f = 0; f < data_.p; ++f)
            detail::generator_scores(data_, obj_, l.block(f), l.m, f, LeafLimits{}, cw.data(), gen_left_, gen_right_,
                                          [&](int32_t, double s) { score[f] = std::max(score[f], s); });
        std::vector<int32_t> order(static_cast<size_t>(data_.p));
        for (int32_t f = 0; f < data_.p; ++f) order[f] = f;
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return score[a] > score[b]; });
        return order;
    }

    // The best tree of depth <= depth on all samples (depth >= 1), under ub.
    Outcome solve_root(int depth, double ub) {
        start_task();
        if (depth == 1) return depth_one(levels_[0], 0, 0, levels_[0].m, ub);
        return solve(0, depth, ub, nullptr, nullptr);
    }
    // The best tree of depth <= depth >= 2 on all samples whose root splits on root.feature, of
    // value < ub; root.shallower is the root's outcome at depth - 1.
    Outcome solve_root_feature(int depth, double ub, const RootTask& root) {
        start_task();
        if (depth > 2) drop_root_sweeps();
        return solve(0, depth, ub, nullptr, &root);
    }

  private:
    // The memo holds what this thread solved in earlier tasks, which depend on scheduling. With
    // weights that are integers times one power of two (exact_weight_exponent) every sum is
    // exact, so an entry is what any path would compute; with others a sum's last bit depends on
    // its order, and the memo starts afresh each task.
    void start_task() {
        if (!exact_sums_) memo_.clear();
    }

    double split_cost(double w) const { return alpha_ * (expected_ ? w : total_); }
    // The 0-1 loss's kappa (the facts at the top of optimal.cpp): a sample raises it by at most its weight.
    double kappa(int depth) const { return 1.0 + (expected_ ? alpha_ * depth : 0.0); }
    // Objectives other than the 0-1 loss bound by each sample's own rise (Objective::loss_rises)
    // instead of kappa times its weight: a set of weight w whose samples' rises, times their
    // weights, sum to `rises` raises an optimum at `depth` by at most rise(rises, w, depth).
    double rise(double rises, double w, int depth) const { return rises + (expected_ ? alpha_ * depth : 0.0) * w; }
    // The samples' rises, times their weights, summed over ids[0, count).
    double rises_of(const int32_t* ids, int32_t count) const {
        double sum = 0.0;
        for (int32_t j = 0; j < count; ++j) sum += rise_w_[ids[j]];
        return sum;
    }
    // Interrupted, or a limit reached: every state returns the best tree it has.
    bool stopped() const { return loop_.stopped() || loop_.limit_reached(); }

    // What this search's buffers and queued intervals hold, in bytes.
    int64_t held_bytes() const {
        auto of = [](const auto& v) { return static_cast<int64_t>(v.capacity() * sizeof(v[0])); };
        int64_t bytes = memo_.bytes() + (pairs_ ? pairs_->bytes() : 0) + queued_ + of(levels_) + of(mixes_) +
                        of(split_w_) + of(exact_w_) + of(contributions_) + of(rise_w_) + of(few_ties_) +
                        of(upper_bits_) + of(class_w_) + of(scratch_) + of(pair_scratch_) + of(stump_loss_) +
                        of(plane_rows_) + of(subset_) + of(marks_) + of(prefix_w1_) + of(prefix_hash_) + of(along_) + of(along16_) +
                        of(along_made_) + of(swept_) + of(sweep_terms_) + of(sweep_cost_) + of(sweep_rows_) + of(swept_made_) +
                        of(sweep_group_) + sweep_tree_.bytes() + sweep_flat_.bytes() + of(sweep_fine_) + of(fine_start_) + of(fine_at_) +
                        of(fine_terms_) + of(fine_below_) + of(fine_rank_) +
                        of(fine_slot_) + of(fine_count_) + of(fine_missing_) + of(fine_ready_);
        for (const Level& l : levels_)
            bytes += of(l.blocks) + of(l.rank) + of(l.rank_slot) + of(l.slot_feature) + of(l.bits) + of(l.prefix_w) +
                     of(l.prefix_r) + of(l.cuts) + of(l.n_cuts) + of(l.first_cut);
        bytes += similar_.bytes();
        return bytes;
    }
    // Charges what held_bytes() gained or lost since the last call (HeldBytes).
    void account() {
        const int64_t now = held_bytes();
        if (now != charged_) held_.charge(now - charged_);
        charged_ = now;
    }

    // The statistics of the samples ids[0, count) into s (obj_.dim() of them), and their weight.
    double sums(const int32_t* ids, int32_t count, double* s) const {
        if constexpr (kCounts) {
            return class_sums(ids, count, s);
        } else {
            const int dim = obj_.dim();
            std::fill(s, s + dim, 0.0);
            for (int32_t j = 0; j < count; ++j) add(s, ids[j], dim);
            return obj_.weight(s);
        }
    }
    // obj_.add(s, i), from the sample's contributions (objectives other than the 0-1 loss's).
    void add(double* s, int32_t i, int dim) const {
        const double* c = contributions_.data() + static_cast<int64_t>(i) * dim;
        for (int d = 0; d < dim; ++d) s[d] += c[d];
    }
    // The loss of a leaf of statistics s and weight w.
    double leaf_value(const double* s, double w) const {
        if constexpr (kCounts)
            return leaf_loss(s, obj_.n_classes, w);
        else
            return obj_.loss(s);
    }
    // A leaf of statistics s (weight w), under ub.
    Outcome leaf(const double* s, double w, double ub) const {
        Outcome out;
        out.value = leaf_value(s, w);
        out.found = out.value < ub;
        out.shape = leaf_shape();
        return out;
    }
    // Whether the 0-1 loss's two-class paths serve.
    bool two_classes() const {
        if constexpr (kCounts)
            return obj_.n_classes == 2;
        else
            return false;
    }

    double class_sums(const int32_t* ids, int32_t count, double* cw) const {
        if (obj_.n_classes == 2) return two_class_sums<false>(ids, count, cw, nullptr);
        std::fill(cw, cw + obj_.n_classes, 0.0);
        for (int32_t j = 0; j < count; ++j) obj_.add(cw, ids[j]);
        double w = 0.0;
        for (int k = 0; k < obj_.n_classes; ++k) w += cw[k];
        return w;
    }

    // class_sums for two classes and set_hash, in one pass (the same sums in the same order).
    double class_sums_and_hash(const int32_t* ids, int32_t count, double* cw, SubsetHash& h) const {
        return two_class_sums<true>(ids, count, cw, &h);
    }

    // Two classes' sums in registers, without branches (each class's sum in the same order, and
    // x + 0.0 == x, so the same doubles as obj_.add's), with the set's hash if kHash.
    template <bool kHash>
    double two_class_sums(const int32_t* ids, int32_t count, double* cw, SubsetHash* h) const {
        double c0 = 0.0, c1 = 0.0;
        uint64_t a = 0, b = 0;
        const double* split_w = split_w_.data();
        for (int32_t j = 0; j < count; ++j) {
            const int32_t i = ids[j];
            c0 += split_w[2 * i];
            c1 += split_w[2 * i + 1];
            if constexpr (kHash) {
                a += mixes_[2 * i];
                b += mixes_[2 * i + 1];
            }
        }
        cw[0] = c0;
        cw[1] = c1;
        if constexpr (kHash) *h = SubsetHash{a, b};
        return c0 + c1;
    }

    // The weights Scan01::run reads: exact_w with exact sums, else split_w.
    const double* scan_w() const { return exact_sums_ ? exact_w_.data() : split_w_.data(); }

    // hash_of(ids, m), from each sample's mixes computed once.
    SubsetHash set_hash(const int32_t* ids, int32_t m) const {
        SubsetHash h;
        for (int32_t j = 0; j < m; ++j) {
            h.a += mixes_[2 * ids[j]];
            h.b += mixes_[2 * ids[j] + 1];
        }
        return h;
    }

    // The ranks in feature f's block that the filter of feature g's block reads: along_
    // where it fits, else by sample id.
    struct Ranks {
        const int32_t* by_id;
        const int32_t* in_order;
        const uint16_t* in_order16;   // along16_'s
    };

    // The ids among ids[0, n) of rank in [lo, lo + span), in their order, into out (one slot
    // more than their count: the filter writes one past, without a branch); returns the count.
    // Unrolled: the loop's own increment, compare and jump cost half as much as the filter.
    static int32_t keep_ranked(const int32_t* ids, int32_t n, const int32_t* rank, int32_t lo, uint32_t span,
                               int32_t* out) {
        int64_t s = 0;
#pragma GCC unroll 8
        for (int32_t q = 0; q < n; ++q) {
            const int32_t i = ids[q];
            out[s] = i;
            s += static_cast<uint32_t>(rank[i] - lo) < span;   // lo <= rank[i] < lo + span
        }
        return static_cast<int32_t>(s);
    }

    // A feature's first cut in solve(): CART's (gini) split, of score `score`; `cut` indexes the
    // feature's cuts.
    struct Seed {
        double score;
        int32_t f, cut;
    };

    // The similarity bound (SimilarSets) of set_only states, with caches_states_.
    void archive(const Level& l, int depth, double value) { similar_.archive(l.bits, depth, value); }
    // Lower bounds of the values at `depth` of the two sides of feature f in the set_only state
    // l, from the sets solved last at that depth.
    std::pair<double, double> similarity_bounds(const Level& l, int32_t f, int depth) const {
        return similar_.bounds(l.bits.data(), upper_bits_.data() + static_cast<int64_t>(f) * sample_words_,
                               sample_words_, max_w_, depth);
    }

// The state's samples (samples.hpp): ranks, the filter, a child's blocks and sums.
    const int32_t* rank_of(Level& l, int32_t f);
    template <class R>
    const R* along_of(Level& l, int32_t f, std::vector<R>& along);
    Ranks ranks_for(Level& l, int32_t f, int32_t g, bool in_order);
    int32_t keep(const Ranks& r, const int32_t* ids, int32_t q0, int32_t q1, int32_t lo, uint32_t span,
                 int32_t* out) const;
    void gather(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, int32_t* out, bool in_order);
    double child_sums(const Level& l, int32_t f, int32_t lo, int32_t hi, SubsetHash& h);
    void build_child(int lv, int32_t f, int32_t lo, int32_t hi);

// States of depth one (depth_one.hpp): every threshold scanned.
    Outcome depth_one(Level& l, int32_t f, int32_t lo, int32_t hi, double ub) {
        if constexpr (kCounts)
            return depth_one_counts(l, f, lo, hi, ub);
        else
            return depth_one_general(l, f, lo, hi, ub);
    }
    Outcome depth_one_counts(Level& l, int32_t f, int32_t lo, int32_t hi, double ub);
    Outcome depth_one_general(Level& l, int32_t f, int32_t lo, int32_t hi, double ub);
    bool from_memo(const SubsetHash& h, int32_t size, double ub, Outcome& out);
    void remember(const SubsetHash& h, int32_t size, int32_t feature, double threshold, double ub, Outcome& out);
    double general_split_loss(const double* col, const int32_t* ids, int32_t m, int32_t& j, double cost, double bar);
    double binary_01_loss(const double* col, bool every, const int32_t* ids, int32_t m, int32_t& j, double cost,
                          double bar) const;
    double filtered_binary_01_loss(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, bool every,
                                   int32_t* out, int32_t& j, double cost, double bar);
    double exact_multiclass_01_loss(const double* col, const int32_t* ids, int32_t m, double w, int32_t& j,
                                    double cost, double bar);
    double filtered_multiclass_01_loss(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, int32_t* out,
                                       double w, int32_t& j, double cost, double bar);
    ScanK multiclass_scan(double w);
    double multiclass_01_loss(const double* col, const int32_t* ids, int32_t m, int32_t& j);

// States of depth two on binary features (depth_two.hpp): from pair counts.
    std::pair<double, int32_t> stump_from_counts(const double* c, int64_t a, int s);
    bool reads_sets_at_two() const;
    Shape stump_shape(int32_t feature) const;
    std::shared_ptr<const DepthTwo> depth_two(int lv, const double* cw, double w_state);
    Outcome depth_two_binary(int lv, const double* cw, double w_state, double ub, Outcome best, double upper,
                             double lower);

// States of depth two (depth_two_sweep.hpp): one feature's cuts' children swept at once.
    void begin_sweeps(const Level& l);
    bool swept(Level& l, int32_t f);
    void sweep_cuts(Level& l, int32_t f);
    int64_t sweep_slot(const Level& l, int32_t f, int32_t t) const;
    double swept_between(const Level& l, int32_t f, int32_t a, int32_t b, double la, double rb, double bar) const;
    bool refine_live(Level& l, int32_t f, double bar);
    bool swept_cut(const Level& l, int32_t f, int32_t t, double bar, double* value) const;
    void refine_blocks(Level& l, int32_t f);

// The search of a state (state_search.hpp): its intervals of thresholds and children.
    Outcome greedy(int lv, int depth);
    Outcome greedy_leaf(int lv, int32_t f, int32_t lo, int32_t hi);
    Outcome child(int lv, int32_t f, int32_t lo, int32_t hi, int depth, double ub);
    Outcome set_child(int lv, int32_t f, int s, int depth, double ub);
    std::vector<Seed> find_cuts(Level& l, int32_t only, const double* cw, bool prefixes);
    Outcome solve(int lv, int depth, double ub, const Outcome* shallower, const RootTask* root);
    Outcome search_state(int lv, int depth, double ub, const Outcome* shallower, const RootTask* root,
                         const double* cw_in, double w_state, double known_lower);

    const Dataset& data_;
    const O& obj_;
    const double alpha_, total_;
    const bool expected_;
    const int64_t max_states_;
    RunLoop& loop_;
    std::atomic<int64_t>& states_seen_;   // every thread's states, for progress reports and max_states
    HeldBytes& held_;                     // every thread's bytes, for max_state_bytes
    int64_t charged_ = 0;                 // this search's share of held_
    int64_t queued_ = 0;                  // bytes of the intervals queued in this thread's states
    SolvedStates& solved_;                // every thread's (used when caches_states_)
    DepthTwoCache& depth_twos_;           // every thread's (used with pairs_)
    std::vector<Level> levels_;
    DepthOneMemo memo_;
    std::vector<uint64_t> mixes_;   // mix_a(i), mix_b(i) of every sample i (set_hash)
    std::vector<double> split_w_;   // two classes: sample i's weight at 2 i + its class, 0.0 at the other
    std::vector<double> exact_w_;   // two classes, exact sums: Scan01's exact_w
    std::vector<char> few_ties_;    // by feature: at most one sample in 16 has the value of the one before
    bool exact_sums_ = false;   // every sum of weights exact (exact_weight_exponent)
    std::unique_ptr<PairCounts> pairs_;   // when every feature is binary (see depth_two_binary)
    bool caches_states_ = false;
    int64_t sample_words_ = 0;
    std::vector<uint64_t> upper_bits_;   // p x sample_words_: the samples at each feature's upper value
    double max_w_ = 0.0;
    SimilarSets similar_;   // by depth (with caches_states_)
    std::vector<double> class_w_, scratch_, pair_scratch_, stump_loss_;
    std::vector<double> gen_left_, gen_right_;   // the generator's and the general scan's statistics
    std::vector<double> contributions_;   // n x dim: each sample's statistics (without kCounts)
    std::vector<double> rise_w_;          // each sample's loss rise times its weight (without kCounts)
    double rise_total_ = 0.0;             // their sum
    std::vector<const double*> plane_rows_;   // stump_from_counts' scratch
    std::vector<int32_t> subset_;
    std::vector<char> marks_;   // greedy_leaf's, by sample id
    // The class prefixes of one level (find_cuts with `prefixes`): per feature, the class-1
    // weight and the set_hash of the prefixes of its block that its prefix_w has, laid out as
    // those. Only a state of depth two has them, and its children (depth_one) are the only
    // readers: a state of depth two has no state of depth two below it, so at most one is
    // searched at a time, and one buffer serves every level.
    std::vector<double> prefix_w1_;
    std::vector<SubsetHash> prefix_hash_;
    const Level* prefixes_of_ = nullptr;   // the level they are of, if any
    int32_t cut_searched_ = -1;            // the cut whose children evaluate() searches (child_sums' hint)
    void drop_prefixes(const Level& l) {
        if (prefixes_of_ == &l) prefixes_of_ = nullptr;
    }
    // Where every feature's fits (kAlongBudget), the ranks of one level that depth_one's
    // filters read (ranks_for): per feature f split on, the ranks in f's block of every block's
    // samples, in the block's order (p x m from f p m), so that the filter reads them in order.
    // A state of depth two's children read its level's in every cut's depth_one, the hot path;
    // only one such state is searched at a time (see prefix_w1_), and the filters that build a
    // level's children read its ranks by id (rank_of), which cost n a feature, not p m.
    bool in_order_ = false;
    // With at most 2^16 samples every rank fits 16 bits: along16_ then, of half the bytes.
    bool narrow_along_ = false;
    std::vector<int32_t> along_;
    std::vector<uint16_t> along16_;
    std::vector<char> along_made_;        // by feature
    const Level* along_of_ = nullptr;     // the level along_ is of
    // Level::forget_ranks, and the prefixes and along_ of c dropped with them.
    void forget_ranks(Level& c) {
        c.forget_ranks();
        drop_prefixes(c);
        if (along_of_ == &c) along_of_ = nullptr;
    }
    const KeepInOrder<int32_t> keep_in_order_ = keep_in_order_for_cpu<int32_t>();
    const KeepInOrder<uint16_t> keep_in_order16_ = keep_in_order_for_cpu<uint16_t>();
    // The root's sweeps serve its search at depth two only (the shallower optimum of a deeper
    // root): a deeper root's task frees them, so that they do not add to what the states below
    // the root hold.
    void drop_root_sweeps() {
        if (!sweeps_at_root_) return;
        sweeps_at_root_ = sweeps_on_ = false;
        std::vector<double>().swap(swept_);
        std::vector<double>().swap(sweep_rows_);
        std::vector<double>().swap(sweep_cost_);
        std::vector<int32_t>().swap(sweep_group_);
        for (auto* v : {&sweep_fine_, &fine_start_, &fine_at_, &fine_terms_, &fine_below_}) std::vector<double>().swap(*v);
        for (auto* v : {&fine_rank_, &fine_slot_, &fine_count_, &fine_missing_}) std::vector<int32_t>().swap(*v);
        std::vector<char>().swap(fine_ready_);
        sweep_tree_ = SuffixMax{};
        sweep_flat_ = BucketMax{};
        account();
    }
    // The sweeps of the state of depth two searched now (one at a time, as prefix_w1_): per
    // feature swept, its cuts' children's depth-one values less sweep_tol_ (0 when sweep_exact_:
    // then they are depth_one's own), 2 p x sweep_stride_ (depth_two_sweep.hpp): by cut
    // (stride m), or with sweep_blocks_ > 0 by block of cuts, bounds of the block's cuts.
    bool sweeps_on_ = false, sweep_exact_ = false, sweeps_at_root_ = false;
    double sweep_tol_ = 0.0;
    int32_t sweep_blocks_ = 0;
    int64_t sweep_stride_ = 0;
    const int32_t forced_sweep_blocks_;   // Params::sweep_blocks
    std::vector<double> swept_, sweep_terms_, sweep_cost_, sweep_rows_;
    std::vector<char> swept_made_;        // by feature
    std::vector<int32_t> sweep_group_;    // by sample id: its group in the feature swept over
    SuffixMax sweep_tree_;                // read at every cut
    BucketMax sweep_flat_;                // read at every block
    // The blocks refined (refine_live): their cuts' own values, fine_most_ blocks of
    // fine_width_ cuts a feature at most, 2 p fine_most_ fine_width_; each block's slot in its
    // feature's (-1: none), p x sweep_blocks_. refine_blocks' scratch: by bucket, the best
    // prefix inside it and the tree's start; in g's order, each sample's position in f's and
    // its terms.
    std::vector<double> sweep_fine_, fine_start_, fine_at_, fine_terms_, fine_below_;
    std::vector<int32_t> fine_rank_;
    std::vector<int32_t> fine_slot_, fine_count_, fine_missing_;
    std::vector<char> fine_ready_;        // by feature: every block live at its last pop refined
    int64_t fine_width_ = 0;
    int32_t fine_most_ = 0, fine_run_ = 1;   // sweep_blocks_ / kSweepFineShare, / kSweepRunShare
    // A state of depth two sweeps a feature when its search first takes one of its cuts past
    // the seeds, if it has kSweepLeast samples and its sweep fits: a sweep costs as much as
    // some tens of cuts searched one at a time, and in small states (a deep tree's) most cuts
    // are settled by the memo of depth-one sets or end early, where the sweep would cost more
    // than it saves. Not before the seeds: a search stopped early has then bounded every
    // feature, as it would without sweeps.
    static constexpr int32_t kSweepLeast = 1024;
    // (At 10^6 samples of 10 features a sweep by cut holds some 200 MB: such states sweep by
    // block.)
    static constexpr int64_t kSweepBudget = int64_t{1} << 27;
    // Without exact sums, the sweep of a feature of more values than this reads them in as
    // many buckets (its values are bounds then anyway): a tree the cache holds.
    static constexpr int32_t kSweepBuckets = 4096;
    // A sweep by block: so many blocks of cuts per feature, and buckets of g's values, whose
    // flat sums are read once a block: a read costs the buckets times K (K - 1), an add K (K - 1),
    // so that the reads of 10^6 samples cost about what their adds do.
    static constexpr int32_t kSweepBlocks = 1024;
    static constexpr int32_t kSweepBlockBuckets = 1024;
    // Once the runs (a kSweepRunShare-th of the blocks each) that can still hold a better cut
    // hold at most a kSweepFineShare-th of the blocks, their cuts' own values are read too
    // (refine_blocks: depth_one's within the tolerance, from a tree over kSweepFineBuckets
    // buckets of g whose leaves are scanned exactly): a pass over the samples that settles the
    // cuts near the optimum without searching their children, where the blocks' bounds leave
    // hundreds of them. A run shares one tree built afresh, which costs the buckets, not the
    // samples. (Shares of the blocks, so that few forced blocks are never refined.)
    static constexpr int32_t kSweepFineShare = 8;
    static constexpr int32_t kSweepRunShare = 64;
    static constexpr int32_t kSweepFineBuckets = 32768;
};

}  // namespace
}  // namespace dpdt
