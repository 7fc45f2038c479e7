// The class weights of every pair of binary features over one sample set (MurTree's frequency
// counts, Demirovic et al., JMLR 2022): what the exact solver needs to know every tree of depth
// <= 2 of a set at once when each feature takes at most two values.
//
// Counted with bitsets: one bit per sample for each feature's upper value, and one bitset per
// class and per bit of the (integral) weights, so that a pair's weighted class sum is a sum of
// popcounts scaled by powers of two. Weights that are integers times one power of two keep every
// sum exact, so a value built from these counts is the same double as a scan over the samples
// gives, whatever the order.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/objectives/classification.hpp"
#include "dpdt/run_loop.hpp"

namespace dpdt {

// For every feature g in [g0, p): acc[(g - g0) * G + gi] = popcount(a & b_g & groups[x * G + gi])
// summed over the words x, b_g = features + g * words: a row of the counts in one call. With
// G = 2 (two classes of unit weights) a's two class masks are taken once, into `masked` (2 x
// words), and a one-word set keeps them in registers. Built for the popcnt instruction where the
// CPU has one (chosen at load time: the wheel targets every x86-64).
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("popcnt", "default")))
#endif
static void row_popcounts(const uint64_t* a, const uint64_t* features, int64_t g0, int64_t p, const uint64_t* groups,
                          int64_t words, int G, int64_t* acc, uint64_t* masked) {
    if (G == 2) {
        for (int64_t x = 0; x < words; ++x) {
            masked[x] = a[x] & groups[2 * x];
            masked[words + x] = a[x] & groups[2 * x + 1];
        }
        if (words == 1) {
            const uint64_t a0 = masked[0], a1 = masked[1];
            for (int64_t g = g0; g < p; ++g) {
                acc[2 * (g - g0)] = __builtin_popcountll(a0 & features[g]);
                acc[2 * (g - g0) + 1] = __builtin_popcountll(a1 & features[g]);
            }
            return;
        }
        for (int64_t g = g0; g < p; ++g) {
            const uint64_t* b = features + g * words;
            int64_t s0 = 0, s1 = 0;
            for (int64_t x = 0; x < words; ++x) {
                s0 += __builtin_popcountll(masked[x] & b[x]);
                s1 += __builtin_popcountll(masked[words + x] & b[x]);
            }
            acc[2 * (g - g0)] = s0;
            acc[2 * (g - g0) + 1] = s1;
        }
        return;
    }
    for (int64_t g = g0; g < p; ++g) {
        const uint64_t* b = features + g * words;
        int64_t* out = acc + (g - g0) * G;
        for (int gi = 0; gi < G; ++gi) out[gi] = 0;
        for (int64_t x = 0; x < words; ++x) {
            const uint64_t both = a[x] & b[x];
            if (both == 0) continue;
            for (int gi = 0; gi < G; ++gi) out[gi] += __builtin_popcountll(both & groups[x * G + gi]);
        }
    }
}

// popcount(a[x]) summed over n words, with the popcnt instruction where the CPU has one.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("popcnt", "default")))
#endif
static int64_t popcount_words(const uint64_t* a, int64_t n) {
    int64_t s = 0;
    for (int64_t x = 0; x < n; ++x) s += __builtin_popcountll(a[x]);
    return s;
}

// For the set d and the two sides of a set (in & ~upper, in & upper), over n words: how many of
// d's samples each side lacks, into out[0], out[1].
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("popcnt", "default")))
#endif
static void outside_sides(const uint64_t* d, const uint64_t* in, const uint64_t* upper, int64_t n, int64_t* out) {
    int64_t lower_side = 0, upper_side = 0;
    for (int64_t x = 0; x < n; ++x) {
        lower_side += __builtin_popcountll(d[x] & ~(in[x] & ~upper[x]));
        upper_side += __builtin_popcountll(d[x] & ~(in[x] & upper[x]));
    }
    out[0] = lower_side;
    out[1] = upper_side;
}

// Two classes of sums c0, c1: the value (0-1 loss + cost) of splitting on each of n features,
// whose samples at their upper value have class sums u0[g], u1[g] (d0[g] - u0[g], d1[g] - u1[g]
// with `lower`), into v[g]: infinite where one side is empty; returns their minimum. Exact sums
// make min(l0, l1) the same double as the scan's (l0 + l1) - max(l0, l1). Built for AVX2 where
// the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
static double two_class_stump_values(double c0, double c1, double cost, const double* d0, const double* d1,
                                     const double* u0s, const double* u1s, bool lower, int64_t n, double* v) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    auto value = [&](double u0, double u1) {
        const double l0 = c0 - u0, l1 = c1 - u1;
        const double x = std::min(l0, l1) + std::min(u0, u1) + cost;
        return (u0 + u1 > 0.0) & (l0 + l1 > 0.0) ? x : inf;   // no branch: vectorised
    };
    if (lower)
        for (int64_t g = 0; g < n; ++g) v[g] = value(d0[g] - u0s[g], d1[g] - u1s[g]);
    else
        for (int64_t g = 0; g < n; ++g) v[g] = value(u0s[g], u1s[g]);
    // The minimum on the values' bits: doubles >= +0 (or +inf) order as their bits do as
    // integers, a reduction the compiler vectorises (it may not reorder one on doubles).
    int64_t lowest = std::numeric_limits<int64_t>::max();
    for (int64_t g = 0; g < n; ++g) {
        int64_t bits;
        std::memcpy(&bits, v + g, sizeof bits);
        lowest = bits < lowest ? bits : lowest;
    }
    double out = inf;
    if (n > 0) std::memcpy(&out, &lowest, sizeof out);
    return out;
}

// The smallest q >= 0 for which every weight times 2^q is an integer and so is every sum of them
// (total * 2^q < 2^53): then sums of weights are exact in any order. -1 when there is none (q <=
// 40). Python passes weights scaled by a power of two, so integral weights qualify.
inline int exact_weight_exponent(const double* w, int64_t n, double total) {
    constexpr int kMaxExponent = 40;
    int q = 0;
    for (int64_t i = 0; i < n; ++i) {
        while (q <= kMaxExponent && std::ldexp(w[i], q) != std::floor(std::ldexp(w[i], q))) ++q;
        if (q > kMaxExponent) return -1;
    }
    return std::ldexp(total, q) < 9e15 ? q : -1;
}

// In place: afterwards bit j of a[c] is what bit c of a[j] was (Hacker's Delight's 64 x 64 bit
// transpose, bit 0 the lowest).
inline void transpose64(uint64_t* a) {
    uint64_t m = 0x00000000FFFFFFFFULL;
    for (int j = 32; j != 0; j >>= 1, m ^= m << j) {
        for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
            const uint64_t t = ((a[k] >> j) ^ a[k | j]) & m;
            a[k | j] ^= t;
            a[k] ^= t << j;
        }
    }
}

class PairCounts {
  public:
    // Weights of up to 2^kMaxPlanes - 1: more planes cost more than the scans they replace.
    static constexpr int kMaxPlanes = 8;

    // Usable when every feature of `data` takes at most two values and every weight times 2^q
    // (see exact_weight_exponent) is an integer in [1, 2^kMaxPlanes).
    PairCounts(const Dataset& data, const Classification& obj, int q)
        : data_(data), obj_(obj), K_(obj.n_classes) {
        lo_.assign(data.p, 0.0);
        hi_.assign(data.p, 0.0);
        usable_ = !data.has_missing && data.n > 0;
        for (int64_t f = 0; f < data.p && usable_; ++f) {
            const int32_t* ids = data.presorted.data() + f * data.n;
            const double* col = data.column(f);
            lo_[f] = col[ids[0]];
            hi_[f] = col[ids[data.n - 1]];
            for (int64_t j = 1; j + 1 < data.n && usable_; ++j)
                usable_ = col[ids[j]] == lo_[f] || col[ids[j]] == hi_[f];
        }
        double max_w = 0.0;
        units_.assign(usable_ ? data.n : 0, 0);
        for (int64_t i = 0; i < data.n && usable_; ++i) {
            const double w = std::ldexp(obj.w[i], q);
            usable_ = w >= 1.0 && w == std::floor(w) && w < static_cast<double>(1 << kMaxPlanes);
            max_w = std::max(max_w, w);
            units_[i] = static_cast<uint32_t>(w);
        }
        unit_ = std::ldexp(1.0, -q);
        planes_ = 1;
        while (usable_ && (1 << planes_) <= max_w) ++planes_;
        // Each sample's features at their upper value, as bits: a state's bitsets are these
        // rows transposed, 64 samples by 64 features at a time.
        row_words_ = (data.p + 63) / 64;
        if (usable_) {
            rows_.assign(static_cast<size_t>(data.n * row_words_), 0);
            for (int64_t f = 0; f < data.p; ++f) {
                if (lo_[f] == hi_[f]) continue;   // one value: never split, never counted as upper
                const double* col = data.column(f);
                for (int64_t i = 0; i < data.n; ++i)
                    rows_[i * row_words_ + f / 64] |= static_cast<uint64_t>(col[i] == hi_[f]) << (f % 64);
            }
        }
    }

    bool usable() const { return usable_; }
    // What its buffers hold, in bytes.
    int64_t bytes() const {
        auto of = [](const auto& v) { return static_cast<int64_t>(v.capacity() * sizeof(v[0])); };
        return of(units_) + of(lo_) + of(hi_) + of(rows_) + of(features_) + of(interleaved_) + of(active_) +
               of(acc_) + of(masked_) + of(pair_) + of(diag_) + of(class_w_);
    }
    double lo(int64_t f) const { return lo_[f]; }
    double hi(int64_t f) const { return hi_[f]; }

    // Counts the samples `ids`; class_w: their class sums. Only the features that take both
    // values among them (active(), in feature order) are counted: the others split nothing, and
    // deep in a tree most features are constant on a state's few samples.
    void count(const int32_t* ids, int32_t m, const double* class_w) {
        const int64_t p = data_.p;
        words_ = (m + 63) / 64;
        features_.resize(static_cast<size_t>(p * words_));
        uint64_t block[64];
        for (int64_t x = 0; x < words_; ++x) {
            const int32_t first = static_cast<int32_t>(x * 64), end = std::min<int32_t>(m, first + 64);
            for (int64_t fw = 0; fw < row_words_; ++fw) {
                for (int32_t j = first; j < first + 64; ++j)
                    block[j - first] = j < end ? rows_[ids[j] * row_words_ + fw] : 0;
                transpose64(block);
                for (int64_t c = 0, f = fw * 64; c < 64 && f < p; ++c, ++f) features_[f * words_ + x] = block[c];
            }
        }
        // Active features' bitsets moved to the front, in feature order.
        active_.clear();
        for (int64_t f = 0; f < p; ++f) {
            const uint64_t* bits = features_.data() + f * words_;
            const int64_t upper = popcount_words(bits, words_);
            if (upper == 0 || upper == m) continue;
            const int64_t a = static_cast<int64_t>(active_.size());
            if (a != f) std::copy(bits, bits + words_, features_.data() + a * words_);
            active_.push_back(static_cast<int32_t>(f));
        }
        const int64_t pa = static_cast<int64_t>(active_.size());
        const int G = K_ * planes_;
        interleaved_.assign(static_cast<size_t>(words_ * G), 0);
        for (int32_t j = 0; j < m; ++j) {
            const int32_t i = ids[j];
            const uint64_t bit = uint64_t{1} << (j & 63);
            const uint32_t w = units_[i];
            uint64_t* at = interleaved_.data() + (j >> 6) * G + static_cast<int64_t>(obj_.y[i]) * planes_;
            for (int b = 0; b < planes_; ++b)
                if ((w >> b) & 1u) at[b] |= bit;
        }
        pair_.resize(static_cast<size_t>(K_ * pa * pa));   // every entry is written below
        acc_.resize(static_cast<size_t>(pa * G));
        masked_.resize(static_cast<size_t>(2 * words_));
        for (int64_t f = 0; f < pa; ++f) {
            stop_point();   // pa^2 / 2 pairs of m / 64 words: long on many samples
            row_popcounts(features_.data() + f * words_, features_.data(), f, pa, interleaved_.data(), words_, G,
                          acc_.data(), masked_.data());
            if (K_ == 2 && planes_ == 1) {   // two classes of unit weights: no planes to add
                const int64_t* acc = acc_.data();
                const double unit = unit_;
                double* plane0 = pair_.data();
                double* plane1 = plane0 + pa * pa;
                for (int64_t g = f; g < pa; ++g) {
                    plane0[f * pa + g] = plane0[g * pa + f] = static_cast<double>(acc[2 * (g - f)]) * unit;
                    plane1[f * pa + g] = plane1[g * pa + f] = static_cast<double>(acc[2 * (g - f) + 1]) * unit;
                }
                continue;
            }
            for (int64_t g = f; g < pa; ++g) {
                const int64_t* acc = acc_.data() + (g - f) * G;
                for (int k = 0; k < K_; ++k) {
                    int64_t sum = 0;
                    for (int b = 0; b < planes_; ++b) sum += acc[k * planes_ + b] << b;
                    double* plane = pair_.data() + k * pa * pa;
                    plane[f * pa + g] = plane[g * pa + f] = static_cast<double>(sum) * unit_;
                }
            }
        }
        class_w_.assign(class_w, class_w + K_);
        diag_.resize(static_cast<size_t>(K_ * pa));
        for (int k = 0; k < K_; ++k)
            for (int64_t g = 0; g < pa; ++g) diag_[k * pa + g] = row(k, g)[g];
    }

    // The features counted last, in feature order; the methods below index them by position a
    // in this list.
    const std::vector<int32_t>& active() const { return active_; }

    // Class k's sums of the samples upper on active feature a and on each active feature b, at
    // [b]; for a < 0, of the samples upper on b (the diagonal). Valid until the next count.
    const double* row(int k, int64_t a) const {
        const int64_t pa = static_cast<int64_t>(active_.size());
        return a < 0 ? diag_.data() + k * pa : pair_.data() + (k * pa + a) * pa;
    }

    // Class sums of the samples at value side (0: lower, 1: upper) of active feature a, into out.
    void side(int64_t a, int s, double* out) const {
        for (int k = 0; k < K_; ++k) out[k] = s ? row(k, a)[a] : class_w_[k] - row(k, a)[a];
    }

  private:
    const Dataset& data_;
    const Classification& obj_;
    const int K_;
    std::vector<uint32_t> units_;   // each sample's weight in units of unit_ = 2^-q
    double unit_ = 1.0;
    bool usable_ = false;
    int planes_ = 1;
    int64_t words_ = 0;
    std::vector<double> lo_, hi_;
    int64_t row_words_ = 0;
    std::vector<uint64_t> rows_;   // n x row_words_: bit f % 64 of word f / 64, x_f upper
    std::vector<uint64_t> features_, interleaved_;   // p x words; words x (K x planes), by class then bit
    std::vector<int32_t> active_;   // the features counted, in order; features_' first rows are theirs
    std::vector<int64_t> acc_;   // one row of popcounts (row_popcounts)
    std::vector<uint64_t> masked_;   // row_popcounts' scratch
    std::vector<double> pair_;   // K x pa x pa (pa active features): class sums upper on both
    std::vector<double> diag_;   // K x pa: the diagonal of pair_, each feature's upper value
    std::vector<double> class_w_;
};

}  // namespace dpdt
