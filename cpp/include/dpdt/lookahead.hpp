// Depth-2 lookahead split generator: a split is ranked by the loss of the best tree of depth <= 2
// it can root (each child is a leaf or its best single split, both found exactly). The top splits
// over every threshold of every feature are found exactly by branch and bound: for an interval of
// consecutive thresholds of one feature, the samples sure to go left (right) are a subset of the
// left (right) child of every split in it, and the best depth-1 loss of a subset is no larger than
// that of the set (a tree's loss restricted to fewer samples can only drop, and the subset's own
// optimum is lower still), so the two subsets' best losses bound the whole interval from below.
// That needs a loss that only grows as samples are added: 0-1 and squared error, not the
// second-order boosting objective, whose leaves can gain from more samples.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <type_traits>
#include <vector>

#include "dpdt/split_search.hpp"

namespace dpdt {

template <class O>
class Lookahead {
  public:
    // `rank` is a per-thread scratch array of one slot per sample of the dataset.
    Lookahead(const Dataset& data, const O& obj, const LeafLimits& limits, std::vector<int32_t>& rank)
        : data_(data), obj_(obj), limits_(limits), rank_(rank), stats_(obj.dim()), left_(obj.dim()),
          right_(obj.dim()) {}

    // The `count` splits of lowest lookahead loss (ties: lower feature, then lower threshold),
    // each with score = that loss; `seeds` are splits to evaluate first, so that the bound
    // prunes from the start. With max_reads > 0, a search that would read more than max_reads
    // sample ids stops and returns false with `out` empty.
    bool top_splits(NodeView node, int count, const std::vector<SplitRecord>& seeds,
                    std::vector<SplitRecord>& out, int64_t max_reads = 0) {
        node_ = node;
        count_ = count;
        reads_left_ = max_reads > 0 ? max_reads : std::numeric_limits<int64_t>::max();
        out.clear();
        // The first bounds of a feature read 2 kChunks subsets, m p ids each, unless they are pure:
        // a search that cannot afford them is not started.
        if (max_reads > 0 && 2 * kChunks * static_cast<int64_t>(node.m) * data_.p * data_.p > max_reads) return false;
        feature_ = -1;
        best_.clear();
        std::vector<double> stats(obj_.dim(), 0.0);
        node_stats(obj_, node.block(0), node.m, stats.data());
        total_ = obj_.weight(stats.data());
        tol_ = 1e-11 * (total_ + std::abs(obj_.loss(stats.data()))) + 1e-300;
        for (const SplitRecord& s : seeds) {
            set_feature(s.feature);
            consider(s.feature, s.n_left - 1);
        }
        for (int32_t f = 0; f < data_.p && reads_left_ >= 0; ++f) search_feature(f);
        if (reads_left_ < 0) return false;
        for (const Scored& s : best_) {
            SplitRecord r;
            r.feature = s.feature;
            r.n_left = s.j + 1;
            const int32_t* ids = node.block(s.feature);
            r.threshold = midpoint(data_.x(s.feature, ids[s.j]), data_.x(s.feature, ids[s.j + 1]));
            r.score = s.score;
            out.push_back(r);
        }
        return true;
    }

  private:
    struct Scored {
        double score;
        int32_t feature, j;   // split between samples j and j + 1 of the feature's block
    };
    // Scores within the tolerance tie (sums taken in another order), and ties go to the lower
    // feature, then the lower threshold.
    bool before(const Scored& a, const Scored& b) const {
        if (a.score < b.score - tol_) return true;
        if (a.score > b.score + tol_) return false;
        return a.feature < b.feature || (a.feature == b.feature && a.j < b.j);
    }
    struct Interval {
        double bound;
        int32_t a, b;   // positions a..b (inclusive) of the feature's valid thresholds
        bool operator>(const Interval& o) const { return bound > o.bound || (bound == o.bound && a > o.a); }
    };
    // A feature's thresholds start in a few chunks, and a chunk whose bound survives is halved:
    // each halving costs two depth-1 evaluations, so only the promising ranges are refined.
    static constexpr int kChunks = 4;

    double worst_kept() const {
        return static_cast<int>(best_.size()) < count_ ? std::numeric_limits<double>::infinity() : best_.back().score;
    }

    void set_feature(int32_t f) {
        if (f == feature_) return;
        feature_ = f;
        const int32_t* ids = node_.block(f);
        for (int32_t j = 0; j < node_.m; ++j) rank_[ids[j]] = j;
        const size_t slots = static_cast<size_t>(node_.m) + 1;
        const double unknown = std::numeric_limits<double>::quiet_NaN();
        for (auto* memo : {&prefix_free_, &suffix_free_, &prefix_valid_, &suffix_valid_}) memo->assign(slots, unknown);
    }

    // Exact lookahead loss of the split after position j of the current feature.
    void consider(int32_t f, int32_t j) {
        for (const Scored& s : best_)
            if (s.feature == f && s.j == j) return;
        // Without leaf limits the relaxed bound is the exact value: share its memo.
        const bool limited = limits_.min_samples > 1 || limits_.min_weight > 0.0;
        const double score = best_one(0, j + 1, limited, limited ? prefix_valid_ : prefix_free_) +
                             best_one(j + 1, node_.m, limited, limited ? suffix_valid_ : suffix_free_);
        const Scored s{score, f, j};
        if (static_cast<int>(best_.size()) == count_ && !before(s, best_.back())) return;
        auto at = best_.begin();
        while (at != best_.end() && !before(s, *at)) ++at;
        best_.insert(at, s);
        if (static_cast<int>(best_.size()) > count_) best_.pop_back();
    }

    // Lower bound of every split after positions valid[a..b] of the current feature: the samples
    // up to valid[a] go left in all of them, those after valid[b] go right. Leaf limits are
    // relaxed, since a subset may fail a limit that its superset meets.
    double bound(const std::vector<int32_t>& valid, int32_t a, int32_t b) {
        return best_one(0, valid[a] + 1, false, prefix_free_) + best_one(valid[b] + 1, node_.m, false, suffix_free_);
    }

    void search_feature(int32_t f) {
        const int32_t* ids = node_.block(f);
        const double* col = data_.column(f);
        if (node_.m < 2 || col[ids[0]] == col[ids[node_.m - 1]]) return;
        // Valid thresholds of the split itself, which must respect the leaf limits.
        valid_.clear();
        double wl = 0.0;
        for (int32_t j = 0; j + 1 < node_.m; ++j) {
            wl += obj_.w[ids[j]];
            if (col[ids[j]] == col[ids[j + 1]]) continue;
            if (limits_.allow(j + 1, node_.m - j - 1, wl, total_ - wl)) valid_.push_back(j);
        }
        if (valid_.empty()) return;
        set_feature(f);
        std::priority_queue<Interval, std::vector<Interval>, std::greater<Interval>> heap;
        auto push_chunks = [&](int32_t a, int32_t b, int32_t pieces) {
            const int32_t len = b - a + 1;
            const int32_t chunks = std::min<int32_t>(pieces, len);
            for (int32_t c = 0; c < chunks; ++c) {
                const int32_t lo = a + static_cast<int32_t>(static_cast<int64_t>(len) * c / chunks);
                const int32_t hi = a + static_cast<int32_t>(static_cast<int64_t>(len) * (c + 1) / chunks) - 1;
                if (lo > hi) continue;
                const double lb = bound(valid_, lo, hi);
                if (lb > worst_kept() + tol_) continue;
                heap.push(Interval{lb, lo, hi});
            }
        };
        push_chunks(0, static_cast<int32_t>(valid_.size()) - 1, kChunks);
        while (!heap.empty() && reads_left_ >= 0) {
            stop_point();
            const Interval iv = heap.top();
            heap.pop();
            if (iv.bound > worst_kept() + tol_) break;
            if (iv.a == iv.b) {
                consider(f, valid_[iv.a]);
                continue;
            }
            push_chunks(iv.a, iv.b, 2);
        }
    }

    // Loss of the best tree of depth <= 1 on the node's samples whose rank in the current
    // feature's block lies in [lo, hi); with `limited`, its split must respect the leaf limits.
    double best_one(int32_t lo, int32_t hi, bool limited, std::vector<double>& memo) {
        const int32_t key = lo == 0 ? hi : lo;
        if (!std::isnan(memo[key])) return memo[key];
        const int32_t size = hi - lo;
        const LeafLimits none;
        const LeafLimits& limits = limited ? limits_ : none;
        // The subset's statistics, from the current feature's block where it is contiguous.
        std::fill(stats_.begin(), stats_.end(), 0.0);
        const int32_t* own = node_.block(feature_) + lo;
        for (int32_t j = 0; j < size; ++j) obj_.add(stats_.data(), own[j]);
        double best = obj_.loss(stats_.data());
        if (size >= 2 && obj_.improvable(stats_.data())) {
            reads_left_ -= static_cast<int64_t>(node_.m) * data_.p;
            subset_.resize(static_cast<size_t>(size) + 1);   // the branch-free filter writes one past
            for (int32_t g = 0; g < data_.p; ++g) {
                stop_point();
                const int32_t* ids = node_.block(g);
                int32_t s = 0;
                for (int32_t j = 0; j < node_.m; ++j) {
                    const int32_t i = ids[j];
                    subset_[s] = i;
                    s += (rank_[i] >= lo) & (rank_[i] < hi);
                }
                best = std::min(best, best_split_loss(g, size, limits));
            }
        }
        memo[key] = best;
        return best;
    }

    // Lowest loss of a split of the m samples of subset_ (sorted by feature g) on feature g; +inf if none.
    double best_split_loss(int32_t g, int32_t m, const LeafLimits& limits) {
        const double* col = data_.column(g);
        double best = std::numeric_limits<double>::infinity();
        if (col[subset_[0]] == col[subset_[m - 1]]) return best;
        if constexpr (O::kZeroOneLossOnCounts) {
            const int K = obj_.n_classes;
            const double* cw = stats_.data();
            double total = 0.0;
            for (int k = 0; k < K; ++k) total += cw[k];
            if (K == 2) {
                double l0 = 0.0, l1 = 0.0;
                for (int32_t j = 0; j + 1 < m; ++j) {
                    const int32_t i = subset_[j];
                    (obj_.y[i] != 0 ? l1 : l0) += obj_.w[i];
                    if (col[i] == col[subset_[j + 1]]) continue;
                    if (!limits.allow(j + 1, m - j - 1, l0 + l1, total - l0 - l1)) continue;
                    best = std::min(best, std::min(l0, l1) + std::min(std::max(0.0, cw[0] - l0), std::max(0.0, cw[1] - l1)));
                }
                return best;
            }
            // Largest class sum of every suffix, then one forward pass.
            suffix_max_.assign(static_cast<size_t>(m) + 1, 0.0);
            class_.assign(K, 0.0);
            double running = 0.0;
            for (int32_t j = m - 1; j >= 0; --j) {
                const int32_t i = subset_[j];
                running = std::max(running, class_[obj_.y[i]] += obj_.w[i]);
                suffix_max_[j] = running;
            }
            class_.assign(K, 0.0);
            double wl = 0.0, max_left = 0.0;
            for (int32_t j = 0; j + 1 < m; ++j) {
                const int32_t i = subset_[j];
                max_left = std::max(max_left, class_[obj_.y[i]] += obj_.w[i]);
                wl += obj_.w[i];
                if (col[i] == col[subset_[j + 1]]) continue;
                if (!limits.allow(j + 1, m - j - 1, wl, total - wl)) continue;
                best = std::min(best, std::max(0.0, wl - max_left) + std::max(0.0, total - wl - suffix_max_[j + 1]));
            }
            return best;
        } else {
            const int D = obj_.dim();
            std::fill(left_.begin(), left_.end(), 0.0);
            const double total = obj_.weight(stats_.data());
            for (int32_t j = 0; j + 1 < m; ++j) {
                const int32_t i = subset_[j];
                obj_.add(left_.data(), i);
                if (col[i] == col[subset_[j + 1]]) continue;
                const double wl = obj_.weight(left_.data());
                if (!limits.allow(j + 1, m - j - 1, wl, total - wl)) continue;
                for (int d = 0; d < D; ++d) right_[d] = stats_[d] - left_[d];
                best = std::min(best, obj_.loss(left_.data()) + obj_.loss(right_.data()));
            }
            return best;
        }
    }

    const Dataset& data_;
    const O& obj_;
    const LeafLimits& limits_;
    std::vector<int32_t>& rank_;
    NodeView node_;
    int count_ = 0;
    int64_t reads_left_ = 0;   // sample ids the search may still read; below 0 it has stopped
    double total_ = 0.0;   // the node's weight
    double tol_ = 0.0;
    int32_t feature_ = -1;
    std::vector<Scored> best_;   // sorted, at most count_
    std::vector<int32_t> valid_, subset_;
    std::vector<double> stats_, left_, right_, suffix_max_, class_;
    // Best depth-1 losses of the current feature's prefixes (keyed by their end) and suffixes
    // (keyed by their start), with the leaf limits relaxed (free) or not (valid).
    std::vector<double> prefix_free_, suffix_free_, prefix_valid_, suffix_valid_;
};

}  // namespace dpdt
