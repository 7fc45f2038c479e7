// DPDT: the tree of depth <= max_depth minimising loss + alpha * complexity over the splits offered
// by a split generator, for every alpha at once, by backward induction over the states
// (subset of the training samples, depth) of the tree-building MDP.
#pragma once
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/layout.hpp"
#include "dpdt/objectives.hpp"
#include "dpdt/params.hpp"
#include "dpdt/run_loop.hpp"
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
    int64_t sample_reads = 0; // samples of the states solved, summed: rows any pass over them reads
    int64_t cache_hits = 0;   // child states found already solved
    int64_t sweeps = 0;       // features of states of depth two whose cuts were swept at once
    int64_t shared_states = 0;   // states whose subproblems were handed to idle workers (JobGroup)
    int64_t state_bytes = 0;  // bytes the solved states hold (dpdt/memory.hpp), counted as created
    double seconds = 0.0;
    bool complete = true;     // false when a limit cut the search short
    Limit stopped_by = Limit::None;   // that limit (the run loop's first)
    // When the runaway projection stopped the search at that limit: the course it was on, in
    // states or bytes (0 otherwise).
    double projected = 0.0;
};

// One fit split over processes (dpdt.dask): the root's subproblems, "tasks" (task t is side t % 2
// of root candidate t / 2), are solved where the data is, shipped as bytes, and combined by the
// root's Bellman backup into exactly the result of a local fit, since a state's solution depends on
// the state alone. Every process expands the root itself, identically.
struct RootPlan {
    enum class Mode {
        Local,     // the whole fit here
        Count,     // expand the root only, report the number of tasks
        Solve,     // solve `tasks`, return their serialised solutions
        Combine,   // take the solutions of every task (in task order) and finish the fit
    };
    Mode mode = Mode::Local;
    std::vector<int64_t> tasks;
    std::vector<std::string> solutions;
};

struct FitResult {
    std::vector<FrontTree> front;   // by increasing alpha: front[0] is optimal at alpha = 0
    FitStats stats;
    // The bounded search (fit_optimal): a lower bound of the optimal objective (loss + alpha *
    // complexity, per unit weight), the found tree's objective when complete; NaN elsewhere.
    double lower_bound = std::numeric_limits<double>::quiet_NaN();
    int64_t root_tasks = 0;               // Count: the number of tasks
    std::vector<std::string> solutions;   // Solve: one per requested task
};

class StateLimitExceeded : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A serialised subproblem solution that does not decode (truncated, corrupted, or from a fit of
// other data or parameters).
class BadSolution : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// `poll` (dpdt/run_loop.hpp) is called every few milliseconds from the calling thread while worker
// threads solve; returning true stops the fit, which then throws Interrupted. Instantiated for the
// objectives of the list in dpdt/objectives.hpp.
template <class O>
FitResult fit(const Dataset& data, const O& objective, const Params& params, const Poll& poll,
              const RootPlan& plan = RootPlan{});
// The same on binned features (dpdt/layout.hpp); Code is uint8_t or uint16_t.
template <class O, class Code>
FitResult fit(const BinnedData<Code>& data, const O& objective, const Params& params, const Poll& poll,
              const RootPlan& plan = RootPlan{});

}  // namespace dpdt
