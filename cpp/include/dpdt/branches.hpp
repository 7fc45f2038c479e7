// BRANCHES (Chaouki, Read, Bifet, ICML 2025): the tree maximising
//     H(T) = weighted accuracy(T) - lambda * (number of splits of T)
// over all trees whose splits are multiway on categorical features (one child per category present
// in the branch), found by dynamic programming over branches with branch & bound. A branch is the
// set of samples satisfying its clauses; its value depends on that set alone (a feature already
// used has one category left and offers no split), so branches are memoised by sample subset.
//
// The purification bound prunes: an unsolved branch l is worth at most
//     R(l) <= max(H_leaf(l), w(l) - lambda)        (w(l): weight fraction of l)
// and a split at most -lambda plus the sum of its children's bounds. For two classes this implies
// the support bound of the sparse-tree literature (w(l) < 2 lambda: never split).
#pragma once
#include <cstdint>
#include <vector>

#include "dpdt/run_loop.hpp"

namespace dpdt {

struct CategoricalData {
    int64_t n = 0, q = 0;
    const int32_t* X = nullptr;          // n x q row-major category codes, >= 0
    std::vector<int32_t> n_categories;   // per feature: max code + 1
    const int32_t* y = nullptr;          // class codes 0..n_classes-1
    int n_classes = 1;
    const double* w = nullptr;           // sample weights > 0
};

// Every knob of a BRANCHES search, bound to Python as dpdt._core.BranchesParams.
struct BranchesParams {
    double lambda = 0.01;         // the price of a split, in units of accuracy
    int max_depth = 0;            // <= 0: unlimited
    double time_limit = 0.0;      // seconds, <= 0: unlimited
    int64_t max_branches = 50'000'000;   // memoising more distinct branches throws

    // Every field by its Python name (lambda is a Python keyword: lam, as the estimator says).
    template <class Visit>
    static void fields(Visit&& visit) {
        visit("lam", &BranchesParams::lambda);
        visit("max_depth", &BranchesParams::max_depth);
        visit("time_limit", &BranchesParams::time_limit);
        visit("max_branches", &BranchesParams::max_branches);
    }
};

// A multiway tree: node k tests `feature[k]` (-1 for a leaf) and sends category c to node
// edge_child[e] for the e in [edge_begin[k], edge_begin[k + 1]) with edge_category[e] == c; a
// category without an edge stops at node k. Nodes are numbered in preorder.
struct MultiwayTree {
    std::vector<int32_t> feature;
    std::vector<int64_t> edge_begin;       // node_count + 1 entries
    std::vector<int32_t> edge_category, edge_child;
    std::vector<double> value;             // node_count x n_classes weighted class sums
    std::vector<int64_t> n_node_samples;
};

struct BranchesResult {
    MultiwayTree tree;
    double objective = 0.0;     // H of the tree returned
    double upper_bound = 0.0;   // certified bound on the optimum (== objective when optimal)
    bool optimal = false;
    int64_t iterations = 0;     // branches expanded
    int64_t branches = 0;       // distinct branches memoised
    bool stopped_by_branches = false;   // max_branches ended the search (else the time limit did)
    double seconds = 0.0;
};

// The search runs on the run loop (dpdt/run_loop.hpp): `poll` is called every few milliseconds
// from the calling thread, and returning true stops the search with Interrupted.
BranchesResult solve_branches(const CategoricalData& data, const BranchesParams& params, const Poll& poll);

}  // namespace dpdt
