// The lower bounds of the exact search, from the facts at the top of optimal.cpp: the children's
// values over an interval of thresholds from their values at its ends (interval_bound, Quant-BnB's
// bound tightened by MurTree's similarity bound), the bound of every split of a state from its
// optimum one level shallower (any_split_bound), and the bound of a set from sets solved recently
// at the same depth (SimilarSets, binary features). A bound here is a fact of the objective
// (its optimum grows with samples, by at most kappa a unit of weight), not of the search's order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "optimal/pairs.hpp"

namespace dpdt {
namespace {

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

// Lower bounds of the children's values at an evaluated cut.
struct CutBounds {
    int32_t cut = -1;
    double left = 0.0, right = 0.0;
};

// MurTree's similarity bound: a set D' solved at a depth bounds any set D at that depth, as
// v(D) >= v(D intersect D') >= v(D') - w(D' \ D) (the facts at the top of optimal.cpp, kappa = 1
// with alpha = 0). Each depth keeps its last few solved sets (values exact or lower bounds):
// the sides of the features tried one after another overlap much.
class SimilarSets {
  public:
    // `depths` depths of sets of `words` words of sample bits. Empty slots (no samples, value 0)
    // bound nothing.
    void reset(size_t depths, int64_t words) {
        sets_.assign(depths, std::vector<Similar>(kSimilar, Similar{std::vector<uint64_t>(static_cast<size_t>(words), 0),
                                                                    0.0}));
        next_.assign(depths, 0);
    }

    void archive(const std::vector<uint64_t>& bits, int depth, double value) {
        Similar& slot = sets_[depth][next_[depth]++ % kSimilar];
        slot.bits.assign(bits.begin(), bits.end());
        slot.value = value;
    }

    // Lower bounds of the values at `depth` of the two sides of the set `in` (as bits), the lower
    // side outside `upper` and the upper side in it, from the sets solved last at that depth; no
    // sample weighs more than max_w.
    std::pair<double, double> bounds(const uint64_t* in, const uint64_t* upper, int64_t words, double max_w,
                                     int depth) const {
        double left = 0.0, right = 0.0;
        for (const Similar& d : sets_[depth]) {
            // Samples of d outside each side: popcounts, times the heaviest weight (exact with
            // unit weights, an upper bound of w(D' \ D) otherwise).
            int64_t outside[2];
            outside_sides(d.bits.data(), in, upper, words, outside);
            left = std::max(left, d.value - static_cast<double>(outside[0]) * max_w);
            right = std::max(right, d.value - static_cast<double>(outside[1]) * max_w);
        }
        return {left, right};
    }

    // The bytes of the sets' bits.
    int64_t bytes() const {
        int64_t bytes = 0;
        for (const auto& at_depth : sets_)
            for (const Similar& d : at_depth) bytes += static_cast<int64_t>(d.bits.capacity() * sizeof(d.bits[0]));
        return bytes;
    }

  private:
    struct Similar {
        std::vector<uint64_t> bits;
        double value = 0.0;
    };
    static constexpr size_t kSimilar = 8;
    std::vector<std::vector<Similar>> sets_;   // by depth, kSimilar each
    std::vector<size_t> next_;                 // by depth: the slot written next
};

}  // namespace
}  // namespace dpdt
