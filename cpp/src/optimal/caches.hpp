// The exact search's memory of what it solved: each thread's memo of depth-one trees
// (DepthOneMemo), and the caches the threads share where an entry does not depend on who wrote it
// (SharedCache): solved states by set and depth (SolvedStates) and what a depth-two state reads
// of its pair counts (DepthTwoCache). HeldBytes counts every byte against max_state_bytes. A hit
// changes nothing but the time: each entry is a function of its key (see Solved).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dpdt/params.hpp"
#include "dpdt/run_loop.hpp"
#include "dpdt/subset_hash.hpp"
#include "optimal/outcome.hpp"

namespace dpdt {
namespace {

// Best trees of depth <= 1 of recently solved sample sets. The same set recurs: two half-spaces
// meet in the same set whichever is tested first. A pure cache of a function of the set (its
// exact optimum and the split chosen), so a hit changes nothing but the time.
// Open addressing, a set found within kProbes slots of its home (the hash's low bits): the
// table starts small and doubles when an insert finds those slots taken, up to `most` slots
// (16 a sample, at most 2^17: 4 MB a thread), so that it holds about twice the sets a fit meets,
// however many or few. Full, an insert replaces the set at its home. (Its sets and their
// recurrences, measured on wide data at depth 3: a table of 2^17 slots misses fewer of them
// than one slot a set of 2^18 did.)
class DepthOneMemo {
  public:
    struct Entry {
        uint64_t b = 0;   // the set's hash b (its a picked the slot only: see find)
        int32_t m = -1;   // no set has -1 samples: an empty slot
        int32_t feature = -1;
        double value = 0.0, threshold = 0.0;
    };
    explicit DepthOneMemo(int64_t n) {
        while (most_ < (size_t{1} << 17) && static_cast<int64_t>(most_) < 16 * n) most_ *= 2;
        slots_.resize(std::min(most_, kFirst));
    }
    // The entry of the set of hash h and m samples. Sets are told apart by b and m (64 bits and
    // the size) and placed by b, so that a larger table places them again.
    const Entry* find(const SubsetHash& h, int32_t m) const {
        const size_t mask = slots_.size() - 1;
        for (size_t k = 0, at = h.b & mask; k < kProbes; ++k, at = (at + 1) & mask) {
            const Entry& e = slots_[at];
            if (e.m == m && e.b == h.b) return &e;
            if (e.m < 0) return nullptr;
        }
        return nullptr;
    }
    void insert(const Entry& e) {
        while (!place(e)) {
            if (slots_.size() >= most_) {
                slots_[e.b & (slots_.size() - 1)] = e;
                return;
            }
            grow();
        }
    }
    void clear() { std::fill(slots_.begin(), slots_.end(), Entry{}); }
    int64_t bytes() const { return static_cast<int64_t>(slots_.capacity() * sizeof(Entry)); }

  private:
    static constexpr size_t kFirst = 1024, kProbes = 8;
    // e into a free slot within kProbes of its home; false if none.
    bool place(const Entry& e) {
        const size_t mask = slots_.size() - 1;
        for (size_t k = 0, at = e.b & mask; k < kProbes; ++k, at = (at + 1) & mask) {
            if (slots_[at].m < 0) {
                slots_[at] = e;
                return true;
            }
        }
        return false;
    }
    // Twice the slots, every entry placed again (one that finds no free slot is dropped).
    void grow() {
        std::vector<Entry> old(slots_.size() * 2);
        old.swap(slots_);
        for (const Entry& e : old)
            if (e.m >= 0) place(e);
    }
    size_t most_ = kFirst;
    std::vector<Entry> slots_;
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

}  // namespace
}  // namespace dpdt
