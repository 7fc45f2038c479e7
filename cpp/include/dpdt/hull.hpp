// The optimal value of a state as a function of alpha, kept exactly as a lower convex hull.
//
// A tree T is the point (C, V) with C its complexity and V = (L, I, S) its loss, the impurity of its
// leaves and its number of splits. The objective L + alpha*C is broken on ties by I, then S: this is
// the objective L + alpha*C + eps*I + eps^2*S for an infinitesimal eps, so V is a vector compared
// lexicographically and every hull operation stays linear in it. A state's value V(alpha) =
// min_T (V_T + alpha*C_T) is concave and piecewise linear; its pieces are the vertices of the lower
// convex hull of the points, restricted to alpha >= 0.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace dpdt {

struct HullPoint {
    double C = 0.0;   // complexity, raw (weight units for expected tests)
    double L = 0.0;   // weighted misclassification, raw
    double I = 0.0;   // sum over leaves of weight x impurity
    double S = 0.0;   // number of splits
    int32_t action = -1;   // -1: the state is a leaf
    int32_t left_point = -1;   // vertex of the left child's hull used by this tree
    int32_t right_point = -1;
};

using Hull = std::vector<HullPoint>;

namespace hull_detail {

constexpr double kRelTol = 1e-11;

// Sign of a*x - b*y, zero when the difference is rounding noise.
inline int sign_diff(double a, double b) {
    const double d = a - b;
    const double tol = kRelTol * (std::fabs(a) + std::fabs(b)) + 1e-300;
    return d > tol ? 1 : (d < -tol ? -1 : 0);
}

// Lexicographic sign of ca * (Vb) - cb * (Va), component by component.
inline int lex_sign(double ca, const HullPoint& vb, double cb, const HullPoint& va) {
    if (int s = sign_diff(ca * vb.L, cb * va.L)) return s;
    if (int s = sign_diff(ca * vb.I, cb * va.I)) return s;
    return sign_diff(ca * vb.S, cb * va.S);
}

inline int lex_compare(const HullPoint& a, const HullPoint& b) {
    return lex_sign(1.0, a, 1.0, b);
}

inline HullPoint diff(const HullPoint& b, const HullPoint& a) {
    HullPoint d;
    d.C = b.C - a.C;
    d.L = b.L - a.L;
    d.I = b.I - a.I;
    d.S = b.S - a.S;
    return d;
}

}  // namespace hull_detail

// The vertices optimal for some alpha >= 0, by increasing C (so decreasing V). Among equal points
// the earlier one in `points` is kept, which makes ties deterministic.
inline Hull lower_hull(std::vector<HullPoint> points) {
    using namespace hull_detail;
    if (points.empty()) return {};
    std::stable_sort(points.begin(), points.end(),
                     [](const HullPoint& a, const HullPoint& b) { return sign_diff(a.C, b.C) < 0; });
    // One point per complexity: the lexicographically smallest V.
    std::vector<HullPoint> unique;
    unique.reserve(points.size());
    for (const HullPoint& p : points) {
        if (!unique.empty() && sign_diff(p.C, unique.back().C) == 0) {
            if (lex_compare(p, unique.back()) < 0) unique.back() = p;
        } else {
            unique.push_back(p);
        }
    }
    // Points more complex than the smallest V are never optimal for alpha >= 0.
    size_t best = 0;
    for (size_t i = 1; i < unique.size(); ++i)
        if (lex_compare(unique[i], unique[best]) < 0) best = i;
    unique.resize(best + 1);

    Hull chain;
    chain.reserve(unique.size());
    for (const HullPoint& c : unique) {
        while (chain.size() >= 2) {
            const HullPoint& a = chain[chain.size() - 2];
            const HullPoint& b = chain.back();
            // Keep b only when it lies strictly below the segment from a to c.
            const HullPoint ab = diff(b, a), ac = diff(c, a);
            if (lex_sign(ab.C, ac, ac.C, ab) > 0) break;
            chain.pop_back();
        }
        chain.push_back(c);
    }
    return chain;
}

// Adds p to the Pareto set being built in out[first:] from points by increasing C, unless a point
// there beats it; p replaces the last point when of equal C and smaller V (still below every
// simpler point, as that one was).
inline void add_if_unbeaten(std::vector<HullPoint>& out, size_t first, const HullPoint& p) {
    using namespace hull_detail;
    if (out.size() > first && sign_diff(p.C, out.back().C) == 0) {
        if (lex_compare(p, out.back()) < 0) out.back() = p;
    } else if (out.size() == first || lex_compare(p, out.back()) < 0) {
        out.push_back(p);
    }
}

// The points that no other beats on both counts (no more complex with a smaller V), by increasing
// C: the lower hull's vertices and, between them, the trees no alpha selects, such as the most
// accurate tree within a complexity budget. Among equal points the earlier one is kept.
inline Hull pareto_set(std::vector<HullPoint> points) {
    using namespace hull_detail;
    std::stable_sort(points.begin(), points.end(),
                     [](const HullPoint& a, const HullPoint& b) { return sign_diff(a.C, b.C) < 0; });
    Hull out;
    for (const HullPoint& p : points) add_if_unbeaten(out, 0, p);
    return out;
}

// The Pareto set of the trees "split with cost `split_cost`, then a tree of each child's set",
// appended to `out`. Sets do not add edge by edge as hulls do: the pairs are merged by increasing
// C, one sorted row per left point (a heap, so memory stays linear), keeping those that improve
// on every simpler pair; the pair of both children's last points has the smallest V and ends it.
inline void add_pareto_sum(const Hull& left, const Hull& right, double split_cost, int32_t action,
                           std::vector<HullPoint>& out) {
    struct Next {
        double C;
        int32_t i, j;
    };
    // The heap's top is the smallest C, then the smallest i: the order of a stable sort of the
    // pairs listed left point by left point.
    auto later = [](const Next& a, const Next& b) { return a.C != b.C ? a.C > b.C : a.i > b.i; };
    std::vector<Next> heap;
    heap.reserve(left.size());
    for (size_t i = 0; i < left.size(); ++i)
        heap.push_back({left[i].C + right[0].C, static_cast<int32_t>(i), 0});
    std::make_heap(heap.begin(), heap.end(), later);
    const size_t first = out.size();
    const auto last_i = static_cast<int32_t>(left.size() - 1), last_j = static_cast<int32_t>(right.size() - 1);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const Next at = heap.back();
        HullPoint p;
        p.C = left[at.i].C + right[at.j].C + split_cost;
        p.L = left[at.i].L + right[at.j].L;
        p.I = left[at.i].I + right[at.j].I;
        p.S = left[at.i].S + right[at.j].S + 1.0;
        p.action = action;
        p.left_point = at.i;
        p.right_point = at.j;
        add_if_unbeaten(out, first, p);
        if (at.i == last_i && at.j == last_j) break;
        if (at.j < last_j) {
            heap.back() = {left[at.i].C + right[at.j + 1].C, at.i, at.j + 1};
            std::push_heap(heap.begin(), heap.end(), later);
        } else {
            heap.pop_back();
        }
    }
}

// All trees "split with cost `split_cost`, then the left and right subtrees": the Minkowski sum of
// the children's hulls (merging their edges by slope), shifted by the split.
inline Hull split_hull(const Hull& left, const Hull& right, double split_cost, int32_t action) {
    using namespace hull_detail;
    Hull out;
    out.reserve(left.size() + right.size());
    size_t i = 0, j = 0;
    for (;;) {
        HullPoint p;
        p.C = left[i].C + right[j].C + split_cost;
        p.L = left[i].L + right[j].L;
        p.I = left[i].I + right[j].I;
        p.S = left[i].S + right[j].S + 1.0;
        p.action = action;
        p.left_point = static_cast<int32_t>(i);
        p.right_point = static_cast<int32_t>(j);
        out.push_back(p);
        const bool more_left = i + 1 < left.size(), more_right = j + 1 < right.size();
        if (!more_left && !more_right) break;
        if (!more_right) { ++i; continue; }
        if (!more_left) { ++j; continue; }
        const HullPoint el = diff(left[i + 1], left[i]), er = diff(right[j + 1], right[j]);
        // Steeper (more negative) slope first; equal slopes advance together (no collinear vertex).
        const int s = lex_sign(er.C, el, el.C, er);
        if (s <= 0) ++i;
        if (s >= 0) ++j;
    }
    return out;
}

}  // namespace dpdt
