// Branch and bound for the optimal tree at one alpha (dpdt/optimal.hpp).
//
// A state (a sample set S, a depth d) is searched depth first under an upper bound: the best tree
// of value < ub, or a lower bound >= ub when there is none. Two facts about the optimum v_d(S)
// (loss + alpha * complexity, every weight >= 0, a leaf's loss >= 0 and never dropping when
// samples are added: kLossGrowsWithSamples) make the bounds:
//   - it only grows when samples are added: a tree's value on fewer samples can only drop, and
//     the smaller set's own optimum is lower still;
//   - adding samples raises it by at most the sum of their weights times (rho_i + alpha * d) for
//     expected tests (an added sample i raises its leaf's loss by at most rho_i per unit weight,
//     the objective's loss_rises, and it passes d more tests) and of their weights times rho_i
//     for a split count (the optimal tree of the smaller set, applied to the larger, pays for
//     it). For the 0-1 loss rho_i = 1 (a misclassified sample): kappa * w, kappa = 1 + alpha * d
//     or 1; the other objectives sum each sample's own (Search::rise).
// Along one feature the left child grows and the right child shrinks as the threshold moves
// right. So the children's values at two evaluated thresholds a < b bound every threshold
// between them: left >= max(L_a, L_b - kappa w(t..b)), right >= max(R_b, R_a - kappa w(a..t))
// (Quant-BnB's interval bound tightened by MurTree's similarity bound). Intervals of thresholds
// are refined best bound first, over all features, until every bound reaches the incumbent. A
// state's optimum at depth d - 1 (searched first, recursively) is the incumbent to beat and
// gives the values at the ends: all samples on one side. A cut's second child is searched under
// a bound raised by the weight to the farther end of its interval (ConTree's slack, Brita et al.,
// AAAI 2025), even when the first failed, so that a bad cut's values are known well enough to
// bound its neighbours.
//
// The 0-1 loss on class counts (kZeroOneLossOnCounts) has fast paths of its own: its scans
// (optimal/scans.hpp) and what follows.
// When every feature takes two values (and the weights' sums are exact, see
// exact_weight_exponent), each feature has one threshold and the search reads its states as sets:
// a state with two levels left is solved from the pair counts of its samples (optimal/pairs.hpp,
// MurTree's depth-two solver), and what the search reads of it (its best stump, each feature's
// two sides' best stumps in the order of the search) is cached by the set's hash, since most such
// sets recur. The children's values come from counts and the cache instead of scans.
//
// There, with alpha = 0 (every value compared exact), a state's search tries its candidates in
// an order fixed by its set, keeps one only when strictly better, and reads only true bounds: so
// the tree it finds is the first candidate that reaches the optimum, whatever its ub (see Solved).
// That frees the search of the order its bounds would otherwise fix, and it takes what the exact
// solvers for binary data do (MurTree, Demirovic et al., JMLR 2022; STreeD, van der Linden et
// al., NeurIPS 2023): solved states cached by set and depth with their optimum or a lower bound,
// the similarity bound of recently solved sets, the heavier side of a split searched first, and
// the root features sharing their incumbent. The trees stay the ones the plain search finds.
// Among equally good trees the root keeps the first feature in its order (CART's score), as every
// state does: once a tree of value 0 is found, no feature after it can change the tree.
//
// The search lives in optimal/, a file a concern:
//   outcome.hpp        a state's result: the tree's shape, its value or a lower bound;
//   bounds.hpp         the lower bounds (intervals of thresholds, the shallower optimum, similar sets);
//   caches.hpp         the memo and the shared caches of solved states and depth-two sets;
//   level.hpp          a thread's scratch for one depth;
//   scans.hpp          the 0-1 scans of a depth-one state;
//   pairs.hpp          pair counts of binary features (the depth-two solver's input);
//   keep_in_order.hpp  the filter that builds a child's blocks;
//   root_task.hpp      what the root schedule hands the search for one root feature;
//   search.hpp         one thread's search (Search), its definitions in samples.hpp,
//                      depth_one.hpp, depth_two.hpp and state_search.hpp;
//   root_schedule.hpp  the root's features over the workers, the rounds, the bound when stopped;
//   emit.hpp           the found tree as tree arrays.
// This file checks the inputs and runs them, for every objective with kHasBoundedSearch.

#include "dpdt/optimal.hpp"

#include <stdexcept>
#include <string>

#include "optimal/depth_one.hpp"
#include "optimal/depth_two.hpp"
#include "optimal/depth_two_sweep.hpp"
#include "optimal/emit.hpp"
#include "optimal/root_schedule.hpp"
#include "optimal/samples.hpp"
#include "optimal/state_search.hpp"

namespace dpdt {
namespace {

// The inputs the bounds hold for (see dpdt/optimal.hpp).
void check_bounded(const Dataset& data, const Params& params, double alpha) {
    if (data.has_missing) throw std::invalid_argument("the bounded exhaustive search needs data without missing values");
    if (!params.feature_costs.empty()) throw std::invalid_argument("the bounded exhaustive search has no feature costs");
    // The recursion is about max_depth^2 / 2 frames deep.
    if (params.max_depth < 1 || params.max_depth > 64)
        throw std::invalid_argument("the bounded exhaustive search needs 1 <= max_depth <= 64");
    if (!(alpha >= 0.0)) throw std::invalid_argument("alpha must be >= 0");
}

}  // namespace

template <class O>
FitResult fit_optimal(const Dataset& data, const O& objective, const Params& params, double alpha, const Poll& poll) {
    if constexpr (!kHasBoundedSearch<O>) {
        throw std::invalid_argument(std::string("the bounded search does not serve the objective ") + O::kName);
    } else {
        check_bounded(data, params, alpha);
        RunLoop loop(params.n_threads, params.time_limit, poll);
        double total = 0.0;
        for (int64_t i = 0; i < data.n; ++i) total += objective.w[i];
        FitResult result;
        double lower_bound = 0.0;
        const Shape best = search_optimal(data, objective, params, alpha, total, loop, result.stats, lower_bound);
        result.stats.complete = !loop.limit_reached();
        if (!result.stats.complete) result.stats.stopped_by = loop.limit();
        result.front.push_back(front_row(data, objective, params, alpha, total, best));
        const FrontTree& found = result.front.back();
        const double found_value = found.loss + alpha * found.complexity;
        // (Bounds and values are summed in different orders: the last bit may differ.)
        // Every objective is >= 0: a bound the search could not establish (NaN) is 0.
        const double proven = lower_bound >= 0.0 ? lower_bound / total : 0.0;
        result.lower_bound = result.stats.complete ? found_value : std::min(proven, found_value);
        result.stats.seconds = loop.seconds();
        return result;
    }
}

// fit_optimal for every objective of the list (an objective without kHasBoundedSearch is refused).
#define DPDT_INSTANTIATE_BOUNDED(O) \
    template FitResult fit_optimal<O>(const Dataset&, const O&, const Params&, double, const Poll&);
DPDT_OBJECTIVES(DPDT_INSTANTIATE_BOUNDED)
#undef DPDT_INSTANTIATE_BOUNDED

}  // namespace dpdt
