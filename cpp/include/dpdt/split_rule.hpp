// The one rule that decides which splits a state may take beyond the leaf limits, and what its
// children inherit: every scan that proposes candidates asks it, so that a constraint on splits is
// written here once. Today it keeps monotonic constraints (Params::monotonic_cst) by
// scikit-learn's midpoint rule:
//
// - A state is (samples, depth, bounds [lo, hi]); an unconstrained fit's bounds are (-inf, +inf)
//   everywhere, and its search is the one it always was.
// - A split on a constrained feature is admissible only if both children's values lie in [lo, hi]
//   and are ordered in the constraint's direction (non-strict; scikit-learn's check_monotonicity).
//   The left child then gets [lo, mid] and the right [mid, hi] under +1 (mirrored under -1), mid
//   the mean of the two values. A split on a free feature passes [lo, hi] on.
// - A leaf outputs its value clipped to its bounds, and its loss is the loss at that value.
//
// Every tree of the rule is monotone: two leaves that a move along constrained features in their
// directions joins part at their lowest common ancestor, whose split is on a constrained feature
// (a free one sends both points the same way); the midpoint bounds every leaf value below it on
// one side and above it on the other. The rule is scikit-learn's, so each split monotone CART
// takes is one the rule admits at the same state with the same bounds; the search's CART
// generator proposes it, and the search over the rule's trees never loses to monotone CART.
//
// The scans (split_search.hpp, layout.hpp) are fast paths for free splits; where the rule
// constrains a feature, they read both children's statistics through the layout's scan_splits
// and ask admissible() here (the ruled searches at the end of this file).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dpdt/objectives/base.hpp"
#include "dpdt/split_search.hpp"
#include "dpdt/subset_hash.hpp"

namespace dpdt {

// The values a state's leaves may output.
struct Bounds {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    bool open() const { return lo == -std::numeric_limits<double>::infinity() && hi == std::numeric_limits<double>::infinity(); }
    double clip(double v) const { return std::min(std::max(v, lo), hi); }
};

// A state's identity in the caches: its subset hash with its bounds mixed in (open bounds leave
// it as it is, so an unconstrained fit keys its states as it always did). The key stays 128 bits
// of hash, as wide as the subset's own.
inline SubsetHash with_bounds(SubsetHash h, Bounds b) {
    if (b.open()) return h;
    uint64_t lo = 0, hi = 0;
    const double l = b.lo + 0.0, u = b.hi + 0.0;   // -0.0 and +0.0 alike
    std::memcpy(&lo, &l, sizeof lo);
    std::memcpy(&hi, &u, sizeof hi);
    h.a ^= splitmix64(lo ^ 0x243f6a8885a308d3ULL) + splitmix64(hi ^ 0x13198a2e03707344ULL);
    h.b ^= splitmix64(hi ^ 0xa4093822299f31d0ULL) + splitmix64(lo ^ 0x082efa98ec4e6c89ULL);
    return h;
}

// Params::monotonic_cst against a fit of p features: empty, or p entries of -1, 0, +1.
inline void check_monotonic_cst(const std::vector<int>& cst, int64_t p) {
    if (cst.empty()) return;
    if (static_cast<int64_t>(cst.size()) != p)
        throw std::invalid_argument("monotonic_cst must have one entry per feature: got " + std::to_string(cst.size()) +
                                    " for " + std::to_string(p) + " features");
    for (int c : cst)
        if (c < -1 || c > 1) throw std::invalid_argument("monotonic_cst entries must be -1, 0 or 1, got " + std::to_string(c));
}

inline bool any_constraint(const std::vector<int>& cst) {
    return std::any_of(cst.begin(), cst.end(), [](int c) { return c != 0; });
}

template <class O>
class SplitRule {
  public:
    // Checks the constraints against the fit's p features and the objective (which must have a
    // bounded value, objectives/base.hpp, when any entry is nonzero).
    SplitRule(const O& obj, const std::vector<int>& cst, int64_t p) : obj_(obj) {
        check_monotonic_cst(cst, p);
        active_ = any_constraint(cst);
        if (!active_) return;
        if constexpr (!O::kBoundedValue) {
            throw std::invalid_argument(std::string("monotonic_cst is not supported by the ") + O::kName + " objective");
        } else {
            obj.check_bounded_value();
        }
        cst_ = cst;
    }

    // Whether the rule restricts anything: false for an unconstrained fit, whose scans and states
    // are then exactly the unconstrained search's.
    bool active() const { return active_; }
    bool constrains(int32_t f) const { return active_ && cst_[f] != 0; }

    // Split on feature f into children of statistics l and r, at a state of bounds b.
    bool admissible(int32_t f, const double* l, const double* r, Bounds b) const {
        if (!constrains(f)) return true;
        const double vl = value(l), vr = value(r);
        // Rounding of sums taken in another order (a scan's running sums, a partition's) must not
        // turn an equality into a refusal; the children's bounds use the clipped values, so what
        // the margin lets through stays monotone.
        const double tol = kTol * (1.0 + std::abs(vl) + std::abs(vr));
        const bool inside = vl >= b.lo - tol && vl <= b.hi + tol && vr >= b.lo - tol && vr <= b.hi + tol;
        return inside && (vl - vr) * cst_[f] <= tol;
    }

    // The children's bounds of an admissible split.
    std::pair<Bounds, Bounds> child_bounds(int32_t f, const double* l, const double* r, Bounds b) const {
        if (!constrains(f)) return {b, b};
        const double mid = 0.5 * (b.clip(value(l)) + b.clip(value(r)));
        Bounds low{b.lo, mid}, high{mid, b.hi};
        return cst_[f] > 0 ? std::pair<Bounds, Bounds>{low, high} : std::pair<Bounds, Bounds>{high, low};
    }

    // The loss of a leaf of statistics s and bounds b: at its value clipped to b.
    double leaf_loss(const double* s, Bounds b) const {
        if constexpr (O::kBoundedValue) {
            if (active_) {
                const double v = obj_.scalar_value(s), c = b.clip(v);
                if (c != v) return obj_.loss_at(s, c);
            }
        }
        return obj_.loss(s);
    }

    // The leaf's output (value_dim() numbers), its value clipped to b.
    void leaf_value(const double* s, Bounds b, double* out) const {
        if constexpr (O::kBoundedValue) {
            if (active_) {
                const double v = obj_.scalar_value(s), c = b.clip(v);
                if (c != v) return obj_.value_at(s, c, out);
            }
        }
        obj_.value(s, out);
    }

    // Relative margin of admissible(): the tests' brute force (tests/_monotone_rule.py) uses it.
    static constexpr double kTol = 1e-12;

  private:
    double value(const double* s) const {
        if constexpr (O::kBoundedValue) return obj_.scalar_value(s);
        return 0.0;
    }

    const O& obj_;
    bool active_ = false;
    std::vector<int> cst_;
};

// The ruled searches, for constrained fits (SplitRule::active()), generic over the layout: each
// is its unconstrained namesake of split_search.hpp, with the rule's admissibility at bounds b.
// The layout offers scan_splits(obj, view, features, limits, stats, visit): visit(split, l, r) at
// every valid split of the features, with both children's statistics.

// Each feature's best generator split among the admissible ones: the layout's fast path for free
// features, the children's statistics for constrained ones.
template <class L, class O>
void ruled_generator_splits(const L& layout, const O& obj, const SplitRule<O>& rule, const typename L::View& v,
                            const std::vector<int32_t>& features, const LeafLimits& limits, const double* stats,
                            Bounds b, std::vector<SplitRecord>& out) {
    out.assign(features.size(), SplitRecord{});
    std::vector<int32_t> free, constrained;
    std::vector<size_t> free_at, slot(static_cast<size_t>(layout.p()), 0);
    for (size_t a = 0; a < features.size(); ++a) {
        if (rule.constrains(features[a])) {
            constrained.push_back(features[a]);
            slot[features[a]] = a;
        } else {
            free.push_back(features[a]);
            free_at.push_back(a);
        }
    }
    if (!free.empty()) {
        std::vector<SplitRecord> found;
        layout.generator_splits_per_feature(obj, v, free, limits, stats, found);
        for (size_t k = 0; k < found.size(); ++k) out[free_at[k]] = found[k];
    }
    if (constrained.empty()) return;
    const double parent = obj.generator_impurity(stats);
    const double tol = generator_tolerance(obj, stats);
    layout.scan_splits(obj, v, constrained, limits, stats, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
        if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0 || !rule.admissible(s.feature, l, r, b)) return;
        const double score = obj.generator_score(parent, l, r);
        SplitRecord& best = out[slot[s.feature]];
        if (best.found() && score <= best.score + tol) return;
        best = s;
        best.score = score;
    });
}

// The admissible split of highest generator score among `features` (ties as CART's).
template <class L, class O>
SplitRecord ruled_generator_split(const L& layout, const O& obj, const SplitRule<O>& rule, const typename L::View& v,
                                  const std::vector<int32_t>& features, const LeafLimits& limits, const double* stats,
                                  Bounds b) {
    std::vector<SplitRecord> per_feature;
    ruled_generator_splits(layout, obj, rule, v, features, limits, stats, b, per_feature);
    const double tol = generator_tolerance(obj, stats);
    SplitRecord best;
    for (const SplitRecord& s : per_feature)
        if (s.found() && (!best.found() || s.score > best.score + tol)) best = s;
    return best;
}

// Each feature's admissible split of lowest loss, the children's losses taken at their bounds
// (score = that loss, tie = the children's tie-break): the last level's exact scan. With
// only_best, as in best_loss_splits, the caller wants the best over all features alone: a
// feature that cannot reach an earlier one's loss may come without its split.
template <class L, class O>
void ruled_loss_splits(const L& layout, const O& obj, const SplitRule<O>& rule, const typename L::View& v,
                       const std::vector<int32_t>& features, const LeafLimits& limits, const double* stats, Bounds b,
                       std::vector<SplitRecord>& out, bool only_best) {
    out.assign(static_cast<size_t>(layout.p()), SplitRecord{});
    const double tol = 1e-11 * (std::abs(rule.leaf_loss(stats, b)) + obj.weight(stats));
    double lowest = std::numeric_limits<double>::infinity();   // over the features, with only_best
    layout.scan_splits(obj, v, features, limits, stats, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
        SplitRecord& best = out[s.feature];
        const double bar = std::min(best.found() ? best.score : lowest, lowest) + tol;
        // A leaf loses at least its unclipped loss (loss_at's minimum, objectives/base.hpp): most
        // positions are passed over on that alone.
        if (obj.loss(l) + obj.loss(r) > bar) return;
        if (!rule.admissible(s.feature, l, r, b)) return;
        const auto [bl, br] = rule.child_bounds(s.feature, l, r, b);
        const double loss = rule.leaf_loss(l, bl) + rule.leaf_loss(r, br);
        if (loss > bar) return;
        const double tie = obj.tie(l) + obj.tie(r);
        if (!best.found() || loss < best.score - tol || tie < best.tie - tol) {
            best = s;
            best.score = loss;
            best.tie = tie;
            if (only_best) lowest = std::min(lowest, loss);
        }
    });
}

// Top-k among admissible splits.
template <class L, class O>
void ruled_top_k_splits(const L& layout, const O& obj, const SplitRule<O>& rule, const typename L::View& v,
                        const std::vector<int32_t>& features, const LeafLimits& limits, const double* stats, Bounds b,
                        int k, std::vector<SplitRecord>& out) {
    ruled_generator_splits(layout, obj, rule, v, features, limits, stats, b, out);
    out.erase(std::remove_if(out.begin(), out.end(), [](const SplitRecord& s) { return !s.found(); }), out.end());
    keep_best(out, k, generator_tolerance(obj, stats));
}

// Top-B among admissible splits.
template <class L, class O>
void ruled_top_b_splits(const L& layout, const O& obj, const SplitRule<O>& rule, const typename L::View& v,
                        const std::vector<int32_t>& features, const LeafLimits& limits, const double* stats, Bounds b,
                        int count, std::vector<SplitRecord>& out) {
    out.clear();
    const double parent = obj.generator_impurity(stats);
    layout.scan_splits(obj, v, features, limits, stats, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
        if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0 || !rule.admissible(s.feature, l, r, b)) return;
        SplitRecord scored = s;
        scored.score = obj.generator_score(parent, l, r);
        out.push_back(scored);
    });
    keep_best(out, count, generator_tolerance(obj, stats));
}

}  // namespace dpdt
