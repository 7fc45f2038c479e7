// Search's search of one state of depth >= 2 (the facts and the order at the top of optimal.cpp):
// the leaf and the tree one level shallower first, then each feature's thresholds as intervals
// refined best bound first, each cut's children searched under the bound left; CART's greedy
// tree for the incumbent; a child's state built for the level below.
#pragma once
#include "optimal/search.hpp"

namespace dpdt {
namespace {

template <class O>
Outcome Search<O>::greedy(int lv, int depth) {
    Level& l = levels_[lv];
    const int32_t m = l.m;
    std::vector<double> cw(obj_.dim());
    const double w = sums(l.block(0), m, cw.data());
    Outcome out = leaf(cw.data(), w, kInf);
    if (depth == 0 || m < 2 || out.value <= split_cost(w)) return out;
    double best_score = -kInf;
    int32_t best_f = -1, best_j = -1;
    for (int32_t f = 0; f < data_.p; ++f) {
        stop_point();
        detail::generator_scores(data_, obj_, l.block(f), m, f, LeafLimits{}, cw.data(), gen_left_, gen_right_,
                                      [&](int32_t j, double score) {
            if (score > best_score) {
                best_score = score;
                best_f = f;
                best_j = j;
            }
        });
    }
    if (best_f < 0) return out;
    const double* col = data_.column(best_f);
    const double threshold = midpoint(col[l.block(best_f)[best_j]], col[l.block(best_f)[best_j + 1]]);
    Outcome left, right;
    if (depth == 1) {
        // Leaves: only their samples in feature 0's order are read (for their sums, in the
        // order a child's block 0 would have), not a level of every feature's.
        left = greedy_leaf(lv, best_f, 0, best_j + 1);
        right = greedy_leaf(lv, best_f, best_j + 1, m);
    } else {
        build_child(lv, best_f, 0, best_j + 1);
        left = greedy(lv + 1, depth - 1);
        build_child(lv, best_f, best_j + 1, m);
        right = greedy(lv + 1, depth - 1);
    }
    const double value = left.value + right.value + split_cost(w);
    if (value < out.value) {
        out.value = value;
        out.shape = split_shape(best_f, threshold, left.shape, right.shape);
    }
    return out;
}

// greedy's leaf of positions [lo, hi) of feature f's block of level lv: its samples taken in
// feature 0's order (marked by position in f's block, then read along block 0).
template <class O>
Outcome Search<O>::greedy_leaf(int lv, int32_t f, int32_t lo, int32_t hi) {
    const Level& l = levels_[lv];
    const int32_t* ids = l.block(0);
    if (f != 0 && (lo > 0 || hi < l.m)) {
        marks_.assign(static_cast<size_t>(data_.n), 0);
        const int32_t* own = l.block(f);
        for (int32_t j = lo; j < hi; ++j) marks_[own[j]] = 1;
        subset_.resize(static_cast<size_t>(hi - lo));
        int32_t n = 0;
        for (int32_t j = 0; j < l.m; ++j)
            if (marks_[ids[j]]) subset_[n++] = ids[j];
        ids = subset_.data();
    } else {
        ids += lo;
    }
    std::vector<double> cw(obj_.dim());
    const double w = sums(ids, hi - lo, cw.data());
    return leaf(cw.data(), w, kInf);
}

template <class O>
Outcome Search<O>::child(int lv, int32_t f, int32_t lo, int32_t hi, int depth, double ub) {
    Level& l = levels_[lv];
    if (depth == 0) {
        const double w = sums(l.block(f) + lo, hi - lo, class_w_.data());
        return leaf(class_w_.data(), w, ub);
    }
    if (depth == 1) return depth_one(l, f, lo, hi, ub);
    if (reads_sets_at_two()) {
        // With binary features the states below read their samples as a set (set_child).
        Level& c = levels_[lv + 1];
        c.m = hi - lo;
        forget_ranks(c);
        c.hashed = false;
        c.set_only = true;
        c.blocks.resize(static_cast<size_t>(c.m) + 1);
        std::copy(l.block(f) + lo, l.block(f) + hi, c.blocks.begin());
        if (caches_states_) {
            c.bits.assign(static_cast<size_t>(sample_words_), 0);
            for (int32_t j = 0; j < c.m; ++j) c.bits[c.blocks[j] / 64] |= uint64_t{1} << (c.blocks[j] % 64);
        }
    } else {
        build_child(lv, f, lo, hi);
    }
    return solve(lv + 1, depth, ub, nullptr, nullptr);
}

// The samples of the set-only state of level lv at side s (0: lower value, 1: upper) of
// feature f, as the set-only state of level lv + 1, searched at `depth` under ub.
template <class O>
Outcome Search<O>::set_child(int lv, int32_t f, int s, int depth, double ub) {
    const Level& l = levels_[lv];
    Level& c = levels_[lv + 1];
    forget_ranks(c);
    c.hashed = false;
    c.set_only = true;
    c.blocks.resize(static_cast<size_t>(l.m) + 1);
    const double* col = data_.column(f);
    const double value = s ? pairs_->hi(f) : pairs_->lo(f);
    const int32_t* ids = l.block(0);
    int32_t n = 0;
    for (int32_t j = 0; j < l.m; ++j) {
        c.blocks[n] = ids[j];
        n += col[ids[j]] == value;
    }
    c.m = n;
    if (caches_states_) {
        const uint64_t* upper = upper_bits_.data() + static_cast<int64_t>(f) * sample_words_;
        c.bits.resize(static_cast<size_t>(sample_words_));
        for (int64_t x = 0; x < sample_words_; ++x) c.bits[x] = l.bits[x] & (s ? upper[x] : ~upper[x]);
    }
    return solve(lv + 1, depth, ub, nullptr, nullptr);
}

// Cuts and prefix weights of every feature (or of `only`) for the state of level lv (class
// sums cw), and each feature with a cut's seed, in feature order. The seed is the first
// threshold of highest score that classification_scores visits (the same sums and formula,
// and its bar: a threshold that cannot beat the best so far skips the divisions), found in
// the pass that finds the cuts for two classes under gini. With `prefixes` (two classes and
// exact sums) also the level's class prefixes (Search::prefix_w1_), for its children's
// depth_one (child_sums): a child of a state of depth 2 is read once per evaluated cut, the
// prefixes once.
template <class O>
std::vector<typename Search<O>::Seed> Search<O>::find_cuts(Level& l, int32_t only, const double* cw, bool prefixes) {
    const int32_t m = l.m;
    // (Room for every feature's cuts and prefixes at their most: n - 1 and n + 1.)
    const size_t most = static_cast<size_t>(data_.p * (data_.n + 2));
    l.n_cuts.assign(data_.p, 0);
    l.first_cut.assign(data_.p, 0);
    drop_prefixes(l);
    if (prefixes) prefixes_of_ = &l;
    int64_t used = 0;   // the cuts written so far
    std::vector<Seed> seeds;
    bool gini2 = false;
    const int32_t* y = nullptr;
    if constexpr (kCounts) {
        gini2 = obj_.n_classes == 2 && obj_.criterion == Criterion::Gini;
        y = obj_.y;
    }
    const double c0 = cw[0], c1 = gini2 ? cw[1] : 0.0, total = c0 + c1;
    const double parent = gini2 && total > 0.0 ? 2.0 * c0 * c1 / total : 0.0;
    const double margin = 1e-12 * total;
    const double* w = obj_.w;
    for (int32_t f = 0; f < data_.p; ++f) {
        l.first_cut[f] = used;
        if (only >= 0 && f != only) continue;
        stop_point();
        // Room for a cut after every position but the last, and their prefixes.
        const size_t room = static_cast<size_t>(l.prefix_at(f) + m + 1);
        grow_within(l.cuts, static_cast<size_t>(used + m), most);
        grow_within(l.prefix_w, room, most);
        if constexpr (!kCounts) grow_within(l.prefix_r, room, most);
        if (prefixes) {
            grow_within(prefix_w1_, room, most);
            grow_within(prefix_hash_, room, most);
        }
        const int32_t* ids = l.block(f);
        const double* col = data_.column(f);
        double* pw = l.prefix_w.data() + l.prefix_at(f);
        int32_t* cuts = l.cuts.data() + used;
        int32_t n = 0;
        double best_score = -kInf;
        int32_t best_cut = -1;
        // The weight of the first j + 1 samples, summed in the order of the block.
        double left = 0.0;
        pw[0] = 0.0;
        if (gini2) {
            double l0 = 0.0, l1 = 0.0;
            for (int32_t j = 0; j < m; ++j) {
                const int32_t i = ids[j];
                const double wi = w[i];
                const bool is1 = y[i] != 0;
                left += wi;
                l0 += is1 ? 0.0 : wi;
                l1 += is1 ? wi : 0.0;
                if (j + 1 == m || col[i] == col[ids[j + 1]]) continue;
                pw[n + 1] = left;
                cuts[n++] = j;
                const double wl = l0 + l1, r0 = std::max(0.0, c0 - l0), r1 = std::max(0.0, c1 - l1), wr = r0 + r1;
                if (wl <= 0.0 || wr <= 0.0) continue;
                if (-2.0 * (l0 * l1 * wr + r0 * r1 * wl) <= (best_score - parent - margin) * (wl * wr)) continue;
                const double score = parent - 2.0 * l0 * l1 / wl - 2.0 * r0 * r1 / wr;
                if (score > best_score) {
                    best_score = score;
                    best_cut = n - 1;
                }
            }
        } else {
            double* pr = kCounts ? nullptr : l.prefix_r.data() + l.prefix_at(f);
            double rises = 0.0;
            if (pr != nullptr) pr[0] = 0.0;
            for (int32_t j = 0; j < m; ++j) {
                left += w[ids[j]];
                if constexpr (!kCounts) rises += rise_w_[ids[j]];
                if (j + 1 < m && col[ids[j]] != col[ids[j + 1]]) {
                    pw[n + 1] = left;
                    if constexpr (!kCounts) pr[n + 1] = rises;
                    cuts[n++] = j;
                }
            }
            if constexpr (!kCounts) pr[n + 1] = rises;
            int32_t best_j = -1;
            if (n > 0)
                detail::generator_scores(data_, obj_, ids, m, f, LeafLimits{}, cw, gen_left_, gen_right_,
                                              [&](int32_t j, double score) {
                    if (score > best_score) {
                        best_score = score;
                        best_j = j;
                    }
                }, &best_score);
            if (best_j >= 0) best_cut = static_cast<int32_t>(std::lower_bound(cuts, cuts + n, best_j) - cuts);
        }
        pw[n + 1] = left;
        l.n_cuts[f] = n;
        used += n;
        if (n > 0) seeds.push_back(Seed{best_score, f, best_cut < 0 ? n / 2 : best_cut});
        if (prefixes) {
            double* pw1 = prefix_w1_.data() + l.prefix_at(f);
            SubsetHash* ph = prefix_hash_.data() + l.prefix_at(f);
            const double* split_w = split_w_.data();
            double c = 0.0;
            SubsetHash h;
            pw1[0] = c;
            ph[0] = h;
            int32_t t = 0;
            for (int32_t j = 0; j < m; ++j) {
                const int32_t i = ids[j];
                c += split_w[2 * i + 1];
                h.a += mixes_[2 * i];
                h.b += mixes_[2 * i + 1];
                if (t < n && cuts[t] == j) {
                    pw1[t + 1] = c;
                    ph[t + 1] = h;
                    ++t;
                }
            }
            pw1[n + 1] = c;
            ph[n + 1] = h;
        }
    }
    return seeds;
}

// The search of one state (samples of level lv, depth >= 2) described at the top of optimal.cpp;
// `shallower` is the state's outcome at depth - 1 when already known; `root` restricts the
// split to one feature (see RootTask).
template <class O>
Outcome Search<O>::solve(int lv, int depth, double ub, const Outcome* shallower, const RootTask* root) {
    ++stats.states;
    if (states_seen_.fetch_add(1, std::memory_order_relaxed) >= max_states_ && !loop_.limit_reached())
        loop_.reach(Limit::States);
    account();
    Level& l = levels_[lv];
    const int32_t m = l.m;
    stats.sample_reads += m;
    drop_prefixes(l);   // until this search's find_cuts
    std::vector<double> cw(obj_.dim());
    // With pair counts the set's hash keys the caches: taken in the same pass.
    double w_state;
    if (two_classes() && pairs_ != nullptr) {
        w_state = class_sums_and_hash(l.block(0), m, cw.data(), l.hash);
        l.hashed = true;
    } else {
        w_state = sums(l.block(0), m, cw.data());
    }
    if (!caches_states_ || root != nullptr || shallower != nullptr)
        return search_state(lv, depth, ub, shallower, root, cw.data(), w_state, 0.0);
    if (!l.hashed) {
        l.hash = set_hash(l.block(0), m);
        l.hashed = true;
    }
    const StateKey key{l.hash.a, l.hash.b, m, depth};
    double known_lower = 0.0;
    {
        Outcome settled;
        if (solved_.settles(key, ub, settled, known_lower)) {
            ++stats.cache_hits;
            return settled;
        }
    }
    // A state of depth two is solved whatever ub: its candidates come from its DepthTwo at
    // the same cost, and an exact entry answers every later visit.
    Outcome out = search_state(lv, depth, depth == 2 ? kInf : ub, nullptr, nullptr, cw.data(), w_state,
                               known_lower);
    if (!stopped()) {
        solved_.remember(key, out);
        if (l.set_only) archive(l, depth, out.value);
    }
    if (out.found && !(out.value < ub)) out.found = false;
    return out;
}

// solve() once the state's class sums cw (weight w_state) are known; known_lower: a lower
// bound of its value from the cache of solved states (0 without one).
template <class O>
Outcome Search<O>::search_state(int lv, int depth, double ub, const Outcome* shallower, const RootTask* root,
                                const double* cw_in, double w_state, double known_lower) {
    Level& l = levels_[lv];
    const int32_t m = l.m;
    std::vector<double> cw(cw_in, cw_in + obj_.dim());
    Outcome best = leaf(cw.data(), w_state, ub);
    double upper = std::min(ub, best.value);
    double lower = best.value;   // of every tree's value, from the leaf and the split bounds
    const double cost = split_cost(w_state);
    // `lower` bounds every candidate tried (or skipped by its bound); once stopped, the
    // candidates never tried are bounded where the search stops.
    auto finish = [&]() {
        best.found = best.value < ub;
        if (!best.found) best.value = std::max(known_lower, std::min(lower, best.value));
        if (stopped()) best.cut_short_lower = std::max(known_lower, std::min(lower, best.value));
        return best;
    };
    if (upper <= cost) lower = std::min(lower, cost);   // no split can beat the bound
    if (upper <= cost || m < 2) return finish();
    if constexpr (kCounts)
        if (depth == 2 && root == nullptr && shallower == nullptr && pairs_ != nullptr)
            return depth_two_binary(lv, cw.data(), w_state, ub, std::move(best), upper, lower);

    const int32_t only_feature = root != nullptr ? root->feature : -1;
    if (root != nullptr) shallower = root->shallower;
    Outcome computed;
    if (shallower == nullptr) {
        computed = depth == 2 ? depth_one(l, 0, 0, m, upper) : solve(lv, depth - 1, upper, nullptr, nullptr);
        shallower = &computed;
    }
    if (shallower->found && shallower->value < upper) {
        best.value = upper = shallower->value;
        best.shape = shallower->shape;
    }
    // Stopped, the shallower chain still ran, so a stopped state keeps its best shallower tree.
    if (stopped()) {
        if constexpr (kCounts)
            lower = std::min(lower, any_split_bound(shallower->lower(), w_state, kappa(depth - 1), cost));
        else
            lower = std::min(lower, any_split_bound(shallower->lower(),
                                                    rise(rises_of(l.block(0), m), w_state, depth - 1), 1.0, cost));
        return finish();
    }
    // A lower bound of the optimum at depth - 1: the children's values at the virtual cuts.
    // (lower() is value unless the search stopped: then only `lower` reads bounds.)
    const double edge = shallower->lower();
    const double kap = kappa(depth - 1);
    // (Only the 0-1 loss on class counts has set_only states: its pair counts make them.)
    if constexpr (kCounts) {
        if (l.set_only) {
            // Binary features, the state a set: each feature's one threshold, in the order of the
            // seeds below (CART's score first), with the weight left of it, is what the state's
            // DepthTwo lists; the search is the one below, whose intervals have no inner cut.
            const std::shared_ptr<const DepthTwo> two = depth_two(lv, cw.data(), w_state);
            for (const DepthTwo::Row& row : two->rows) {
                const int32_t f = row.f;
                const double w_left = row.w_left;
                ++stats.candidates;
                double lo_left = std::max(0.0, edge - kap * (w_state - w_left));
                double lo_right = std::max(0.0, edge - kap * w_left);
                if (lo_left + lo_right + cost < upper && caches_states_) {
                    const auto [similar_left, similar_right] = similarity_bounds(l, f, depth - 1);
                    lo_left = std::max(lo_left, similar_left);
                    lo_right = std::max(lo_right, similar_right);
                }
                // Where the order does not matter (caches_states_), the heavier side first, as
                // STreeD does: its value is the larger, so the other side's bound the tighter.
                const int first = caches_states_ && w_left < w_state - w_left ? 1 : 0;
                double lo[2] = {lo_left, lo_right};
                const double bound_first = upper - cost - lo[1 - first];
                if (lo[first] < bound_first && !stopped()) {
                    Outcome one = set_child(lv, f, first, depth - 1, bound_first);
                    lo[first] = std::max(lo[first], one.lower());
                    if (one.found) {
                        Outcome other = set_child(lv, f, 1 - first, depth - 1, upper - cost - one.value);
                        lo[1 - first] = std::max(lo[1 - first], other.lower());
                        if (other.found) {
                            const Outcome& left = first == 0 ? one : other;
                            const Outcome& right = first == 0 ? other : one;
                            best.value = upper = left.value + right.value + cost;
                            best.shape = split_shape(f, midpoint(pairs_->lo(f), pairs_->hi(f)), left.shape,
                                                     right.shape);
                        }
                    }
                }
                lower = std::min(lower, lo[0] + lo[1] + cost);
                if (upper <= known_lower) break;   // optimal, and the first such in this order
            }
            return finish();
        }
    }
    // (Only a state of depth 2 has children read by depth_one.)
    std::vector<Seed> seeds = find_cuts(l, only_feature, cw.data(), depth == 2 && two_classes() && exact_sums_);
    if (depth == 2) begin_sweeps(l);

    std::priority_queue<Interval, std::vector<Interval>, LaterInterval> queue;
    // The queue's intervals are charged to held_bytes() while they wait, however the search ends.
    using Queue = decltype(queue);
    struct Queued {
        const Queue& intervals;
        int64_t& bytes;
        ~Queued() { bytes -= static_cast<int64_t>(intervals.size() * sizeof(Interval)); }
    } queued{queue, queued_};
    auto prefix = [&](int32_t f, int32_t cut) {   // weight left of cut index `cut` (-1: none, n_cuts: all)
        return l.prefix_w[l.prefix_at(f) + std::clamp(cut + 1, 0, l.n_cuts[f] + 1)];
    };
    // How far the children's values move as the threshold crosses cuts a..b of feature f (the
    // second fact at the top of optimal.cpp): kap times the weight between, or, for objectives
    // other than the 0-1 loss, the samples' own rises between (rise()).
    auto rise_prefix = [&](int32_t f, int32_t cut) {
        return l.prefix_r[l.prefix_at(f) + std::clamp(cut + 1, 0, l.n_cuts[f] + 1)];
    };
    auto moving = [&](int32_t f, int32_t a, int32_t b) {
        return rise(rise_prefix(f, b) - rise_prefix(f, a), prefix(f, b) - prefix(f, a), depth - 1);
    };
    // interval_bound over cuts a..b of feature f.
    auto bound_over = [&](double la, double ra, double lb, double rb, int32_t f, int32_t a, int32_t b) {
        if constexpr (kCounts)
            return interval_bound(la, ra, lb, rb, prefix(f, b) - prefix(f, a), kap);
        else
            return interval_bound(la, ra, lb, rb, moving(f, a, b), 1.0);
    };
    // Whether the search is past the seeds (the sweeps' only readers are there).
    bool past_seeds = false;
    // A bound of an interval's cuts from the blocks of its feature's sweep, if swept by block.
    auto block_bound = [&](const Interval& x) {
        if (depth != 2 || !past_seeds || !sweeps_on_ || sweep_blocks_ == 0 || l.n_cuts[x.f] <= sweep_blocks_ ||
            !swept_made_[x.f])
            return -kInf;
        return swept_between(l, x.f, x.a, x.b, x.la, x.rb, upper - cost);
    };
    auto push = [&](const Interval& iv) {
        if (iv.b - iv.a < 2) return;
        Interval x = iv;
        x.bound = std::max(bound_over(x.la, x.ra, x.lb, x.rb, x.f, x.a, x.b), block_bound(x));
        if (x.bound + cost >= upper) {
            lower = std::min(lower, x.bound + cost);
            return;
        }
        queue.push(x);
        queued_ += sizeof(Interval);
    };
    // Evaluates cut t inside `iv` and pushes the two halves.
    auto evaluate = [&](const Interval& iv, int32_t t) {
        ++stats.candidates;
        const int32_t f = iv.f;
        // How far the left child's value moves from t to b, and the right's from a to t.
        double to_b, from_a;
        if constexpr (kCounts) {
            const double moved = prefix(f, t) - prefix(f, iv.a), span = prefix(f, iv.b) - prefix(f, iv.a);
            to_b = kap * (span - moved);
            from_a = kap * moved;
        } else {
            to_b = moving(f, t, iv.b);
            from_a = moving(f, iv.a, t);
        }
        double lo_left = std::max(iv.la, iv.lb - to_b);
        double lo_right = std::max(iv.rb, iv.ra - from_a);
        // Past the seeds, where f's cuts were swept (depth_two_sweep.hpp), the children's
        // values are read from the sweep (depth_one's own with exact sums, else bounds of
        // them), and only a cut that may beat the incumbent has its children searched, to
        // confirm it: the search takes the steps it would take with depth_one's values. Where
        // the sweep holds blocks of cuts, its values bound the children of every cut of t's
        // block (unless refined: then they are the cut's own), and a cut they do not settle is
        // searched as without a sweep.
        const bool from_sweep = depth == 2 && past_seeds && swept(l, f);
        double sweep_value[2] = {0.0, 0.0};
        const bool by_cut = from_sweep && swept_cut(l, f, t, upper - cost, sweep_value);
        if (from_sweep && !by_cut) {
            lo_left = std::max(lo_left, sweep_value[0]);
            lo_right = std::max(lo_right, sweep_value[1]);
        }
        const int32_t j = l.cuts_of(f)[t];
        cut_searched_ = t;
        // The heavier side first where the order does not matter (as in the set_only loop).
        const int first = caches_states_ && 2 * (j + 1) < m ? 1 : 0;
        const int32_t lo_pos[2] = {0, j + 1}, hi_pos[2] = {j + 1, m};
        double lo[2] = {lo_left, lo_right};
        const double bound_first = upper - cost - lo[1 - first];
        auto swept_child = [&](int side, double bound) {
            Outcome o;
            o.value = sweep_value[side];
            o.found = o.value < bound;
            return o;
        };
        if (lo[first] < bound_first && !stopped()) {
            Outcome one = by_cut ? swept_child(first, bound_first)
                                     : child(lv, f, lo_pos[first], hi_pos[first], depth - 1, bound_first);
            lo[first] = std::max(lo[first], one.lower());
            // A cut's two bounds that only reach the incumbent bound no other cut. So the
            // second child is searched under a bound raised by the weight between t and the
            // farther end of iv with a cut between (ConTree's slack, Brita et al., AAAI 2025),
            // even when the first child already failed: where the cut is that bad, the bound
            // it returns is high enough for the interval bounds to drop its neighbours up to
            // that end.
            const double needed = upper - cost - (one.found ? one.value : lo[first]);
            const double slack = std::max(t - iv.a > 1 ? from_a : 0.0, iv.b - t > 1 ? to_b : 0.0);
            if (needed + slack > lo[1 - first] && !stopped()) {
                Outcome other = by_cut ? swept_child(1 - first, needed + slack)
                                           : child(lv, f, lo_pos[1 - first], hi_pos[1 - first], depth - 1,
                                                   needed + slack);
                lo[1 - first] = std::max(lo[1 - first], other.lower());
                bool better = one.found && other.found && other.value < needed;
                if (better && by_cut && !stopped()) {
                    one = child(lv, f, lo_pos[first], hi_pos[first], depth - 1, bound_first);
                    lo[first] = std::max(lo[first], one.lower());
                    const double confirmed = upper - cost - (one.found ? one.value : lo[first]);
                    better = false;
                    if (one.found && !stopped()) {
                        other = child(lv, f, lo_pos[1 - first], hi_pos[1 - first], depth - 1, confirmed + slack);
                        lo[1 - first] = std::max(lo[1 - first], other.lower());
                        better = other.found && other.value < confirmed;
                    }
                }
                if (better) {
                    const Outcome& left = first == 0 ? one : other;
                    const Outcome& right = first == 0 ? other : one;
                    const double* col = data_.column(f);
                    const int32_t* ids = l.block(f);
                    best.value = upper = left.value + right.value + cost;
                    best.shape = split_shape(f, midpoint(col[ids[j]], col[ids[j + 1]]), left.shape, right.shape);
                }
            }
        }
        lower = std::min(lower, lo[0] + lo[1] + cost);
        return CutBounds{t, lo[0], lo[1]};
    };
    // The two halves of `iv` around its evaluated cut.
    auto split_interval = [&](const Interval& iv, const CutBounds& at) {
        push(Interval{0.0, iv.f, iv.a, at.cut, iv.la, iv.ra, at.left, at.right});
        push(Interval{0.0, iv.f, at.cut, iv.b, at.left, at.right, iv.lb, iv.rb});
    };

    // A root task ends as soon as every tree it can still find is at least its bar() (the
    // trees found so far, and the cuts that failed, are at least `upper`, itself at least the
    // bar while best is): the fit would keep none of them, so nothing it does changes the tree.
    auto futile = [&](double bound) {
        if (root == nullptr) return false;
        const double bar = root->bar();
        return best.value >= bar && bound + cost >= bar;
    };
    // Not found; its value (kInf) is no bound the fit reads, but its search's is.
    auto abandon = [&](double bound) {
        Outcome abandoned;
        abandoned.cut_short_lower = std::min(std::min(lower, best.value), bound + cost);
        return abandoned;
    };

    // Each feature's first cut is CART's split (find_cuts' seed): a good incumbent early.
    // Best score first, so the incumbent drops early.
    std::stable_sort(seeds.begin(), seeds.end(), [](const Seed& a, const Seed& b) { return a.score > b.score; });
    RootSeed* const saved = root != nullptr ? root->seed : nullptr;
    const bool seed_only = root != nullptr && root->seed_only;
    const bool resumed = saved != nullptr && root->resume && saved->ready.load(std::memory_order_acquire);
    const int64_t first_step = resumed ? saved->done : 0;
    if (resumed) {
        if (saved->best.value < best.value) best = saved->best;
        upper = std::min(upper, saved->upper);
        lower = std::min(lower, saved->lower);
        for (const Interval& iv : saved->queue) {
            queue.push(iv);
            queued_ += sizeof(Interval);
        }
        seeds.clear();
    }
    for (const Seed& s : seeds) {
        const Interval whole{0.0, s.f, -1, l.n_cuts[s.f], 0.0, edge, edge, 0.0};
        // (A root task has one seed, so the whole interval is all it can still find.)
        const double whole_bound = bound_over(0.0, edge, edge, 0.0, s.f, -1, l.n_cuts[s.f]);
        if (futile(whole_bound)) return abandon(whole_bound);   // (a round's saves nothing then)
        split_interval(whole, evaluate(whole, s.cut));
    }
    int64_t step = first_step;
    past_seeds = true;
    while (!queue.empty() && !stopped()) {
        if (seed_only && step >= root->until) break;
        if (saved != nullptr && step > first_step && root->round_end(step)) {
            // Where a round's task has not run (or not ended): the memo as a search resumed
            // there has it (start_task), so that the tree is the same either way.
            start_task();
        }
        Interval iv = queue.top();
        queue.pop();
        queued_ -= sizeof(Interval);
        if (iv.bound + cost >= upper) {
            lower = std::min(lower, iv.bound + cost);
            break;
        }
        if (futile(iv.bound)) {   // the queue's lowest bound: it bounds the rest
            if (!seed_only) return abandon(iv.bound);
            // A round saves the search as it is: the search resumed here ends here too (the
            // bar only falls).
            queue.push(iv);
            queued_ += sizeof(Interval);
            break;
        }
        // An interval queued before its feature's sweep by block (or before its blocks were
        // refined) goes back under their bound, and that is not a step: the steps are the same
        // whichever task swept or refined it.
        if (depth == 2 && swept(l, iv.f)) {
            if (sweep_blocks_ > 0) refine_live(l, iv.f, upper - cost);
            const double raised = block_bound(iv);
            if (raised > iv.bound) {
                iv.bound = raised;
                queue.push(iv);
                queued_ += sizeof(Interval);
                continue;
            }
        }
        split_interval(iv, evaluate(iv, iv.a + (iv.b - iv.a) / 2));
        ++step;
    }
    if (seed_only && saved != nullptr && !stopped()) {
        // The feature's search resumes from here.
        saved->best = best;
        saved->upper = upper;
        saved->lower = lower;
        saved->done = step;
        saved->queue.clear();
        for (auto rest = queue; !rest.empty(); rest.pop()) saved->queue.push_back(rest.top());
        saved->ready.store(true, std::memory_order_release);
    }
    if (!queue.empty()) lower = std::min(lower, queue.top().bound + cost);   // stopped, or seed_only
    if (seed_only) {
        // The seed's tree, and a bound of every tree the feature's search can find.
        Outcome out = finish();
        out.cut_short_lower = std::min(lower, best.value);
        return out;
    }
    return finish();
}

}  // namespace
}  // namespace dpdt
