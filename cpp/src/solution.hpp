// What the dynamic programme knows of a solved state: shared between the search (solver_impl.hpp)
// and the byte format that carries root subproblems between processes (solution_io.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "dpdt/hull.hpp"

namespace dpdt {

struct Solution;
using SolutionPtr = std::shared_ptr<const Solution>;

struct Action {
    int32_t feature = -1;
    double threshold = 0.0;
    bool missing_left = false;   // where a missing value goes
    SolutionPtr left, right;
};

// What is known of a state once solved: its statistics, and the hull (or, with Front::Pareto, the
// Pareto set) of its optimal subtrees with the actions those subtrees start with. Child solutions
// are shared between parents.
struct Solution {
    int32_t n_samples = 0;
    double total = 0.0;
    std::vector<double> stats;   // the objective's sufficient statistics
    double impurity = 0.0;
    std::vector<Action> actions;
    Hull hull;
};

}  // namespace dpdt
