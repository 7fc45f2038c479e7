// How the solver sees the samples of a state, chosen once per fit as a template parameter:
//
// - ExactLayout: every state keeps its samples sorted by every feature (p blocks of ids), so every
//   threshold between distinct values is searched exactly in O(m p); a state costs 4 m p bytes.
// - BinnedLayout: every feature was cut once into at most max_bins bins of real training values
//   (uint8 or uint16 codes, one extra code per feature for a missing value); a state is a list of
//   ids, and split search reads per-state histograms. A state costs 4 m bytes, a histogram
//   (bins + 1) x (statistics + 1) doubles per feature; the thresholds are bins' largest training
//   values, so prediction needs no bins, and a missing value goes to the side stored in the split.
//
// Both offer the same operations to the solver: the ids of a view, the split searches of the
// generators, the samples a split sends left, and the children's views.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/objective.hpp"
#include "dpdt/split_search.hpp"

namespace dpdt {

class ExactLayout {
  public:
    using View = NodeView;
    static constexpr bool kExact = true;

    explicit ExactLayout(const Dataset& data) : data(data) {}

    int64_t n() const { return data.n; }
    int64_t p() const { return data.p; }
    View root() const { return NodeView{static_cast<int32_t>(data.n), data.presorted.data()}; }
    static const int32_t* ids(const View& v) { return v.block(0); }

    template <class O>
    void best_loss_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats,
                          std::vector<SplitRecord>& out) const {
        dpdt::best_loss_splits(data, obj, v, limits, stats, out);
    }
    template <class O>
    SplitRecord best_generator_split(const O& obj, const View& v, const std::vector<int32_t>& features,
                                     const LeafLimits& limits, const double* stats) const {
        return dpdt::best_generator_split(data, obj, v, features, limits, stats);
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

    // Calls f(id) for every sample of the view that `s` sends left; returns their number.
    template <class F>
    int32_t for_each_left(const View& v, const SplitRecord& s, F&& f) const {
        const int32_t n_left = count_left(data, v, s.feature, s.threshold);
        const int32_t* ids = v.block(s.feature);
        for (int32_t j = 0; j < n_left; ++j) f(ids[j]);
        return n_left;
    }

    static bool has_missing(const View&, int32_t) { return false; }

    // The children's views in `left` and `right`; `s.n_left` is its count on `v`, `mask` an
    // all-zero byte per sample of the dataset, left all zero.
    std::pair<View, View> partition(const View& v, const SplitRecord& s, std::vector<uint8_t>& mask,
                                    std::vector<int32_t>& left, std::vector<int32_t>& right) const {
        const int32_t n_left = s.n_left, n_right = v.m - n_left;
        left.resize(static_cast<size_t>(n_left) * data.p + 1);
        right.resize(static_cast<size_t>(n_right) * data.p + 1);
        const int32_t* prefix = v.block(s.feature);
        for (int32_t j = 0; j < n_left; ++j) mask[prefix[j]] = 1;
        dpdt::partition(data, v, mask.data(), n_left, left.data(), right.data());
        for (int32_t j = 0; j < n_left; ++j) mask[prefix[j]] = 0;
        return {NodeView{n_left, left.data()}, NodeView{n_right, right.data()}};
    }

    const Dataset& data;
};

// Features cut into bins: code b of feature f holds the training values in (upper[b-1], upper[b]];
// code n_bins[f] is a missing value.
template <class Code>
struct BinnedData {
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

struct IdView {
    int32_t m = 0;
    const int32_t* ids = nullptr;
};

template <class Code>
class BinnedLayout {
  public:
    using View = IdView;
    static constexpr bool kExact = false;

    explicit BinnedLayout(const BinnedData<Code>& data) : data(data) {}

    int64_t n() const { return data.n; }
    int64_t p() const { return data.p; }
    View root() const { return IdView{static_cast<int32_t>(data.n), data.all_ids.data()}; }
    static const int32_t* ids(const View& v) { return v.ids; }

    template <class O>
    void best_loss_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats,
                          std::vector<SplitRecord>& out) const {
        out.assign(data.p, SplitRecord{});
        const double tol = 1e-11 * (std::abs(obj.loss(stats)) + obj.weight(stats));
        const std::vector<double>& h = histogram(obj, v);
        for (int64_t f = 0; f < data.p; ++f) {
            SplitRecord& best = out[f];
            scan(obj, h, f, v.m, limits, [&](const SplitRecord& s, const double* l, const double* r) {
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

    template <class O>
    SplitRecord best_generator_split(const O& obj, const View& v, const std::vector<int32_t>& features,
                                     const LeafLimits& limits, const double* stats) const {
        std::vector<SplitRecord> per_feature;
        best_generator_per_feature(obj, v, features, limits, stats, per_feature);
        const double tol = generator_tolerance(obj, stats);
        SplitRecord best;
        for (const SplitRecord& s : per_feature)
            if (s.found() && (!best.found() || s.score > best.score + tol)) best = s;
        return best;
    }

    template <class O>
    void top_k_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int k,
                      std::vector<SplitRecord>& out) const {
        std::vector<int32_t> features(data.p);
        for (int32_t f = 0; f < data.p; ++f) features[f] = f;
        best_generator_per_feature(obj, v, features, limits, stats, out);
        out.erase(std::remove_if(out.begin(), out.end(), [](const SplitRecord& s) { return !s.found(); }),
                  out.end());
        keep_best(out, k, generator_tolerance(obj, stats));
    }

    template <class O>
    void top_b_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int b,
                      std::vector<SplitRecord>& out) const {
        out.clear();
        const std::vector<double>& h = histogram(obj, v);
        const double parent = obj.generator_impurity(stats);
        for (int64_t f = 0; f < data.p; ++f) {
            scan(obj, h, f, v.m, limits, [&](const SplitRecord& s, const double* l, const double* r) {
                if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                SplitRecord scored = s;
                scored.score = generator_score(obj, parent, l, r);
                out.push_back(scored);
            });
        }
        keep_best(out, b, generator_tolerance(obj, stats));
    }

    // Every split of every feature; with per_feature > 0, those after the bins where each of
    // per_feature evenly spaced weighted quantiles of the present values falls.
    template <class O>
    void all_splits(const O& obj, const View& v, const LeafLimits& limits, double, int per_feature,
                    std::vector<SplitRecord>& out) const {
        out.clear();
        const std::vector<double>& h = histogram(obj, v);
        const int S = obj.dim() + 1;
        for (int64_t f = 0; f < data.p; ++f) {
            std::vector<char> wanted;
            if (per_feature > 0) {
                const int32_t nb = data.n_bins[f];
                double present = 0.0;
                for (int32_t b = 0; b < nb; ++b) present += obj.weight(&h[(data.offset[f] + b) * S]);
                wanted.assign(nb, 0);
                double below = 0.0;
                int q = 1;
                for (int32_t b = 0; b < nb && q <= per_feature; ++b) {
                    below += obj.weight(&h[(data.offset[f] + b) * S]);
                    if (below * (per_feature + 1) < q * present * (1.0 - 1e-12)) continue;
                    wanted[b] = 1;
                    while (q <= per_feature && q * present * (1.0 - 1e-12) <= below * (per_feature + 1)) ++q;
                }
            }
            scan(obj, h, f, v.m, limits, [&](const SplitRecord& s, const double*, const double*) {
                if (per_feature <= 0 || wanted[s.bin]) out.push_back(s);
            });
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
        for (int32_t j = 0; j < v.m; ++j)
            if (data.code(v.ids[j], feature) == data.n_bins[feature]) return true;
        return false;
    }

    std::pair<View, View> partition(const View& v, const SplitRecord& s, std::vector<uint8_t>&,
                                    std::vector<int32_t>& left, std::vector<int32_t>& right) const {
        const int32_t n_left = s.n_left, n_right = v.m - n_left;
        left.resize(static_cast<size_t>(n_left) + 1);
        right.resize(static_cast<size_t>(n_right) + 1);
        int32_t nl = 0, nr = 0;
        for (int32_t j = 0; j < v.m; ++j) {
            const int32_t i = v.ids[j];
            // Branch-free, as in the exact layout: written to both, kept on one (one slot of slack).
            const int32_t go_left = goes_left(i, s);
            left[nl] = i;
            right[nr] = i;
            nl += go_left;
            nr += 1 - go_left;
        }
        return {IdView{n_left, left.data()}, IdView{n_right, right.data()}};
    }

    const BinnedData<Code>& data;

  private:
    bool goes_left(int32_t i, const SplitRecord& s) const {
        const int32_t code = data.code(i, s.feature);
        return code == data.n_bins[s.feature] ? s.missing_left : code <= s.bin;
    }

    // The per-feature histograms of the view: (bins + 1) cells per feature of the objective's
    // statistics followed by the sample count. One buffer per thread, valid until the next call.
    template <class O>
    const std::vector<double>& histogram(const O& obj, const View& v) const {
        thread_local std::vector<double> h;
        const int D = obj.dim(), S = D + 1;
        h.assign(static_cast<size_t>(data.total_bins) * S, 0.0);
        const int64_t p = data.p;
        double* base = h.data();
        const int64_t* offset = data.offset.data();
        for (int32_t j = 0; j < v.m; ++j) {
            const int32_t i = v.ids[j];
            const Code* row = data.codes + static_cast<int64_t>(i) * p;
            for (int64_t f = 0; f < p; ++f) {
                double* cell = base + (offset[f] + row[f]) * S;
                obj.add(cell, i);
                cell[D] += 1.0;
            }
        }
        return h;
    }

    // Calls visit(split, left_stats, right_stats) at every valid split of feature f: after each
    // non-empty bin, with the missing values right, and (if there are any) left; and, with missing
    // values, present left / missing right.
    template <class O, class Visit>
    void scan(const O& obj, const std::vector<double>& h, int64_t f, int32_t m, const LeafLimits& limits,
              Visit&& visit) const {
        const int D = obj.dim(), S = D + 1;
        const int32_t nb = data.n_bins[f];
        const double* first = h.data() + data.offset[f] * S;
        const double* missing = first + static_cast<int64_t>(nb) * S;
        const int32_t n_missing = static_cast<int32_t>(missing[D] + 0.5);
        thread_local std::vector<double> left, right, total;
        total.assign(missing, missing + D);
        for (int32_t b = 0; b < nb; ++b)
            for (int d = 0; d < D; ++d) total[d] += first[b * S + d];
        left.assign(D, 0.0);
        right.resize(D);
        int32_t n_present_left = 0;
        const int32_t n_present = m - n_missing;
        SplitRecord s;
        s.feature = static_cast<int32_t>(f);
        auto offer = [&](bool missing_left) {
            const int32_t nl = n_present_left + (missing_left ? n_missing : 0);
            if (nl < 1 || nl > m - 1) return;
            if (missing_left)
                for (int d = 0; d < D; ++d) left[d] += missing[d];
            for (int d = 0; d < D; ++d) right[d] = total[d] - left[d];
            const double wl = obj.weight(left.data()), wr = obj.weight(right.data());
            if (limits.allow(nl, m - nl, wl, wr)) {
                s.n_left = nl;
                // Without missing values here, one at predict time goes where most samples went,
                // as in scikit-learn's trees.
                s.missing_left = n_missing > 0 ? missing_left : 2 * static_cast<int64_t>(nl) > m;
                visit(s, left.data(), right.data());
            }
            if (missing_left)
                for (int d = 0; d < D; ++d) left[d] -= missing[d];
        };
        for (int32_t b = 0; b < nb; ++b) {
            const double* cell = first + static_cast<int64_t>(b) * S;
            if (cell[D] < 0.5) continue;
            for (int d = 0; d < D; ++d) left[d] += cell[d];
            n_present_left += static_cast<int32_t>(cell[D] + 0.5);
            s.bin = b;
            s.threshold = data.upper[data.offset[f] + b];
            if (n_present_left < n_present) {
                offer(false);
                if (n_missing > 0) offer(true);
            } else if (n_missing > 0 && n_present_left > 0) {
                offer(false);
            }
        }
    }

    template <class O>
    static double generator_score(const O& obj, double parent, const double* l, const double* r) {
        if constexpr (std::is_same_v<O, Classification>) {
            if (obj.criterion == Criterion::GainRatio) {
                const double wl = obj.weight(l), wr = obj.weight(r), total = wl + wr;
                const double gain = parent - obj.generator_impurity(l) - obj.generator_impurity(r);
                const double pl = wl / total, pr = wr / total;
                return gain / -(pl * std::log2(pl) + pr * std::log2(pr));
            }
        }
        return parent - obj.generator_impurity(l) - obj.generator_impurity(r);
    }

    template <class O>
    void best_generator_per_feature(const O& obj, const View& v, const std::vector<int32_t>& features,
                                    const LeafLimits& limits, const double* stats,
                                    std::vector<SplitRecord>& out) const {
        out.assign(features.size(), SplitRecord{});
        const std::vector<double>& h = histogram(obj, v);
        const double parent = obj.generator_impurity(stats);
        const double tol = generator_tolerance(obj, stats);
        for (size_t a = 0; a < features.size(); ++a) {
            SplitRecord& best = out[a];
            scan(obj, h, features[a], v.m, limits, [&](const SplitRecord& s, const double* l, const double* r) {
                if (obj.weight(l) <= 0.0 || obj.weight(r) <= 0.0) return;
                const double score = generator_score(obj, parent, l, r);
                if (best.found() && score <= best.score + tol) return;
                best = s;
                best.score = score;
            });
        }
    }
};

}  // namespace dpdt
