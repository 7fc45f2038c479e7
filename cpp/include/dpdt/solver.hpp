// DPDT: the tree of depth <= max_depth minimising loss + alpha * complexity over the splits offered
// by a split generator, for every alpha at once, by backward induction over the states
// (subset of the training samples, depth) of the tree-building MDP.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/objective.hpp"
#include "dpdt/params.hpp"
#include "dpdt/tree.hpp"

namespace dpdt {

// One tree of the Pareto front: optimal for alpha in [alpha_min, alpha_max].
struct FrontTree {
    double alpha_min = 0.0, alpha_max = 0.0;
    double loss = 0.0;        // the objective's loss per unit weight (misclassification rate, MSE...)
    double complexity = 0.0;  // expected tests per sample, or (cost of the) split count
    double impurity = 0.0;    // the tie-break per unit weight (weighted leaf impurity)
    int64_t n_splits = 0;
    TreeArrays tree;
};

struct FitStats {
    int64_t states = 0;       // states solved (leaf, exact last level or expanded)
    int64_t candidates = 0;   // candidate splits produced by the generator
    int64_t exact_scans = 0;  // states whose last split was searched exhaustively
    int64_t cache_hits = 0;   // child states found already solved
    double seconds = 0.0;
    bool complete = true;     // false when time_limit cut the search short
};

// How far a running fit is, as `poll` sees it: the root's subproblems (one side of one root
// candidate each) are the unit of work; `root_tasks` is 0 until the root is expanded.
struct Progress {
    int64_t states = 0;
    int64_t root_tasks = 0, root_tasks_done = 0;
    double seconds = 0.0;
};

struct FitResult {
    std::vector<FrontTree> front;   // by increasing alpha: front[0] is optimal at alpha = 0
    FitStats stats;
};

class StateLimitExceeded : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Interrupted : public std::runtime_error {
  public:
    Interrupted() : std::runtime_error("interrupted") {}
};

// `poll` is called every few milliseconds from the calling thread while worker threads solve, with
// the progress so far; returning true stops the fit, which then throws Interrupted. Instantiated
// for the objectives of dpdt/objective.hpp.
using Poll = std::function<bool(const Progress&)>;
template <class O>
FitResult fit(const Dataset& data, const O& objective, const Params& params, const Poll& poll);

}  // namespace dpdt
