// Certified optimal trees at one alpha: the exhaustive splitter's tree (every threshold of every
// feature at every depth) found by depth-first branch and bound instead of the whole Pareto front,
// which is what makes an optimal depth-3 or depth-4 tree affordable.
#pragma once
#include "dpdt/dataset.hpp"
#include "dpdt/objectives.hpp"
#include "dpdt/params.hpp"
#include "dpdt/solver.hpp"

namespace dpdt {

// Whether the bounded search serves objective O: its bounds need a loss that is >= 0 and never
// drops when samples are added (kLossGrowsWithSamples), by at most loss_rises per unit of the
// added sample's weight.
template <class O>
inline constexpr bool kHasBoundedSearch = O::kLossGrowsWithSamples;

// The tree of depth <= params.max_depth minimising loss + alpha * complexity, as a front of one row
// (alpha_min = alpha_max = alpha), for an objective with kHasBoundedSearch. Serves exact
// thresholds without missing values, no feature costs and leaf limits that never bind
// (min_samples_leaf 1, min_samples_split 2, no minimum weight): the bounds need an optimum that
// only grows as samples are added. params.time_limit, max_states (the states searched) and
// max_state_bytes (its buffers and caches) stop the search alike (RunLoop::reach) with the best
// tree found (stats.complete false, stats.stopped_by the limit) and a lower bound of the optimum
// (FitResult::lower_bound). Instantiated for every objective of the list that has the trait.
template <class O>
FitResult fit_optimal(const Dataset& data, const O& objective, const Params& params, double alpha,
                      const Poll& poll);

}  // namespace dpdt
