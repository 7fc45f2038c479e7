// Screening split generator: a split is ranked by the loss of the depth-3 tree DPDT would grow
// under it with a small budget (on each side, the splits of a best-first CART with three splits,
// each child then split by its best single split), all of it estimated on histograms of the state's
// samples cut into at most `kBins` bins per feature. Greedy and depth-2 scores misjudge the first
// split of deep trees; DPDT's own value of a shallow subtree does not, and on histograms it costs
// a few scans of p * bins statistics per side instead of sorting and partitioning the samples.
//
// Every feature is screened at `kGrid` evenly spaced bin edges by the cheap proxy of the best single
// split on each side; the `kScreened` best get the depth-3 estimate, and around the `kRefined` best
// of those every edge up to the neighbouring grid points is screened the same way. The `count`
// best splits are returned with thresholds between training values, for the solver to evaluate
// exactly. The cost is O(m p) per histogram and O(p * bins) per scan, with p * kGrid proxies: on
// wide data the caller screens the kMaxFeatures features of best single split only.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/split_search.hpp"

namespace dpdt {

template <class O>
class Screen {
  public:
    static constexpr int kBins = 256;
    static constexpr int kGrid = 16;
    static constexpr int kSideSplits = 3;   // the CART generator's budget on each side
    static constexpr int kScreened = 16;    // grid points whose depth-3 value is estimated
    static constexpr int kRefined = 4;      // of those, the best ones refined
    static constexpr int kMaxFeatures = 32;  // the proxies cost O(p^2): wider data is narrowed first

    // `local` is a per-thread scratch array of one slot per sample of the dataset.
    Screen(const Dataset& data, const O& obj, std::vector<int32_t>& local)
        : data_(data), obj_(obj), D_(obj.dim()), local_(local) {}

    // The `count` splits on `features` (increasing) of lowest screened loss (ties: lower feature,
    // then lower threshold), each with score = that loss.
    void top_splits(NodeView node, const std::vector<int32_t>& features, int count, std::vector<SplitRecord>& out) {
        out.clear();
        if (node.m < 2 || features.empty()) return;
        cut(node, features);
        std::vector<double> total(D_, 0.0);
        for (int32_t j = 0; j < m_; ++j) obj_.add(total.data(), ids_[j]);
        std::vector<double> all, left, right;
        for (auto* h : {&all, &left, &right}) assign_polled(*h, hist_size_, 0.0);
        add_samples(all.data(), order_.data(), m_);
        tol_ = 1e-11 * (obj_.weight(total.data()) + std::abs(obj_.loss(total.data()))) + 1e-300;

        // The depth-3 estimate costs some twenty histogram scans, the best single split on each
        // side two: the latter picks the grid points worth the former.
        std::vector<Scored> proxy;
        std::vector<std::vector<int32_t>> grid(p_);
        for (int32_t f = 0; f < p_; ++f) {
            stop_point();
            const int32_t last = n_bins_[f] - 2;   // the last edge with present samples on the right
            if (last < 0) continue;
            for (int g = 1; g <= kGrid; ++g) {
                const int32_t b = static_cast<int32_t>(std::lround(static_cast<double>(g) * last / (kGrid + 1)));
                if (grid[f].empty() || grid[f].back() != b) grid[f].push_back(b);
            }
            sweep(f, grid[f], all.data(), left.data(), right.data(), proxy);
        }
        std::vector<Scored> scored;
        estimate_best(proxy, kScreened, all.data(), left.data(), right.data(), scored);
        // Refine the best grid points: the edges strictly between their neighbours on the grid.
        std::vector<Scored> refined;
        for (int r = 0; r < std::min<int>(kRefined, static_cast<int>(scored.size())); ++r) {
            const Scored& s = scored[r];
            const std::vector<int32_t>& gf = grid[s.feature];
            const auto at = std::lower_bound(gf.begin(), gf.end(), s.bin) - gf.begin();
            const int32_t lo = at > 0 ? gf[at - 1] + 1 : 0;
            const int32_t hi = at + 1 < static_cast<int64_t>(gf.size()) ? gf[at + 1] - 1 : n_bins_[s.feature] - 2;
            std::vector<int32_t> edges;
            for (int32_t b = lo; b <= hi; ++b)
                if (!std::binary_search(gf.begin(), gf.end(), b)) edges.push_back(b);
            proxy.clear();
            sweep(s.feature, edges, all.data(), left.data(), right.data(), proxy);
            estimate_best(proxy, kRefined, all.data(), left.data(), right.data(), refined);
        }
        scored.insert(scored.end(), refined.begin(), refined.end());
        std::sort(scored.begin(), scored.end(), [this](const Scored& a, const Scored& b) { return before(a, b); });
        scored.erase(std::unique(scored.begin(), scored.end(),
                                 [](const Scored& a, const Scored& b) { return a.feature == b.feature && a.bin == b.bin; }),
                     scored.end());
        for (int r = 0; r < std::min<int>(count, static_cast<int>(scored.size())); ++r) {
            SplitRecord s;
            s.feature = features_[scored[r].feature];
            s.threshold = threshold_[offset_[scored[r].feature] + scored[r].bin];
            s.score = scored[r].score;
            out.push_back(s);
        }
    }

  private:
    struct Scored {
        double score;
        int32_t feature, bin;   // samples of bins <= bin go left
    };

    bool before(const Scored& a, const Scored& b) const {
        if (a.score < b.score - tol_) return true;
        if (a.score > b.score + tol_) return false;
        return a.feature < b.feature || (a.feature == b.feature && a.bin < b.bin);
    }

    // Codes of the state's samples: per screened feature, bins of about 1 / kBins of the weight in
    // value order, cut only between distinct values; a missing value gets the code n_bins[f] and goes
    // right. From here on a feature is its index in features_.
    void cut(NodeView node, const std::vector<int32_t>& features) {
        m_ = node.m;
        features_ = features;
        p_ = static_cast<int32_t>(features_.size());
        ids_.assign(node.block(0), node.block(0) + m_);
        for (int32_t j = 0; j < m_; ++j) local_[ids_[j]] = j;
        codes_.assign(static_cast<size_t>(m_) * p_, 0);
        n_bins_.assign(p_, 0);
        offset_.assign(p_ + 1, 0);
        order_.resize(static_cast<size_t>(m_) * p_);
        threshold_.clear();
        for (int32_t f = 0; f < p_; ++f) {
            stop_point();
            const int32_t feature = features_[f];
            const int32_t* block = node.block(feature);
            int32_t present = m_;
            while (present > 0 && std::isnan(data_.x(feature, block[present - 1]))) --present;
            // Bins of equal weight rather than equal counts, so that a weight of k cuts as k
            // repeated samples would.
            double present_weight = 0.0;
            for (int32_t j = 0; j < present; ++j) present_weight += obj_.w[block[j]];
            const double per_bin = present_weight / kBins;
            int32_t bin = 0;
            double next_cut = per_bin, before = 0.0;   // weight of the samples before j
            offset_[f] = static_cast<int32_t>(threshold_.size());
            for (int32_t j = 0; j < m_; ++j) {
                const int32_t i = local_[block[j]];
                order_[static_cast<size_t>(f) * m_ + j] = i;
                if (j < present && j > 0 && before >= next_cut) {
                    const double lo = data_.x(feature, block[j - 1]), hi = data_.x(feature, block[j]);
                    if (lo < hi) {
                        threshold_.push_back(midpoint(lo, hi));
                        ++bin;
                        while (next_cut <= before) next_cut += per_bin;
                    }
                }
                before += obj_.w[block[j]];
                codes_[static_cast<size_t>(i) * p_ + f] = static_cast<uint16_t>(j < present ? bin : kBins);
            }
            n_bins_[f] = present > 0 ? bin + 1 : 0;
            threshold_.push_back(0.0);   // after the last bin: no split
            // Missing values get the bin after the present ones, which always goes right.
            for (int32_t j = present; j < m_; ++j)
                codes_[static_cast<size_t>(order_[static_cast<size_t>(f) * m_ + j]) * p_ + f] =
                    static_cast<uint16_t>(n_bins_[f]);
        }
        // Histogram layout: feature f's bins (present ones, then missing) at hist_offset_[f] * D.
        hist_offset_.assign(p_ + 1, 0);
        for (int32_t f = 0; f < p_; ++f) hist_offset_[f + 1] = hist_offset_[f] + n_bins_[f] + 1;
        hist_size_ = static_cast<size_t>(hist_offset_[p_]) * D_;
    }

    void add_samples(double* hist, const int32_t* locals, int32_t count) const {
        for (int32_t j = 0; j < count; ++j) {
            if ((j & 4095) == 0) stop_point();
            const int32_t i = locals[j];
            const uint16_t* c = &codes_[static_cast<size_t>(i) * p_];
            if constexpr (O::kZeroOneLossOnCounts) {
                // The sample's class and weight read once, not once per feature (hist may alias them).
                const int32_t id = ids_[i], k = obj_.y[id];
                const double w = obj_.w[id];
                for (int32_t f = 0; f < p_; ++f) hist[(static_cast<size_t>(hist_offset_[f]) + c[f]) * D_ + k] += w;
            } else {
                for (int32_t f = 0; f < p_; ++f) obj_.add(hist + (static_cast<size_t>(hist_offset_[f]) + c[f]) * D_, ids_[i]);
            }
        }
    }

    // The `count` splits of `proxy` with the lowest proxy scores, appended to `out` with their
    // depth-3 estimates, `out` then sorted.
    void estimate_best(std::vector<Scored>& proxy, int count, const double* all, double* left, double* right,
                       std::vector<Scored>& out) {
        std::sort(proxy.begin(), proxy.end(), [this](const Scored& a, const Scored& b) { return before(a, b); });
        for (int r = 0; r < std::min<int>(count, static_cast<int>(proxy.size())); ++r) {
            stop_point();
            const int32_t f = proxy[r].feature, b = proxy[r].bin;
            const int32_t* order = &order_[static_cast<size_t>(f) * m_];
            int32_t j = 0;
            while (j < m_ && codes_[static_cast<size_t>(order[j]) * p_ + f] <= b) ++j;
            std::fill(left, left + hist_size_, 0.0);
            add_samples(left, order, j);
            for (size_t k = 0; k < hist_size_; ++k) right[k] = all[k] - left[k];
            out.push_back(Scored{side(order, j, left) + side(order + j, m_ - j, right), f, b});
        }
        std::sort(out.begin(), out.end(), [this](const Scored& a, const Scored& b) { return before(a, b); });
    }

    // The proxy score (best single split on each side) of the splits of feature f after each bin
    // of `edges` (increasing).
    void sweep(int32_t f, const std::vector<int32_t>& edges, const double* all, double* left, double* right,
               std::vector<Scored>& out) {
        std::fill(left, left + hist_size_, 0.0);
        const int32_t* order = &order_[static_cast<size_t>(f) * m_];
        int32_t j = 0;
        for (int32_t b : edges) {
            stop_point();
            const int32_t start = j;
            while (j < m_ && codes_[static_cast<size_t>(order[j]) * p_ + f] <= b) ++j;
            add_samples(left, order + start, j - start);
            if (j == 0 || j == m_) continue;
            for (size_t k = 0; k < hist_size_; ++k) right[k] = all[k] - left[k];
            out.push_back(Scored{stump(left) + stump(right), f, b});
        }
    }

    // Feature f's bins (present ones, then the missing one) in a histogram.
    const double* feature_hist(const double* hist, int32_t f) const {
        return hist + static_cast<size_t>(hist_offset_[f]) * D_;
    }

    // The statistics of all samples of `hist`, into total_.
    void sum_total(const double* hist) {
        const double* h0 = feature_hist(hist, 0);
        total_.assign(D_, 0.0);
        for (int32_t b = 0; b <= n_bins_[0]; ++b)
            for (int d = 0; d < D_; ++d) total_[d] += h0[static_cast<size_t>(b) * D_ + d];
    }

    // visit(f, b, left, right) for every split after a bin b of a feature f that leaves weight on
    // both sides; total_ holds the statistics of all samples.
    template <class Visit>
    void scan_splits(const double* hist, Visit&& visit) {
        sum_total(hist);
        cum_.resize(D_);
        rest_.resize(D_);
        for (int32_t f = 0; f < p_; ++f) {
            stop_point();
            const double* h = feature_hist(hist, f);
            std::fill(cum_.begin(), cum_.end(), 0.0);
            for (int32_t b = 0; b + 1 < n_bins_[f]; ++b) {
                for (int d = 0; d < D_; ++d) cum_[d] += h[static_cast<size_t>(b) * D_ + d];
                for (int d = 0; d < D_; ++d) rest_[d] = total_[d] - cum_[d];
                if (obj_.weight(cum_.data()) <= 0.0 || obj_.weight(rest_.data()) <= 0.0) continue;
                visit(f, b, cum_.data(), rest_.data());
            }
        }
    }

    // What the classification scan reads of the two sides of a split: their weights, heaviest
    // class sums and sums of squared class sums.
    struct Sides {
        double w_left = 0.0, w_right = 0.0, top_left = 0.0, top_right = 0.0, sq_left = 0.0, sq_right = 0.0;
    };

    // scan_splits for classification, visit(f, b, sides): one pass over each bin's class sums
    // instead of one per quantity, with the generic path's arithmetic in its order (the same
    // losses and impurities to the bit). The screen spends most of its time here.
    template <class Visit>
    void scan_class_splits(const double* hist, Visit&& visit) {
        sum_total(hist);
        const int K = D_;
        cum_.resize(K);
        const double* total = total_.data();
        double* cum = cum_.data();
        for (int32_t f = 0; f < p_; ++f) {
            stop_point();
            const double* h = feature_hist(hist, f);
            std::fill(cum, cum + K, 0.0);
            for (int32_t b = 0; b + 1 < n_bins_[f]; ++b) {
                const double* bin = h + static_cast<size_t>(b) * K;
                Sides s;
                for (int k = 0; k < K; ++k) {
                    const double l = cum[k] += bin[k], r = total[k] - l;
                    s.w_left += l;
                    s.w_right += r;
                    s.top_left = std::max(s.top_left, l);
                    s.top_right = std::max(s.top_right, r);
                    s.sq_left += l * l;
                    s.sq_right += r * r;
                }
                if (s.w_left <= 0.0 || s.w_right <= 0.0) continue;
                visit(f, b, s);
            }
        }
    }

    // Best loss of a leaf or a single split of the samples whose histogram is `hist`.
    double stump(const double* hist) {
        double best = std::numeric_limits<double>::infinity();
        if constexpr (O::kZeroOneLossOnCounts) {
            scan_class_splits(hist, [&](int32_t, int32_t, const Sides& s) {
                best = std::min(best, std::max(0.0, s.w_left - s.top_left) + std::max(0.0, s.w_right - s.top_right));
            });
        } else {
            scan_splits(hist, [&](int32_t, int32_t, const double* l, const double* r) {
                best = std::min(best, obj_.loss(l) + obj_.loss(r));
            });
        }
        return std::min(best, obj_.loss(total_.data()));
    }

    struct Generated {
        double decrease = 0.0;
        int32_t feature = -1, bin = -1;
    };
    // stump(hist), and best_generated(hist) into `generated`, in one scan of the histogram where
    // both read the same sums: each keeps its own arithmetic and visits the splits in the same
    // order, so both are what the two scans give, to the bit. The scans are the screen's cost, and
    // side() asks for both of a node and of its first children.
    double stump_and_generated(const double* hist, Generated& generated) {
        if constexpr (O::kZeroOneLossOnCounts) {
            if (obj_.criterion != Criterion::Gini) {
                // Other criteria's generators read the generic sums, the stump the class sums.
                generated = best_generated(hist);
                return stump(hist);
            }
        }
        Generated g;
        double best = std::numeric_limits<double>::infinity();
        sum_total(hist);
        const double parent = obj_.generator_impurity(total_.data());
        if constexpr (O::kZeroOneLossOnCounts) {
            scan_class_splits(hist, [&](int32_t f, int32_t b, const Sides& s) {
                best = std::min(best, std::max(0.0, s.w_left - s.top_left) + std::max(0.0, s.w_right - s.top_right));
                const double decrease =
                    parent - s.w_left * gini(s.sq_left, s.w_left) - s.w_right * gini(s.sq_right, s.w_right);
                if (decrease > g.decrease + tol_) g = Generated{decrease, f, b};
            });
        } else {
            scan_splits(hist, [&](int32_t f, int32_t b, const double* l, const double* r) {
                best = std::min(best, obj_.loss(l) + obj_.loss(r));
                const double decrease = parent - obj_.generator_impurity(l) - obj_.generator_impurity(r);
                if (decrease > g.decrease + tol_) g = Generated{decrease, f, b};
            });
        }
        generated = g;
        return std::min(best, obj_.loss(total_.data()));
    }
    // The CART generator's best split of the samples of `hist`: largest impurity decrease.
    Generated best_generated(const double* hist) {
        Generated best;
        sum_total(hist);
        const double parent = obj_.generator_impurity(total_.data());
        if constexpr (O::kZeroOneLossOnCounts) {
            if (obj_.criterion == Criterion::Gini) {
                scan_class_splits(hist, [&](int32_t f, int32_t b, const Sides& s) {
                    const double decrease =
                        parent - s.w_left * gini(s.sq_left, s.w_left) - s.w_right * gini(s.sq_right, s.w_right);
                    if (decrease > best.decrease + tol_) best = Generated{decrease, f, b};
                });
                return best;
            }
        }
        scan_splits(hist, [&](int32_t f, int32_t b, const double* l, const double* r) {
            const double decrease = parent - obj_.generator_impurity(l) - obj_.generator_impurity(r);
            if (decrease > best.decrease + tol_) best = Generated{decrease, f, b};
        });
        return best;
    }

    // The samples of `locals` going left of (feature, bin) into `left`, the others into `right`.
    void partition(const std::vector<int32_t>& locals, int32_t feature, int32_t bin, std::vector<int32_t>& left,
                   std::vector<int32_t>& right) const {
        left.clear();
        right.clear();
        for (int32_t i : locals) (codes_[static_cast<size_t>(i) * p_ + feature] <= bin ? left : right).push_back(i);
    }

    // The histogram of `small` summed directly, that of its sibling as `parent` minus it.
    void child_hists(const double* parent, const std::vector<int32_t>& small, double* small_hist,
                     double* other_hist) const {
        std::fill(small_hist, small_hist + hist_size_, 0.0);
        add_samples(small_hist, small.data(), static_cast<int32_t>(small.size()));
        for (size_t k = 0; k < hist_size_; ++k) other_hist[k] = parent[k] - small_hist[k];
    }

    // DPDT's value of a depth-2 subtree on the samples `locals[0..count)` with histogram `hist`:
    // a leaf, the best single split, or one of a best-first CART's splits with each child's best
    // single split below.
    double side(const int32_t* locals, int32_t count, const double* hist) {
        Generated root_split;
        double best = stump_and_generated(hist, root_split);
        if (best <= tol_) return best;
        // The histograms below live in pool_'s buffers, reused from call to call: allocating and
        // zeroing p * 257 * D doubles per node cost as much as scanning them.
        size_t used = 0;
        auto buffer = [&]() {
            if (used == pool_.size()) pool_.emplace_back();
            std::vector<double>& b = pool_[used++];
            if (b.size() < hist_size_) assign_polled(b, hist_size_, 0.0);
            return b.data();
        };
        struct Node {
            std::vector<int32_t> locals;
            const double* hist;
            Generated split;
        };
        std::vector<Node> open;
        Node root{std::vector<int32_t>(locals, locals + count), hist, root_split};
        if (root.split.feature >= 0) open.push_back(std::move(root));
        std::vector<Generated> generated;
        std::vector<int32_t> l, r;
        while (!open.empty() && static_cast<int>(generated.size()) < kSideSplits) {
            size_t at = 0;
            for (size_t k = 1; k < open.size(); ++k)
                if (open[k].split.decrease > open[at].split.decrease + tol_) at = k;
            Node node = std::move(open[at]);
            open.erase(open.begin() + static_cast<std::ptrdiff_t>(at));
            generated.push_back(node.split);
            if (static_cast<int>(generated.size()) == kSideSplits) break;
            partition(node.locals, node.split.feature, node.split.bin, l, r);
            double* left_hist = buffer();
            double* right_hist = buffer();
            if (l.size() <= r.size())
                child_hists(node.hist, l, left_hist, right_hist);
            else
                child_hists(node.hist, r, right_hist, left_hist);
            // The first split is the root's: its sides are the samples split in two, as below.
            Generated left_split, right_split;
            if (generated.size() == 1) {
                const double left_stump = stump_and_generated(left_hist, left_split);
                best = std::min(best, left_stump + stump_and_generated(right_hist, right_split));
            } else {
                left_split = best_generated(left_hist);
                right_split = best_generated(right_hist);
            }
            Node a{l, left_hist, left_split}, b{r, right_hist, right_split};
            for (Node* c : {&a, &b})
                if (c->split.feature >= 0) open.push_back(std::move(*c));
        }
        const std::vector<int32_t> all(locals, locals + count);
        double* small = buffer();
        double* other = buffer();
        for (size_t g = kSideSplits > 1 ? 1 : 0; g < generated.size(); ++g) {
            partition(all, generated[g].feature, generated[g].bin, l, r);
            if (l.empty() || r.empty()) continue;
            child_hists(hist, l.size() <= r.size() ? l : r, small, other);
            best = std::min(best, stump(small) + stump(other));
        }
        return best;
    }

    const Dataset& data_;
    const O& obj_;
    const int D_;
    std::vector<int32_t>& local_;   // sample id -> its index among the state's samples
    int32_t m_ = 0, p_ = 0;
    std::vector<int32_t> features_;   // screened feature -> dataset feature
    std::vector<int32_t> ids_;        // local index -> sample id
    std::vector<uint16_t> codes_;     // m x p, row-major
    std::vector<int32_t> order_;      // p blocks of m local indices in value order
    std::vector<int32_t> n_bins_, offset_, hist_offset_;
    std::vector<double> threshold_;   // threshold_[offset_[f] + b]: the split after bin b
    size_t hist_size_ = 0;
    double tol_ = 0.0;
    std::vector<double> total_, cum_, rest_;
    std::vector<std::vector<double>> pool_;   // side()'s histogram buffers
};

}  // namespace dpdt
