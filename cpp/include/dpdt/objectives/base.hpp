// What the solver optimises, as traits: the sufficient statistics of a sample set, and the loss,
// tie-break, generator impurity and output value read from them. Every objective is a sum over
// leaves of a function of the leaf's statistics, which is what makes the dynamic programme exact.
// An objective is one header of dpdt/objectives/ (a struct deriving from Objective<itself>) and
// one line of the list in dpdt/objectives.hpp; the solver's instantiations, the binding's dispatch
// and the drivers of fits over machines follow from that list.
//
// An objective declares, with no default:
//   kName                  the name callers choose it by (the binding's `kind`);
//   Target, kTargetDims    the type of its target y and whether y is a vector (1) or a matrix (2);
//   make(inputs)           the objective over the caller's y and weights (ObjectiveInputs), which
//                          it checks (std::invalid_argument; y is null for the driver of a fit
//                          over machines, which sees no rows);
//   dim(), add(s, i)       the size of its statistics and how sample i adds to them;
//   loss(s)                the loss of a leaf of statistics s;
//   value_dim(), value(s, out)   the leaf's output.
// The rest has defaults here, which an objective overrides where it knows better.
//
// The histograms of the binned layout sum per-sample quantities in fixed point, so that a sibling
// found by subtraction is bit-identical to one summed directly (dpdt/layout.hpp). An objective
// names those quantities (`fixed_dim`, `quantities`), how a sample adds them to the statistics
// (`add_fixed`), and which quantity's unit each statistic is counted in (`quantity_of`); by
// default the quantities are the sample's own statistics.
//
// What the generic search may assume of an objective is a trait, asked as O::kName. Each is named
// for what it allows, and its default, here, allows nothing: an objective that does not declare a
// trait gets the general path, slower perhaps but right.
//   kGeneratorIsLoss       the generator's score is the loss's decrease, so its best split is the
//                          loss's best (the last level then needs no separate loss scan);
//   kLossGrowsWithSamples  a leaf's loss is >= 0 and never drops when samples are added: the
//                          bounds of the lookahead splitter and of the exact depth-2 candidate
//                          (dpdt/lookahead.hpp) hold, which they need, and so do the bounded
//                          exact search's (dpdt/optimal.hpp), which serves such an objective. It
//                          then declares loss_rises(n, rise): for each sample i < n, at least the
//                          rise of any leaf's loss (of samples among 0..n-1), per unit of i's
//                          weight, when i joins it (the bound of how far an optimum rises with
//                          the samples added);
//   kZeroOneLossOnCounts   the statistics are the weighted counts of the class codes y (n_classes
//                          of them), the loss the weighted 0-1 loss and the generator's scores
//                          Classification's impurity decreases: the counting scans of
//                          split_search.hpp, screen.hpp and lookahead.hpp apply, which are written
//                          for Classification (an objective with class counts and another loss,
//                          such as a cost-sensitive one, must leave this false);
//   kGainIsNewtonFraction  the statistics are [W, G, H] and the loss -G^2 / (2 (H + reg_lambda))
//                          + gamma: the binned scan compares gains as fractions (layout.hpp);
//   kBoundedValue          the leaf's output is one number, `scalar_value(s)`, which the leaf may
//                          be made to output clipped to bounds: `loss_at(s, v)` is the leaf's loss
//                          were it to output v (at least loss(s), which it equals at
//                          v = scalar_value(s)) and
//                          `value_at(s, v, out)` its output then; `check_bounded_value()` throws
//                          std::invalid_argument where this fit's objective has no such number
//                          (several classes or outputs). Value bounds, and with them monotonic
//                          constraints (dpdt/split_rule.hpp), apply.
//   kLossIsSumLessMaxOfSums a leaf's loss is sum_i base_i - max_k sum_i term_ik over its samples
//                          (K = sum_terms_count() sums; `sum_terms(i, base, terms)` gives sample
//                          i's, its weight included): a stump's loss is then a constant less the
//                          max over pairs (k, j) of sums, which the exact search sweeps over
//                          every threshold of a state of depth two at once (optimal/sweep.hpp);
//   kGeneratorHasSecondary the CART-like generator breaks ties by a second key,
//                          generator_secondary (split_search.hpp, TieRule): its greedy tree where
//                          no split scores above 0, its lexicographic tree among the splits whose
//                          score is within generator_ties(s) of the best. For a flat score, whose
//                          decrease is 0 for most splits, the key still tells splits apart and the
//                          generator keeps splitting at zero gain where the split informs the next.
//   kGeneratorMinShare     the CART-like generator's splits (not the exact last level's) leave each
//                          child at least this share of the node's samples (0: any the leaf limits
//                          allow).
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>

#include "dpdt/params.hpp"

namespace dpdt {

// What a caller hands an objective's `make`: the target and the weights as plain views, and the
// scalars some objectives read. Free of Python, so that the core builds and is tested on its own.
struct ObjectiveInputs {
    // The target: `rows` x `columns` values of the objective's Target type, row-major (columns is
    // 1 for a vector); null for the driver of a fit over machines.
    const void* y = nullptr;
    int64_t rows = 0, columns = 0;
    const double* w = nullptr;   // the sample weights, one per row; null for a driver
    // The target's width: the classes of a classifier, the columns of a matrix target (0: y's own,
    // which a driver, without y, cannot read).
    int width = 0;
    Criterion criterion = Criterion::Gini;   // a classifier's impurity
    double reg_lambda = 1.0, gamma = 0.0;    // the Newton objective's regularisation
};

// The defaults of what an objective may declare (see above). O is the objective deriving from it.
template <class O>
struct Objective {
    static constexpr bool kGeneratorIsLoss = false;
    static constexpr bool kLossGrowsWithSamples = false;
    static constexpr bool kZeroOneLossOnCounts = false;
    static constexpr bool kGainIsNewtonFraction = false;
    static constexpr bool kBoundedValue = false;
    static constexpr bool kGeneratorHasSecondary = false;
    static constexpr double kGeneratorMinShare = 0.0;
    static constexpr bool kLossIsSumLessMaxOfSums = false;

    // The fixed-point quantities of sample i: its own statistics.
    int fixed_dim() const { return self().dim(); }
    void quantities(int32_t i, double* q) const {
        std::fill(q, q + self().dim(), 0.0);
        self().add(q, i);
    }
    void add_fixed(int64_t* s, int32_t, const int64_t* q) const {
        for (int d = 0; d < self().dim(); ++d) s[d] += q[d];
    }
    int quantity_of(int d) const { return d; }
    // The statistics start with the total weight.
    double weight(const double* s) const { return s[0]; }
    // Whether a split may lower the leaf's loss: a leaf that cannot stays one whatever alpha.
    bool improvable(const double*) const { return true; }
    // Breaks ties between equal losses (lower is better): no preference.
    double tie(const double*) const { return 0.0; }
    // What the CART-like generator's splits decrease: the loss itself.
    double generator_impurity(const double* s) const { return self().loss(s); }
    // What the generator maximises over the splits of a sample set whose generator impurity is
    // `parent` into children of statistics l and r.
    double generator_score(double parent, const double* l, const double* r) const {
        return parent - self().generator_impurity(l) - self().generator_impurity(r);
    }
    // With kGeneratorHasSecondary: how far below the best generator score a split of s still ties
    // with it, and the second key, higher is better, of a split into children of statistics l, r.
    double generator_ties(const double*) const { return 0.0; }
    double generator_secondary(const double*, const double*) const { return 0.0; }
    // At least the generator score of any split of s (the solver's CART generator prunes with
    // it): none known.
    double generator_score_bound(const double*) const { return std::numeric_limits<double>::infinity(); }
    // The node's impurity as the fitted tree reports it: the loss per unit weight.
    double node_impurity(const double* s) const {
        const double w = self().weight(s);
        return w > 0.0 ? self().loss(s) / w : 0.0;
    }

  private:
    const O& self() const { return static_cast<const O&>(*this); }
};

}  // namespace dpdt
