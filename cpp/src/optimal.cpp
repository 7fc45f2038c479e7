// Branch and bound for the optimal tree at one alpha (dpdt/optimal.hpp).
//
// A state (a sample set S, a depth d) is searched depth first under an upper bound: the best tree
// of value < ub, or a lower bound >= ub when there is none. Two facts about the optimum v_d(S)
// (0-1 loss + alpha * complexity, every weight >= 0) make the bounds:
//   - it only grows when samples are added: a tree's value on fewer samples can only drop, and
//     the smaller set's own optimum is lower still;
//   - adding samples of weight w raises it by at most kappa * w, with kappa = 1 + alpha * d for
//     expected tests (an added sample can be misclassified and pass d more tests) and 1 for a
//     split count (the optimal tree of the smaller set, applied to the larger, pays for it).
// Along one feature the left child grows and the right child shrinks as the threshold moves
// right. So the children's values at two evaluated thresholds a < b bound every threshold
// between them: left >= max(L_a, L_b - kappa w(t..b)), right >= max(R_b, R_a - kappa w(a..t))
// (Quant-BnB's interval bound tightened by MurTree's similarity bound). Intervals of thresholds
// are refined best bound first, over all features, until every bound reaches the incumbent. A
// state's optimum at depth d - 1 (searched first, recursively) is the incumbent to beat and
// gives the values at the ends: all samples on one side. A cut's second child is searched under
// a bound raised by the weight to the farther end of its interval (ConTree's slack, Brita et al.,
// AAAI 2025), even when the first failed, so that a bad cut's values are known well enough to
// bound its neighbours.
//
// When every feature takes two values (and the weights' sums are exact, see
// exact_weight_exponent), each feature has one threshold and the search reads its states as sets:
// a state with two levels left is solved from the pair counts of its samples (optimal_pairs.hpp,
// MurTree's depth-two solver), and what the search reads of it (its best stump, each feature's
// two sides' best stumps in the order of the search) is cached by the set's hash, since most such
// sets recur. The children's values come from counts and the cache instead of scans.
//
// There, with alpha = 0 (every value compared exact), a state's search tries its candidates in
// an order fixed by its set, keeps one only when strictly better, and reads only true bounds: so
// the tree it finds is the first candidate that reaches the optimum, whatever its ub (see Solved).
// That frees the search of the order its bounds would otherwise fix, and it takes what the exact
// solvers for binary data do (MurTree, Demirovic et al., JMLR 2022; STreeD, van der Linden et
// al., NeurIPS 2023): solved states cached by set and depth with their optimum or a lower bound,
// the similarity bound of recently solved sets, the heavier side of a split searched first, and
// the root features sharing their incumbent. The trees stay the ones the plain search finds.
// Among equally good trees the root keeps the first feature in its order (CART's score), as every
// state does: once a tree of value 0 is found, no feature after it can change the tree.

#include "dpdt/optimal.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dpdt/criterion.hpp"
#include "dpdt/run_loop.hpp"
#include "dpdt/split_search.hpp"
#include "dpdt/subset_hash.hpp"
#include "keep_in_order.hpp"
#include "optimal_pairs.hpp"

namespace dpdt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A tree's nodes in preorder (left subtree first); feature < 0 is a leaf.
struct ShapeNode {
    int32_t feature = -1;
    double threshold = 0.0;
};
using Shape = std::vector<ShapeNode>;

// A search under an upper bound ub: found, a tree of value < ub (optimal when the search ran to
// its end); otherwise `value` is a lower bound >= ub of every tree's value.
struct Outcome {
    double value = kInf;
    bool found = false;
    Shape shape;
    // Set by a search that stopped before its end (time limit, interrupt) or gave up (a futile
    // root task): a lower bound of the state's optimum, which `value` then need not be.
    double cut_short_lower = std::numeric_limits<double>::quiet_NaN();
    // A lower bound of the state's optimum, whether or not the search ran to its end.
    double lower() const { return std::isnan(cut_short_lower) ? value : cut_short_lower; }
};

Shape leaf_shape() { return Shape{ShapeNode{}}; }

// A leaf on samples of class sums cw (K of them, weight w), under ub.
Outcome leaf_outcome(const double* cw, int K, double w, double ub) {
    Outcome out;
    out.value = leaf_loss(cw, K, w);
    out.found = out.value < ub;
    out.shape = leaf_shape();
    return out;
}

Shape split_shape(int32_t feature, double threshold, const Shape& left, const Shape& right) {
    Shape s;
    s.reserve(1 + left.size() + right.size());
    s.push_back(ShapeNode{feature, threshold});
    s.insert(s.end(), left.begin(), left.end());
    s.insert(s.end(), right.begin(), right.end());
    return s;
}

// split_shape of two leaves, in one allocation (depth_one makes one at every better split).
Shape stump_of(int32_t feature, double threshold) {
    return Shape{ShapeNode{feature, threshold}, ShapeNode{}, ShapeNode{}};
}

// One thread's scratch for the states of one depth: the state's samples sorted by every feature,
// each sample's position in the block of the feature being split on, and per feature the block
// positions j that a threshold can follow (x[j] < x[j + 1]) with the weight of every prefix.
struct Level {
    int32_t m = 0;
    std::vector<int32_t> blocks;   // p blocks of m ids, plus kKeepSlack slots for the filter
    // Each sample's position in the blocks of the features split on last, n slots a feature
    // (while they fit): a state's search goes back and forth between its features' cuts.
    std::vector<int32_t> rank;           // slots x n, by sample id
    std::vector<int32_t> rank_slot;      // by feature: its slot, or -1
    std::vector<int32_t> slot_feature;   // by slot: its feature, or -1
    int32_t next_slot = 0;               // the slot taken next (the oldest)
    // Where every feature's fit (Search::along_): per feature f split on, the ranks in f's
    // block of every block's samples, in the block's order (p x m from f p m), so that the
    // filter reads them in order.
    std::vector<int32_t> along;
    std::vector<char> along_made;   // by feature
    void forget_ranks() {
        for (int32_t& f : slot_feature) {
            if (f >= 0) rank_slot[f] = -1;
            f = -1;
        }
        std::fill(along_made.begin(), along_made.end(), 0);
    }
    // hash: the samples' set_hash, when `hashed` (binary features, two classes; see solve).
    SubsetHash hash;
    bool hashed = false;
    // Only block 0 holds the state's samples, in any order (binary features: see set_child).
    bool set_only = false;
    // With the cache of solved states: the samples as bits (bit i of word i / 64), in set_only
    // states.
    std::vector<uint64_t> bits;
    std::vector<double> prefix_w;  // p x (m + 1)
    std::vector<int32_t> cuts;     // p x m, the first n_cuts[f] of each row used
    std::vector<int32_t> n_cuts;
    // When `class_prefixes` (find_cuts of this state): per feature, the class-1 weight and the
    // set_hash of every prefix of the block, p x (m + 1) each, next to prefix_w.
    bool class_prefixes = false;
    std::vector<double> prefix_w1;
    std::vector<SubsetHash> prefix_hash;
    const int32_t* block(int64_t f) const { return blocks.data() + f * m; }
};

// Thresholds a..b (indices into a feature's cuts, -1 and n_cuts being "every sample right" and
// "every sample left") with lower bounds of the children's values at both ends.
struct Interval {
    double bound;   // of the children's values at every cut strictly between a and b
    int32_t f, a, b;
    double la, ra, lb, rb;
};
struct LaterInterval {
    bool operator()(const Interval& x, const Interval& y) const {
        if (x.bound != y.bound) return x.bound > y.bound;
        if (x.f != y.f) return x.f > y.f;
        return x.a > y.a;
    }
};

// min over x in [0, w] of max(la, lb - kappa (w - x)) + max(rb, ra - kappa x): piecewise linear,
// so its minimum is at an end or at a kink.
double interval_bound(double la, double ra, double lb, double rb, double w, double kappa) {
    auto at = [&](double x) { return std::max(la, lb - kappa * (w - x)) + std::max(rb, ra - kappa * x); };
    const double x1 = std::clamp(w - (lb - la) / kappa, 0.0, w);
    const double x2 = std::clamp((ra - rb) / kappa, 0.0, w);
    return std::min(std::min(at(0.0), at(w)), std::min(at(x1), at(x2)));
}

// A lower bound of every split's value (any feature, any threshold) on a set of weight w whose
// optimum one level shallower is at least `shallower`, of split cost `cost`: its children's
// bounds at the virtual cuts over the whole range of left weights.
double any_split_bound(double shallower, double w, double kappa, double cost) {
    return cost + interval_bound(0.0, shallower, shallower, 0.0, w, kappa);
}

// Best trees of depth <= 1 of recently solved sample sets. The same set recurs: two half-spaces
// meet in the same set whichever is tested first. A pure cache of a function of the set (its
// exact optimum and the split chosen), so a hit changes nothing but the time.
class DepthOneMemo {
  public:
    struct Entry {
        uint64_t a = 0, b = 0;
        int32_t m = -1;   // no set has -1 samples: an empty slot
        int32_t feature = -1;
        double value = 0.0, threshold = 0.0;
    };
    // Direct-mapped, 16 slots a sample up to 2^18 slots (8 MB a thread): small fits stay cheap.
    explicit DepthOneMemo(int64_t n) {
        size_t slots = 1024;
        while (slots < (size_t{1} << 18) && static_cast<int64_t>(slots) < 16 * n) slots *= 2;
        slots_.resize(slots);
    }
    const Entry* find(const SubsetHash& h, int32_t m) const {
        const Entry& e = slots_[h.a & (slots_.size() - 1)];
        return e.m == m && e.a == h.a && e.b == h.b ? &e : nullptr;
    }
    void insert(const Entry& e) { slots_[e.a & (slots_.size() - 1)] = e; }
    void clear() { std::fill(slots_.begin(), slots_.end(), Entry{}); }
    int64_t bytes() const { return static_cast<int64_t>(slots_.capacity() * sizeof(Entry)); }

  private:
    std::vector<Entry> slots_;
};

// Lower bounds of the children's values at an evaluated cut.
struct CutBounds {
    int32_t cut = -1;
    double left = 0.0, right = 0.0;
};

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
// The ranks a level keeps, by sample id (Level::rank) and in each block's order (Level::along):
// at most 16 MB of each, a thread.
constexpr int64_t kRankBudget = int64_t{1} << 22;
constexpr int64_t kAlongBudget = int64_t{1} << 22;

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

// A root searched one feature at a time; `shallower` is the root's outcome one level shallower.
// The fit keeps this task's tree only if it is below `incumbent` and below the tree of every
// feature before it in the root's order (`earlier[r]` for ranks r < rank: kInf while that task
// runs or when it has none), so a task whose every tree left is at least bar() has no tree the
// fit can keep.
//
// A root feature's first cut (its seed: CART's split on it) and the next steps of its search are
// evaluated by tasks of their own (rounds) before any feature's search goes further, so that every
// feature bounds the root early (a search stopped then has a bound from each, and the bound
// rises round by round across all the features, not one feature after another), and the
// feature's search resumes from the last round (`seed`, once ready). Every round evaluates its
// cuts under the same bound, or where trees do not depend on the bound (Solved), under bounds
// all valid; and a search clears its memo at every round's end whether or not it resumed there
// (start_task): the search is the same however many rounds ran.
struct RootSeed {
    // Round r's task evaluates the seed and the cuts of the search's first steps(r) steps: the
    // first round the seed and two more (a good tree early, from the best-ranked features), each
    // next one as many cuts as all before it.
    static int64_t steps(int round) { return 3 * (int64_t{1} << round) - 1; }
    std::atomic<bool> busy{false};    // a round's task (or the feature's search) holds it
    std::atomic<bool> ready{false};   // the fields below are written
    Outcome best;                     // the best tree then
    double upper = kInf, lower = kInf;
    std::vector<Interval> queue;      // the intervals left, best first
    int64_t done = 0;                 // the steps taken
};
// The rounds before the root features' searches: the last one takes them to 3 * 2^15 - 1 steps.
constexpr int kRootRounds = 16;
struct RootTask {
    int32_t feature = -1;
    int32_t rank = 0;   // the feature's position in the root's order (Search::root_order)
    const Outcome* shallower = nullptr;
    double incumbent = kInf;
    const std::atomic<double>* earlier = nullptr;
    RootSeed* seed = nullptr;
    bool seed_only = false;   // a round's task: evaluate up to `until` steps and save the search
    bool resume = false;      // the task holds `seed` and resumes from it where ready
    int64_t until = 0;
    int rounds = 1;           // the rounds' tasks before the searches (their steps end a task)
    bool round_end(int64_t step) const {
        for (int r = 0; r < rounds; ++r)
            if (step == RootSeed::steps(r)) return true;
        return false;
    }
    double bar() const {
        double b = incumbent;
        for (int32_t r = 0; r < rank && earlier != nullptr; ++r)
            b = std::min(b, earlier[r].load(std::memory_order_relaxed));
        return b;
    }
};

// The solved states when every feature is binary, by sample set and depth: the
// state's optimum and tree, or a lower bound of its value. Such a state's search tries each
// feature's one threshold in an order fixed by the set (CART's score), after the leaf and
// the tree one level shallower, and keeps a candidate only when strictly better. Every bound
// it reads (whatever ub, whatever the cache held) is a true lower bound, so it never skips
// the first candidate that reaches the optimum, and nothing after that one replaces it: the
// tree found is that first one, a function of the set and the depth alone (by induction, as
// the children's trees are). An entry therefore answers any later visit under any ub (found
// iff its optimum is below ub; else the optimum, or the bound, is the lower bound returned)
// without changing a tree; and trees do not depend on which thread cached what, so the threads
// share one cache (SolvedStates).
// That holds when every value compared is exact: sums of weights (exact_weight_exponent) and
// alpha = 0. With alpha > 0 the products alpha * weight round, two trees of the same value
// can compare unequal, and which one the search keeps would depend on ub: no cache then.
struct StateKey {
    uint64_t a, b;
    int32_t m, depth;
    bool operator==(const StateKey& o) const { return a == o.a && b == o.b && m == o.m && depth == o.depth; }
};
struct StateKeyHash {
    size_t operator()(const StateKey& k) const {
        return static_cast<size_t>(k.a + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(k.depth));
    }
};
struct Solved {
    double value;   // the optimum if exact, else a lower bound
    bool exact;
    Shape shape;    // the optimal tree if exact
};

// The bytes the search holds beyond the data (every worker's scratch, its intervals queued and
// the shared caches), against Params::max_state_bytes: passing it ends the search as the time
// limit does (RunLoop::reach), with the best tree found and its bound.
class HeldBytes {
  public:
    HeldBytes(int64_t limit, RunLoop& loop) : limit_(limit), loop_(loop) {}
    void charge(int64_t bytes) {
        const int64_t held = held_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
        int64_t peak = peak_.load(std::memory_order_relaxed);
        while (held > peak && !peak_.compare_exchange_weak(peak, held, std::memory_order_relaxed)) {
        }
        if (limit_ > 0 && held > limit_ && !loop_.limit_reached()) loop_.reach(Limit::Memory);
    }
    int64_t peak() const { return peak_.load(); }

  private:
    const int64_t limit_;
    RunLoop& loop_;
    std::atomic<int64_t> held_{0}, peak_{0};
};

// The fit's budget for its caches of solved states: half of Params::max_state_bytes (the other
// half left to the workers' scratch, so that full caches, which start afresh, do not end the
// search), or 1 GB without one.
double cache_bytes(const Params& params) {
    return params.max_state_bytes > 0 ? static_cast<double>(params.max_state_bytes) / 2.0 : 1e9;
}

// A cache the threads share, for entries that do not depend on the thread that wrote them: in
// shards, each under its own lock with its share of a capacity (in the units of insert's
// `size`, each `unit_bytes` bytes charged to `held`); a full shard starts afresh, as the entries
// that recur are mostly recent ones.
template <class Key, class Value, class Hash>
class SharedCache {
  public:
    SharedCache(double capacity, HeldBytes& held, double unit_bytes)
        : shard_capacity_(std::max(1.0, capacity / kShards)), held_(held), unit_bytes_(unit_bytes) {}

    // read(entry or nullptr), under the shard's lock.
    template <class Read>
    auto find(const Key& key, Read&& read) {
        Shard& shard = shard_of(key);
        std::lock_guard<std::mutex> lock(shard.mutex);
        auto it = shard.map.find(key);
        return read(it == shard.map.end() ? nullptr : &it->second);
    }
    // merge(entry) if key has one, else `value` inserted.
    template <class Merge>
    void insert(const Key& key, Value&& value, double size, Merge&& merge) {
        Shard& shard = shard_of(key);
        std::lock_guard<std::mutex> lock(shard.mutex);
        if (auto it = shard.map.find(key); it != shard.map.end()) {
            merge(it->second);
            return;
        }
        if (shard.size + size > shard_capacity_) {
            shard.map.clear();
            held_.charge(-static_cast<int64_t>(shard.size * unit_bytes_));
            shard.size = 0.0;
        }
        shard.size += size;
        held_.charge(static_cast<int64_t>(size * unit_bytes_));
        shard.map.emplace(key, std::move(value));
    }

  private:
    static constexpr size_t kShards = 64;
    struct Shard {
        std::mutex mutex;
        std::unordered_map<Key, Value, Hash> map;
        double size = 0.0;
    };
    Shard& shard_of(const Key& key) { return shards_[(Hash()(key) * 0x9e3779b97f4a7c15ULL) >> 58]; }
    const double shard_capacity_;
    HeldBytes& held_;
    const double unit_bytes_;
    std::array<Shard, kShards> shards_;
};
static_assert(64 == 1 << (64 - 58), "shard_of takes the hash's top bits");

// The solved states of every thread's search (used when the search caches_states_).
class SolvedStates {
  public:
    SolvedStates(double bytes, HeldBytes& held) : cache_(bytes, held, 1.0) {}

    // Whether key's entry settles a search under ub (exact, or a bound >= ub): then `out` is its
    // outcome; else an entry's bound raises `known_lower`.
    bool settles(const StateKey& key, double ub, Outcome& out, double& known_lower) {
        return cache_.find(key, [&](const Solved* s) {
            if (s == nullptr) return false;
            if (s->exact || s->value >= ub) {
                out.value = s->value;
                out.found = s->exact && s->value < ub;
                if (out.found) out.shape = s->shape;
                return true;
            }
            known_lower = std::max(known_lower, s->value);
            return false;
        });
    }

    // What a completed search of `key` established.
    void remember(const StateKey& key, const Outcome& out) {
        const double bytes = kEntryBytes + (out.found ? out.shape.size() * sizeof(ShapeNode) : 0);
        Solved solved = out.found ? Solved{out.value, true, out.shape} : Solved{out.value, false, {}};
        cache_.insert(key, std::move(solved), bytes, [&](Solved& s) {
            if (out.found) {
                s = Solved{out.value, true, out.shape};
            } else if (!s.exact) {
                s.value = std::max(s.value, out.value);
            }
        });
    }

  private:
    // An entry's key, value and node in the map, with the allocator's overhead, roughly.
    static constexpr size_t kEntryBytes = sizeof(StateKey) + sizeof(Solved) + 48;
    SharedCache<StateKey, Solved, StateKeyHash> cache_;
};

// What solve() at depth 2 reads of a state when every feature is binary: its best stump
// (`edge`) and, for each feature in solve()'s order (CART's score first), the weight left of its
// one threshold and the best stumps of the two sides. A function of the sample set alone, so the
// threads share one cache of them (DepthTwoCache).
struct DepthTwo {
    struct Row {
        int32_t f, left_feature, right_feature;
        double w_left, left, right;
    };
    double edge = 0.0;
    int32_t edge_feature = -1;
    std::vector<Row> rows;
};
struct SetKey {
    uint64_t a, b;
    int32_t m;
    bool operator==(const SetKey& o) const { return a == o.a && b == o.b && m == o.m; }
};
struct SetKeyHash {
    size_t operator()(const SetKey& k) const { return static_cast<size_t>(k.a); }
};
// The bytes a row of the cache of depth-two states is counted, twice its size for the map's own
// memory, and the rows the cache holds in `bytes`, within [2^15, 2^24] (1.3 MB to 670 MB).
constexpr double kDepthTwoRowBytes = 2.0 * sizeof(DepthTwo::Row);
double depth_two_capacity(double bytes) { return std::clamp(bytes / kDepthTwoRowBytes, 32768.0, 16777216.0); }
using DepthTwoCache = SharedCache<SetKey, std::shared_ptr<const DepthTwo>, SetKeyHash>;

class Search {
  public:
    Search(const Dataset& data, const Classification& obj, const Params& params, double alpha, double total,
           RunLoop& loop, std::atomic<int64_t>& states_seen, HeldBytes& held, SolvedStates& solved,
           DepthTwoCache& depth_twos)
        : data_(data), obj_(obj), alpha_(alpha), total_(total),
          expected_(params.complexity == Complexity::ExpectedTests), max_states_(params.max_states), loop_(loop),
          states_seen_(states_seen), held_(held), solved_(solved),
          depth_twos_(depth_twos),
          levels_(static_cast<size_t>(params.max_depth) + 1), memo_(data.n), class_w_(obj.n_classes) {
        const int64_t rank_slots = std::clamp<int64_t>(kRankBudget / std::max<int64_t>(data.n, 1), 1, data.p);
        for (Level& l : levels_) {
            l.rank.assign(static_cast<size_t>(rank_slots * data.n), 0);
            l.rank_slot.assign(static_cast<size_t>(data.p), -1);
            l.slot_feature.assign(static_cast<size_t>(rank_slots), -1);
            l.along_made.assign(static_cast<size_t>(data.p), 0);
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
            // Empty slots (no samples, value 0) bound nothing.
            similar_.assign(levels_.size() + 1, std::vector<Similar>(kSimilar, Similar{
                std::vector<uint64_t>(static_cast<size_t>(sample_words_), 0), 0.0}));
            similar_next_.assign(levels_.size() + 1, 0);
        }
        along_ = data.p * data.p * data.n <= kAlongBudget;
        Level& root = levels_[0];
        root.m = static_cast<int32_t>(data.n);
        root.blocks.assign(data.presorted.begin(), data.presorted.end());
        root.blocks.push_back(0);
        account();
    }
    ~Search() { held_.charge(-charged_); }
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;

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
        std::vector<double> cw(obj_.n_classes);
        const double w = class_sums(l.block(0), l.m, cw.data());
        return leaf_loss(cw.data(), obj_.n_classes, w);
    }
    double any_root_split_bound(int depth, double shallower) const {
        return any_split_bound(shallower, total_, kappa(depth - 1), split_cost(total_));
    }

    // The features by their gini score at the root, best first (ties: lower feature).
    std::vector<int32_t> root_order() {
        Level& l = levels_[0];
        std::vector<double> cw(obj_.n_classes);
        class_sums(l.block(0), l.m, cw.data());
        std::vector<double> score(static_cast<size_t>(data_.p), -kInf);
        for (int32_t f = 0; f < data_.p; ++f)
            detail::classification_scores(data_, obj_, l.block(f), l.m, f, LeafLimits{}, cw.data(),
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
    double kappa(int depth) const { return 1.0 + (expected_ ? alpha_ * depth : 0.0); }
    // Interrupted, or a limit reached: every state returns the best tree it has.
    bool stopped() const { return loop_.stopped() || loop_.limit_reached(); }

    // What this search's buffers and queued intervals hold, in bytes.
    int64_t held_bytes() const {
        auto of = [](const auto& v) { return static_cast<int64_t>(v.capacity() * sizeof(v[0])); };
        int64_t bytes = memo_.bytes() + (pairs_ ? pairs_->bytes() : 0) + queued_ + of(levels_) + of(mixes_) +
                        of(split_w_) + of(exact_w_) + of(few_ties_) + of(upper_bits_) + of(class_w_) +
                        of(scratch_) + of(pair_scratch_) + of(stump_loss_) + of(plane_rows_) + of(subset_);
        for (const Level& l : levels_)
            bytes += of(l.blocks) + of(l.rank) + of(l.rank_slot) + of(l.slot_feature) + of(l.along) +
                     of(l.along_made) + of(l.bits) + of(l.prefix_w) + of(l.cuts) + of(l.n_cuts) + of(l.prefix_w1) +
                     of(l.prefix_hash);
        for (const auto& at_depth : similar_)
            for (const Similar& d : at_depth) bytes += of(d.bits);
        return bytes;
    }
    // Charges what held_bytes() gained or lost since the last call (HeldBytes).
    void account() {
        const int64_t now = held_bytes();
        if (now != charged_) held_.charge(now - charged_);
        charged_ = now;
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

    // Each sample's position in feature f's block of level l, by sample id.
    const int32_t* rank_of(Level& l, int32_t f) {
        int32_t slot = l.rank_slot[f];
        if (slot >= 0) return l.rank.data() + static_cast<int64_t>(slot) * data_.n;
        slot = l.next_slot;
        l.next_slot = (slot + 1) % static_cast<int32_t>(l.slot_feature.size());
        if (l.slot_feature[slot] >= 0) l.rank_slot[l.slot_feature[slot]] = -1;
        l.slot_feature[slot] = f;
        l.rank_slot[f] = slot;
        int32_t* rank = l.rank.data() + static_cast<int64_t>(slot) * data_.n;
        const int32_t* ids = l.block(f);
        for (int32_t j = 0; j < l.m; ++j) rank[ids[j]] = j;
        return rank;
    }

    // Level::along for feature f.
    const int32_t* along_of(Level& l, int32_t f) {
        const int64_t p = data_.p, m = l.m;
        if (l.along.size() < static_cast<size_t>(p * p * m)) l.along.resize(static_cast<size_t>(p * p * m));
        int32_t* along = l.along.data() + f * p * m;
        if (l.along_made[f]) return along;
        const int32_t* rank = rank_of(l, f);
        for (int64_t g = 0; g < p; ++g) {
            const int32_t* ids = l.block(g);
            int32_t* out = along + g * m;
            for (int64_t q = 0; q < m; ++q) out[q] = rank[ids[q]];
        }
        l.along_made[f] = 1;
        return along;
    }

    // The ranks in feature f's block that the filter of feature g's block reads: Level::along
    // where it fits, else by sample id.
    struct Ranks {
        const int32_t* by_id;
        const int32_t* in_order;
    };
    Ranks ranks_for(Level& l, int32_t f, int32_t g) {
        if (along_) return Ranks{nullptr, along_of(l, f) + static_cast<int64_t>(g) * l.m};
        return Ranks{rank_of(l, f), nullptr};
    }
    // The filter (keep_ranked) of positions [q0, q1) of ids.
    int32_t keep(const Ranks& r, const int32_t* ids, int32_t q0, int32_t q1, int32_t lo, uint32_t span,
                 int32_t* out) const {
        if (r.in_order != nullptr) return keep_in_order_(ids + q0, r.in_order + q0, q1 - q0, lo, span, out);
        return keep_ranked(ids + q0, q1 - q0, r.by_id, lo, span, out);
    }

    // The samples at positions [lo, hi) of feature f's block, in feature g's order, into out
    // (hi - lo + kKeepSlack slots: the branch-free filter writes past).
    void gather(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, int32_t* out) {
        const int32_t* ids = l.block(g);
        if (g == f || (lo == 0 && hi == l.m)) {
            std::copy(ids + (g == f ? lo : 0), ids + (g == f ? hi : l.m), out);
            return;
        }
        keep(ranks_for(l, f, g), ids, 0, l.m, lo, static_cast<uint32_t>(hi - lo), out);
    }

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

    // The class sums and set_hash of positions [lo, hi) of feature f's block of level l (two
    // classes), as class_sums_and_hash computes them. From the level's prefixes when it has them:
    // those are only kept with exact sums, so a difference of two is the sum itself, and the
    // hash's sums wrap modulo 2^64 in any order.
    double child_sums(const Level& l, int32_t f, int32_t lo, int32_t hi, SubsetHash& h) {
        if (!l.class_prefixes) return class_sums_and_hash(l.block(f) + lo, hi - lo, class_w_.data(), h);
        const int64_t row = static_cast<int64_t>(f) * (l.m + 1);
        const double* pw = l.prefix_w.data() + row;
        const double* pw1 = l.prefix_w1.data() + row;
        const SubsetHash* ph = l.prefix_hash.data() + row;
        const double c1 = pw1[hi] - pw1[lo];
        const double c0 = (pw[hi] - pw[lo]) - c1;
        class_w_[0] = c0;
        class_w_[1] = c1;
        h = SubsetHash{ph[hi].a - ph[lo].a, ph[hi].b - ph[lo].b};
        return c0 + c1;
    }

    // The best tree of depth <= 1 on positions [lo, hi) of feature f's block of level l.
    Outcome depth_one(Level& l, int32_t f, int32_t lo, int32_t hi, double ub) {
        const int32_t size = hi - lo;
        const int32_t* own = l.block(f) + lo;
        SubsetHash h;
        const double w = obj_.n_classes == 2 ? child_sums(l, f, lo, hi, h) : class_sums(own, size, class_w_.data());
        Outcome out = leaf_outcome(class_w_.data(), obj_.n_classes, w, ub);
        const double cost = split_cost(w);
        if (size < 2 || out.value <= cost) return out;
        if (obj_.n_classes != 2) h = set_hash(own, size);
        if (const DepthOneMemo::Entry* e = memo_.find(h, size)) {
            ++stats.cache_hits;
            if (e->feature >= 0) {
                out.value = e->value;
                out.shape = stump_of(e->feature, e->threshold);
            }
            out.found = out.value < ub;
            return out;
        }
        ++stats.exact_scans;
        subset_.resize(static_cast<size_t>(size) + kKeepSlack);
        int32_t feature = -1;   // of the best stump so far (none: the leaf)
        double threshold = 0.0;
        // A stump of loss 0 (value == cost) cannot be beaten: the scan stops there.
        for (int32_t g = 0; g < data_.p && out.value > cost; ++g) {
            stop_point();
            const double* col = data_.column(g);
            // The search needs the loss only; the split is chosen among the equally good ones by
            // impurity when the tree is written out (see refined_stump).
            int32_t j = -1;
            double loss;
            // With few ties the scan first takes every position for a threshold (Scan01's
            // kDistinct), and again without when the first best it finds lies between equal
            // values: otherwise that position is the first best of the thresholds too (they are
            // among the positions), and the early end is as sound (every later loss is bounded).
            const bool filtered = (obj_.n_classes == 2 || exact_sums_) && g != f && (lo > 0 || hi < l.m);
            if (filtered) {
                // A feature constant here has no threshold: j stays -1.
                loss = obj_.n_classes == 2
                           ? filtered_binary_01_loss(l, f, lo, hi, g, few_ties_[g], subset_.data(), j, cost, out.value)
                           : filtered_multiclass_01_loss(l, f, lo, hi, g, subset_.data(), w, j, cost, out.value);
            } else {
                gather(l, f, lo, hi, g, subset_.data());
                if (col[subset_[0]] == col[subset_[size - 1]]) continue;
                if (obj_.n_classes == 2)
                    loss = binary_01_loss(col, few_ties_[g], subset_.data(), size, j, cost, out.value);
                else if (exact_sums_)
                    loss = exact_multiclass_01_loss(col, subset_.data(), size, w, j, cost, out.value);
                else
                    loss = multiclass_01_loss(col, subset_.data(), size, j);
            }
            if (obj_.n_classes == 2 && few_ties_[g] && j >= 0 && loss + cost < out.value &&
                col[subset_[j]] == col[subset_[j + 1]]) {
                j = -1;
                loss = filtered ? filtered_binary_01_loss(l, f, lo, hi, g, false, subset_.data(), j, cost, out.value)
                                : binary_01_loss(col, false, subset_.data(), size, j, cost, out.value);
            }
            if (j >= 0 && loss + cost < out.value) {
                out.value = loss + cost;
                feature = g;
                threshold = midpoint(col[subset_[j]], col[subset_[j + 1]]);
            }
        }
        if (feature >= 0) out.shape = stump_of(feature, threshold);
        memo_.insert(DepthOneMemo::Entry{h.a, h.b, size, feature, out.value, threshold});
        out.found = out.value < ub;
        return out;
    }

    // Lowest 0-1 loss of a threshold of the m samples `ids` (sorted by col) of two classes, whose
    // class sums are class_w_; j: the last sample left of it (-1 if no threshold). With exact
    // sums the scan may end early (Scan01::done): then the loss is only right if it is below
    // bar - cost, which is all depth_one reads of it.
    double binary_01_loss(const double* col, bool every, const int32_t* ids, int32_t m, int32_t& j, double cost,
                          double bar) const {
        Scan01 scan{class_w_[0], class_w_[1], col[ids[0]]};
        for (int32_t k0 = 0; k0 + 1 < m; k0 += kScanChunk) {
            scan.run(every, exact_sums_, col, ids, k0, std::min(m - 1, k0 + kScanChunk), scan_w(), j);
            if (exact_sums_ && scan.done(cost, bar)) break;
        }
        return std::max(0.0, scan.best);
    }

    // binary_01_loss of the samples at positions [lo, hi) of feature f's block, in feature g's
    // order: gather's filter, a chunk of the block at a time, each followed by the scan of what
    // it added, so that where the scan ends early the filter does too. out: hi - lo + kKeepSlack
    // slots.
    double filtered_binary_01_loss(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, bool every,
                                   int32_t* out, int32_t& j, double cost, double bar) {
        const Ranks rank = ranks_for(l, f, g);
        const int32_t* ids = l.block(g);
        const double* col = data_.column(g);
        const uint32_t span = static_cast<uint32_t>(hi - lo);
        Scan01 scan{class_w_[0], class_w_[1], 0.0};
        int32_t s = 0, k = 0;
        for (int32_t q0 = 0; q0 < l.m; q0 += kScanChunk) {
            const int32_t q1 = std::min(l.m, q0 + kScanChunk);
            s += keep(rank, ids, q0, q1, lo, span, out + s);
            if (k == 0 && s > 0) scan.x = col[out[0]];
            if (k + 1 < s) {
                scan.run(every, exact_sums_, col, out, k, s - 1, scan_w(), j);
                k = s - 1;
                if (exact_sums_ && scan.done(cost, bar)) break;
            }
        }
        return std::max(0.0, scan.best);
    }

    // multiclass_01_loss with exact sums (ScanK): the class sums are class_w_, of weight w. It may
    // end early, as binary_01_loss.
    double exact_multiclass_01_loss(const double* col, const int32_t* ids, int32_t m, double w, int32_t& j,
                                    double cost, double bar) {
        ScanK scan = multiclass_scan(w);
        for (int32_t k0 = 0; k0 + 1 < m; k0 += kScanChunk) {
            scan.run(col, ids, k0, std::min(m - 1, k0 + kScanChunk), j);
            if (scan.done(cost, bar)) break;
        }
        return std::max(0.0, scan.best);
    }

    // exact_multiclass_01_loss of the samples at positions [lo, hi) of feature f's block, in
    // feature g's order: the filter and the scan a chunk at a time, as filtered_binary_01_loss.
    double filtered_multiclass_01_loss(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, int32_t* out,
                                       double w, int32_t& j, double cost, double bar) {
        const Ranks rank = ranks_for(l, f, g);
        const int32_t* ids = l.block(g);
        const double* col = data_.column(g);
        const uint32_t span = static_cast<uint32_t>(hi - lo);
        ScanK scan = multiclass_scan(w);
        int32_t s = 0, k = 0;
        for (int32_t q0 = 0; q0 < l.m; q0 += kScanChunk) {
            const int32_t q1 = std::min(l.m, q0 + kScanChunk);
            s += keep(rank, ids, q0, q1, lo, span, out + s);
            if (k + 1 < s) {
                scan.run(col, out, k, s - 1, j);
                k = s - 1;
                if (scan.done(cost, bar)) break;
            }
        }
        return std::max(0.0, scan.best);
    }

    ScanK multiclass_scan(double w) {
        scratch_.assign(static_cast<size_t>(obj_.n_classes), 0.0);
        return ScanK{obj_.y, obj_.w, class_w_.data(), obj_.n_classes, w, scratch_.data()};
    }

    // The same for any number of classes: the heaviest class of every suffix comes from a
    // backward pass, so each threshold costs O(1).
    double multiclass_01_loss(const double* col, const int32_t* ids, int32_t m, int32_t& j) {
        const int K = obj_.n_classes;
        const int32_t* y = obj_.y;
        const double* w = obj_.w;
        scratch_.assign(static_cast<size_t>(m) + 1 + K, 0.0);
        double* suffix_max = scratch_.data();
        double* sums = suffix_max + m + 1;
        double running = 0.0, total = 0.0;
        for (int32_t k = m - 1; k >= 0; --k) {
            const int32_t i = ids[k];
            running = std::max(running, sums[y[i]] += w[i]);
            total += w[i];
            suffix_max[k] = running;
        }
        std::fill(sums, sums + K, 0.0);
        double wl = 0.0, max_left = 0.0, best = kInf;
        for (int32_t k = 0; k + 1 < m; ++k) {
            const int32_t i = ids[k];
            max_left = std::max(max_left, sums[y[i]] += w[i]);
            wl += w[i];
            if (col[i] == col[ids[k + 1]]) continue;
            const double loss = (wl - max_left) + (total - wl - suffix_max[k + 1]);
            if (loss < best) {
                best = loss;
                j = k;
            }
        }
        return std::max(0.0, best);
    }

    // Positions [lo, hi) of feature f's block of level lv as the state of level lv + 1.
    void build_child(int lv, int32_t f, int32_t lo, int32_t hi) {
        Level& l = levels_[lv];
        Level& c = levels_[lv + 1];
        c.m = hi - lo;
        c.forget_ranks();
        c.hashed = false;
        c.set_only = false;
        c.class_prefixes = false;
        c.blocks.resize(static_cast<size_t>(data_.p) * c.m + kKeepSlack);
        for (int32_t g = 0; g < data_.p; ++g) {
            stop_point();
            gather(l, f, lo, hi, g, c.blocks.data() + static_cast<int64_t>(g) * c.m);
        }
    }

    Outcome greedy(int lv, int depth) {
        Level& l = levels_[lv];
        const int32_t m = l.m;
        std::vector<double> cw(obj_.n_classes);
        const double w = class_sums(l.block(0), m, cw.data());
        Outcome out = leaf_outcome(cw.data(), obj_.n_classes, w, kInf);
        if (depth == 0 || m < 2 || out.value <= split_cost(w)) return out;
        double best_score = -kInf;
        int32_t best_f = -1, best_j = -1;
        for (int32_t f = 0; f < data_.p; ++f) {
            stop_point();
            detail::classification_scores(data_, obj_, l.block(f), m, f, LeafLimits{}, cw.data(),
                                          [&](int32_t j, double score) {
                if (score > best_score) {
                    best_score = score;
                    best_f = f;
                    best_j = j;
                }
            });
        }
        if (best_f < 0) return out;
        const double* col = data_.column(best_f);
        const double threshold = midpoint(col[l.block(best_f)[best_j]], col[l.block(best_f)[best_j + 1]]);
        build_child(lv, best_f, 0, best_j + 1);
        const Outcome left = greedy(lv + 1, depth - 1);
        build_child(lv, best_f, best_j + 1, m);
        const Outcome right = greedy(lv + 1, depth - 1);
        const double value = left.value + right.value + split_cost(w);
        if (value < out.value) {
            out.value = value;
            out.shape = split_shape(best_f, threshold, left.shape, right.shape);
        }
        return out;
    }

    Outcome child(int lv, int32_t f, int32_t lo, int32_t hi, int depth, double ub) {
        Level& l = levels_[lv];
        if (depth == 0) {
            const double w = class_sums(l.block(f) + lo, hi - lo, class_w_.data());
            return leaf_outcome(class_w_.data(), obj_.n_classes, w, ub);
        }
        if (depth == 1) return depth_one(l, f, lo, hi, ub);
        if (reads_sets_at_two()) {
            // With binary features the states below read their samples as a set (set_child).
            Level& c = levels_[lv + 1];
            c.m = hi - lo;
            c.forget_ranks();
            c.hashed = false;
            c.set_only = true;
            c.class_prefixes = false;
            c.blocks.resize(static_cast<size_t>(c.m) + 1);
            std::copy(l.block(f) + lo, l.block(f) + hi, c.blocks.begin());
            if (caches_states_) {
                c.bits.assign(static_cast<size_t>(sample_words_), 0);
                for (int32_t j = 0; j < c.m; ++j) c.bits[c.blocks[j] / 64] |= uint64_t{1} << (c.blocks[j] % 64);
            }
        } else {
            build_child(lv, f, lo, hi);
        }
        return solve(lv + 1, depth, ub, nullptr, nullptr);
    }

    // The samples of the set-only state of level lv at side s (0: lower value, 1: upper) of
    // feature f, as the set-only state of level lv + 1, searched at `depth` under ub.
    Outcome set_child(int lv, int32_t f, int s, int depth, double ub) {
        const Level& l = levels_[lv];
        Level& c = levels_[lv + 1];
        c.forget_ranks();
        c.hashed = false;
        c.set_only = true;
        c.class_prefixes = false;
        c.blocks.resize(static_cast<size_t>(l.m) + 1);
        const double* col = data_.column(f);
        const double value = s ? pairs_->hi(f) : pairs_->lo(f);
        const int32_t* ids = l.block(0);
        int32_t n = 0;
        for (int32_t j = 0; j < l.m; ++j) {
            c.blocks[n] = ids[j];
            n += col[ids[j]] == value;
        }
        c.m = n;
        if (caches_states_) {
            const uint64_t* upper = upper_bits_.data() + static_cast<int64_t>(f) * sample_words_;
            c.bits.resize(static_cast<size_t>(sample_words_));
            for (int64_t x = 0; x < sample_words_; ++x) c.bits[x] = l.bits[x] & (s ? upper[x] : ~upper[x]);
        }
        return solve(lv + 1, depth, ub, nullptr, nullptr);
    }

    // A feature's first cut in solve(): CART's (gini) split, of score `score`; `cut` indexes the
    // feature's cuts.
    struct Seed {
        double score;
        int32_t f, cut;
    };

    // Cuts and prefix weights of every feature (or of `only`) for the state of level lv (class
    // sums cw), and each feature with a cut's seed, in feature order. The seed is the first
    // threshold of highest score that classification_scores visits (the same sums and formula,
    // and its bar: a threshold that cannot beat the best so far skips the divisions), found in
    // the pass that finds the cuts for two classes under gini. With `prefixes` (two classes and
    // exact sums) also the level's class prefixes, for its children's depth_one (child_sums):
    // a child of a state of depth 2 is read once per evaluated cut, the prefixes once.
    std::vector<Seed> find_cuts(Level& l, int32_t only, const double* cw, bool prefixes) {
        const int32_t m = l.m;
        l.prefix_w.resize(static_cast<size_t>(data_.p) * (m + 1));
        l.cuts.resize(static_cast<size_t>(data_.p) * m);
        l.n_cuts.assign(data_.p, 0);
        l.class_prefixes = prefixes;
        if (prefixes) {
            l.prefix_w1.resize(static_cast<size_t>(data_.p) * (m + 1));
            l.prefix_hash.resize(static_cast<size_t>(data_.p) * (m + 1));
        }
        std::vector<Seed> seeds;
        const bool gini2 = obj_.n_classes == 2 && obj_.criterion == Criterion::Gini;
        const double c0 = cw[0], c1 = gini2 ? cw[1] : 0.0, total = c0 + c1;
        const double parent = gini2 && total > 0.0 ? 2.0 * c0 * c1 / total : 0.0;
        const double margin = 1e-12 * total;
        const int32_t* y = obj_.y;
        const double* w = obj_.w;
        for (int32_t f = 0; f < data_.p; ++f) {
            if (only >= 0 && f != only) continue;
            stop_point();
            const int32_t* ids = l.block(f);
            const double* col = data_.column(f);
            double* pw = l.prefix_w.data() + static_cast<int64_t>(f) * (m + 1);
            int32_t* cuts = l.cuts.data() + static_cast<int64_t>(f) * m;
            int32_t n = 0;
            double best_score = -kInf;
            int32_t best_cut = -1;
            pw[0] = 0.0;
            if (gini2) {
                double l0 = 0.0, l1 = 0.0;
                for (int32_t j = 0; j < m; ++j) {
                    const int32_t i = ids[j];
                    const double wi = w[i];
                    const bool is1 = y[i] != 0;
                    pw[j + 1] = pw[j] + wi;
                    l0 += is1 ? 0.0 : wi;
                    l1 += is1 ? wi : 0.0;
                    if (j + 1 == m || col[i] == col[ids[j + 1]]) continue;
                    cuts[n++] = j;
                    const double wl = l0 + l1, r0 = std::max(0.0, c0 - l0), r1 = std::max(0.0, c1 - l1), wr = r0 + r1;
                    if (wl <= 0.0 || wr <= 0.0) continue;
                    if (-2.0 * (l0 * l1 * wr + r0 * r1 * wl) <= (best_score - parent - margin) * (wl * wr)) continue;
                    const double score = parent - 2.0 * l0 * l1 / wl - 2.0 * r0 * r1 / wr;
                    if (score > best_score) {
                        best_score = score;
                        best_cut = n - 1;
                    }
                }
            } else {
                for (int32_t j = 0; j < m; ++j) {
                    pw[j + 1] = pw[j] + w[ids[j]];
                    if (j + 1 < m && col[ids[j]] != col[ids[j + 1]]) cuts[n++] = j;
                }
                int32_t best_j = -1;
                if (n > 0)
                    detail::classification_scores(data_, obj_, ids, m, f, LeafLimits{}, cw,
                                                  [&](int32_t j, double score) {
                        if (score > best_score) {
                            best_score = score;
                            best_j = j;
                        }
                    }, &best_score);
                if (best_j >= 0) best_cut = static_cast<int32_t>(std::lower_bound(cuts, cuts + n, best_j) - cuts);
            }
            l.n_cuts[f] = n;
            if (n > 0) seeds.push_back(Seed{best_score, f, best_cut < 0 ? n / 2 : best_cut});
            if (prefixes) {
                double* pw1 = l.prefix_w1.data() + static_cast<int64_t>(f) * (m + 1);
                SubsetHash* ph = l.prefix_hash.data() + static_cast<int64_t>(f) * (m + 1);
                const double* split_w = split_w_.data();
                double c = 0.0;
                SubsetHash h;
                pw1[0] = c;
                ph[0] = h;
                for (int32_t j = 0; j < m; ++j) {
                    const int32_t i = ids[j];
                    pw1[j + 1] = c += split_w[2 * i + 1];
                    h.a += mixes_[2 * i];
                    h.b += mixes_[2 * i + 1];
                    ph[j + 1] = h;
                }
            }
        }
        return seeds;
    }

    // The search of one state (samples of level lv, depth >= 2) described at the top of the file;
    // `shallower` is the state's outcome at depth - 1 when already known; `root` restricts the
    // split to one feature (see RootTask).
    Outcome solve(int lv, int depth, double ub, const Outcome* shallower, const RootTask* root) {
        ++stats.states;
        if (states_seen_.fetch_add(1, std::memory_order_relaxed) >= max_states_ && !loop_.limit_reached())
            loop_.reach(Limit::States);
        account();
        Level& l = levels_[lv];
        const int32_t m = l.m;
        stats.sample_reads += m;
        l.class_prefixes = false;   // until this search's find_cuts
        const int K = obj_.n_classes;
        std::vector<double> cw(K);
        // With pair counts the set's hash keys the caches: taken in the same pass.
        double w_state;
        if (K == 2 && pairs_ != nullptr) {
            w_state = class_sums_and_hash(l.block(0), m, cw.data(), l.hash);
            l.hashed = true;
        } else {
            w_state = class_sums(l.block(0), m, cw.data());
        }
        if (!caches_states_ || root != nullptr || shallower != nullptr)
            return search_state(lv, depth, ub, shallower, root, cw.data(), w_state, 0.0);
        if (!l.hashed) {
            l.hash = set_hash(l.block(0), m);
            l.hashed = true;
        }
        const StateKey key{l.hash.a, l.hash.b, m, depth};
        double known_lower = 0.0;
        {
            Outcome settled;
            if (solved_.settles(key, ub, settled, known_lower)) {
                ++stats.cache_hits;
                return settled;
            }
        }
        // A state of depth two is solved whatever ub: its candidates come from its DepthTwo at
        // the same cost, and an exact entry answers every later visit.
        Outcome out = search_state(lv, depth, depth == 2 ? kInf : ub, nullptr, nullptr, cw.data(), w_state,
                                   known_lower);
        if (!stopped()) {
            solved_.remember(key, out);
            if (l.set_only) archive(l, depth, out.value);
        }
        if (out.found && !(out.value < ub)) out.found = false;
        return out;
    }

    // solve() once the state's class sums cw (weight w_state) are known; known_lower: a lower
    // bound of its value from the cache of solved states (0 without one).
    Outcome search_state(int lv, int depth, double ub, const Outcome* shallower, const RootTask* root,
                         const double* cw_in, double w_state, double known_lower) {
        Level& l = levels_[lv];
        const int32_t m = l.m;
        const int K = obj_.n_classes;
        std::vector<double> cw(cw_in, cw_in + K);
        Outcome best = leaf_outcome(cw.data(), K, w_state, ub);
        double upper = std::min(ub, best.value);
        double lower = best.value;   // of every tree's value, from the leaf and the split bounds
        const double cost = split_cost(w_state);
        // `lower` bounds every candidate tried (or skipped by its bound); once stopped, the
        // candidates never tried are bounded where the search stops.
        auto finish = [&]() {
            best.found = best.value < ub;
            if (!best.found) best.value = std::max(known_lower, std::min(lower, best.value));
            if (stopped()) best.cut_short_lower = std::max(known_lower, std::min(lower, best.value));
            return best;
        };
        if (upper <= cost) lower = std::min(lower, cost);   // no split can beat the bound
        if (upper <= cost || m < 2) return finish();
        if (depth == 2 && root == nullptr && shallower == nullptr && pairs_ != nullptr)
            return depth_two_binary(lv, cw.data(), w_state, ub, std::move(best), upper, lower);

        const int32_t only_feature = root != nullptr ? root->feature : -1;
        if (root != nullptr) shallower = root->shallower;
        Outcome computed;
        if (shallower == nullptr) {
            computed = depth == 2 ? depth_one(l, 0, 0, m, upper) : solve(lv, depth - 1, upper, nullptr, nullptr);
            shallower = &computed;
        }
        if (shallower->found && shallower->value < upper) {
            best.value = upper = shallower->value;
            best.shape = shallower->shape;
        }
        // Stopped, the shallower chain still ran, so a stopped state keeps its best shallower tree.
        if (stopped()) {
            lower = std::min(lower, any_split_bound(shallower->lower(), w_state, kappa(depth - 1), cost));
            return finish();
        }
        // A lower bound of the optimum at depth - 1: the children's values at the virtual cuts.
        // (lower() is value unless the search stopped: then only `lower` reads bounds.)
        const double edge = shallower->lower();
        const double kap = kappa(depth - 1);
        if (l.set_only) {
            // Binary features, the state a set: each feature's one threshold, in the order of the
            // seeds below (CART's score first), with the weight left of it, is what the state's
            // DepthTwo lists; the search is the one below, whose intervals have no inner cut.
            const std::shared_ptr<const DepthTwo> two = depth_two(lv, cw.data(), w_state);
            for (const DepthTwo::Row& row : two->rows) {
                const int32_t f = row.f;
                const double w_left = row.w_left;
                ++stats.candidates;
                double lo_left = std::max(0.0, edge - kap * (w_state - w_left));
                double lo_right = std::max(0.0, edge - kap * w_left);
                if (lo_left + lo_right + cost < upper && caches_states_) {
                    const auto [similar_left, similar_right] = similarity_bounds(l, f, depth - 1);
                    lo_left = std::max(lo_left, similar_left);
                    lo_right = std::max(lo_right, similar_right);
                }
                // Where the order does not matter (caches_states_), the heavier side first, as
                // STreeD does: its value is the larger, so the other side's bound the tighter.
                const int first = caches_states_ && w_left < w_state - w_left ? 1 : 0;
                double lo[2] = {lo_left, lo_right};
                const double bound_first = upper - cost - lo[1 - first];
                if (lo[first] < bound_first && !stopped()) {
                    Outcome one = set_child(lv, f, first, depth - 1, bound_first);
                    lo[first] = std::max(lo[first], one.lower());
                    if (one.found) {
                        Outcome other = set_child(lv, f, 1 - first, depth - 1, upper - cost - one.value);
                        lo[1 - first] = std::max(lo[1 - first], other.lower());
                        if (other.found) {
                            const Outcome& left = first == 0 ? one : other;
                            const Outcome& right = first == 0 ? other : one;
                            best.value = upper = left.value + right.value + cost;
                            best.shape = split_shape(f, midpoint(pairs_->lo(f), pairs_->hi(f)), left.shape,
                                                     right.shape);
                        }
                    }
                }
                lower = std::min(lower, lo[0] + lo[1] + cost);
                if (upper <= known_lower) break;   // optimal, and the first such in this order
            }
            return finish();
        }
        // (Only a state of depth 2 has children read by depth_one.)
        std::vector<Seed> seeds = find_cuts(l, only_feature, cw.data(), depth == 2 && K == 2 && exact_sums_);

        std::priority_queue<Interval, std::vector<Interval>, LaterInterval> queue;
        // The queue's intervals are charged to held_bytes() while they wait, however the search ends.
        using Queue = decltype(queue);
        struct Queued {
            const Queue& intervals;
            int64_t& bytes;
            ~Queued() { bytes -= static_cast<int64_t>(intervals.size() * sizeof(Interval)); }
        } queued{queue, queued_};
        auto prefix = [&](int32_t f, int32_t cut) {   // weight left of cut index `cut`
            const double* pw = l.prefix_w.data() + static_cast<int64_t>(f) * (m + 1);
            if (cut < 0) return 0.0;
            if (cut >= l.n_cuts[f]) return pw[m];
            return pw[l.cuts[static_cast<int64_t>(f) * m + cut] + 1];
        };
        auto push = [&](const Interval& iv) {
            if (iv.b - iv.a < 2) return;
            Interval x = iv;
            x.bound = interval_bound(x.la, x.ra, x.lb, x.rb, prefix(x.f, x.b) - prefix(x.f, x.a), kap);
            if (x.bound + cost >= upper) {
                lower = std::min(lower, x.bound + cost);
                return;
            }
            queue.push(x);
            queued_ += sizeof(Interval);
        };
        // Evaluates cut t inside `iv` and pushes the two halves.
        auto evaluate = [&](const Interval& iv, int32_t t) {
            ++stats.candidates;
            const int32_t f = iv.f;
            const double moved = prefix(f, t) - prefix(f, iv.a), span = prefix(f, iv.b) - prefix(f, iv.a);
            double lo_left = std::max(iv.la, iv.lb - kap * (span - moved));
            double lo_right = std::max(iv.rb, iv.ra - kap * moved);
            const int32_t j = l.cuts[static_cast<int64_t>(f) * m + t];
            // The heavier side first where the order does not matter (as in the set_only loop).
            const int first = caches_states_ && 2 * (j + 1) < m ? 1 : 0;
            const int32_t lo_pos[2] = {0, j + 1}, hi_pos[2] = {j + 1, m};
            double lo[2] = {lo_left, lo_right};
            const double bound_first = upper - cost - lo[1 - first];
            if (lo[first] < bound_first && !stopped()) {
                Outcome one = child(lv, f, lo_pos[first], hi_pos[first], depth - 1, bound_first);
                lo[first] = std::max(lo[first], one.lower());
                // A cut's two bounds that only reach the incumbent bound no other cut. So the
                // second child is searched under a bound raised by the weight between t and the
                // farther end of iv with a cut between (ConTree's slack, Brita et al., AAAI 2025),
                // even when the first child already failed: where the cut is that bad, the bound
                // it returns is high enough for the interval bounds to drop its neighbours up to
                // that end.
                const double needed = upper - cost - (one.found ? one.value : lo[first]);
                const double slack = kap * std::max(t - iv.a > 1 ? moved : 0.0, iv.b - t > 1 ? span - moved : 0.0);
                if (needed + slack > lo[1 - first] && !stopped()) {
                    Outcome other = child(lv, f, lo_pos[1 - first], hi_pos[1 - first], depth - 1, needed + slack);
                    lo[1 - first] = std::max(lo[1 - first], other.lower());
                    if (one.found && other.found && other.value < needed) {
                        const Outcome& left = first == 0 ? one : other;
                        const Outcome& right = first == 0 ? other : one;
                        const double* col = data_.column(f);
                        const int32_t* ids = l.block(f);
                        best.value = upper = left.value + right.value + cost;
                        best.shape = split_shape(f, midpoint(col[ids[j]], col[ids[j + 1]]), left.shape, right.shape);
                    }
                }
            }
            lower = std::min(lower, lo[0] + lo[1] + cost);
            return CutBounds{t, lo[0], lo[1]};
        };
        // The two halves of `iv` around its evaluated cut.
        auto split_interval = [&](const Interval& iv, const CutBounds& at) {
            push(Interval{0.0, iv.f, iv.a, at.cut, iv.la, iv.ra, at.left, at.right});
            push(Interval{0.0, iv.f, at.cut, iv.b, at.left, at.right, iv.lb, iv.rb});
        };

        // A root task ends as soon as every tree it can still find is at least its bar() (the
        // trees found so far, and the cuts that failed, are at least `upper`, itself at least the
        // bar while best is): the fit would keep none of them, so nothing it does changes the tree.
        auto futile = [&](double bound) {
            if (root == nullptr) return false;
            const double bar = root->bar();
            return best.value >= bar && bound + cost >= bar;
        };
        // Not found; its value (kInf) is no bound the fit reads, but its search's is.
        auto abandon = [&](double bound) {
            Outcome abandoned;
            abandoned.cut_short_lower = std::min(std::min(lower, best.value), bound + cost);
            return abandoned;
        };

        // Each feature's first cut is CART's split (find_cuts' seed): a good incumbent early.
        // Best score first, so the incumbent drops early.
        std::stable_sort(seeds.begin(), seeds.end(), [](const Seed& a, const Seed& b) { return a.score > b.score; });
        RootSeed* const saved = root != nullptr ? root->seed : nullptr;
        const bool seed_only = root != nullptr && root->seed_only;
        const bool resumed = saved != nullptr && root->resume && saved->ready.load(std::memory_order_acquire);
        const int64_t first_step = resumed ? saved->done : 0;
        if (resumed) {
            if (saved->best.value < best.value) best = saved->best;
            upper = std::min(upper, saved->upper);
            lower = std::min(lower, saved->lower);
            for (const Interval& iv : saved->queue) {
                queue.push(iv);
                queued_ += sizeof(Interval);
            }
            seeds.clear();
        }
        for (const Seed& s : seeds) {
            const Interval whole{0.0, s.f, -1, l.n_cuts[s.f], 0.0, edge, edge, 0.0};
            // (A root task has one seed, so the whole interval is all it can still find.)
            const double whole_bound = interval_bound(0.0, edge, edge, 0.0, prefix(s.f, l.n_cuts[s.f]) - prefix(s.f, -1), kap);
            if (futile(whole_bound)) return abandon(whole_bound);   // (a round's saves nothing then)
            split_interval(whole, evaluate(whole, s.cut));
        }
        int64_t step = first_step;
        for (; !queue.empty() && !stopped(); ++step) {
            if (seed_only && step >= root->until) break;
            if (saved != nullptr && step > first_step && root->round_end(step)) {
                // Where a round's task has not run (or not ended): the memo as a search resumed
                // there has it (start_task), so that the tree is the same either way.
                start_task();
            }
            const Interval iv = queue.top();
            queue.pop();
            queued_ -= sizeof(Interval);
            if (iv.bound + cost >= upper) {
                lower = std::min(lower, iv.bound + cost);
                break;
            }
            if (futile(iv.bound)) {   // the queue's lowest bound: it bounds the rest
                if (!seed_only) return abandon(iv.bound);
                // A round saves the search as it is: the search resumed here ends here too (the
                // bar only falls).
                queue.push(iv);
                queued_ += sizeof(Interval);
                break;
            }
            split_interval(iv, evaluate(iv, iv.a + (iv.b - iv.a) / 2));
        }
        if (seed_only && saved != nullptr && !stopped()) {
            // The feature's search resumes from here.
            saved->best = best;
            saved->upper = upper;
            saved->lower = lower;
            saved->done = step;
            saved->queue.clear();
            for (auto rest = queue; !rest.empty(); rest.pop()) saved->queue.push_back(rest.top());
            saved->ready.store(true, std::memory_order_release);
        }
        if (!queue.empty()) lower = std::min(lower, queue.top().bound + cost);   // stopped, or seed_only
        if (seed_only) {
            // The seed's tree, and a bound of every tree the feature's search can find.
            Outcome out = finish();
            out.cut_short_lower = std::min(lower, best.value);
            return out;
        }
        return finish();
    }

    // The best tree of depth <= 1 of the samples at side s (0: lower value, 1: upper) of active
    // feature a of the counted set (every sample when a < 0), of class sums c: depth_one's value
    // and the position of its split in the active features, from counts (the features left out
    // take one value there). Every sum is exact, so each double is the one depth_one's scan computes.
    std::pair<double, int32_t> stump_from_counts(const double* c, int64_t a, int s) {
        const PairCounts& pairs = *pairs_;
        const int64_t p = static_cast<int64_t>(pairs.active().size());
        const int K = obj_.n_classes;
        double w = 0.0;
        for (int k = 0; k < K; ++k) w += c[k];
        double value = leaf_loss(c, K, w);
        int32_t feature = -1;
        const double cost = split_cost(w);
        if (value <= cost) return {value, feature};
        // Every feature's value first (loops the compiler vectorises), then their minimum, then
        // the first feature reaching it: the feature a scan keeping strictly better ones picks.
        stump_loss_.resize(static_cast<size_t>(p));
        double* v = stump_loss_.data();
        const bool lower = a >= 0 && s == 0;
        // The side of feature a has one value of a: its value is infinite without a test.
        double lowest;
        if (K == 2) {
            lowest = two_class_stump_values(c[0], c[1], cost, pairs.row(0, -1), pairs.row(1, -1), pairs.row(0, a),
                                            pairs.row(1, a), lower, p, v);
        } else {
            std::vector<double>& low = pair_scratch_;
            plane_rows_.resize(static_cast<size_t>(2 * K));   // each class's diagonal, then its row of a
            const double** diag = plane_rows_.data();
            const double** rows = diag + K;
            for (int k = 0; k < K; ++k) {
                diag[k] = pairs.row(k, -1);
                rows[k] = pairs.row(k, a);
            }
            low.resize(static_cast<size_t>(K));
            lowest = kInf;
            for (int64_t g = 0; g < p; ++g) {
                double wu = 0.0, wl = 0.0, max_u = 0.0, max_l = 0.0;
                for (int k = 0; k < K; ++k) {
                    const double up = lower ? diag[k][g] - rows[k][g] : rows[k][g];
                    low[k] = c[k] - up;
                    wu += up;
                    wl += low[k];
                    max_u = std::max(max_u, up);
                    max_l = std::max(max_l, low[k]);
                }
                v[g] = wu > 0.0 && wl > 0.0 ? std::max(0.0, (wl - max_l) + (wu - max_u)) + cost : kInf;
                lowest = std::min(lowest, v[g]);
            }
        }
        if (lowest < value) {
            value = lowest;
            feature = static_cast<int32_t>(std::find(v, v + p, lowest) - v);
        }
        return {value, feature};
    }

    // Whether depth_two_binary serves the states of depth 2 and needs no feature's order there
    // (two classes under gini: the seeds' scores come from the counts too).
    bool reads_sets_at_two() const { return pairs_ != nullptr && obj_.n_classes == 2 && obj_.criterion == Criterion::Gini; }

    Shape stump_shape(int32_t feature) const {
        if (feature < 0) return leaf_shape();
        return split_shape(feature, midpoint(pairs_->lo(feature), pairs_->hi(feature)), leaf_shape(), leaf_shape());
    }

    // The DepthTwo of the state of level lv (class sums cw, weight w_state), from the cache of
    // solved sets or from pair counts (MurTree's depth-two solver: every child's best stump at
    // once). The same set recurs often (two splits in either order), most of the states at depth
    // 4 and more.
    std::shared_ptr<const DepthTwo> depth_two(int lv, const double* cw, double w_state) {
        Level& l = levels_[lv];
        PairCounts& pairs = *pairs_;
        const int K = obj_.n_classes;
        const int32_t m = l.m;
        const SubsetHash h = l.hashed ? l.hash : set_hash(l.block(0), m);
        const SetKey key{h.a, h.b, m};
        if (auto known = depth_twos_.find(key, [](const auto* e) { return e ? *e : nullptr; })) {
            ++stats.cache_hits;
            return known;
        }
        stop_point();
        ++stats.exact_scans;
        pairs.count(l.block(0), m, cw);
        const std::vector<int32_t>& active = pairs.active();
        const int64_t pa = static_cast<int64_t>(active.size());
        auto feature_at = [&](int32_t a) { return a < 0 ? a : active[a]; };
        std::vector<double> side(K);
        DepthTwo out;
        int32_t at;
        std::tie(out.edge, at) = stump_from_counts(cw, -1, 1);
        out.edge_feature = feature_at(at);
        std::vector<double> scores;
        const bool gini2 = reads_sets_at_two();
        for (int64_t a = 0; a < pa; ++a) {
            const int32_t f = active[a];
            pairs.side(a, 0, side.data());
            double w_left = 0.0;
            for (int k = 0; k < K; ++k) w_left += side[k];
            if (w_left <= 0.0 || w_left >= w_state) continue;   // f takes one value here
            double score = -kInf;
            if (gini2) {
                // classification_scores' formula for its one threshold, on the same exact sums.
                const double c0 = cw[0], c1 = cw[1], total = c0 + c1;
                const double parent = total > 0.0 ? 2.0 * c0 * c1 / total : 0.0;
                const double l0 = side[0], l1 = side[1];
                const double wl = l0 + l1, r0 = std::max(0.0, c0 - l0), r1 = std::max(0.0, c1 - l1), wr = r0 + r1;
                if (wl > 0.0 && wr > 0.0) score = parent - 2.0 * l0 * l1 / wl - 2.0 * r0 * r1 / wr;
            } else {
                stop_point();
                detail::classification_scores(data_, obj_, l.block(f), m, f, LeafLimits{}, cw,
                                              [&](int32_t, double s) { score = std::max(score, s); });
            }
            DepthTwo::Row row{f, -1, -1, w_left, 0.0, 0.0};
            std::tie(row.left, at) = stump_from_counts(side.data(), a, 0);
            row.left_feature = feature_at(at);
            pairs.side(a, 1, side.data());
            std::tie(row.right, at) = stump_from_counts(side.data(), a, 1);
            row.right_feature = feature_at(at);
            out.rows.push_back(row);
            scores.push_back(score);
        }
        std::vector<int32_t> order(out.rows.size());
        for (size_t r = 0; r < order.size(); ++r) order[r] = static_cast<int32_t>(r);
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return scores[a] > scores[b]; });
        std::vector<DepthTwo::Row> sorted;
        sorted.reserve(order.size());
        for (int32_t r : order) sorted.push_back(out.rows[r]);
        out.rows = std::move(sorted);
        const double rows = static_cast<double>(out.rows.size());
        auto made = std::make_shared<const DepthTwo>(std::move(out));
        depth_twos_.insert(key, std::shared_ptr<const DepthTwo>(made), rows, [](auto&) {});
        return made;
    }

    // solve() at depth 2 when every feature is binary: each feature has one threshold, so the
    // search below is solve()'s, step for step and bound for bound, with each child's value read
    // off the state's DepthTwo instead of scanned. The tree is the one solve() would return.
    Outcome depth_two_binary(int lv, const double* cw, double w_state, double ub, Outcome best, double upper,
                             double lower) {
        const double cost = split_cost(w_state);
        auto finish = [&]() {
            best.found = best.value < ub;
            if (!best.found) best.value = std::min(lower, best.value);
            if (stopped()) best.cut_short_lower = std::min(lower, best.value);
            return best;
        };
        const std::shared_ptr<const DepthTwo> held = depth_two(lv, cw, w_state);
        const DepthTwo& two = *held;
        const double edge = two.edge;
        if (edge < upper) {
            best.value = upper = edge;
            best.shape = stump_shape(two.edge_feature);
        }
        if (stopped()) {
            lower = std::min(lower, any_split_bound(edge, w_state, kappa(1), cost));
            return finish();
        }
        const double kap = kappa(1);
        for (const DepthTwo::Row& row : two.rows) {
            ++stats.candidates;
            const double moved = row.w_left, span = w_state;
            double lo_left = std::max(0.0, edge - kap * (span - moved));
            double lo_right = std::max(0.0, edge - kap * moved);
            const double bound_left = upper - cost - lo_right;
            if (lo_left < bound_left && !stopped()) {
                lo_left = std::max(lo_left, row.left);
                if (row.left < bound_left) {
                    lo_right = std::max(lo_right, row.right);
                    if (row.right < upper - cost - row.left) {
                        best.value = upper = row.left + row.right + cost;
                        best.shape = split_shape(row.f, midpoint(pairs_->lo(row.f), pairs_->hi(row.f)),
                                                 stump_shape(row.left_feature), stump_shape(row.right_feature));
                    }
                }
            }
            lower = std::min(lower, lo_left + lo_right + cost);
        }
        return finish();
    }

    // MurTree's similarity bound: a set D' solved at a depth bounds any set D at that depth, as
    // v(D) >= v(D intersect D') >= v(D') - w(D' \ D) (the facts at the top of the file, kappa = 1
    // with alpha = 0). Each depth keeps its last few solved sets (values exact or lower bounds):
    // the sides of the features tried one after another overlap much.
    struct Similar {
        std::vector<uint64_t> bits;
        double value = 0.0;
    };
    static constexpr size_t kSimilar = 8;

    void archive(const Level& l, int depth, double value) {
        Similar& slot = similar_[depth][similar_next_[depth]++ % kSimilar];
        slot.bits.assign(l.bits.begin(), l.bits.end());
        slot.value = value;
    }

    // Lower bounds of the values at `depth` of the two sides of feature f in the set_only state
    // l, from the sets solved last at that depth.
    std::pair<double, double> similarity_bounds(const Level& l, int32_t f, int depth) const {
        const uint64_t* upper = upper_bits_.data() + static_cast<int64_t>(f) * sample_words_;
        const uint64_t* in = l.bits.data();
        double left = 0.0, right = 0.0;
        for (const Similar& d : similar_[depth]) {
            // Samples of d outside each side: popcounts, times the heaviest weight (exact with
            // unit weights, an upper bound of w(D' \ D) otherwise).
            int64_t outside[2];
            outside_sides(d.bits.data(), in, upper, sample_words_, outside);
            left = std::max(left, d.value - static_cast<double>(outside[0]) * max_w_);
            right = std::max(right, d.value - static_cast<double>(outside[1]) * max_w_);
        }
        return {left, right};
    }

    const Dataset& data_;
    const Classification& obj_;
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
    std::vector<std::vector<Similar>> similar_;   // by depth, kSimilar each
    std::vector<size_t> similar_next_;            // by depth: the slot written next
    std::vector<double> class_w_, scratch_, pair_scratch_, stump_loss_;
    std::vector<const double*> plane_rows_;   // stump_from_counts' scratch
    std::vector<int32_t> subset_;
    // Whether every level keeps Level::along (of every feature), and the filter that reads it.
    bool along_ = false;
    const KeepInOrder keep_in_order_ = keep_in_order_for_cpu();
};

// The tree arrays of `shape` on the samples `ids`, and its loss, complexity, impurity and split
// count summed in weight units.
struct Emitted {
    TreeArrays tree;
    double loss = 0.0, tests = 0.0, impurity = 0.0;
    int64_t splits = 0;
};

// The search keeps the first split of lowest loss it meets at the last level; among the equally
// good ones, the tree takes the one of lowest impurity (then lower feature and threshold), as the
// dynamic programme does.
ShapeNode refined_stump(const Dataset& data, const Classification& obj, const std::vector<int32_t>& ids,
                        const double* class_w, ShapeNode found) {
    const int32_t m = static_cast<int32_t>(ids.size());
    const double tol = 1e-12 * obj.weight(class_w);
    std::vector<int32_t> sorted(ids);
    sorted.push_back(0);   // room for the branch-free filter's last write
    // Each feature's order of the node's samples, by (value, id): sorted, or read off the
    // presorted blocks (in that order too) when the node holds enough of the samples that one
    // pass over a block costs less than a sort.
    std::vector<char> member;
    if (static_cast<double>(m) * std::log2(m + 1.0) > static_cast<double>(data.n)) {
        member.assign(static_cast<size_t>(data.n), 0);
        for (int32_t i : ids) member[i] = 1;
    }
    detail::ScanScratch scratch;
    SplitRecord best;
    for (int32_t g = 0; g < data.p; ++g) {
        const double* col = data.column(g);
        if (member.empty()) {
            std::sort(sorted.begin(), sorted.begin() + m, [col](int32_t a, int32_t b) {
                return col[a] < col[b] || (col[a] == col[b] && a < b);
            });
        } else {
            const int32_t* block = data.presorted.data() + static_cast<int64_t>(g) * data.n;
            int32_t k = 0;
            for (int64_t j = 0; j < data.n; ++j) {
                sorted[k] = block[j];
                k += member[block[j]];
            }
        }
        const SplitRecord r = detail::best_01_split(data, obj, sorted.data(), m, g, LeafLimits{}, class_w, scratch);
        if (r.found() && (!best.found() || r.score < best.score - tol ||
                          (r.score <= best.score + tol && r.tie < best.tie - tol)))
            best = r;
    }
    return best.found() ? ShapeNode{best.feature, best.threshold} : found;
}

void emit(const Dataset& data, const Classification& obj, const Shape& shape, size_t& at, std::vector<int32_t> ids,
          Emitted& out) {
    const ShapeNode node = shape[at++];
    TreeArrays& t = out.tree;
    const int64_t id = t.node_count();
    std::vector<double> cw(obj.n_classes, 0.0);
    for (int32_t i : ids) obj.add(cw.data(), i);
    const double w = obj.weight(cw.data());
    t.children_left.push_back(kLeaf);
    t.children_right.push_back(kLeaf);
    t.feature.push_back(-2);
    t.threshold.push_back(-2.0);
    t.missing_left.push_back(0);
    for (double c : cw) t.value.push_back(c);
    t.impurity.push_back(obj.node_impurity(cw.data()));
    t.n_node_samples.push_back(static_cast<int64_t>(ids.size()));
    t.weighted_n_node_samples.push_back(w);
    if (node.feature < 0) {
        out.loss += obj.loss(cw.data());
        out.impurity += obj.tie(cw.data());
        return;
    }
    ++out.splits;
    out.tests += w;
    const bool stump = shape[at].feature < 0 && shape[at + 1].feature < 0;
    const ShapeNode split = stump ? refined_stump(data, obj, ids, cw.data(), node) : node;
    t.feature[id] = split.feature;
    t.threshold[id] = split.threshold;
    std::vector<int32_t> left, right;
    for (int32_t i : ids) (data.x(split.feature, i) <= split.threshold ? left : right).push_back(i);
    t.children_left[id] = t.node_count();
    emit(data, obj, shape, at, std::move(left), out);
    t.children_right[id] = t.node_count();
    emit(data, obj, shape, at, std::move(right), out);
}

// The inputs the bounds hold for (see dpdt/optimal.hpp).
void check_bounded(const Dataset& data, const Params& params, double alpha) {
    if (data.has_missing) throw std::invalid_argument("the bounded exhaustive search needs data without missing values");
    if (!params.feature_costs.empty()) throw std::invalid_argument("the bounded exhaustive search has no feature costs");
    // The recursion is about max_depth^2 / 2 frames deep.
    if (params.max_depth < 1 || params.max_depth > 64)
        throw std::invalid_argument("the bounded exhaustive search needs 1 <= max_depth <= 64");
    if (!(alpha >= 0.0)) throw std::invalid_argument("alpha must be >= 0");
}

// The best tree found on the run loop's workers, each with a search (its scratch and memo) kept
// from task to task; `stats` sums the searches'. When the clock stops the search, `lower_bound`
// is set to a lower bound of the optimum (in weight units).
Shape search_optimal(const Dataset& data, const Classification& objective, const Params& params, double alpha,
                     double total, RunLoop& loop, FitStats& stats, double& lower_bound) {
    const int depth = params.max_depth;
    // (n_tasks: 0, unknown, until setup has counted them: a report before then has no total.)
    std::atomic<int64_t> states_seen{0}, tasks_done{0}, n_tasks{0};
    HeldBytes held(params.max_state_bytes, loop);
    // Half the budget for each cache (the depth-two rows are the larger part of the other).
    SolvedStates solved(cache_bytes(params) / 2, held);
    DepthTwoCache depth_twos(depth_two_capacity(cache_bytes(params) / 2), held, kDepthTwoRowBytes);
    // (After the caches: a search gives its bytes back to `held` when destroyed.)
    std::vector<std::unique_ptr<Search>> searches(loop.n_workers());
    auto search = [&](int w) -> Search& {
        if (!searches[w])
            searches[w] = std::make_unique<Search>(data, objective, params, alpha, total, loop, states_seen, held,
                                                     solved, depth_twos);
        return *searches[w];
    };
    auto progress = [&] {
        Progress at;
        at.root_tasks = n_tasks.load();   // the shallower root, each seed, each feature
        at.root_tasks_done = tasks_done.load();
        at.states = states_seen.load(std::memory_order_relaxed);
        return at;
    };

    // First (on one worker): CART's tree, then the root's optimum one level shallower: the
    // incumbent to beat, and the bound at the ends of every root feature's thresholds. The time
    // limit's cut (dpdt/run_loop.hpp) leaves the root a leaf if it comes before CART's tree, and
    // the root features unsearched if before the shallower optimum.
    Outcome incumbent, shallow;
    bool shallow_ran = false;
    auto first = [&](int w) {
        try {
            incumbent = search(w).greedy_root(depth);
        } catch (const Cut&) {
            incumbent = search(w).greedy_root(0);
        }
        try {
            shallow = search(w).solve_root(depth == 1 ? 1 : depth - 1, incumbent.value);
        } catch (const Cut&) {
            return int64_t{0};
        }
        shallow_ran = true;
        tasks_done.fetch_add(1);
        if (shallow.found) incumbent = shallow;
        return static_cast<int64_t>(depth >= 2 ? data.p : 0);
    };
    // Then each root feature searched on its own under that incumbent, in the root's order
    // (CART's score at the root, best first); ties keep the incumbent, then the feature first in
    // that order, as inside every state. Where a search's tree depends on its bound (thresholds
    // of continuous features, rounded values: see Solved), features do not share their
    // incumbents, so that the tree does not depend on which thread finds what first. Where it
    // does not, a feature is searched under the best value found so far, which prunes far more
    // and leaves every feature's found tree and the choice among them as they were: the features
    // are taken in order, so every one before the holder of the best value was taken before it.
    std::vector<RootTask> roots(static_cast<size_t>(depth >= 2 ? data.p : 0));
    std::vector<Outcome> searched(roots.size());
    std::vector<char> ran(roots.size(), 0);   // whether searched[f] is its task's outcome
    // Each feature's seed (RootTask), evaluated first, and what its task found.
    std::vector<RootSeed> seeds(roots.size());
    std::vector<Outcome> seeded(roots.size());
    std::vector<char> seed_ran(roots.size(), 0);
    // Each feature's found value by rank, for the later features' RootTask::bar: the tree kept is
    // the same whichever of them a thread has seen.
    std::vector<std::atomic<double>> found_value(roots.size());
    for (std::atomic<double>& v : found_value) v.store(kInf);
    bool share = false;
    std::vector<int32_t> order, rank;   // the root's order, and each feature's position in it
    std::mutex best_mutex;
    double best_value = kInf;
    int32_t holder_rank = -1;   // of the feature whose tree has best_value; -1: the incumbent's
    size_t next_ranked = 0;
    // The next feature in order, under the best value so far: a later feature's tree of equal
    // value would not be kept. None once that value is 0 (alpha = 0 when shared: no tree does
    // better).
    auto take = [&](double& ub) {
        if (best_value <= 0.0 || next_ranked == order.size()) return int32_t{-1};
        ub = best_value;
        return order[next_ranked++];
    };
    // Tasks 0 .. p - 1 run the rounds (RootSeed): round r advances each feature's search, in the
    // root's order, to its first RootSeed::steps(r) steps, under the incumbent (best_value might be
    // a feature's own tree, which its search would then not find again); the tasks after search
    // each feature to its end. The rounds only reorder the searches' work (and let a feature's
    // tree found early lower the later features' bar sooner): every feature has a bound after
    // the first round, and the bound rises across all of them, not feature after feature.
    int64_t p = 0;   // the rounds' tasks
    int rounds = 0;
    auto by_feature = [&](int w, int64_t t) {
        if (loop.limit_reached()) return;   // the features left keep no tree
        if (t < p) {
            const int32_t f = order[t % static_cast<int64_t>(order.size())];
            const int round = static_cast<int>(t / static_cast<int64_t>(order.size()));
            // A round whose feature's last round still runs (or has ended its search) waits for
            // the next one, which continues from where that one ends.
            if (seeds[f].busy.exchange(true, std::memory_order_acq_rel)) {
                tasks_done.fetch_add(1);
                return;
            }
            RootTask task{f, rank[f], &shallow, incumbent.value, found_value.data(), &seeds[f], true};
            task.resume = true;
            task.until = RootSeed::steps(round);
            task.rounds = rounds;
            const Outcome out = search(w).solve_root_feature(depth, incumbent.value, task);
            // Each round's bound holds; the later one is the tighter unless stopped early.
            const double before = seed_ran[f] ? seeded[f].lower() : 0.0;
            seeded[f] = out;
            if (before > seeded[f].lower()) seeded[f].cut_short_lower = before;
            seed_ran[f] = 1;
            // The feature's search finds a tree at least as good: the later features' bar.
            if (out.found) {
                std::atomic<double>& v = found_value[rank[f]];
                double held = v.load(std::memory_order_relaxed);
                while (out.value < held && !v.compare_exchange_weak(held, out.value, std::memory_order_relaxed)) {
                }
            }
            seeds[f].busy.store(false, std::memory_order_release);
            tasks_done.fetch_add(1);
            return;
        }
        t -= p;
        int32_t f = order[t];
        double ub = incumbent.value;
        if (share) {
            std::lock_guard<std::mutex> lock(best_mutex);
            f = take(ub);
            if (f < 0) return;
        }
        roots[f] = RootTask{f, rank[f], &shallow, incumbent.value, found_value.data(), &seeds[f], false};
        roots[f].resume = !seeds[f].busy.exchange(true, std::memory_order_acq_rel);
        roots[f].rounds = rounds;
        searched[f] = search(w).solve_root_feature(depth, ub, roots[f]);
        ran[f] = 1;
        if (searched[f].found) found_value[rank[f]].store(searched[f].value);
        if (share && searched[f].found) {
            // A feature taken earlier may end later, under a bound another has lowered since.
            std::lock_guard<std::mutex> lock(best_mutex);
            if (searched[f].value < best_value || (searched[f].value == best_value && rank[f] < holder_rank)) {
                best_value = searched[f].value;
                holder_rank = rank[f];
            }
        }
        tasks_done.fetch_add(1);
    };
    auto setup = [&](int w) {
        const int64_t tasks = first(w);
        best_value = incumbent.value;
        share = tasks > 0 && search(w).order_free();
        if (tasks > 0) {
            order = search(w).root_order();
            rank.assign(order.size(), 0);
            for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int32_t>(r);
        }
        // Where the features share their incumbent, their searches prune each other so much that
        // the rounds, under the incumbent alone, add work (a third more on binary features at
        // depth 4) where a stop came before the first round's end anyway: none then.
        // The rounds after the first reorder the searches' work for the bound's sake, at some
        // cost (the best-ranked feature's search, often the one that lowers the bar the most,
        // ends later): only under a time limit.
        rounds = share ? 0 : params.time_limit > 0.0 ? kRootRounds : 1;
        p = rounds * tasks;
        n_tasks.store(1 + p + tasks);
        return p + tasks;
    };
    loop.run(setup, by_feature, progress);

    if (loop.limit_reached()) {
        // The optimum is the best of the root's leaf and of its splits on each feature: bounded by
        // that feature's tasks where they ran (its seed's, its search's), else by what every
        // split has from the optimum one level shallower (itself bounded where its search ran).
        Search& root = search(0);
        lower_bound = root.root_leaf_value();
        const double any_split = root.any_root_split_bound(depth, shallow_ran && depth >= 2 ? shallow.lower() : 0.0);
        if (depth == 1) lower_bound = std::min(lower_bound, shallow_ran ? shallow.lower() : any_split);
        for (size_t f = 0; f < searched.size(); ++f) {
            double feature = any_split;
            if (seed_ran[f]) feature = seeded[f].lower();
            if (ran[f]) feature = std::max(seed_ran[f] ? feature : 0.0, searched[f].lower());
            lower_bound = std::min(lower_bound, feature);
        }
    }

    // A feature's search finds at least its seed's tree; a search stopped before it has that.
    Outcome best = std::move(incumbent);
    for (int32_t f : order) {
        Outcome& found = ran[f] ? searched[f] : seeded[f];
        if (found.found && found.value < best.value) best = std::move(found);
    }
    for (const auto& s : searches) {
        if (!s) continue;
        stats.states += s->stats.states;
        stats.candidates += s->stats.candidates;
        stats.exact_scans += s->stats.exact_scans;
        stats.sample_reads += s->stats.sample_reads;
        stats.cache_hits += s->stats.cache_hits;
    }
    stats.state_bytes = held.peak();
    return std::move(best.shape);
}

// The front's one row: the tree of `shape` on all samples.
FrontTree front_row(const Dataset& data, const Classification& objective, const Params& params, double alpha,
                    double total, const Shape& shape) {
    std::vector<int32_t> ids(static_cast<size_t>(data.n));
    for (int32_t i = 0; i < static_cast<int32_t>(data.n); ++i) ids[i] = i;
    Emitted e;
    size_t at = 0;
    emit(data, objective, shape, at, std::move(ids), e);
    FrontTree ft;
    ft.alpha_min = ft.alpha_max = alpha;
    ft.loss = e.loss / total;
    ft.complexity = params.complexity == Complexity::ExpectedTests ? e.tests / total : static_cast<double>(e.splits);
    ft.impurity = e.impurity / total;
    ft.n_splits = e.splits;
    ft.tree = std::move(e.tree);
    return ft;
}

}  // namespace

FitResult fit_optimal(const Dataset& data, const Classification& objective, const Params& params, double alpha,
                      const Poll& poll) {
    check_bounded(data, params, alpha);
    RunLoop loop(params.n_threads, params.time_limit, poll);
    double total = 0.0;
    for (int64_t i = 0; i < data.n; ++i) total += objective.w[i];
    FitResult result;
    double lower_bound = 0.0;
    const Shape best = search_optimal(data, objective, params, alpha, total, loop, result.stats, lower_bound);
    result.stats.complete = !loop.limit_reached();
    if (!result.stats.complete) result.stats.stopped_by = loop.limit();
    result.front.push_back(front_row(data, objective, params, alpha, total, best));
    const FrontTree& found = result.front.back();
    const double found_value = found.loss + alpha * found.complexity;
    // (Bounds and values are summed in different orders: the last bit may differ.)
    // Every objective is >= 0: a bound the search could not establish (NaN) is 0.
    const double proven = lower_bound >= 0.0 ? lower_bound / total : 0.0;
    result.lower_bound = result.stats.complete ? found_value : std::min(proven, found_value);
    result.stats.seconds = loop.seconds();
    return result;
}

}  // namespace dpdt
