// Every knob of a fit, resolved by Python before it crosses the boundary: the one declaration of
// each, bound field by field to Python as dpdt._core.Params (cpp/bindings/module.cpp), whose enum
// member names are the strings the estimators take.
#pragma once
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace dpdt {

// The split generator of a depth (dpdt/split_search.hpp, dpdt/screen.hpp, dpdt/lookahead.hpp).
enum class Splitter { Cart, Exhaustive, Quantile, TopK, TopB, Lookahead, Screen };
// GainRatio (C4.5) scores generator splits by information gain over split information; as an
// impurity (tie-break, node impurity) it is the entropy.
enum class Criterion { Gini, Entropy, GainRatio };
// What alpha prices: the expected number of tests on the way to a leaf (the weighted fraction of
// samples reaching each split node, summed), or the number of splits.
enum class Complexity { ExpectedTests, NSplits };
// What each state keeps of its subtrees: the lower convex hull of (complexity, loss), the trees
// optimal for some alpha; or the whole Pareto set, which adds the trees between hull vertices (the
// most accurate within a complexity budget) at the cost of combining children pair by pair.
enum class Front { Convex, Pareto };

// Each enum's members by their Python names, the strings the estimators take.
inline constexpr std::pair<const char*, Splitter> kSplitterNames[] = {
    {"cart", Splitter::Cart},   {"exhaustive", Splitter::Exhaustive}, {"quantile", Splitter::Quantile},
    {"topk", Splitter::TopK},   {"topb", Splitter::TopB},             {"lookahead", Splitter::Lookahead},
    {"screen", Splitter::Screen}};
inline constexpr std::pair<const char*, Criterion> kCriterionNames[] = {
    {"gini", Criterion::Gini}, {"entropy", Criterion::Entropy}, {"gain_ratio", Criterion::GainRatio}};
inline constexpr std::pair<const char*, Complexity> kComplexityNames[] = {
    {"expected_tests", Complexity::ExpectedTests}, {"n_splits", Complexity::NSplits}};
inline constexpr std::pair<const char*, Front> kFrontNames[] = {{"convex", Front::Convex}, {"pareto", Front::Pareto}};

struct Params {
    int max_depth = 3;
    // candidates[d]: number of candidate splits generated at a state of depth d; depths beyond the
    // vector use 1. A state with one split left ignores it and is solved exactly.
    std::vector<int> candidates{7, 7, 7};
    // splitters[d]: the generator at depth d; depths beyond the vector use Cart.
    std::vector<Splitter> splitters{Splitter::Cart};
    // Classification's impurity (the Classification objective is built with it); other objectives
    // ignore it.
    Criterion criterion = Criterion::Gini;
    // When > 0, every state with two or more levels left also takes the split of best exact depth-2
    // lookahead (dpdt/lookahead.hpp) as a candidate, if finding it reads at most this many sample
    // ids; a search that would read more adds nothing. Objectives whose loss grows with the samples
    // (dpdt/objectives/base.hpp), on exact thresholds without missing values; other fits ignore it.
    int64_t exact_depth2_work = 0;
    Complexity complexity = Complexity::ExpectedTests;
    Front front = Front::Convex;
    // One non-negative cost per feature; empty means every test costs 1.
    std::vector<double> feature_costs;
    int min_samples_split = 2;
    int min_samples_leaf = 1;
    double min_weight_leaf = 0.0;   // absolute weight a leaf needs
    // Applies to the CART generator only: the exact search of the last level ignores it.
    double min_impurity_decrease = 0.0;
    // Features drawn at each node of the CART generator; <= 0 or >= p means all of them.
    int max_features = 0;
    uint64_t random_state = 0;
    // Guard against runaway configurations: the search ends once it has solved this many states,
    // as at the time limit (a process solving part of a split fit, which cannot, throws).
    int64_t max_states = 5'000'000;
    // Guard on the memory the solved states hold (their statistics, hulls and actions, counted
    // as allocated and never as freed, so it errs high): the search ends before it passes it, as
    // max_states ends it; <= 0 means no limit.
    int64_t max_state_bytes = 0;
    // Python's estimate of the states and of their bytes (dpdt/_memory.py). A search on course to
    // pass max_states or max_state_bytes several times over ends as at them before it reaches
    // them, if the estimate passes them too (Search::off_course): a limit the estimate says the
    // fit stays within is never projected, so that the projection's error cannot stop the fit
    // (0: never).
    double estimated_states = std::numeric_limits<double>::infinity();
    double estimated_state_bytes = std::numeric_limits<double>::infinity();
    int n_threads = 1;
    // Seconds after which no further candidate is explored, and the best tree found so far among
    // the explored ones is returned; past it, a grace of max(T, 1 s) / 2 lets the states in
    // progress complete their greedy split (the two steps of dpdt/run_loop.hpp); <= 0 means no
    // limit.
    double time_limit = 0.0;
    // >= 0: only the tree optimal at this alpha is wanted, found by the bounded search
    // (dpdt/optimal.hpp), which serves exhaustive classification on exact thresholds on one
    // machine; < 0: the whole front.
    double single_alpha = -1.0;
    // Monotonic constraints, scikit-learn's `monotonic_cst`: empty, or one entry per feature, -1
    // (the output never rises with the feature), 0 (free) or +1 (never falls). The output is the
    // leaf value of a regression or of the Newton objective, and P(class 1) of a binary
    // classifier; dpdt/split_rule.hpp holds the rule the search keeps them by. A fit with a
    // nonzero entry is served by the dynamic programme over the front, never the bounded search.
    std::vector<int> monotonic_cst;
    // > 0: the bounded search's sweeps of states of depth two (optimal/depth_two_sweep.hpp) keep
    // at most this many blocks of cuts per feature, whatever the state's size; 0: a value per
    // cut where those fit the sweep's budget, else its own number of blocks. No estimator sets
    // it: it lets tests reach the blocks on small data.
    int sweep_blocks = 0;

    // Every field by its Python name, for the binding: visit(name, &Params::field). A field
    // missing here cannot be set from Python.
    template <class Visit>
    static void fields(Visit&& visit) {
        visit("max_depth", &Params::max_depth);
        visit("candidates", &Params::candidates);
        visit("splitters", &Params::splitters);
        visit("criterion", &Params::criterion);
        visit("exact_depth2_work", &Params::exact_depth2_work);
        visit("complexity", &Params::complexity);
        visit("front", &Params::front);
        visit("feature_costs", &Params::feature_costs);
        visit("min_samples_split", &Params::min_samples_split);
        visit("min_samples_leaf", &Params::min_samples_leaf);
        visit("min_weight_leaf", &Params::min_weight_leaf);
        visit("min_impurity_decrease", &Params::min_impurity_decrease);
        visit("max_features", &Params::max_features);
        visit("random_state", &Params::random_state);
        visit("max_states", &Params::max_states);
        visit("max_state_bytes", &Params::max_state_bytes);
        visit("estimated_states", &Params::estimated_states);
        visit("estimated_state_bytes", &Params::estimated_state_bytes);
        visit("n_threads", &Params::n_threads);
        visit("time_limit", &Params::time_limit);
        visit("single_alpha", &Params::single_alpha);
        visit("monotonic_cst", &Params::monotonic_cst);
        visit("sweep_blocks", &Params::sweep_blocks);
    }
};

}  // namespace dpdt
