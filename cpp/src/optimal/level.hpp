// One thread's scratch for the states of one depth (Level): the state's samples in every
// feature's order, the ranks that make a child's blocks by filtering the parent's, and the
// thresholds and prefix weights of the state's features. The search (search.hpp) owns one per
// depth and reads them through samples.hpp.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "dpdt/subset_hash.hpp"

namespace dpdt {
namespace {

// One thread's scratch for the states of one depth: the state's samples sorted by every feature,
// each sample's position in the block of the feature being split on, and per feature the block
// positions j that a threshold can follow (x[j] < x[j + 1]) with the weight left of each.
struct Level {
    int32_t m = 0;
    std::vector<int32_t> blocks;   // p blocks of m ids, plus kKeepSlack slots for the filter
    // The root's blocks are the data's presorted order itself (never written): not a copy.
    const int32_t* presorted = nullptr;
    // Each sample's position in the blocks of the features split on last, n slots a feature
    // (while they fit): a state's search goes back and forth between its features' cuts.
    std::vector<int32_t> rank;           // slots x n, by sample id (from the first one read)
    int64_t rank_slots = 0;
    std::vector<int32_t> rank_slot;      // by feature: its slot, or -1
    std::vector<int32_t> slot_feature;   // by slot: its feature, or -1
    int32_t next_slot = 0;               // the slot taken next (the oldest)
    void forget_ranks() {
        for (int32_t& f : slot_feature) {
            if (f >= 0) rank_slot[f] = -1;
            f = -1;
        }
    }
    // hash: the samples' set_hash, when `hashed` (binary features, two classes; see solve).
    SubsetHash hash;
    bool hashed = false;
    // Only block 0 holds the state's samples, in any order (binary features: see set_child).
    bool set_only = false;
    // With the cache of solved states: the samples as bits (bit i of word i / 64), in set_only
    // states.
    std::vector<uint64_t> bits;
    // Feature f's cuts, cuts_of(f)[t] for t < n_cuts[f], one feature's after the other's: a
    // feature of few values has few (a row of m each would hold mostly nothing).
    std::vector<int32_t> cuts;
    std::vector<int32_t> n_cuts;
    std::vector<int64_t> first_cut;   // by feature: where its cuts start
    // The weight of the samples left of each cut, feature f's from prefix_at(f): 0 there, cut t's
    // at + t + 1, and the state's weight at + n_cuts[f] + 1 (the prefixes the search reads: those
    // at the ends of its children).
    std::vector<double> prefix_w;
    std::vector<double> prefix_r;   // the same of the samples' rises times weights (without kCounts)
    const int32_t* block(int64_t f) const { return (presorted != nullptr ? presorted : blocks.data()) + f * m; }
    const int32_t* cuts_of(int32_t f) const { return cuts.data() + first_cut[f]; }
    int64_t prefix_at(int32_t f) const { return first_cut[f] + 2 * static_cast<int64_t>(f); }
    // The index from prefix_at(f) of the prefix that ends at block position pos: 0, m, or a
    // cut's end (cuts_of(f)[t] + 1), as the children of the state's cuts are; `hint`, the cut t
    // it likely is (the one searched), spares the search of the cuts.
    int64_t prefix_index(int32_t f, int32_t pos, int32_t hint) const {
        if (pos == 0) return 0;
        const int32_t n = n_cuts[f];
        if (pos == m) return n + 1;
        const int32_t* c = cuts_of(f);
        if (hint >= 0 && hint < n && c[hint] + 1 == pos) return hint + 1;
        return std::lower_bound(c, c + n, pos - 1) - c + 1;
    }
};

// v resized to `size`, its capacity at most `most` (or size): vector::resize would double it,
// and a level's arrays, sized by their largest state, would take up to twice the root's.
template <class T>
void resize_within(std::vector<T>& v, size_t size, size_t most) {
    if (size > v.capacity()) v.reserve(std::min(std::max(size, 2 * v.capacity()), std::max(size, most)));
    v.resize(size);
}

// v grown to at least `size`, never shrunk, its capacity at most `most` (or size): a level's
// packed rows are written into room for the largest each can be, and that room is kept for the
// states after. It grows by a quarter at least, not twice (as resize_within): the rows ask for
// a little more room a feature at a time.
template <class T>
void grow_within(std::vector<T>& v, size_t size, size_t most) {
    if (v.size() >= size) return;
    if (size > v.capacity()) v.reserve(std::min(std::max(size, v.capacity() + v.capacity() / 4), std::max(size, most)));
    v.resize(size);
}

// The ranks a level keeps, by sample id (Level::rank), and those of one level in each block's
// order (Search::along_): at most 2^22 ranks of each, a thread (16 MB; along_'s 8 MB where its
// ranks take 16 bits).
constexpr int64_t kRankBudget = int64_t{1} << 22;
constexpr int64_t kAlongBudget = int64_t{1} << 22;

}  // namespace
}  // namespace dpdt
