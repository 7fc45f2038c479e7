// Search's states of depth one: the best stump of a sample set, every threshold of every feature
// scanned, and the result kept in the thread's memo (DepthOneMemo). The 0-1 loss on class counts
// scans a chunk at a time (scans.hpp), the filter with it, so that both end early; any other
// objective gathers each feature's order and scans its statistics, ending once the left side's
// loss, which only grows along the scan, settles it.
#pragma once
#include "optimal/search.hpp"

namespace dpdt {
namespace {

// The memo's stump of the set of hash h (size samples) into out, under ub, if it has one (else
// out is left as it was: the set's leaf).
template <class O>
bool Search<O>::from_memo(const SubsetHash& h, int32_t size, double ub, Outcome& out) {
    const DepthOneMemo::Entry* e = memo_.find(h, size);
    if (e == nullptr) return false;
    ++stats.cache_hits;
    if (e->feature >= 0) {
        out.value = e->value;
        out.shape = stump_of(e->feature, e->threshold);
    }
    out.found = out.value < ub;
    return true;
}

// The scan's result (feature -1: the leaf in out stays) into out and the memo.
template <class O>
void Search<O>::remember(const SubsetHash& h, int32_t size, int32_t feature, double threshold, double ub,
                         Outcome& out) {
    if (feature >= 0) out.shape = stump_of(feature, threshold);
    memo_.insert(DepthOneMemo::Entry{h.b, size, feature, out.value, threshold});
    out.found = out.value < ub;
}

// The best tree of depth <= 1 on positions [lo, hi) of feature f's block of level l (the 0-1 loss
// on class counts).
template <class O>
Outcome Search<O>::depth_one_counts(Level& l, int32_t f, int32_t lo, int32_t hi, double ub) {
    const int32_t size = hi - lo;
    const int32_t* own = l.block(f) + lo;
    SubsetHash h;
    const double w = obj_.n_classes == 2 ? child_sums(l, f, lo, hi, h) : class_sums(own, size, class_w_.data());
    Outcome out = leaf_outcome(class_w_.data(), obj_.n_classes, w, ub);
    const double cost = split_cost(w);
    if (size < 2 || out.value <= cost) return out;
    if (obj_.n_classes != 2) h = set_hash(own, size);
    if (from_memo(h, size, ub, out)) return out;
    ++stats.exact_scans;
    subset_.resize(static_cast<size_t>(size) + kKeepSlack);
    int32_t feature = -1;   // of the best stump so far (none: the leaf)
    double threshold = 0.0;
    // A stump of loss 0 (value == cost) cannot be beaten: the scan stops there.
    for (int32_t g = 0; g < data_.p && out.value > cost; ++g) {
        stop_point();
        const double* col = data_.column(g);
        // The search needs the loss only; the split is chosen among the equally good ones by
        // impurity when the tree is written out (see refined_stump).
        int32_t j = -1;
        double loss;
        // With few ties the scan first takes every position for a threshold (Scan01's
        // kDistinct), and again without when the first best it finds lies between equal
        // values: otherwise that position is the first best of the thresholds too (they are
        // among the positions), and the early end is as sound (every later loss is bounded).
        const bool filtered = (obj_.n_classes == 2 || exact_sums_) && g != f && (lo > 0 || hi < l.m);
        if (filtered) {
            // A feature constant here has no threshold: j stays -1.
            loss = obj_.n_classes == 2
                       ? filtered_binary_01_loss(l, f, lo, hi, g, few_ties_[g], subset_.data(), j, cost, out.value)
                       : filtered_multiclass_01_loss(l, f, lo, hi, g, subset_.data(), w, j, cost, out.value);
        } else {
            gather(l, f, lo, hi, g, subset_.data(), true);
            if (col[subset_[0]] == col[subset_[size - 1]]) continue;
            if (obj_.n_classes == 2)
                loss = binary_01_loss(col, few_ties_[g], subset_.data(), size, j, cost, out.value);
            else if (exact_sums_)
                loss = exact_multiclass_01_loss(col, subset_.data(), size, w, j, cost, out.value);
            else
                loss = multiclass_01_loss(col, subset_.data(), size, j);
        }
        if (obj_.n_classes == 2 && few_ties_[g] && j >= 0 && loss + cost < out.value &&
            col[subset_[j]] == col[subset_[j + 1]]) {
            j = -1;
            loss = filtered ? filtered_binary_01_loss(l, f, lo, hi, g, false, subset_.data(), j, cost, out.value)
                            : binary_01_loss(col, false, subset_.data(), size, j, cost, out.value);
        }
        if (j >= 0 && loss + cost < out.value) {
            out.value = loss + cost;
            feature = g;
            threshold = midpoint(col[subset_[j]], col[subset_[j + 1]]);
        }
    }
    remember(h, size, feature, threshold, ub, out);
    return out;
}

// depth_one of any other objective: each feature's order of the samples gathered, then scanned.
template <class O>
Outcome Search<O>::depth_one_general(Level& l, int32_t f, int32_t lo, int32_t hi, double ub) {
    const int32_t size = hi - lo;
    const int32_t* own = l.block(f) + lo;
    const double w = sums(own, size, class_w_.data());
    Outcome out = leaf(class_w_.data(), w, ub);
    const double cost = split_cost(w);
    if (size < 2 || out.value <= cost) return out;
    const SubsetHash h = set_hash(own, size);
    if (from_memo(h, size, ub, out)) return out;
    ++stats.exact_scans;
    subset_.resize(static_cast<size_t>(size) + kKeepSlack);
    int32_t feature = -1;   // of the best stump so far (none: the leaf)
    double threshold = 0.0;
    for (int32_t g = 0; g < data_.p && out.value > cost; ++g) {
        stop_point();
        const double* col = data_.column(g);
        gather(l, f, lo, hi, g, subset_.data(), true);
        if (col[subset_[0]] == col[subset_[size - 1]]) continue;
        int32_t j = -1;
        const double loss = general_split_loss(col, subset_.data(), size, j, cost, out.value);
        if (j >= 0 && loss + cost < out.value) {
            out.value = loss + cost;
            feature = g;
            threshold = midpoint(col[subset_[j]], col[subset_[j + 1]]);
        }
    }
    remember(h, size, feature, threshold, ub, out);
    return out;
}

// The lowest loss of a threshold of the m samples `ids` (sorted by col), whose statistics are
// class_w_; j: the last sample left of it (-1 if none). The left side only gains samples along the
// scan, so its loss only grows and bounds every later threshold's: the scan ends once it reaches
// the lowest so far (ties keep the first) or makes a stump of split cost `cost` no better than
// `bar`, and the loss is then only right if below bar - cost, which is all depth_one reads of it.
template <class O>
double Search<O>::general_split_loss(const double* col, const int32_t* ids, int32_t m, int32_t& j, double cost,
                                     double bar) {
    const int dim = obj_.dim();
    double* left = gen_left_.data();
    double* right = gen_right_.data();
    const double* all = class_w_.data();
    std::fill(left, left + dim, 0.0);
    double best = kInf;
    for (int32_t k = 0; k + 1 < m; ++k) {
        add(left, ids[k], dim);
        if (col[ids[k]] == col[ids[k + 1]]) continue;
        const double left_loss = obj_.loss(left);
        if (left_loss >= best || left_loss + cost >= bar) break;
        for (int d = 0; d < dim; ++d) right[d] = all[d] - left[d];
        const double loss = left_loss + obj_.loss(right);
        if (loss < best) {
            best = loss;
            j = k;
        }
    }
    return std::max(0.0, best);
}

// Lowest 0-1 loss of a threshold of the m samples `ids` (sorted by col) of two classes, whose
// class sums are class_w_; j: the last sample left of it (-1 if no threshold). With exact
// sums the scan may end early (Scan01::done): then the loss is only right if it is below
// bar - cost, which is all depth_one reads of it.
template <class O>
double Search<O>::binary_01_loss(const double* col, bool every, const int32_t* ids, int32_t m, int32_t& j, double cost,
                                 double bar) const {
    Scan01 scan{class_w_[0], class_w_[1], col[ids[0]]};
    for (int32_t k0 = 0; k0 + 1 < m; k0 += kScanChunk) {
        scan.run(every, exact_sums_, col, ids, k0, std::min(m - 1, k0 + kScanChunk), scan_w(), j);
        if (exact_sums_ && scan.done(cost, bar)) break;
    }
    return std::max(0.0, scan.best);
}

// binary_01_loss of the samples at positions [lo, hi) of feature f's block, in feature g's
// order: gather's filter, a chunk of the block at a time, each followed by the scan of what
// it added, so that where the scan ends early the filter does too. out: hi - lo + kKeepSlack
// slots.
template <class O>
double Search<O>::filtered_binary_01_loss(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, bool every,
                                          int32_t* out, int32_t& j, double cost, double bar) {
    const Ranks rank = ranks_for(l, f, g, true);
    const int32_t* ids = l.block(g);
    const double* col = data_.column(g);
    const uint32_t span = static_cast<uint32_t>(hi - lo);
    Scan01 scan{class_w_[0], class_w_[1], 0.0};
    int32_t s = 0, k = 0;
    for (int32_t q0 = 0; q0 < l.m; q0 += kScanChunk) {
        const int32_t q1 = std::min(l.m, q0 + kScanChunk);
        s += keep(rank, ids, q0, q1, lo, span, out + s);
        if (k == 0 && s > 0) scan.x = col[out[0]];
        if (k + 1 < s) {
            scan.run(every, exact_sums_, col, out, k, s - 1, scan_w(), j);
            k = s - 1;
            if (exact_sums_ && scan.done(cost, bar)) break;
        }
    }
    return std::max(0.0, scan.best);
}

// multiclass_01_loss with exact sums (ScanK): the class sums are class_w_, of weight w. It may
// end early, as binary_01_loss.
template <class O>
double Search<O>::exact_multiclass_01_loss(const double* col, const int32_t* ids, int32_t m, double w, int32_t& j,
                                           double cost, double bar) {
    ScanK scan = multiclass_scan(w);
    for (int32_t k0 = 0; k0 + 1 < m; k0 += kScanChunk) {
        scan.run(col, ids, k0, std::min(m - 1, k0 + kScanChunk), j);
        if (scan.done(cost, bar)) break;
    }
    return std::max(0.0, scan.best);
}

// exact_multiclass_01_loss of the samples at positions [lo, hi) of feature f's block, in
// feature g's order: the filter and the scan a chunk at a time, as filtered_binary_01_loss.
template <class O>
double Search<O>::filtered_multiclass_01_loss(Level& l, int32_t f, int32_t lo, int32_t hi, int32_t g, int32_t* out,
                                              double w, int32_t& j, double cost, double bar) {
    const Ranks rank = ranks_for(l, f, g, true);
    const int32_t* ids = l.block(g);
    const double* col = data_.column(g);
    const uint32_t span = static_cast<uint32_t>(hi - lo);
    ScanK scan = multiclass_scan(w);
    int32_t s = 0, k = 0;
    for (int32_t q0 = 0; q0 < l.m; q0 += kScanChunk) {
        const int32_t q1 = std::min(l.m, q0 + kScanChunk);
        s += keep(rank, ids, q0, q1, lo, span, out + s);
        if (k + 1 < s) {
            scan.run(col, out, k, s - 1, j);
            k = s - 1;
            if (scan.done(cost, bar)) break;
        }
    }
    return std::max(0.0, scan.best);
}

template <class O>
ScanK Search<O>::multiclass_scan(double w) {
    scratch_.assign(static_cast<size_t>(obj_.n_classes), 0.0);
    return ScanK{obj_.y, obj_.w, class_w_.data(), obj_.n_classes, w, scratch_.data()};
}

// The same for any number of classes: the heaviest class of every suffix comes from a
// backward pass, so each threshold costs O(1).
template <class O>
double Search<O>::multiclass_01_loss(const double* col, const int32_t* ids, int32_t m, int32_t& j) {
    const int K = obj_.n_classes;
    const int32_t* y = obj_.y;
    const double* w = obj_.w;
    scratch_.assign(static_cast<size_t>(m) + 1 + K, 0.0);
    double* suffix_max = scratch_.data();
    double* sums = suffix_max + m + 1;
    double running = 0.0, total = 0.0;
    for (int32_t k = m - 1; k >= 0; --k) {
        const int32_t i = ids[k];
        running = std::max(running, sums[y[i]] += w[i]);
        total += w[i];
        suffix_max[k] = running;
    }
    std::fill(sums, sums + K, 0.0);
    double wl = 0.0, max_left = 0.0, best = kInf;
    for (int32_t k = 0; k + 1 < m; ++k) {
        const int32_t i = ids[k];
        max_left = std::max(max_left, sums[y[i]] += w[i]);
        wl += w[i];
        if (col[i] == col[ids[k + 1]]) continue;
        const double loss = (wl - max_left) + (total - wl - suffix_max[k + 1]);
        if (loss < best) {
            best = loss;
            j = k;
        }
    }
    return std::max(0.0, best);
}

}  // namespace
}  // namespace dpdt
