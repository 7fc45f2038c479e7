// The max over thresholds of K(K-1) running sums at once, as samples join one side (SuffixMax,
// BucketMax): the exact search's depth-two sweep (depth_two_sweep.hpp) reads from it the best
// stump, on one feature, of every child a cut of another feature makes, one sample added at a
// time.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace dpdt {
namespace {

// Thresholds s = 0..groups-1 ("the samples of group <= s go left"), each with `pairs` sums
// D_p(s), all 0 at reset. add_from(g, d) adds d_p to D_p(s) for every s >= g (a sample of group
// g joins the left side of those thresholds); top() is max_s D_p(s) for every p. A segment tree
// with the adds kept at the nodes that cover them: an add costs O(log groups) per pair.
class SuffixMax {
  public:
    void reset(int32_t groups, int pairs) {
        pairs_ = pairs;
        size_ = 1;
        while (size_ < groups) size_ <<= 1;
        add_.assign(static_cast<size_t>(2 * size_ * pairs_), 0.0);
        max_.assign(static_cast<size_t>(size_ * pairs_), 0.0);
    }
    void add_from(int32_t g, const double* d) {
        apply_from(g, d);
        rebuild(g);
    }
    // at_g added to D_p(g), and d to D_p(s) for every s > g: one pass up the tree (the nodes
    // above g + 1's leaf that are not above g's have g + 1 for their first threshold, so they
    // are covered whole).
    void add_at_and_after(int32_t g, const double* at_g, const double* d) {
        double* a = add_.data() + (g + size_) * pairs_;
        for (int p = 0; p < pairs_; ++p) a[p] += at_g[p];
        if (g + 1 < size_) apply_from(g + 1, d);
        rebuild(g);
    }
    // max_s D_p(s) into out (pairs of them).
    void top(double* out) const {
        for (int p = 0; p < pairs_; ++p) out[p] = add_[pairs_ + p] + (size_ > 1 ? max_[pairs_ + p] : 0.0);
    }
    // reset(groups, pairs) with D_p(s) = values[s pairs + p] instead of 0.
    void assign(int32_t groups, int pairs, const double* values) {
        reset(groups, pairs);
        std::copy(values, values + static_cast<int64_t>(groups) * pairs, add_.data() + size_ * pairs_);
        // (The thresholds past groups, none of a sample's, hold the last one's D: as add_from leaves them.)
        for (int64_t s = groups; s < size_; ++s)
            std::copy(values + (groups - 1) * static_cast<int64_t>(pairs), values + static_cast<int64_t>(groups) * pairs,
                      add_.data() + (size_ + s) * pairs_);
        for (int64_t v = size_ - 1; v >= 1; --v) {
            double* mv = max_.data() + v * pairs_;
            const double* a0 = add_.data() + 2 * v * pairs_;
            const double* a1 = a0 + pairs_;
            if (2 * v < size_) {
                const double* m0 = max_.data() + 2 * v * pairs_;
                const double* m1 = m0 + pairs_;
                for (int p = 0; p < pairs_; ++p) mv[p] = std::max(a0[p] + m0[p], a1[p] + m1[p]);
            } else {
                for (int p = 0; p < pairs_; ++p) mv[p] = std::max(a0[p], a1[p]);
            }
        }
    }
    int64_t bytes() const {
        return static_cast<int64_t>((add_.capacity() + max_.capacity()) * sizeof(double));
    }
    // The bytes reset(groups, pairs) would hold.
    static int64_t bytes_for(int32_t groups, int pairs) {
        int64_t size = 1;
        while (size < groups) size <<= 1;
        return 3 * size * pairs * static_cast<int64_t>(sizeof(double));
    }

  private:
    // d added to the nodes that cover thresholds g.. whole, their maxima above not yet.
    void apply_from(int32_t g, const double* d) {
        const int P = pairs_;
        int64_t lo = g + size_, hi = 2 * size_;
        while (lo < hi) {
            if (lo & 1) {
                double* a = add_.data() + lo++ * P;
                for (int p = 0; p < P; ++p) a[p] += d[p];
            }
            if (hi & 1) {
                double* a = add_.data() + --hi * P;
                for (int p = 0; p < P; ++p) a[p] += d[p];
            }
            lo >>= 1;
            hi >>= 1;
        }
    }
    // The maxima of the nodes above g's leaf, the only ones an add from or at g covers in part.
    void rebuild(int32_t g) {
        const int P = pairs_;
        for (int64_t v = (g + size_) >> 1; v >= 1; v >>= 1) {
            double* mv = max_.data() + v * P;
            const double* a0 = add_.data() + 2 * v * P;
            const double* a1 = a0 + P;
            if (2 * v < size_) {
                const double* m0 = max_.data() + 2 * v * P;
                const double* m1 = m0 + P;
                for (int p = 0; p < P; ++p) mv[p] = std::max(a0[p] + m0[p], a1[p] + m1[p]);
            } else {
                for (int p = 0; p < P; ++p) mv[p] = std::max(a0[p], a1[p]);
            }
        }
    }

    int pairs_ = 0;
    int64_t size_ = 1;
    std::vector<double> add_;   // 2 size x pairs: what was added to every threshold under node v
    std::vector<double> max_;   // size x pairs: the max, over node v's thresholds, of the adds below v
};

// SuffixMax's maxima with its adds kept flat, by group: an add costs O(pairs) and a read
// O(groups pairs), where SuffixMax's add costs O(log groups pairs) and its read O(pairs). For a
// sweep read once every many adds (at blocks of cuts, not at every cut), with few groups.
class BucketMax {
  public:
    void reset(int32_t groups, int pairs) {
        groups_ = groups;
        pairs_ = pairs;
        sums_.assign(static_cast<size_t>(2 * groups * pairs), 0.0);
        running_.resize(static_cast<size_t>(pairs));
    }
    // at_g added to D_p(g), and d to D_p(s) for every s > g.
    void add(int32_t g, const double* at_g, const double* d) {
        double* a = sums_.data() + 2 * static_cast<int64_t>(g) * pairs_;
        double* after = a + pairs_;
        for (int p = 0; p < pairs_; ++p) {
            a[p] += at_g[p];
            after[p] += d[p];
        }
    }
    // max_s D_p(s) into out (pairs of them).
    void top(double* out) {
        const int P = pairs_;
        double* running = running_.data();
        std::fill(running, running + P, 0.0);
        std::fill(out, out + P, -std::numeric_limits<double>::infinity());
        const double* a = sums_.data();
        for (int32_t g = 0; g < groups_; ++g, a += 2 * P) {
            for (int p = 0; p < P; ++p) {
                out[p] = std::max(out[p], running[p] + a[p]);
                running[p] += a[P + p];
            }
        }
    }
    // D_p(s) of every threshold into out (groups x pairs).
    void values(double* out) {
        const int P = pairs_;
        double* running = running_.data();
        std::fill(running, running + P, 0.0);
        const double* a = sums_.data();
        for (int32_t g = 0; g < groups_; ++g, a += 2 * P, out += P) {
            for (int p = 0; p < P; ++p) {
                out[p] = running[p] + a[p];
                running[p] += a[P + p];
            }
        }
    }
    int64_t bytes() const {
        return static_cast<int64_t>((sums_.capacity() + running_.capacity()) * sizeof(double));
    }
    // The bytes reset(groups, pairs) would hold.
    static int64_t bytes_for(int32_t groups, int pairs) {
        return (2 * static_cast<int64_t>(groups) + 1) * pairs * static_cast<int64_t>(sizeof(double));
    }

  private:
    int32_t groups_ = 0;
    int pairs_ = 0;
    std::vector<double> sums_;      // groups x 2 x pairs: what was added at g, and to every s > g
    std::vector<double> running_;   // top()'s scratch
};

}  // namespace
}  // namespace dpdt
