// Solved root subproblems as bytes, for a fit split over processes (dpdt.dask, RootPlan in
// dpdt/solver.hpp): a solution and every subtree it reaches, children before parents, shared
// subtrees once. The bytes only travel between processes of one fit, so they are native-endian.
#pragma once
#include <cstdint>
#include <string>

#include "solution.hpp"

namespace dpdt {

std::string write_solution(const Solution& root);

// The inverse of write_solution for a fit whose statistics have `dim` entries and whose data
// `n_features` features. Every count and reference is checked: corrupt bytes, or bytes of a fit
// of other data or parameters, throw BadSolution rather than give a tree pointing anywhere.
SolutionPtr read_solution(const std::string& bytes, int dim, int64_t n_features);

}  // namespace dpdt
