// Search's states of depth two when every feature is binary (MurTree's depth-two solver): every
// child's best stump at once from the set's pair counts (pairs.hpp), kept in the shared
// DepthTwoCache, and the search of solve() at depth two read off them, bound for bound.
#pragma once
#include "optimal/search.hpp"

namespace dpdt {
namespace {

// The best tree of depth <= 1 of the samples at side s (0: lower value, 1: upper) of active
// feature a of the counted set (every sample when a < 0), of class sums c: depth_one's value
// and the position of its split in the active features, from counts (the features left out
// take one value there). Every sum is exact, so each double is the one depth_one's scan computes.
template <class O>
std::pair<double, int32_t> Search<O>::stump_from_counts(const double* c, int64_t a, int s) {
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
template <class O>
bool Search<O>::reads_sets_at_two() const {
    if constexpr (kCounts)
        return pairs_ != nullptr && obj_.n_classes == 2 && obj_.criterion == Criterion::Gini;
    else
        return false;
}

template <class O>
Shape Search<O>::stump_shape(int32_t feature) const {
    if (feature < 0) return leaf_shape();
    return split_shape(feature, midpoint(pairs_->lo(feature), pairs_->hi(feature)), leaf_shape(), leaf_shape());
}

// The DepthTwo of the state of level lv (class sums cw, weight w_state), from the cache of
// solved sets or from pair counts (MurTree's depth-two solver: every child's best stump at
// once). The same set recurs often (two splits in either order), most of the states at depth
// 4 and more.
template <class O>
std::shared_ptr<const DepthTwo> Search<O>::depth_two(int lv, const double* cw, double w_state) {
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
template <class O>
Outcome Search<O>::depth_two_binary(int lv, const double* cw, double w_state, double ub, Outcome best, double upper,
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

}  // namespace
}  // namespace dpdt
