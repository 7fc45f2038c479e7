// What the exact search (dpdt/optimal.hpp) returns from a state: a tree's shape, its value under
// an upper bound, or a lower bound when no tree beats it. The vocabulary every other file of the
// search speaks; the search's own facts are at the top of optimal.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "dpdt/criterion.hpp"

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

}  // namespace
}  // namespace dpdt
