// Split search on a node whose samples are kept sorted by every feature, generic over the
// objective (dpdt/objectives.hpp), with classification's hot loops specialised.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dpdt/dataset.hpp"
#include "dpdt/objectives/classification.hpp"
#include "dpdt/params.hpp"
#include "dpdt/run_loop.hpp"

// A scan's per-threshold work (a visitor), inlined into its loop so that consecutive thresholds'
// work overlaps instead of waiting on a call.
#if defined(__GNUC__)
#define DPDT_INLINE __attribute__((always_inline))
#else
#define DPDT_INLINE
#endif

namespace dpdt {

// A node's samples: p blocks of m sample ids, block f sorted by feature f.
// Invariant: every block holds the same set of ids.
struct NodeView {
    int32_t m = 0;
    const int32_t* blocks = nullptr;
    const int32_t* block(int64_t f) const { return blocks + f * static_cast<int64_t>(m); }
};

// What a valid split leaves on each side.
struct LeafLimits {
    int min_samples = 1;
    double min_weight = 0.0;
    bool allow(int32_t n_left, int32_t n_right, double w_left, double w_right) const {
        return n_left >= min_samples && n_right >= min_samples && w_left >= min_weight &&
               w_right >= min_weight;
    }
};

struct SplitRecord {
    int32_t feature = -1;
    double threshold = 0.0;
    int32_t n_left = 0;        // samples [0, n_left) of the feature's scan order go left
    double score = 0.0;        // what the search optimised
    double tie = 0.0;          // its secondary key
    bool missing_left = false; // where a missing value goes
    int32_t bin = -1;          // binned layout: bins <= bin of the feature go left
    bool found() const { return feature >= 0; }
};

// Midpoint between consecutive distinct values; a value equal to it goes left.
inline double midpoint(double lo, double hi) {
    double t = lo / 2.0 + hi / 2.0;
    if (!(t < hi)) t = lo;
    return t;
}

// A feature's samples in the order a threshold scan reads them. Missing values (NaN) end the
// presorted blocks: a scan of a block sends them right; a scan of the block with its missing
// values moved in front sends them left. Every split is a cut of one of the two orders.
struct ScanOrder {
    const int32_t* ids;
    bool missing_left;
};

// The number of missing values of feature f in the node (they end its block).
int32_t count_missing(const Dataset& data, NodeView node, int64_t f);

// Calls visit(order) for each scan order of feature f: missing values right, then, if the node has
// any, missing values left (built in `scratch`).
template <class Visit>
void for_each_order(const Dataset& data, NodeView node, int64_t f, std::vector<int32_t>& scratch, Visit&& visit) {
    const int32_t* ids = node.block(f);
    visit(ScanOrder{ids, false});
    if (!data.has_missing) return;
    const int32_t missing = count_missing(data, node, f);
    if (missing == 0) return;
    const int32_t present = node.m - missing;
    scratch.resize(static_cast<size_t>(node.m));
    std::copy(ids + present, ids + node.m, scratch.begin());
    std::copy(ids, ids + present, scratch.begin() + missing);
    visit(ScanOrder{scratch.data(), true});
}

// Whether some threshold splits feature f's samples at the node (its presorted block runs from
// the least value to the greatest, missing values last).
inline bool splittable(const Dataset& data, NodeView node, int64_t f) {
    const int32_t* block = node.block(f);
    return node.m >= 2 && data.x(f, block[0]) != data.x(f, block[node.m - 1]);
}

// Whether a threshold separates consecutive samples x, next of a scan order: distinct present
// values, or the last present value and the first missing one. (Missing values first, the cut
// after them is the same partition, offered once, by the order that sends them right.)
inline bool cut_between(double x, double next) { return x != next && x == x; }

// Sufficient statistics of the node's samples (or of the first n of one block).
template <class O>
void node_stats(const O& obj, const int32_t* ids, int32_t n, double* stats) {
    std::fill(stats, stats + obj.dim(), 0.0);
    if constexpr (O::kZeroOneLossOnCounts) {
        if (obj.n_classes == 2) {
            // In registers, the same sums: consecutive samples of one class would otherwise wait
            // on each other's store.
            double s0 = 0.0, s1 = 0.0;
            for (int32_t j = 0; j < n; ++j) {
                const int32_t i = ids[j];
                const double is1 = obj.y[i], wi = obj.w[i];   // class code 0 or 1
                s0 += (1.0 - is1) * wi;
                s1 += is1 * wi;
            }
            stats[0] = s0;
            stats[1] = s1;
            return;
        }
    }
    for (int32_t j = 0; j < n; ++j) obj.add(stats, ids[j]);
}

// Every valid threshold of every feature, in (feature, threshold) order; with per_feature > 0 only
// the first valid threshold at or after each of per_feature evenly spaced weighted quantiles of a
// feature.
void all_splits(const Dataset& data, const double* weights, NodeView node, const LeafLimits& limits,
                double total, int per_feature, std::vector<SplitRecord>& out);

// Number of present samples of the node at or below `threshold` on `feature` (binary search).
int32_t count_left(const Dataset& data, NodeView node, int32_t feature, double threshold);

// Stable partition of every block: ids with in_left[id] == 1 go to `left` (p x n_left), ids with
// in_left[id] == 0 to `right`. Both outputs need one slot of slack after their p blocks.
void partition(const Dataset& data, NodeView node, const uint8_t* in_left, int32_t n_left,
               int32_t* left, int32_t* right);

namespace detail {

// The threshold scan shared by both searches: calls visit(j, left_stats, right_stats, w_left,
// w_right) at every valid threshold between samples j and j + 1 of feature f's block.
template <class O, class Visit>
void scan_thresholds(const Dataset& data, const O& obj, const int32_t* ids, int32_t m, int64_t f,
                     const LeafLimits& limits, const double* stats, std::vector<double>& left,
                     std::vector<double>& right, Visit&& visit) {
    const int D = obj.dim();
    const double* col = data.column(f);
    std::fill(left.begin(), left.end(), 0.0);
    const double total = obj.weight(stats);
    for (int32_t j = 0; j + 1 < m; ++j) {
        obj.add(left.data(), ids[j]);
        if (!cut_between(col[ids[j]], col[ids[j + 1]])) continue;
        const double wl = obj.weight(left.data());
        if (!limits.allow(j + 1, m - j - 1, wl, total - wl)) continue;
        for (int d = 0; d < D; ++d) right[d] = stats[d] - left[d];
        visit(j, left.data(), right.data());
    }
}

// Added to the loss (subtracted from the score) of a position where no threshold may go, so that
// the scans need no branch there: a branch taken at random (ties in x, the leaf limits) costs more
// than the whole update of a position.
constexpr double kNoThreshold = 1e300;
// A generator score below kNoScore marks a position where no threshold may go.
constexpr double kNoScore = -0.5 * kNoThreshold;

// std::min, std::max and the penalties below, with no branch: compilers turn the plain forms into
// branches where they guess them predictable, and in the scans they are not.
#if defined(__SSE2__)
inline double min_of(double a, double b) {
    return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(b), _mm_set_sd(a)));   // b < a ? b : a
}
inline double max_of(double a, double b) {
    return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(b), _mm_set_sd(a)));   // b > a ? b : a
}
// kNoThreshold where no threshold separates x from the next value (equal, or x missing), else 0.
inline double cut_penalty(double x, double next) {
    const __m128d vx = _mm_set_sd(x);
    const __m128d none = _mm_or_pd(_mm_cmpeq_sd(vx, _mm_set_sd(next)), _mm_cmpunord_sd(vx, vx));
    return _mm_cvtsd_f64(_mm_and_pd(none, _mm_set_sd(kNoThreshold)));
}
// kNoThreshold where a side of weight w is lighter than min_weight, else 0.
inline double light_penalty(double w, double min_weight) {
    return _mm_cvtsd_f64(_mm_and_pd(_mm_cmplt_sd(_mm_set_sd(w), _mm_set_sd(min_weight)), _mm_set_sd(kNoThreshold)));
}
#else
inline double min_of(double a, double b) { return std::min(a, b); }
inline double max_of(double a, double b) { return std::max(a, b); }
inline double cut_penalty(double x, double next) { return x == next || x != x ? kNoThreshold : 0.0; }
inline double light_penalty(double w, double min_weight) { return w < min_weight ? kNoThreshold : 0.0; }
#endif

// The positions j of a scan order where a threshold may go (between samples j and j + 1) as far
// as the sample counts of the leaf limits go: [first, last], empty when first > last.
struct CutRange {
    int32_t first, last;
};
inline CutRange cut_range(int32_t m, const LeafLimits& limits) {
    const int32_t min_samples = std::max(1, limits.min_samples);
    return CutRange{min_samples - 1, m - 1 - min_samples};
}

// Buffers of the 0-1 scans, kept by the caller across features and states.
struct ScanScratch {
    std::vector<double> loss;   // per position of a scan order
    std::vector<double> sums;   // class sums
    std::vector<double> right;  // the right side's class sums
};

// Classification's 0-1 scan: the split of lowest weighted 0-1 loss of feature f's scan order
// `ids`, a tie in loss going to the lower impurity of the children (score = loss, tie = that
// impurity, weighted). A split of loss above `cannot_win_above` loses to one found before; the scan
// may then return it without its tie (+inf), or return none: the impurities, and with several
// classes the scoring of each position, are the dear part of the scans.
SplitRecord best_01_split(const Dataset& data, const Classification& obj, const int32_t* ids, int32_t m,
                          int64_t f, const LeafLimits& limits, const double* class_w, ScanScratch& scratch,
                          double cannot_win_above = std::numeric_limits<double>::infinity());

// Classification's generator scores: calls visit(j, score) at each valid threshold between
// samples j and j + 1 whose score exceeds *floor (read at each threshold: the visitor may raise
// it; no floor, every valid threshold). Gini comes from running sums of squares, scored at every
// position with no branch but the floor's; entropy and gain ratio from the class sums (running
// sums of x log x drift and would break exact ties: k samples of weight 1 must give the tree of
// one sample of weight k).
template <class Visit>
void classification_scores(const Dataset& data, const Classification& obj, const int32_t* ids, int32_t m,
                           int64_t f, const LeafLimits& limits, const double* class_w, Visit&& visit,
                           const double* floor = nullptr) {
    const double no_floor = kNoScore;
    if (floor == nullptr) floor = &no_floor;
    const int K = obj.n_classes;
    const double* col = data.column(f);
    const CutRange range = cut_range(m, limits);
    if (range.first > range.last) return;
    const double min_weight = limits.min_weight;
    const bool weighed = min_weight > 0.0;
    double bar = *floor;
    if (K == 2 && obj.criterion == Criterion::Gini) {
        // Two classes under gini: W_L gini_L = 2 l0 l1 / W_L, all in registers. The branch on
        // the cut stays: for two classes it was measured cheaper than scoring every position.
        const double c0 = class_w[0], c1 = class_w[1], total = c0 + c1;
        const double parent = total > 0.0 ? 2.0 * c0 * c1 / total : 0.0;
        double l0 = 0.0, l1 = 0.0;
        for (int32_t j = 0; j <= range.last; ++j) {
            const int32_t i = ids[j];
            const double wi = obj.w[i];
            const bool is1 = obj.y[i] != 0;
            l0 += is1 ? 0.0 : wi;
            l1 += is1 ? wi : 0.0;
            if (j < range.first || !cut_between(col[i], col[ids[j + 1]])) continue;
            const double wl = l0 + l1, r0 = std::max(0.0, c0 - l0), r1 = std::max(0.0, c1 - l1), wr = r0 + r1;
            if (wl < min_weight || wr < min_weight || wl <= 0.0 || wr <= 0.0) continue;
            // score > bar with the divisions multiplied out and a margin for rounding: the few
            // positions that pass are scored exactly.
            const double weights = wl * wr;
            if (-2.0 * (l0 * l1 * wr + r0 * r1 * wl) <= (bar - parent - 1e-12 * total) * weights) continue;
            const double score = parent - 2.0 * l0 * l1 / wl - 2.0 * r0 * r1 / wr;
            if (score > bar) {
                visit(j, score);
                bar = *floor;
            }
        }
        return;
    }
    std::vector<double> left(K, 0.0), right(class_w, class_w + K);
    double total = 0.0, sq_left = 0.0, sq_right = 0.0;
    for (int k = 0; k < K; ++k) {
        total += class_w[k];
        sq_right += class_w[k] * class_w[k];
    }
    const double parent = total * impurity(class_w, K, total, obj.criterion);
    double wl = 0.0, wr = total;
    if (obj.criterion == Criterion::Gini) {
        auto add = [&](int32_t j) {
            const int32_t i = ids[j];
            const int k = obj.y[i];
            const double wi = obj.w[i];
            sq_left += wi * (2.0 * left[k] + wi);
            sq_right += wi * (wi - 2.0 * right[k]);
            left[k] += wi;
            right[k] = max_of(0.0, right[k] - wi);
            wl += wi;
            wr = max_of(0.0, wr - wi);
        };
        for (int32_t j = 0; j < range.first; ++j) add(j);
        double x = col[ids[range.first]];
        for (int32_t j = range.first; j <= range.last; ++j) {
            add(j);
            const double next = col[ids[j + 1]];
            double penalty = cut_penalty(x, next);
            if (weighed) penalty += light_penalty(wl, min_weight) + light_penalty(wr, min_weight);
            x = next;
            // score > bar with the divisions multiplied out and a margin for rounding, as for two
            // classes. An empty side (a weight rounded to 0 included) scores NaN or an infinity;
            // its check waits for the rare score that passes the bar.
            const double weights = wl * wr;
            if (sq_left * wr + sq_right * wl <= (bar - parent + wl + wr + penalty - 1e-12 * total) * weights)
                continue;
            const double score = parent - (wl - sq_left / wl) - (wr - sq_right / wr) - penalty;
            if (score > bar && wl > 0.0 && wr > 0.0) {
                visit(j, score);
                bar = *floor;
            }
        }
        return;
    }
    for (int32_t j = 0; j <= range.last; ++j) {
        if ((j & 255) == 0) stop_point();   // a position costs O(K)
        const int32_t i = ids[j];
        const int k = obj.y[i];
        const double wi = obj.w[i];
        left[k] += wi;
        right[k] = std::max(0.0, right[k] - wi);
        wl += wi;
        wr = std::max(0.0, wr - wi);
        if (j < range.first || !cut_between(col[i], col[ids[j + 1]])) continue;
        if (!limits.allow(j + 1, m - j - 1, wl, wr) || wl <= 0.0 || wr <= 0.0) continue;
        const double gain = parent - wl * impurity(left.data(), K, wl, Criterion::Entropy) -
                            wr * impurity(right.data(), K, wr, Criterion::Entropy);
        double score = gain;
        if (obj.criterion == Criterion::GainRatio) {
            const double pl = wl / total, pr = wr / total;
            score = gain / -(pl * std::log2(pl) + pr * std::log2(pr));   // in weight units, like a decrease
        }
        if (score > *floor) visit(j, score);
    }
}

// Calls visit(j, score) at every valid threshold between samples j and j + 1 of the scan order
// `ids` of feature f; score is what the generators maximise: the decrease of the generator impurity (for
// gain_ratio, the weighted information gain over the split information).
template <class O, class Visit>
void generator_scores(const Dataset& data, const O& obj, const int32_t* ids, int32_t m, int64_t f,
                      const LeafLimits& limits, const double* stats, std::vector<double>& left,
                      std::vector<double>& right, Visit&& visit, const double* floor = nullptr) {
    if constexpr (O::kZeroOneLossOnCounts) {
        classification_scores(data, obj, ids, m, f, limits, stats, visit, floor);
    } else {
        const double parent = obj.generator_impurity(stats);
        scan_thresholds(data, obj, ids, m, f, limits, stats, left, right,
                        [&](int32_t j, const double* l, const double* r) {
            if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
            visit(j, obj.generator_score(parent, l, r));
        });
    }
}

}  // namespace detail

// For every feature, the split of lowest loss (ties: lower tie-break value, then lower threshold,
// then missing values right); score = loss of the two children, tie = their tie-break value. Not
// found where a feature has no valid threshold. With only_best, the caller wants the best split
// over all features alone: a feature whose loss is beaten by an earlier one's may come without its
// tie-break value (tie = +inf), or not found.
template <class O>
void best_loss_splits(const Dataset& data, const O& obj, NodeView node, const LeafLimits& limits,
                      const double* stats, std::vector<SplitRecord>& out, bool only_best = false) {
    out.assign(data.p, SplitRecord{});
    const double tol = 1e-11 * (std::abs(obj.loss(stats)) + obj.weight(stats));
    double lowest = std::numeric_limits<double>::infinity();
    std::vector<double> left(obj.dim()), right(obj.dim());
    detail::ScanScratch scratch;
    std::vector<int32_t> order_scratch;
    auto better = [tol](const SplitRecord& s, const SplitRecord& best) {
        return !best.found() || s.score < best.score - tol || (s.score <= best.score + tol && s.tie < best.tie - tol);
    };
    for (int64_t f = 0; f < data.p; ++f) {
        stop_point();
        if (!splittable(data, node, f)) continue;
        for_each_order(data, node, f, order_scratch, [&](ScanOrder order) {
            const int32_t* ids = order.ids;
            SplitRecord found;
            if constexpr (O::kZeroOneLossOnCounts) {
                found = detail::best_01_split(data, obj, ids, node.m, f, limits, stats, scratch, lowest + tol);
            } else {
                detail::scan_thresholds(data, obj, ids, node.m, f, limits, stats, left, right,
                                        [&](int32_t j, const double* l, const double* r) {
                    const double loss = obj.loss(l) + obj.loss(r);
                    if (found.found() && loss > found.score + tol) return;
                    const double tie = obj.tie(l) + obj.tie(r);
                    if (!found.found() || loss < found.score - tol || tie < found.tie - tol) {
                        found.feature = static_cast<int32_t>(f);
                        found.n_left = j + 1;
                        found.score = loss;
                        found.tie = tie;
                    }
                });
                if (found.found())
                    found.threshold = midpoint(data.x(f, ids[found.n_left - 1]), data.x(f, ids[found.n_left]));
            }
            found.missing_left = order.missing_left;
            if (found.found() && better(found, out[f])) out[f] = found;
            if (only_best && found.found()) lowest = std::min(lowest, found.score);
        });
    }
}

// Near-equal scores (rounding noise of sums taken in another order) tie, and ties keep the first
// (lower feature, then lower threshold): weights of k and k repeated samples give the same tree.
template <class O>
double generator_tolerance(const O& obj, const double* stats) {
    return 1e-11 * (std::abs(obj.generator_impurity(stats)) + obj.weight(stats)) + 1e-300;
}

// The split of a scan order after its j-th sample, of score `score`.
inline SplitRecord split_after(const Dataset& data, int32_t f, ScanOrder order, int32_t j, double score) {
    SplitRecord s;
    s.feature = f;
    s.n_left = j + 1;
    s.score = score;
    s.missing_left = order.missing_left;
    s.threshold = midpoint(data.x(f, order.ids[j]), data.x(f, order.ids[j + 1]));
    return s;
}

// Each feature's best generator split (score = the generator's score), not found where a
// feature has no valid threshold.
template <class O>
void best_generator_split_per_feature(const Dataset& data, const O& obj, NodeView node,
                                      const std::vector<int32_t>& features, const LeafLimits& limits,
                                      const double* stats, std::vector<SplitRecord>& out) {
    out.assign(features.size(), SplitRecord{});
    std::vector<double> left(obj.dim()), right(obj.dim());
    std::vector<int32_t> order_scratch;
    const double tol = generator_tolerance(obj, stats);
    for (size_t a = 0; a < features.size(); ++a) {
        stop_point();
        const int32_t f = features[a];
        if (!splittable(data, node, f)) continue;
        SplitRecord& best = out[a];
        // The visitor takes only a score above the best by more than tol: the scan skips the rest.
        double floor = detail::kNoScore;
        for_each_order(data, node, f, order_scratch, [&](ScanOrder order) {
            const int32_t* ids = order.ids;
            detail::generator_scores(data, obj, ids, node.m, f, limits, stats, left, right,
                                     [&](int32_t j, double score) DPDT_INLINE {
                if (best.found() && score <= best.score + tol) return;
                best = split_after(data, f, order, j, score);
                floor = score + tol;
            }, &floor);
        });
    }
}

// Keeps `s` as the best split of secondary key `secondary` among those seen: the first, unless a
// later one's key beats it by more than a relative rounding tolerance (tie = -secondary).
inline void keep_higher_secondary(const SplitRecord& s, double secondary, SplitRecord& best) {
    if (best.found() && secondary <= -best.tie + 1e-11 * std::abs(best.tie)) return;
    best = s;
    best.tie = -secondary;
}

// How a generator scan breaks ties, for an objective with a second key (kGeneratorHasSecondary);
// the others break every tie by the lower feature index, then the lower threshold.
//   kGreedy         the highest score; where no split scores above 0 (the score is flat: every
//                   split ties), the one of highest second key, so that the greedy tree's
//                   zero-gain splits are informative rather than wherever the first tie falls;
//   kLexicographic  the highest second key among the splits within obj.generator_ties of the
//                   highest score;
//   kFirst          the highest score, ties to the lower feature and threshold: for the exact
//                   last level, where a split of score 0 is as good as any other.
enum class TieRule { kGreedy, kLexicographic, kFirst };

// A split the second key chose scores exactly 0 where its score is within rounding of 0: a
// best-first tree orders its nodes by their splits' scores, and would order its flat nodes by the
// rounding of the rewards' unit.
// Where a scan of tie rule `rule` breaks its ties by the second key: the splits whose score is
// at least the returned floor tie; NaN when the first split of highest score stands.
template <class O>
double secondary_floor(const O& obj, const double* stats, TieRule rule, double best_score, double tol) {
    if constexpr (O::kGeneratorHasSecondary) {
        if (rule == TieRule::kLexicographic) return best_score - std::max(tol, obj.generator_ties(stats));
        if (rule == TieRule::kGreedy && best_score <= tol) return best_score - tol;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

namespace detail {

// A split of an objective with a second key, kept by the first scan with that key in case it
// ties with the best (see best_generator_split).
struct SecondaryCandidate {
    SplitRecord split;
    double secondary;
};

// At most this many candidates are kept (2 MB a thread at most): a flat node of more splits,
// where every split ties, is scanned a second time instead.
constexpr size_t kMaxSecondaryCandidates = size_t{1} << 14;

// The scan of best_generator_split_per_feature, which also keeps, for the second key's rule,
// every split whose score may reach the floor of the best (its score and second key, in scan
// order), and the highest score seen: false if it stopped keeping them (a greedy scan whose
// scores leave the flat range, where the rule needs no second key, or too many candidates).
template <class O>
bool generator_scan_with_candidates(const Dataset& data, const O& obj, NodeView node,
                                    const std::vector<int32_t>& features, const LeafLimits& limits,
                                    const double* stats, TieRule rule, double tol, double reach,
                                    std::vector<SplitRecord>& per_feature,
                                    std::vector<SecondaryCandidate>& candidates, double& highest) {
    per_feature.assign(features.size(), SplitRecord{});
    candidates.clear();
    highest = -std::numeric_limits<double>::infinity();
    bool keeping = true;
    size_t kept_at_prune = 0;
    const double parent = obj.generator_impurity(stats);
    std::vector<double> left(obj.dim()), right(obj.dim());
    std::vector<int32_t> order_scratch;
    for (size_t a = 0; a < features.size(); ++a) {
        stop_point();
        const int32_t f = features[a];
        if (!splittable(data, node, f)) continue;
        SplitRecord& best = per_feature[a];
        for_each_order(data, node, f, order_scratch, [&](ScanOrder order) {
            scan_thresholds(data, obj, order.ids, node.m, f, limits, stats, left, right,
                            [&](int32_t j, const double* l, const double* r) {
                if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                const double score = obj.generator_score(parent, l, r);
                const bool better = !best.found() || score > best.score + tol;
                if (!better && !keeping) return;
                const SplitRecord s = split_after(data, f, order, j, score);
                if (better) best = s;
                if (!keeping) return;
                highest = std::max(highest, score);
                // A greedy scan breaks ties by the second key only where the best is within tol
                // of 0: past a few tol the best cannot be.
                if (rule == TieRule::kGreedy && highest > 4.0 * tol) {
                    keeping = false;
                    candidates.clear();
                    return;
                }
                if (score < highest - reach) return;
                candidates.push_back(SecondaryCandidate{s, obj.generator_secondary(l, r)});
                if (candidates.size() >= 2 * kept_at_prune + 64) {
                    const double cut = highest - reach;
                    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                                    [cut](const SecondaryCandidate& c) { return c.split.score < cut; }),
                                     candidates.end());
                    kept_at_prune = candidates.size();
                    if (kept_at_prune > kMaxSecondaryCandidates) {
                        keeping = false;
                        candidates.clear();
                    }
                }
            });
        });
    }
    return keeping;
}

}  // namespace detail

// The split of highest generator score among `features` (CART's rule, or C4.5's with gain_ratio).
// Ties go to the lower feature index, then the lower threshold, or for an objective with a
// second key, by `rule`: the one of highest key among the splits that tie. Those are kept by the
// first scan where they may tie (within `reach` of the highest score: the floor is at most
// that far below it), and a second scan reads them only where the first could not keep them.
template <class O>
SplitRecord best_generator_split(const Dataset& data, const O& obj, NodeView node,
                                 const std::vector<int32_t>& features, const LeafLimits& limits,
                                 const double* stats, TieRule rule = TieRule::kGreedy) {
    const double tol = generator_tolerance(obj, stats);
    std::vector<SplitRecord> per_feature;
    [[maybe_unused]] bool kept = false;
    [[maybe_unused]] double highest = 0.0, reach = 0.0;
    thread_local std::vector<detail::SecondaryCandidate> candidates;
    if constexpr (O::kGeneratorHasSecondary && !O::kZeroOneLossOnCounts) {
        // The floor is the best's score less max(tol, ties) (secondary_floor), and the best is
        // within 2 tol of the highest score (each feature's best within tol of its highest, the
        // best within tol of each feature's best): one tol more covers the rounding.
        reach = 3.0 * tol + std::max(tol, obj.generator_ties(stats));
        if (rule == TieRule::kFirst) {
            best_generator_split_per_feature(data, obj, node, features, limits, stats, per_feature);
        } else {
            kept = detail::generator_scan_with_candidates(data, obj, node, features, limits, stats, rule, tol,
                                                          reach, per_feature, candidates, highest);
        }
    } else {
        best_generator_split_per_feature(data, obj, node, features, limits, stats, per_feature);
    }
    SplitRecord best;
    for (const SplitRecord& s : per_feature)
        if (s.found() && (!best.found() || s.score > best.score + tol)) best = s;
    if constexpr (O::kGeneratorHasSecondary) {
        if (!best.found()) return best;
        const double floor = secondary_floor(obj, stats, rule, best.score, tol);
        if (std::isnan(floor)) return best;
        best = SplitRecord{};
        if (kept && floor >= highest - reach) {
            // Every split at or above the floor was kept, in scan order, with its key.
            for (const detail::SecondaryCandidate& c : candidates)
                if (c.split.score >= floor) keep_higher_secondary(c.split, c.secondary, best);
        } else {
            const double parent = obj.generator_impurity(stats);
            std::vector<double> left(obj.dim()), right(obj.dim());
            std::vector<int32_t> order_scratch;
            for (size_t a = 0; a < features.size(); ++a) {
                stop_point();
                const int32_t f = features[a];
                // A feature's scores are at most its best's plus tol (a later score replaced it
                // otherwise): one whose best falls that far below the floor has no split that ties.
                if (!per_feature[a].found() || per_feature[a].score + tol < floor) continue;
                if (!splittable(data, node, f)) continue;
                for_each_order(data, node, f, order_scratch, [&](ScanOrder order) {
                    detail::scan_thresholds(data, obj, order.ids, node.m, f, limits, stats, left, right,
                                            [&](int32_t j, const double* l, const double* r) {
                        if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                        const double score = obj.generator_score(parent, l, r);
                        if (score < floor) return;
                        const SplitRecord s = split_after(data, f, order, j, score);
                        keep_higher_secondary(s, obj.generator_secondary(l, r), best);
                    });
                });
            }
        }
        if (best.score <= tol) best.score = 0.0;   // see secondary_floor
    }
    return best;
}

// Keeps the `count` records of highest score, picked one at a time by CART's rule (the first in
// (feature, threshold) order unless another beats it by more than `tol`), so that a budget of 1
// gives CART's split. A tolerant comparison is no strict weak order, hence selection, not sorting.
inline void keep_best(std::vector<SplitRecord>& records, int count, double tol) {
    std::vector<SplitRecord> kept;
    std::vector<bool> taken(records.size(), false);
    while (static_cast<int>(kept.size()) < count) {
        int best = -1;
        for (size_t r = 0; r < records.size(); ++r)
            if (!taken[r] && (best < 0 || records[r].score > records[best].score + tol)) best = static_cast<int>(r);
        if (best < 0) break;
        taken[best] = true;
        kept.push_back(records[best]);
    }
    records = std::move(kept);
}

// Top-k (Blanc et al.): the best split of each of the k features of highest best score.
template <class O>
void top_k_splits(const Dataset& data, const O& obj, NodeView node, const LeafLimits& limits,
                  const double* stats, int k, std::vector<SplitRecord>& out) {
    std::vector<int32_t> features(data.p);
    for (int32_t f = 0; f < data.p; ++f) features[f] = f;
    best_generator_split_per_feature(data, obj, node, features, limits, stats, out);
    out.erase(std::remove_if(out.begin(), out.end(), [](const SplitRecord& s) { return !s.found(); }), out.end());
    keep_best(out, k, generator_tolerance(obj, stats));
}

// Top-B: the B (feature, threshold) pairs of highest generator score, several per feature allowed.
template <class O>
void top_b_splits(const Dataset& data, const O& obj, NodeView node, const LeafLimits& limits,
                  const double* stats, int b, std::vector<SplitRecord>& out) {
    out.clear();
    std::vector<double> left(obj.dim()), right(obj.dim());
    std::vector<int32_t> order_scratch;
    for (int32_t f = 0; f < data.p; ++f) {
        stop_point();
        if (!splittable(data, node, f)) continue;
        for_each_order(data, node, f, order_scratch, [&](ScanOrder order) {
            const int32_t* ids = order.ids;
            detail::generator_scores(data, obj, ids, node.m, f, limits, stats, left, right,
                                     [&](int32_t j, double score) {
                SplitRecord s;
                s.feature = f;
                s.n_left = j + 1;
                s.score = score;
                s.missing_left = order.missing_left;
                s.threshold = midpoint(data.x(f, ids[j]), data.x(f, ids[j + 1]));
                out.push_back(s);
            });
        });
    }
    keep_best(out, b, generator_tolerance(obj, stats));
}

}  // namespace dpdt
