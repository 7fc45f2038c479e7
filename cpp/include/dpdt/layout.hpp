// How the solver sees the samples of a state, chosen once per fit as a template parameter:
//
// - ExactLayout: every state keeps its samples sorted by every feature (p blocks of ids), so every
//   threshold between distinct values is searched exactly in O(m p); a state costs 4 m p bytes.
// - BinnedLayout: every feature was cut once into at most max_bins bins of real training values
//   (uint8 or uint16 codes, one extra code per feature for a missing value); a state is a list of
//   ids, and split search reads per-state histograms. A state costs 4 m bytes, a histogram
//   (bins + 1) x (statistics + 1) int64 per feature, kept with the states large enough to be
//   worth it so that a child's comes from its sibling's by subtraction; the thresholds are bins'
//   largest training values, so prediction needs no bins, and a missing value goes to the side
//   stored in the split.
//
// Both offer the same operations to the solver: the root's view, the ids of a view, the split
// searches of the generators, the samples a split sends left, and the children's views in a
// per-depth `Buffer`.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/objectives/base.hpp"
#include "dpdt/run_loop.hpp"
#include "dpdt/split_search.hpp"
#include "dpdt/subset_hash.hpp"

namespace dpdt {

// What a split sends left: what the solver needs to make it a candidate.
struct LeftSide {
    int32_t n = 0;
    double weight = 0.0;
    SubsetHash hash;
};

class ExactLayout {
  public:
    using View = NodeView;
    using Buffer = std::vector<int32_t>;   // a child's blocks
    static constexpr bool kExact = true;

    explicit ExactLayout(const Dataset& data) : data(data) {}

    int64_t n() const { return data.n; }
    int64_t p() const { return data.p; }
    View root() const { return NodeView{static_cast<int32_t>(data.n), data.presorted.data()}; }
    template <class O>
    View with_histogram(const O&, View v, Buffer&) const { return v; }
    static const int32_t* ids(const View& v) { return v.block(0); }

    template <class O>
    void best_loss_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats,
                          std::vector<SplitRecord>& out, bool only_best = false) const {
        dpdt::best_loss_splits(data, obj, v, limits, stats, out, only_best);
    }
    template <class O>
    SplitRecord best_generator_split(const O& obj, const View& v, const std::vector<int32_t>& features,
                                     const LeafLimits& limits, const double* stats,
                                     TieRule rule = TieRule::kGreedy) const {
        return dpdt::best_generator_split(data, obj, v, features, limits, stats, rule);
    }
    template <class O>
    void top_k_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int k,
                      std::vector<SplitRecord>& out) const {
        dpdt::top_k_splits(data, obj, v, limits, stats, k, out);
    }
    template <class O>
    void top_b_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int b,
                      std::vector<SplitRecord>& out) const {
        dpdt::top_b_splits(data, obj, v, limits, stats, b, out);
    }
    template <class O>
    void all_splits(const O& obj, const View& v, const LeafLimits& limits, double total, int per_feature,
                    std::vector<SplitRecord>& out) const {
        dpdt::all_splits(data, obj.w, v, limits, total, per_feature, out);
    }
    template <class O>
    void generator_splits_per_feature(const O& obj, const View& v, const std::vector<int32_t>& features,
                                      const LeafLimits& limits, const double* stats,
                                      std::vector<SplitRecord>& out) const {
        dpdt::best_generator_split_per_feature(data, obj, v, features, limits, stats, out);
    }
    // Calls visit(split, left_stats, right_stats) at every valid split of the features, in
    // (feature, scan order, threshold) order: what the ruled searches of split_rule.hpp read.
    template <class O, class Visit>
    void scan_splits(const O& obj, const View& v, const std::vector<int32_t>& features, const LeafLimits& limits,
                     const double* stats, Visit&& visit) const {
        std::vector<double> left(obj.dim()), right(obj.dim());
        std::vector<int32_t> order_scratch;
        for (const int32_t f : features) {
            stop_point();
            const int32_t* block = v.block(f);
            if (v.m < 2 || data.x(f, block[0]) == data.x(f, block[v.m - 1])) continue;
            for_each_order(data, v, f, order_scratch, [&](ScanOrder order) {
                const int32_t* ids = order.ids;
                SplitRecord s;
                s.feature = f;
                s.missing_left = order.missing_left;
                auto offer = [&](int32_t j, const double* l, const double* r) DPDT_INLINE {
                    s.n_left = j + 1;
                    s.threshold = midpoint(data.x(f, ids[j]), data.x(f, ids[j + 1]));
                    visit(static_cast<const SplitRecord&>(s), l, r);
                };
                if constexpr (O::kZeroOneLossOnCounts) {
                    if (obj.n_classes == 2) return scan_two_classes(obj, ids, v.m, f, limits, stats, offer);
                }
                detail::scan_thresholds(data, obj, ids, v.m, f, limits, stats, left, right, offer);
            });
        }
    }

    // detail::scan_thresholds for two classes, the same sums in registers: consecutive samples of
    // one class would otherwise wait on each other's store (as in node_stats).
    template <class O, class Visit>
    void scan_two_classes(const O& obj, const int32_t* ids, int32_t m, int64_t f, const LeafLimits& limits,
                          const double* stats, Visit& visit) const {
        const double* col = data.column(f);
        const double total = stats[0] + stats[1];
        double l0 = 0.0, l1 = 0.0;
        for (int32_t j = 0; j + 1 < m; ++j) {
            const int32_t i = ids[j];
            const double wi = obj.w[i];
            const bool is1 = obj.y[i] != 0;
            l0 += is1 ? 0.0 : wi;
            l1 += is1 ? wi : 0.0;
            if (!cut_between(col[i], col[ids[j + 1]])) continue;
            const double wl = l0 + l1;
            if (!limits.allow(j + 1, m - j - 1, wl, total - wl)) continue;
            const double l[2] = {l0, l1}, r[2] = {stats[0] - l0, stats[1] - l1};
            visit(j, l, r);
        }
    }

    // Calls f(id) for every sample of the view that `s` sends left; returns their number.
    template <class F>
    int32_t for_each_left(const View& v, const SplitRecord& s, F&& f) const {
        const int32_t n_present_left = count_left(data, v, s.feature, s.threshold);
        const int32_t* ids = v.block(s.feature);
        for (int32_t j = 0; j < n_present_left; ++j) f(ids[j]);
        if (!s.missing_left) return n_present_left;
        const int32_t missing = count_missing(data, v, s.feature);
        for (int32_t j = v.m - missing; j < v.m; ++j) f(ids[j]);
        return n_present_left + missing;
    }

    bool has_missing(const View& v, int32_t feature) const { return count_missing(data, v, feature) > 0; }

    // The view's statistics, and its subset hash.
    template <class O>
    void stats(const O& obj, const View& v, double* out) const { node_stats(obj, ids(v), v.m, out); }
    SubsetHash hash(const View& v) const { return hash_of(ids(v), v.m); }

    // What split `s` sends left on the view: count, weight and subset hash.
    template <class O>
    LeftSide left_side(const O& obj, const View& v, const SplitRecord& s) const {
        LeftSide out;
        out.n = for_each_left(v, s, [&](int32_t i) {
            out.weight += obj.w[i];
            out.hash.a += mix_a(i);
            out.hash.b += mix_b(i);
        });
        return out;
    }
    // The statistics of the samples split `s` sends left.
    template <class O>
    void left_stats(const O& obj, const View& v, const SplitRecord& s, double* out) const {
        std::fill(out, out + obj.dim(), 0.0);
        for_each_left(v, s, [&](int32_t i) { obj.add(out, i); });
    }

    // The children's views in `left` and `right`; `s.n_left` is its count on `v`, `mask` an
    // all-zero byte per sample of the dataset, left all zero.
    template <class O>
    std::pair<View, View> partition(const O&, const View& v, const SplitRecord& s, std::vector<uint8_t>& mask,
                                    Buffer& left, Buffer& right) const {
        const int32_t n_left = s.n_left, n_right = v.m - n_left;
        left.resize(static_cast<size_t>(n_left) * data.p + 1);
        right.resize(static_cast<size_t>(n_right) * data.p + 1);
        for_each_left(v, s, [&](int32_t i) { mask[i] = 1; });
        dpdt::partition(data, v, mask.data(), n_left, left.data(), right.data());
        for_each_left(v, s, [&](int32_t i) { mask[i] = 0; });
        return {NodeView{n_left, left.data()}, NodeView{n_right, right.data()}};
    }

    const Dataset& data;
};

// Features cut into bins: code b of feature f holds the training values in (upper[b-1], upper[b]];
// code n_bins[f] is a missing value.
template <class Code>
struct BinnedData {
    using CodeType = Code;
    int64_t n = 0, p = 0;
    const Code* codes = nullptr;      // row-major n x p, owned by the caller
    std::vector<int32_t> n_bins;      // bins of present values, per feature
    std::vector<int64_t> offset;      // feature f's bins start at offset[f] in a histogram
    std::vector<double> upper;        // upper[offset[f] + b]: the largest training value of bin b
    std::vector<int32_t> all_ids;     // 0..n-1, the root's view
    int64_t total_bins = 0;           // sum over features of n_bins + 1 (the missing bin)

    // `upper` holds n_bins[f] increasing values per feature, features one after the other.
    BinnedData(const Code* codes, int64_t n_samples, int64_t n_features, std::vector<int32_t> bins,
               const double* upper_values)
        : n(n_samples), p(n_features), codes(codes), n_bins(std::move(bins)), offset(n_features),
          all_ids(static_cast<size_t>(n_samples)) {
        int64_t at = 0, values = 0;
        for (int64_t f = 0; f < p; ++f) {
            offset[f] = at;
            at += n_bins[f] + 1;
            for (int32_t b = 0; b < n_bins[f]; ++b) upper.push_back(upper_values[values + b]);
            upper.push_back(0.0);   // the missing bin has no threshold
            values += n_bins[f];
        }
        total_bins = at;
        for (int64_t i = 0; i < n; ++i) all_ids[i] = static_cast<int32_t>(i);
    }
    Code code(int32_t sample, int64_t feature) const { return codes[static_cast<int64_t>(sample) * p + feature]; }
};

// A state of the binned layout: its ids in increasing order, and its histogram when it is kept.
struct IdView {
    int32_t m = 0;
    const int32_t* ids = nullptr;
    const int64_t* hist = nullptr;   // null: summed when a search needs it
};

// The per-sample quantities of objective O in fixed point: quantity c of sample i is
// q[i * columns + c] units of unit[c], a power of two chosen so that the quantities of all samples
// sum below 2^62 in absolute value. Sums of them are exact and do not depend on their order, so a
// histogram found as parent minus sibling equals the one summed directly, whatever path reached the
// state: what keeps the tree independent of the thread count.
template <class O>
struct FixedQuantities {
    int columns = 0;
    std::vector<int64_t> q;
    std::vector<double> unit;   // per quantity
    std::vector<double> stat_unit;   // per statistic, then 1 for the sample count

    FixedQuantities(const O& obj, int64_t n) : FixedQuantities(obj, n, mass_of(obj, n)) {}
    // With the units of a `mass` summed elsewhere (dpdt/remote.hpp: over every machine's samples),
    // which must be at least this data's own.
    FixedQuantities(const O& obj, int64_t n, const std::vector<double>& mass)
        : columns(obj.fixed_dim()), q(n * obj.fixed_dim()), unit(columns) {
        if (static_cast<int>(mass.size()) != columns) throw std::invalid_argument("mass needs one entry per quantity");
        for (int c = 0; c < columns; ++c) {
            if (!std::isfinite(mass[c])) throw std::invalid_argument("the targets, weights or gradients overflow");
            // Never below the smallest double, so that a subnormal mass cannot divide by zero.
            unit[c] = mass[c] > 0.0 ? std::ldexp(1.0, std::max(std::ilogb(mass[c]) + 1 - 62, -1074)) : 1.0;
        }
        std::vector<double> v(static_cast<size_t>(columns));
        for (int64_t i = 0; i < n; ++i) {
            obj.quantities(static_cast<int32_t>(i), v.data());
            for (int c = 0; c < columns; ++c) q[i * columns + c] = std::llrint(v[c] / unit[c]);
        }
        for (int d = 0; d < obj.dim(); ++d) stat_unit.push_back(unit[obj.quantity_of(d)]);
        stat_unit.push_back(1.0);
    }
    const int64_t* of(int32_t i) const { return q.data() + static_cast<int64_t>(i) * columns; }

    // The sum over the samples of each quantity's absolute value, which sets its unit.
    static std::vector<double> mass_of(const O& obj, int64_t n) {
        std::vector<double> mass(static_cast<size_t>(obj.fixed_dim()), 0.0), v(mass.size());
        for (int64_t i = 0; i < n; ++i) {
            obj.quantities(static_cast<int32_t>(i), v.data());
            for (size_t c = 0; c < v.size(); ++c) mass[c] += std::abs(v[c]);
        }
        return mass;
    }
};

template <class Code, class O>
class BinnedLayout {
  public:
    using View = IdView;
    // A child's ids and, when kept, its histogram.
    struct Buffer {
        std::vector<int32_t> ids;
        std::vector<int64_t> hist;
    };
    static constexpr bool kExact = false;

    BinnedLayout(const BinnedData<Code>& data, const O& obj)
        : BinnedLayout(data, obj, FixedQuantities<O>::mass_of(obj, data.n)) {}
    // With the fixed-point units of a mass summed over more samples than these (dpdt/remote.hpp).
    BinnedLayout(const BinnedData<Code>& data, const O& obj, const std::vector<double>& mass)
        : data(data), fixed_(obj, data.n, mass), stride_(obj.dim() + 1), hist_size_(data.total_bins * stride_),
          word_offset_(word_offsets(data)), id_(next_id()) {}

    int64_t n() const { return data.n; }
    int64_t p() const { return data.p; }
    View root() const { return IdView{static_cast<int32_t>(data.n), data.all_ids.data()}; }
    // The view with its histogram summed into `buffer`, if it is worth keeping one.
    View with_histogram(const O& obj, View v, Buffer& buffer) const {
        if (v.hist == nullptr && keeps_histogram(v.m)) v.hist = sum_histogram(obj, v, buffer.hist);
        return v;
    }
    static const int32_t* ids(const View& v) { return v.ids; }
    // int64 numbers in one histogram.
    int64_t histogram_size() const { return hist_size_; }
    // Adds the histogram of the view's samples into h (histogram_size() numbers).
    void add_into(const O& obj, const View& v, int64_t* h) const { add_histogram(obj, v, h, nullptr); }

    void best_loss_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats,
                          std::vector<SplitRecord>& out, bool /*only_best*/ = false) const {
        out.assign(data.p, SplitRecord{});
        const double tol = 1e-11 * (std::abs(obj.loss(stats)) + obj.weight(stats));
        const Scanner scanner(*this, obj, histogram(obj, v), v.m, limits);
        for (int64_t f = 0; f < data.p; ++f) {
            stop_point();
            SplitRecord& best = out[f];
            scanner.scan(f, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
                const double loss = obj.loss(l) + obj.loss(r);
                if (best.found() && loss > best.score + tol) return;
                const double tie = obj.tie(l) + obj.tie(r);
                if (!best.found() || loss < best.score - tol || tie < best.tie - tol) {
                    best = s;
                    best.score = loss;
                    best.tie = tie;
                }
            });
        }
    }

    SplitRecord best_generator_split(const O& obj, const View& v, const std::vector<int32_t>& features,
                                     const LeafLimits& limits, const double* stats,
                                     TieRule rule = TieRule::kGreedy) const {
        std::vector<SplitRecord> per_feature;
        best_generator_per_feature(obj, v, features, limits, stats, per_feature);
        const double tol = generator_tolerance(obj, stats);
        SplitRecord best;
        for (const SplitRecord& s : per_feature)
            if (s.found() && (!best.found() || s.score > best.score + tol)) best = s;
        if constexpr (O::kGeneratorHasSecondary) {
            // As dpdt::best_generator_split: the secondary key among the splits that tie.
            if (!best.found()) return best;
            const double floor = secondary_floor(obj, stats, rule, best.score, tol);
            if (std::isnan(floor)) return best;
            const double parent = obj.generator_impurity(stats);
            const Scanner scanner(*this, obj, histogram(obj, v), v.m, limits);
            best = SplitRecord{};
            for (const int32_t f : features) {
                stop_point();
                scanner.scan(f, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
                    if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                    const double score = obj.generator_score(parent, l, r);
                    if (score < floor) return;
                    SplitRecord scored = s;
                    scored.score = score;
                    keep_higher_secondary(scored, obj.generator_secondary(l, r), best);
                });
            }
            if (best.score <= tol) best.score = 0.0;   // as there
        }
        return best;
    }

    void top_k_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int k,
                      std::vector<SplitRecord>& out) const {
        std::vector<int32_t> features(data.p);
        for (int32_t f = 0; f < data.p; ++f) features[f] = f;
        best_generator_per_feature(obj, v, features, limits, stats, out);
        out.erase(std::remove_if(out.begin(), out.end(), [](const SplitRecord& s) { return !s.found(); }),
                  out.end());
        keep_best(out, k, generator_tolerance(obj, stats));
    }

    void top_b_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int b,
                      std::vector<SplitRecord>& out) const {
        out.clear();
        const Scanner scanner(*this, obj, histogram(obj, v), v.m, limits);
        const double parent = obj.generator_impurity(stats);
        for (int64_t f = 0; f < data.p; ++f) {
            stop_point();
            scanner.scan(f, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
                if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                SplitRecord scored = s;
                scored.score = obj.generator_score(parent, l, r);
                out.push_back(scored);
            });
        }
        keep_best(out, b, generator_tolerance(obj, stats));
    }

    // Every split of every feature; with per_feature > 0, those after the bins where each of
    // per_feature evenly spaced weighted quantiles of the present values falls.
    void all_splits(const O& obj, const View& v, const LeafLimits& limits, double, int per_feature,
                    std::vector<SplitRecord>& out) const {
        out.clear();
        const Hist hist = histogram(obj, v);
        const int64_t* h = hist.cells;
        const Scanner scanner(*this, obj, hist, v.m, limits);
        const int S = stride_;
        for (int64_t f = 0; f < data.p; ++f) {
            stop_point();
            std::vector<char> wanted;
            if (per_feature > 0) {
                const int32_t nb = data.n_bins[f];
                std::vector<double> weights(nb), stats(S);
                double present = 0.0;
                for (int32_t b = 0; b < nb; ++b) {
                    const int64_t* cell = h + (data.offset[f] + b) * S;
                    for (int d = 0; d < S - 1; ++d) stats[d] = static_cast<double>(cell[d]) * fixed_.stat_unit[d];
                    weights[b] = obj.weight(stats.data());
                    present += weights[b];
                }
                wanted.assign(nb, 0);
                double below = 0.0;
                int q = 1;
                for (int32_t b = 0; b < nb && q <= per_feature; ++b) {
                    below += weights[b];
                    if (below * (per_feature + 1) < q * present * (1.0 - 1e-12)) continue;
                    wanted[b] = 1;
                    while (q <= per_feature && q * present * (1.0 - 1e-12) <= below * (per_feature + 1)) ++q;
                }
            }
            scanner.scan(f, [&](const SplitRecord& s, const double*, const double*) DPDT_INLINE {
                if (per_feature <= 0 || wanted[s.bin]) out.push_back(s);
            });
        }
    }

    void generator_splits_per_feature(const O& obj, const View& v, const std::vector<int32_t>& features,
                                      const LeafLimits& limits, const double* stats,
                                      std::vector<SplitRecord>& out) const {
        best_generator_per_feature(obj, v, features, limits, stats, out);
    }
    // Calls visit(split, left_stats, right_stats) at every valid split of the features, as the
    // scans offer them: what the ruled searches of split_rule.hpp read.
    template <class Visit>
    void scan_splits(const O& obj, const View& v, const std::vector<int32_t>& features, const LeafLimits& limits,
                     const double*, Visit&& visit) const {
        const Scanner scanner(*this, obj, histogram(obj, v), v.m, limits);
        for (const int32_t f : features) {
            stop_point();
            scanner.scan(f, visit);
        }
    }

    template <class F>
    int32_t for_each_left(const View& v, const SplitRecord& s, F&& f) const {
        int32_t n_left = 0;
        for (int32_t j = 0; j < v.m; ++j) {
            const int32_t i = v.ids[j];
            if (goes_left(i, s)) {
                f(i);
                ++n_left;
            }
        }
        return n_left;
    }

    bool has_missing(const View& v, int32_t feature) const {
        if (v.hist != nullptr) return v.hist[((data.offset[feature] + data.n_bins[feature]) * stride_) + stride_ - 1] > 0;
        for (int32_t j = 0; j < v.m; ++j)
            if (data.code(v.ids[j], feature) == data.n_bins[feature]) return true;
        return false;
    }

    // The statistics of a binned layout are always read off fixed-point sums (a histogram's or the
    // samples'): the same numbers whichever way a state was reached and however its samples are
    // spread over machines (dpdt/remote.hpp).
    void stats(const O& obj, const View& v, double* out) const {
        std::vector<int64_t> fixed(static_cast<size_t>(stride_), 0);
        if (v.hist != nullptr) {
            add_cells(v.hist, 0, data.n_bins[0], fixed.data());   // every bin, the missing one too
        } else {
            for (int32_t j = 0; j < v.m; ++j) add_sample(obj, v.ids[j], fixed.data());
        }
        in_units(obj, fixed.data(), out);
    }
    SubsetHash hash(const View& v) const { return hash_of(v.ids, v.m); }

    LeftSide left_side(const O& obj, const View& v, const SplitRecord& s) const {
        std::vector<int64_t> fixed(static_cast<size_t>(stride_), 0);
        LeftSide out;
        out.n = for_each_left(v, s, [&](int32_t i) {
            add_sample(obj, i, fixed.data());
            out.hash.a += mix_a(i);
            out.hash.b += mix_b(i);
        });
        out.weight = weight_of(obj, fixed.data());
        return out;
    }
    void left_stats(const O& obj, const View& v, const SplitRecord& s, double* out) const {
        std::vector<int64_t> fixed(static_cast<size_t>(stride_), 0);
        if (v.hist != nullptr)
            left_cells(v.hist, s, fixed.data());
        else
            for_each_left(v, s, [&](int32_t i) { add_sample(obj, i, fixed.data()); });
        in_units(obj, fixed.data(), out);
    }

    // The children's views, in `left` and `right`. Their histograms are kept when the parent's is
    // and the larger child is worth one: the smaller child's is summed and the larger's is the
    // parent's minus it (LightGBM's sibling subtraction), which halves the summing at least.
    std::pair<View, View> partition(const O& obj, const View& v, const SplitRecord& s, std::vector<uint8_t>&,
                                    Buffer& left, Buffer& right) const {
        const int32_t n_left = s.n_left, n_right = v.m - n_left;
        left.ids.resize(static_cast<size_t>(n_left) + 1);
        right.ids.resize(static_cast<size_t>(n_right) + 1);
        int32_t nl = 0, nr = 0;
        for (int32_t j = 0; j < v.m; ++j) {
            const int32_t i = v.ids[j];
            // Branch-free, as in the exact layout: written to both, kept on one (one slot of slack).
            const int32_t go_left = goes_left(i, s);
            left.ids[nl] = i;
            right.ids[nr] = i;
            nl += go_left;
            nr += 1 - go_left;
        }
        IdView lv{n_left, left.ids.data()}, rv{n_right, right.ids.data()};
        if (v.hist != nullptr && keeps_histogram(std::max(n_left, n_right))) {
            const bool left_smaller = n_left <= n_right;
            IdView& small = left_smaller ? lv : rv;
            IdView& large = left_smaller ? rv : lv;
            std::vector<int64_t>& large_hist = (left_smaller ? right : left).hist;
            small.hist = sum_histogram(obj, small, (left_smaller ? left : right).hist);
            large_hist.resize(static_cast<size_t>(hist_size_));
            // Locals and __restrict, so that the loop is vectorised.
            const int64_t* __restrict parent = v.hist;
            const int64_t* __restrict sibling = small.hist;
            int64_t* __restrict out = large_hist.data();
            const int64_t size = hist_size_;
            for (int64_t c = 0; c < size; ++c) out[c] = parent[c] - sibling[c];
            large.hist = out;
        }
        return {lv, rv};
    }

    const BinnedData<Code>& data;

  protected:
    // Adds bins [0, last] of feature f of histogram h (last < 0: its missing bin alone) into fixed.
    void add_cells(const int64_t* h, int64_t f, int32_t last, int64_t* fixed) const {
        const int32_t first = last < 0 ? data.n_bins[f] : 0;
        last = last < 0 ? data.n_bins[f] : last;
        for (int32_t b = first; b <= last; ++b) {
            const int64_t* cell = h + (data.offset[f] + b) * stride_;
            for (int64_t d = 0; d < stride_; ++d) fixed[d] += cell[d];
        }
    }
    // The fixed-point sums (and count) of what split s sends left, read off the histogram h.
    void left_cells(const int64_t* h, const SplitRecord& s, int64_t* fixed) const {
        add_cells(h, s.feature, s.bin, fixed);
        if (s.missing_left) add_cells(h, s.feature, -1, fixed);
    }
    void add_sample(const O& obj, int32_t i, int64_t* fixed) const {
        obj.add_fixed(fixed, i, fixed_.of(i));
        fixed[stride_ - 1] += 1;
    }
    // Fixed-point sums as the objective's statistics, as the scans read them.
    void in_units(const O& obj, const int64_t* fixed, double* out) const {
        for (int d = 0; d < obj.dim(); ++d) out[d] = static_cast<double>(fixed[d]) * fixed_.stat_unit[d];
    }
    double weight_of(const O& obj, const int64_t* fixed) const {
        std::vector<double> stats(static_cast<size_t>(obj.dim()));
        in_units(obj, fixed, stats.data());
        return obj.weight(stats.data());
    }

    bool goes_left(int32_t i, const SplitRecord& s) const {
        const int32_t code = data.code(i, s.feature);
        return code == data.n_bins[s.feature] ? s.missing_left : code <= s.bin;
    }

    // A histogram is kept with a view when summing it costs more than subtracting one.
    bool keeps_histogram(int32_t m) const { return static_cast<int64_t>(m) * data.p >= hist_size_; }

    // The per-feature histograms of the view, added into `h`, all zero and of hist_size_: (bins + 1)
    // cells per feature of the objective's statistics in fixed point, followed by the sample count.
    // With `occupied`, also sets there the bit of every bin it adds to (word_offset_ layout).
    void add_histogram(const O& obj, const View& v, int64_t* __restrict h, uint64_t* __restrict occupied) const {
        // Locals and __restrict let the compiler keep them in registers across the stores.
        const int64_t p = data.p, stride = stride_, D = stride_ - 1;
        const int64_t* __restrict offset = data.offset.data();
        const int64_t* __restrict words = word_offset_.data();
        const Code* __restrict codes = data.codes;
        for (int32_t j = 0; j < v.m; ++j) {
            if ((j & 4095) == 0) stop_point();
            const int32_t i = v.ids[j];
            const Code* row = codes + static_cast<int64_t>(i) * p;
            const int64_t* __restrict q = fixed_.of(i);
            for (int64_t f = 0; f < p; ++f) {
                const int64_t b = row[f];
                int64_t* cell = h + (offset[f] + b) * stride;
                obj.add_fixed(cell, i, q);
                cell[D] += 1;
                if (occupied != nullptr) occupied[words[f] + (b >> 6)] |= uint64_t{1} << (b & 63);
            }
        }
    }

    // Rows per share of a histogram summed on several workers: enough that the share's own
    // histogram, zeroed and added in, is a small part of its work.
    static constexpr int32_t kRowsPerShare = 16384;

    // The histogram of a large view is summed in shares of its rows on idle workers, each into its
    // own histogram, then added up: fixed-point sums, so the same whatever the sharing.
    const int64_t* sum_histogram(const O& obj, const View& v, std::vector<int64_t>& h) const {
        const auto size = static_cast<size_t>(hist_size_);
        assign_polled(h, size, int64_t{0});
        const int64_t shares = std::min<int64_t>(sharing_width(), v.m / kRowsPerShare);
        if (shares <= 1) {
            add_histogram(obj, v, h.data(), nullptr);
            return h.data();
        }
        std::vector<std::vector<int64_t>> own(static_cast<size_t>(shares - 1));
        parallel_for(shares, [&](int64_t k) {
            const auto begin = static_cast<int32_t>(v.m * k / shares);
            const auto end = static_cast<int32_t>(v.m * (k + 1) / shares);
            View part = v;
            part.m = end - begin;
            part.ids = v.ids + begin;
            part.hist = nullptr;
            int64_t* into = h.data();
            if (k > 0) {
                assign_polled(own[k - 1], size, int64_t{0});
                into = own[k - 1].data();
            }
            add_histogram(obj, part, into, nullptr);
        });
        int64_t* __restrict out = h.data();
        for (const std::vector<int64_t>& share : own) {
            stop_point();
            const int64_t* __restrict in = share.data();
            for (size_t c = 0; c < size; ++c) out[c] += in[c];
        }
        return h.data();
    }

    // A histogram; for a small state's, the bitmap of its non-empty bins too, so that scans and
    // clearing visit those only (a state of m samples fills at most m bins of each feature).
    struct Hist {
        const int64_t* cells = nullptr;
        const uint64_t* occupied = nullptr;   // null: scan every bin
    };

    // Calls visit(b) for every non-empty bin b of present values of feature f, in increasing order.
    template <class Visit>
    void for_each_bin(const Hist& h, int64_t f, Visit&& visit) const {
        const int32_t nb = data.n_bins[f];
        if (h.occupied == nullptr) {
            const int64_t* count = h.cells + data.offset[f] * stride_ + (stride_ - 1);
            for (int32_t b = 0; b < nb; ++b)
                if (count[static_cast<int64_t>(b) * stride_] != 0) visit(b);
            return;
        }
        const uint64_t* words = h.occupied + word_offset_[f];
        // The missing bin's bit (bin nb) is dropped from the last word.
        const int64_t n_words = word_offset_[f + 1] - word_offset_[f];
        for (int64_t k = 0; k < n_words; ++k) {
            uint64_t bits = words[k];
            if (k == nb >> 6) bits &= (uint64_t{1} << (nb & 63)) - 1;
            while (bits != 0) {
                visit(static_cast<int32_t>(k * 64 + __builtin_ctzll(bits)));
                bits &= bits - 1;
            }
        }
    }

    // The view's histograms: kept ones, or summed into a per-thread buffer valid until the next
    // call, cleared through the bits of its non-empty bins.
    Hist histogram(const O& obj, const View& v) const {
        if (v.hist != nullptr) return Hist{v.hist, nullptr};
        thread_local std::vector<int64_t> h;
        thread_local std::vector<uint64_t> occupied;
        // The buffer outlives the fit, and another layout's bins would clear the wrong cells.
        thread_local uint64_t owner = 0;
        if (owner != id_) {
            owner = 0;   // until the buffers are this layout's, should the time limit cut filling them
            assign_polled(h, static_cast<size_t>(hist_size_), int64_t{0});
            occupied.assign(static_cast<size_t>(word_offset_.back()), 0);
            owner = id_;
        } else {
            const Hist previous{h.data(), occupied.data()};
            for (int64_t f = 0; f < data.p; ++f) {
                auto clear = [&](int32_t b) {
                    std::fill_n(&h[(data.offset[f] + b) * stride_], stride_, 0);
                };
                for_each_bin(previous, f, clear);
                clear(data.n_bins[f]);
            }
            std::fill(occupied.begin(), occupied.end(), 0);
        }
        add_histogram(obj, v, h.data(), occupied.data());
        return Hist{h.data(), occupied.data()};
    }

    // Scans the features of one state's histogram for splits. Every sample falls in one bin of each
    // feature, so the state's fixed-point totals, summed once, serve every feature.
    class Scanner {
      public:
        Scanner(const BinnedLayout& layout, const O& obj, Hist hist, int32_t m, const LeafLimits& limits)
            : layout_(layout), obj_(obj), hist_(hist), m_(m), limits_(limits), D_(obj.dim()),
              total_(static_cast<size_t>(D_), 0), left_(static_cast<size_t>(D_)), left_stats_(static_cast<size_t>(D_)),
              right_stats_(static_cast<size_t>(D_)) {
            const int64_t S = layout.stride_;
            auto add = [&](int32_t b) {
                const int64_t* cell = hist.cells + b * S;
                for (int d = 0; d < D_; ++d) total_[d] += cell[d];
            };
            layout.for_each_bin(hist, 0, add);
            add(layout.data.n_bins[0]);
        }

        // Calls visit(split, left_stats, right_stats) at every valid split of feature f: after each
        // non-empty bin, with the missing values right, and (if there are any) left; and, with
        // missing values, present left / missing right. The sides are summed in fixed point, so
        // right = total - left is exact, and read as doubles only at the splits offered.
        template <class Visit>
        void scan(int64_t f, Visit&& visit) const {
            // The common small dimensions get loops the compiler unrolls and registers for the sums.
            switch (D_) {
                case 2: return scan_with<2>(f, visit);
                case 3: return scan_with<3>(f, visit);
                default: return scan_with<0>(f, visit);
            }
        }

      private:
        // kD: the statistics' dimension when known at compile time, 0 otherwise.
        template <int kD, class Visit>
        void scan_with(int64_t f, Visit& visit) const {
            const BinnedData<Code>& data = layout_.data;
            const int64_t S = layout_.stride_;
            const int D = kD > 0 ? kD : D_;
            const int32_t nb = data.n_bins[f];
            const int64_t* first = hist_.cells + data.offset[f] * S;
            const int64_t* missing = first + static_cast<int64_t>(nb) * S;
            const int32_t n_missing = static_cast<int32_t>(missing[D]);
            const double* unit = layout_.fixed_.stat_unit.data();
            const double* upper = data.upper.data() + data.offset[f];
            constexpr int kSlots = kD > 0 ? kD : 1;
            int64_t left_fixed[kSlots], total_fixed[kSlots];
            double left_known[kSlots], right_known[kSlots];
            int64_t* left = kD > 0 ? left_fixed : left_.data();
            const int64_t* total = kD > 0 ? total_fixed : total_.data();
            double* left_stats = kD > 0 ? left_known : left_stats_.data();
            double* right_stats = kD > 0 ? right_known : right_stats_.data();
            if constexpr (kD > 0)
                for (int d = 0; d < kD; ++d) total_fixed[d] = total_[d];
            std::fill(left, left + D, 0);
            const int32_t m = m_;
            int32_t n_present_left = 0;
            const int32_t n_present = m - n_missing;
            SplitRecord s;
            s.feature = static_cast<int32_t>(f);
            auto offer = [&](bool missing_left) DPDT_INLINE {
                const int32_t nl = n_present_left + (missing_left ? n_missing : 0);
                if (nl < 1 || nl > m - 1) return;
                for (int d = 0; d < D; ++d) {
                    const int64_t l = left[d] + (missing_left ? missing[d] : 0);
                    left_stats[d] = static_cast<double>(l) * unit[d];
                    right_stats[d] = static_cast<double>(total[d] - l) * unit[d];
                }
                const double wl = obj_.weight(left_stats), wr = obj_.weight(right_stats);
                if (limits_.allow(nl, m - nl, wl, wr)) {
                    s.n_left = nl;
                    // Without missing values here, one at predict time goes where most samples
                    // went, as in scikit-learn's trees.
                    s.missing_left = n_missing > 0 ? missing_left : 2 * static_cast<int64_t>(nl) > m;
                    visit(s, static_cast<const double*>(left_stats), static_cast<const double*>(right_stats));
                }
            };
            layout_.for_each_bin(hist_, f, [&](int32_t b) DPDT_INLINE {
                const int64_t* cell = first + static_cast<int64_t>(b) * S;
                for (int d = 0; d < D; ++d) left[d] += cell[d];
                n_present_left += static_cast<int32_t>(cell[D]);
                s.bin = b;
                s.threshold = upper[b];
                if (n_present_left < n_present) {
                    offer(false);
                    if (n_missing > 0) offer(true);
                } else if (n_missing > 0 && n_present_left > 0) {
                    offer(false);
                }
            });
        }

        const BinnedLayout& layout_;
        const O& obj_;
        Hist hist_;
        int32_t m_;
        const LeafLimits& limits_;
        int D_;
        std::vector<int64_t> total_;
        // Scratch of scan(), which the const interface hides.
        mutable std::vector<int64_t> left_;
        mutable std::vector<double> left_stats_, right_stats_;
    };

    void best_generator_per_feature(const O& obj, const View& v, const std::vector<int32_t>& features,
                                    const LeafLimits& limits, const double* stats,
                                    std::vector<SplitRecord>& out) const {
        out.assign(features.size(), SplitRecord{});
        const Scanner scanner(*this, obj, histogram(obj, v), v.m, limits);
        const double parent = obj.generator_impurity(stats);
        const double tol = generator_tolerance(obj, stats);
        for (size_t a = 0; a < features.size(); ++a) {
            stop_point();
            SplitRecord& best = out[a];
            const int32_t f = features[a];
            if constexpr (O::kGainIsNewtonFraction) {
                scan_newton_gains(obj, scanner, f, parent, tol, best);
                continue;
            }
            scanner.scan(f, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
                if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                const double score = obj.generator_score(parent, l, r);
                if (best.found() && score <= best.score + tol) return;
                best = s;
                best.score = score;
            });
        }
    }

    // The Newton score parent - loss(l) - loss(r) is base + (Gl^2 / dl + Gr^2 / dr) / 2 with
    // d = H + lambda (a term with d <= 0 counts 0, as in Newton::loss). The scan keeps the best
    // as the fraction num / den and compares by products: the divisions of the generic scan
    // dominated boosting's fits. The rule is the generic one, "beats the best by more than tol".
    static void scan_newton_gains(const O& obj, const Scanner& scanner, int64_t f, double parent, double tol,
                                  SplitRecord& best) {
        const double lambda = obj.reg_lambda, tol2 = 2.0 * tol;
        double best_num = 0.0, best_den = 1.0;
        bool found = false;
        scanner.scan(f, [&](const SplitRecord& s, const double* l, const double* r) DPDT_INLINE {
            if (l[0] <= 0.0 || r[0] <= 0.0) return;
            double dl = l[2] + lambda, dr = r[2] + lambda;
            const double gl2 = dl > 0.0 ? l[1] * l[1] : 0.0, gr2 = dr > 0.0 ? r[1] * r[1] : 0.0;
            dl = dl > 0.0 ? dl : 1.0;
            dr = dr > 0.0 ? dr : 1.0;
            const double num = gl2 * dr + gr2 * dl, den = dl * dr;
            if (found && num * best_den <= (best_num + tol2 * best_den) * den) return;
            found = true;
            best_num = num;
            best_den = den;
            best.bin = s.bin;
            best.threshold = s.threshold;
            best.n_left = s.n_left;
            best.missing_left = s.missing_left;
        });
        if (!found) return;
        best.feature = static_cast<int32_t>(f);
        best.score = parent - 2.0 * obj.gamma + 0.5 * (best_num / best_den);
    }

    static std::vector<int64_t> word_offsets(const BinnedData<Code>& data) {
        std::vector<int64_t> at(1, 0);
        for (int64_t f = 0; f < data.p; ++f) at.push_back(at.back() + data.n_bins[f] / 64 + 1);
        return at;
    }

    FixedQuantities<O> fixed_;
    int64_t stride_;      // statistics + 1 (the sample count) per histogram cell
    int64_t hist_size_;   // int64 numbers in one histogram
    // Feature f's bins (missing bin included) have the bits of words [word_offset_[f],
    // word_offset_[f + 1]) of an occupancy bitmap.
    std::vector<int64_t> word_offset_;
    uint64_t id_;   // unique to this layout in the process
    static uint64_t next_id() {
        static std::atomic<uint64_t> last{0};
        return ++last;
    }
};

}  // namespace dpdt
