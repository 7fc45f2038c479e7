// Search's reading of a state's samples: each sample's rank in the block of the feature split
// on, the branch-free filter that builds a child's blocks from its parent's, and a child's class
// sums and set hash from the level's prefixes.
#pragma once
#include "optimal/search.hpp"

namespace dpdt {
namespace {

// Each sample's position in feature f's block of level l, by sample id.
template <class O>
const int32_t* Search<O>::rank_of(Level& l, int32_t f) {
    int32_t slot = l.rank_slot[f];
    if (slot >= 0) return l.rank.data() + static_cast<int64_t>(slot) * data_.n;
    // Only the levels whose states have children read ranks (not the deepest two).
    if (l.rank.empty()) l.rank.resize(static_cast<size_t>(l.rank_slots * data_.n));
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

// Search::along_ (or along16_: `buffer`) of level l for feature f.
template <class O>
template <class R>
const R* Search<O>::along_of(Level& l, int32_t f, std::vector<R>& buffer) {
    const int64_t p = data_.p, m = l.m;
    if (along_of_ != &l) {
        along_of_ = &l;
        std::fill(along_made_.begin(), along_made_.end(), 0);
    }
    if (buffer.size() < static_cast<size_t>(p * p * m))
        resize_within(buffer, static_cast<size_t>(p * p * m), static_cast<size_t>(p * p * data_.n));
    R* along = buffer.data() + f * p * m;
    if (along_made_[f]) return along;
    const int32_t* rank = rank_of(l, f);
    for (int64_t g = 0; g < p; ++g) {
        const int32_t* ids = l.block(g);
        R* out = along + g * m;
        for (int64_t q = 0; q < m; ++q) out[q] = static_cast<R>(rank[ids[q]]);
    }
    along_made_[f] = 1;
    return along;
}

// The ranks the filter of feature g's block of level l by feature f's reads: along_ where
// `in_order` (depth_one's filters) and it fits. Not in a state whose cuts are swept: its
// children's depth_one (each feature's seed, the cuts a sweep confirms) are too few for the
// making of along_ (a filter's reads for each feature) to pay.
template <class O>
typename Search<O>::Ranks Search<O>::ranks_for(Level& l, int32_t f, int32_t g, bool in_order) {
    if (in_order && in_order_ && !sweeps_on_) {
        const int64_t at = static_cast<int64_t>(g) * l.m;
        if (narrow_along_) return Ranks{nullptr, nullptr, along_of(l, f, along16_) + at};
        return Ranks{nullptr, along_of(l, f, along_) + at, nullptr};
    }
    return Ranks{rank_of(l, f), nullptr, nullptr};
}

// The filter (keep_ranked) of positions [q0, q1) of ids.
template <class O>
int32_t Search<O>::keep(const Ranks& r, const int32_t* ids, int32_t q0, int32_t q1, int32_t lo, uint32_t span,
                        int32_t* out) const {
    if (r.in_order16 != nullptr) return keep_in_order16_(ids + q0, r.in_order16 + q0, q1 - q0, lo, span, out);
    if (r.in_order != nullptr) return keep_in_order_(ids + q0, r.in_order + q0, q1 - q0, lo, span, out);
    return keep_ranked(ids + q0, q1 - q0, r.by_id, lo, span, out);
}

// The samples at positions [lo, hi) of feature f's block, in feature g's order, into out
// (hi - lo + kKeepSlack slots: the branch-free filter writes past).
template <class O>
void Search<O>::gather(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, int32_t* out, bool in_order) {
    const int32_t* ids = l.block(g);
    if (g == f || (lo == 0 && hi == l.m)) {
        std::copy(ids + (g == f ? lo : 0), ids + (g == f ? hi : l.m), out);
        return;
    }
    keep(ranks_for(l, f, g, in_order), ids, 0, l.m, lo, static_cast<uint32_t>(hi - lo), out);
}

// The class sums and set_hash of positions [lo, hi) of feature f's block of level l (two
// classes; lo and hi the ends of a child of the state's cuts), as class_sums_and_hash computes
// them. From the level's prefixes when it has them: those are only kept with exact sums, so a
// difference of two is the sum itself, and the hash's sums wrap modulo 2^64 in any order.
template <class O>
double Search<O>::child_sums(const Level& l, int32_t f, int32_t lo, int32_t hi, SubsetHash& h) {
    if (prefixes_of_ != &l) return class_sums_and_hash(l.block(f) + lo, hi - lo, class_w_.data(), h);
    const int64_t row = l.prefix_at(f), a = l.prefix_index(f, lo, cut_searched_),
                  b = l.prefix_index(f, hi, cut_searched_);
    const double* pw = l.prefix_w.data() + row;
    const double* pw1 = prefix_w1_.data() + row;
    const SubsetHash* ph = prefix_hash_.data() + row;
    const double c1 = pw1[b] - pw1[a];
    const double c0 = (pw[b] - pw[a]) - c1;
    class_w_[0] = c0;
    class_w_[1] = c1;
    h = SubsetHash{ph[b].a - ph[a].a, ph[b].b - ph[a].b};
    return c0 + c1;
}

// Positions [lo, hi) of feature f's block of level lv as the state of level lv + 1.
template <class O>
void Search<O>::build_child(int lv, int32_t f, int32_t lo, int32_t hi) {
    Level& l = levels_[lv];
    Level& c = levels_[lv + 1];
    c.m = hi - lo;
    forget_ranks(c);
    c.hashed = false;
    c.set_only = false;
    resize_within(c.blocks, static_cast<size_t>(data_.p) * c.m + kKeepSlack,
                  static_cast<size_t>(data_.p * data_.n) + kKeepSlack);
    for (int32_t g = 0; g < data_.p; ++g) {
        stop_point();
        gather(l, f, lo, hi, g, c.blocks.data() + static_cast<int64_t>(g) * c.m, false);
    }
}

}  // namespace
}  // namespace dpdt
