// Every knob of a fit, resolved by Python before it crosses the boundary.
#pragma once
#include <cstdint>
#include <vector>

namespace dpdt {

enum class Splitter { Cart, Exhaustive, Quantile, TopK, TopB, Lookahead, Screen };
// GainRatio (C4.5) scores generator splits by information gain over split information; as an
// impurity (tie-break, node impurity) it is the entropy.
enum class Criterion { Gini, Entropy, GainRatio };
enum class Complexity { ExpectedTests, NSplits };
// What each state keeps of its subtrees: the lower convex hull of (complexity, loss), the trees
// optimal for some alpha; or the whole Pareto set, which adds the trees between hull vertices (the
// most accurate within a complexity budget) at the cost of combining children pair by pair.
enum class Front { Convex, Pareto };

struct Params {
    int max_depth = 3;
    // candidates[d]: number of candidate splits generated at a state of depth d; depths beyond the
    // vector use 1. A state with one split left ignores it and is solved exactly.
    std::vector<int> candidates{7, 7, 7};
    // splitters[d]: the generator at depth d; depths beyond the vector use Cart.
    std::vector<Splitter> splitters{Splitter::Cart};
    // When > 0, every state with two or more levels left also takes the split of best exact depth-2
    // lookahead (dpdt/lookahead.hpp) as a candidate, if finding it reads at most this many sample
    // ids; a search that would read more adds nothing. Classification and squared error on exact
    // thresholds without missing values; other fits ignore it.
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
    // Guard against runaway configurations: solving more states than this throws.
    int64_t max_states = 5'000'000;
    // Guard on the memory the solved states hold (their statistics, hulls and actions, counted
    // as allocated and never as freed, so it errs high): passing it throws; <= 0 means no limit.
    int64_t max_state_bytes = 0;
    int n_threads = 1;
    // Seconds after which no further candidate is explored, and the best tree found so far among
    // the explored ones is returned; <= 0 means no limit.
    double time_limit = 0.0;
};

}  // namespace dpdt
