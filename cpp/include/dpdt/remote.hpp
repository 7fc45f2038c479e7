// Fits whose samples live on other machines (dpdt.dask). The driver runs the binned search itself,
// the same code as a local binned fit, on states it knows only by their sums over every machine's
// rows: sample count, subset hash and fixed-point histogram, all exact integer sums, so that any
// partitioning of the rows gives the local fit's tree bit for bit.
//
// A state is named by its path from the root, the splits that select its rows. The driver cannot
// know which states its search will reach before it has the histograms that choose the splits, so
// a fit is a sequence of rounds: RemoteFit::run() replays the whole search on the states known so
// far, a state it does not know yet being a leaf without samples, and returns the paths of those it
// met; the machines sum their rows' answers (state_histograms) and RemoteFit::add() records them.
// A round reveals the states one split deeper (a generator's CART grows one level per round), and
// the search that meets no unknown state is the local fit's, complete. Of two children of a known
// state only the smaller is asked for: the other is the parent minus it (LightGBM's subtraction).
#pragma once
#include <algorithm>
#include <climits>
#include <initializer_list>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "dpdt/layout.hpp"
#include "dpdt/params.hpp"
#include "dpdt/run_loop.hpp"
#include "dpdt/solver.hpp"
#include "dpdt/subset_hash.hpp"

namespace dpdt {

// One split on a path: the rows of the state before it that split (feature, bin, missing_left) of
// the binned layout sends to the side `left` (1) or right (0).
struct PathStep {
    int32_t feature = 0, bin = 0, missing_left = 0, left = 0;
};
using Path = std::vector<PathStep>;

// The rows of `rows` that satisfy step s (branch-free, as the binned layout partitions).
template <class Code>
std::vector<int32_t> satisfying(const BinnedData<Code>& data, const std::vector<int32_t>& rows, const PathStep& s) {
    std::vector<int32_t> kept(rows.size() + 1);
    const Code* __restrict column = data.codes + s.feature;
    const int64_t p = data.p;
    const int32_t missing = data.n_bins[s.feature], bin = s.bin;
    const bool missing_left = s.missing_left != 0, want_left = s.left != 0;
    size_t n = 0;
    for (int32_t i : rows) {
        const int32_t code = column[static_cast<int64_t>(i) * p];
        const bool left = code == missing ? missing_left : code <= bin;
        kept[n] = i;
        n += left == want_left;
    }
    kept.resize(n);
    kept.shrink_to_fit();   // kept in a RowCache, which counts sizes
    return kept;
}

// A state as the driver knows it: sums over every machine's rows, and what the searches have read
// off its histogram so far. A round's search asks the same of a state as the round before, and a
// little more while the state's generator grows, so the answers are kept and the histogram can be
// dropped when the driver's memory is short: a state whose histogram is asked for again is fetched
// again (a later round), which changes no result.
struct RemoteState {
    int32_t m = 0;
    SubsetHash hash;
    std::vector<int64_t> hist;     // the binned layout's histogram; empty once dropped
    std::vector<int64_t> totals;   // its fixed-point sums over every bin, then the row count
    std::vector<uint8_t> missing;  // per feature: whether some row misses it
    int64_t last_read = 0;         // the store's clock when `hist` was last read or written
    bool unread = false;           // fetched for the coming rounds and not read yet: kept until then
    int64_t fetched_round = 0;     // the round `hist` was fetched for
    // Children asked for whose sibling is to be this state minus them: `hist` is needed again.
    std::vector<int32_t> awaited;
    // Scans by (kind, argument, features), and the fixed-point sums a split sends left by
    // (feature, bin, missing_left).
    std::map<std::tuple<int, int64_t, uint64_t>, std::vector<SplitRecord>> scans;
    std::map<std::tuple<int32_t, int32_t, int32_t>, std::vector<int64_t>> left;
};

// The states met so far, by path (a tree of nodes; node 0 is the root), the known ones, and the
// unknown ones the current round met.
class RemoteStore {
  public:
    RemoteStore() : nodes_(1) {}

    // The node of the path `parent` + step, made on first use.
    int32_t child(int32_t parent, const PathStep& step) {
        const auto key = std::make_tuple(parent, step.feature, step.bin, step.missing_left, step.left);
        auto it = index_.find(key);
        if (it != index_.end()) return it->second;
        const auto node = static_cast<int32_t>(nodes_.size());
        nodes_.push_back(Node{parent, step});
        index_.emplace(key, node);
        return node;
    }
    int32_t node_of(const Path& path) {
        int32_t node = 0;
        for (const PathStep& s : path) node = child(node, s);
        return node;
    }
    Path path_of(int32_t node) const {
        Path path;
        for (; node > 0; node = nodes_[node].parent) path.push_back(nodes_[node].step);
        return Path(path.rbegin(), path.rend());
    }

    RemoteState* find(int32_t node) {
        auto it = known_.find(node);
        return it == known_.end() ? nullptr : &it->second;
    }
    // A state's sums; for a state known before (its histogram fetched again), the histogram alone.
    // Its totals and missing features are read off the histogram (h: the layout's bins). `fetched`:
    // an answer of the machines, kept until a round reads it.
    template <class H>
    RemoteState* put(int32_t node, RemoteState state, const H& h, bool fetched) {
        held_bytes_ += static_cast<int64_t>(state.hist.size() * sizeof(int64_t));
        peak_bytes_ = std::max(peak_bytes_, held_bytes_);
        RemoteState* out = find(node);
        if (out != nullptr) {
            held_bytes_ -= static_cast<int64_t>(out->hist.size() * sizeof(int64_t));
            out->hist = std::move(state.hist);
        } else {
            h.summarise(state);
            out = &known_.emplace(node, std::move(state)).first->second;
        }
        out->unread = fetched;
        out->fetched_round = round_;
        touch(*out);
        return out;
    }
    // A read of s's histogram: the last to be dropped.
    void touch(RemoteState& s) { s.last_read = ++clock_; }
    void request(int32_t node) { requested_.insert(node); }

    // The unknown states met since the last call, in node order, at most max_states > 0 of them
    // (the others are met again), after the histograms held are brought down to leave room for
    // their answers under the cap.
    std::vector<int32_t> take_requests(int64_t max_states, int64_t histogram_bytes) {
        std::vector<int32_t> out(requested_.begin(), requested_.end());
        requested_.clear();
        if (max_states > 0 && static_cast<int64_t>(out.size()) > max_states) out.resize(max_states);
        if (max_bytes_ > 0)
            drop_histograms(-1, {}, std::max<int64_t>(max_bytes_ - static_cast<int64_t>(out.size()) * histogram_bytes, 0));
        return out;
    }
    int64_t known() const { return static_cast<int64_t>(known_.size()); }
    int64_t held_bytes() const { return held_bytes_; }
    int64_t peak_bytes() const { return peak_bytes_; }
    void next_round() { ++round_; }

    // Brings the histograms held down to 7/8 of max_bytes (the cap by default) once above it,
    // those read longest ago first, during a round as after it: a round's search reads far more
    // histograms than it needs at once, since what it reads off each is remembered (RemoteState).
    // Kept: the states fetched and not read yet (for kUnreadRounds rounds) and the parents of
    // children asked for (without them a round would ask again what the last one asked, or for
    // the larger sibling, which costs the machines more rows; measured: with both kept, a cap of
    // 128 MB costs fewer rounds and rows than 64 MB did without), `in_use`; and, last to go, the
    // path to `current`, which the search is in.
    void drop_histograms(int32_t current = -1, std::initializer_list<int32_t> in_use = {}, int64_t max_bytes = -1) {
        if (max_bytes < 0) max_bytes = max_bytes_;
        if (max_bytes_ <= 0 || held_bytes_ <= max_bytes) return;
        max_bytes -= max_bytes / 8;   // a drop sorts every known state: not at every derivation
        std::set<int32_t> path;
        for (int32_t node = current; node > 0; node = nodes_[node].parent) path.insert(node);
        if (current >= 0) path.insert(0);
        std::vector<std::tuple<bool, int64_t, RemoteState*>> by_age;
        for (auto& [node, state] : known_)
            if (!state.hist.empty() && !state.unread && !awaits(state) &&
                std::find(in_use.begin(), in_use.end(), node) == in_use.end())
                by_age.emplace_back(path.count(node) != 0, state.last_read, &state);
        std::sort(by_age.begin(), by_age.end(), [](const auto& x, const auto& y) {
            return std::make_pair(std::get<0>(x), std::get<1>(x)) < std::make_pair(std::get<0>(y), std::get<1>(y));
        });
        for (const auto& [on_path, age, state] : by_age) {
            if (held_bytes_ <= max_bytes) break;
            held_bytes_ -= static_cast<int64_t>(state->hist.size() * sizeof(int64_t));
            std::vector<int64_t>().swap(state->hist);
            ++dropped_;
        }
    }
    // Whether s's histogram is kept for a child asked for (see drop_histograms). Until the child
    // comes: a round asks for at most max_states states, so one may wait several rounds.
    bool awaits(const RemoteState& s) const { return !s.awaited.empty(); }
    // After a round: a fetched state unread for kUnreadRounds rounds is no longer kept for its
    // round (the search took another course; it is fetched again should a search need it).
    void end_round() {
        for (auto& [node, state] : known_)
            state.unread = state.unread && round_ - state.fetched_round < kUnreadRounds;
    }
    int64_t dropped() const { return dropped_; }
    // Histograms held beyond this many bytes are dropped (0: never).
    void set_max_bytes(int64_t bytes) { max_bytes_ = bytes; }

  private:
    struct Node {
        int32_t parent = -1;
        PathStep step;
    };
    std::vector<Node> nodes_;
    std::map<std::tuple<int32_t, int32_t, int32_t, int32_t, int32_t>, int32_t> index_;
    // Node-based: a state's address survives insertions (resolve() hands out pointers).
    std::unordered_map<int32_t, RemoteState> known_;
    std::set<int32_t> requested_;
    // A fetched state is needed by the round it was fetched for, and often, the search having
    // waited on another state first, by the round after (measured: fewer rounds than 1, 3 or 4).
    static constexpr int64_t kUnreadRounds = 2;
    int64_t held_bytes_ = 0, round_ = 0, dropped_ = 0, clock_ = 0, max_bytes_ = 0, peak_bytes_ = 0;
};

// A state of the remote layout: known (m rows; `hist` set while its histogram is held) or unknown
// (no rows: a leaf for the round's search). `ids` stays null: no sample is here.
struct RemoteView : IdView {
    int32_t node = 0;
};

// The binned layout on states known by their sums (see above). It keeps the binned layout's scans,
// which read histograms only, remembers their answers per state, and replaces what reads samples;
// the search is single-threaded. A question about a state whose histogram was dropped asks for the
// state again and gets an empty answer this round.
template <class O>
class RemoteLayout : public BinnedLayout<uint8_t, O> {
    using Base = BinnedLayout<uint8_t, O>;

  public:
    using View = RemoteView;
    using Buffer = typename Base::Buffer;

    // `bins`: the features' bins, without samples (n = 0); `mass` the quantities' mass over every
    // machine's rows, which sets the fixed-point units there too.
    RemoteLayout(const BinnedData<uint8_t>& bins, const O& obj, const std::vector<double>& mass, RemoteStore& store)
        : Base(bins, obj, mass), store_(store) {}

    int64_t n() const { return 0; }   // no sample is here (the workspaces need no mask)
    View root() const { return view_of(0, true); }
    View with_histogram(const O&, View v, Buffer&) const { return v; }
    SubsetHash hash(const View& v) const {
        if (const RemoteState* s = store_.find(v.node)) return s->hash;
        return unknown_hash(v.node);
    }
    void stats(const O& obj, const View& v, double* out) const {
        if (const RemoteState* s = store_.find(v.node))
            this->in_units(obj, s->totals.data(), out);
        else
            std::fill(out, out + obj.dim(), 0.0);
    }
    bool has_missing(const View& v, int32_t feature) const {
        const RemoteState* s = store_.find(v.node);
        return s != nullptr && s->missing[feature] != 0;
    }

    LeftSide left_side(const O& obj, const View& v, const SplitRecord& s) const {
        const std::vector<int64_t>& fixed = left_sums(v, s);
        LeftSide out;
        out.n = static_cast<int32_t>(fixed.back());
        out.weight = this->weight_of(obj, fixed.data());
        const RemoteState* left = resolve(v, s, out.n, true);
        out.hash = left != nullptr ? left->hash : unknown_hash(child_node(v, s, true));
        return out;
    }
    void left_stats(const O& obj, const View& v, const SplitRecord& s, double* out) const {
        this->in_units(obj, left_sums(v, s).data(), out);
    }
    std::pair<View, View> partition(const O&, const View& v, const SplitRecord& s, std::vector<uint8_t>&, Buffer&,
                                    Buffer&) const {
        resolve(v, s, static_cast<int32_t>(left_sums(v, s).back()), true);
        return {view_of(child_node(v, s, true), false), view_of(child_node(v, s, false), false)};
    }

    void best_loss_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats,
                          std::vector<SplitRecord>& out, bool only_best = false) const {
        scan(v, kLoss, 0, 0, out, [&](const View& h, std::vector<SplitRecord>& o) {
            Base::best_loss_splits(obj, h, limits, stats, o, only_best);
        });
    }
    SplitRecord best_generator_split(const O& obj, const View& v, const std::vector<int32_t>& features,
                                     const LeafLimits& limits, const double* stats,
                                     TieRule rule = TieRule::kGreedy) const {
        std::vector<SplitRecord> out;
        // The rule sets the limits too (the generator's balance): it keys the scan.
        scan(v, kGenerator, static_cast<int64_t>(rule), fingerprint(features), out,
             [&](const View& h, std::vector<SplitRecord>& o) {
            o.assign(1, Base::best_generator_split(obj, h, features, limits, stats, rule));
        });
        return out.empty() ? SplitRecord{} : out[0];
    }
    void top_k_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int k,
                      std::vector<SplitRecord>& out) const {
        scan(v, kTopK, k, 0, out,
             [&](const View& h, std::vector<SplitRecord>& o) { Base::top_k_splits(obj, h, limits, stats, k, o); });
    }
    void top_b_splits(const O& obj, const View& v, const LeafLimits& limits, const double* stats, int b,
                      std::vector<SplitRecord>& out) const {
        scan(v, kTopB, b, 0, out,
             [&](const View& h, std::vector<SplitRecord>& o) { Base::top_b_splits(obj, h, limits, stats, b, o); });
    }
    void all_splits(const O& obj, const View& v, const LeafLimits& limits, double total, int per_feature,
                    std::vector<SplitRecord>& out) const {
        scan(v, kAll, per_feature, 0, out, [&](const View& h, std::vector<SplitRecord>& o) {
            Base::all_splits(obj, h, limits, total, per_feature, o);
        });
    }

    // A fit over machines has no monotonic constraints (RemoteFit refuses them), so the ruled
    // searches of split_rule.hpp, which read both children of every split, are not offered here.
    template <class... A>
    void generator_splits_per_feature(A&&...) const {
        throw std::invalid_argument("monotonic_cst is not supported by fits over machines");
    }
    template <class... A>
    void scan_splits(A&&...) const {
        throw std::invalid_argument("monotonic_cst is not supported by fits over machines");
    }

    // What RemoteStore::put reads off a new state's histogram.
    void summarise(RemoteState& s) const {
        s.totals.assign(static_cast<size_t>(this->stride_), 0);
        this->add_cells(s.hist.data(), 0, this->data.n_bins[0], s.totals.data());
        s.missing.assign(static_cast<size_t>(this->data.p), 0);
        for (int64_t f = 0; f < this->data.p; ++f) {
            const int64_t at = (this->data.offset[f] + this->data.n_bins[f]) * this->stride_ + this->stride_ - 1;
            s.missing[f] = s.hist[at] > 0;
        }
    }

  private:
    enum ScanKind { kLoss, kGenerator, kTopK, kTopB, kAll };

    // The scan of `kind` of the known state v: remembered, or run on its histogram, or (dropped)
    // empty with the state asked for again. A view never carries a histogram (one may be dropped
    // and another summed while the search holds the view): `run` gets the store's.
    template <class Run>
    void scan(const View& v, ScanKind kind, int64_t argument, uint64_t features, std::vector<SplitRecord>& out,
              Run&& run) const {
        RemoteState* s = store_.find(v.node);
        const auto key = std::make_tuple(static_cast<int>(kind), argument, features);
        if (auto it = s->scans.find(key); it != s->scans.end()) {
            out = it->second;
            return;
        }
        out.clear();
        if (!readable(v, *s)) return;
        View h = v;
        h.hist = s->hist.data();
        run(h, out);
        s->scans.emplace(key, out);
    }
    // The fixed-point sums (and count) split s sends left on the known state v; zero if its
    // histogram was dropped (then asked for again).
    const std::vector<int64_t>& left_sums(const View& v, const SplitRecord& split) const {
        RemoteState* s = store_.find(v.node);
        const bool missing_left = s->missing[split.feature] != 0 && split.missing_left;
        const auto key = std::make_tuple(split.feature, split.bin, static_cast<int32_t>(missing_left));
        if (auto it = s->left.find(key); it != s->left.end()) return it->second;
        std::vector<int64_t> fixed(static_cast<size_t>(this->stride_), 0);
        if (!readable(v, *s)) {
            none_ = fixed;
            return none_;
        }
        this->left_cells(s->hist.data(), split, fixed.data());
        return s->left.emplace(key, std::move(fixed)).first->second;
    }
    // Whether s's histogram is here to read; if not, the state is asked for again.
    bool readable(const View& v, RemoteState& s) const {
        if (s.hist.empty()) {
            store_.request(v.node);
            return false;
        }
        store_.touch(s);
        s.unread = false;
        return true;
    }

    static uint64_t fingerprint(const std::vector<int32_t>& features) {
        uint64_t h = features.size();
        for (int32_t f : features) h = splitmix64(h ^ static_cast<uint64_t>(f));
        return h;
    }
    static SubsetHash unknown_hash(int32_t node) {
        const auto k = static_cast<uint64_t>(node);
        return SubsetHash{splitmix64(k ^ 0xa0761d6478bd642fULL), splitmix64(k ^ 0xe7037ed1a0b428dbULL)};
    }

    // The step of split s to one side; a state without missing values of the feature names both of
    // its routes of a missing value the same way.
    PathStep step(const View& v, const SplitRecord& s, bool left) const {
        const bool missing = has_missing(v, s.feature);
        return PathStep{s.feature, s.bin, missing && s.missing_left ? 1 : 0, left ? 1 : 0};
    }
    int32_t child_node(const View& v, const SplitRecord& s, bool left) const {
        return store_.child(v.node, step(v, s, left));
    }

    // The state of `node`; an unknown one is asked for if `ask`.
    View view_of(int32_t node, bool ask) const {
        View v;
        v.node = node;
        if (const RemoteState* s = store_.find(node)) {
            v.m = s->m;
        } else if (ask) {
            store_.request(node);
        }
        return v;
    }

    // The side `left` of split s of the known state v: known, found as v minus the other side, or
    // unknown (null) with a side asked for: the smaller, unless the other is known but a histogram
    // to subtract was dropped.
    const RemoteState* resolve(const View& v, const SplitRecord& s, int32_t n_left, bool left) const {
        const int32_t l = child_node(v, s, true), r = child_node(v, s, false);
        RemoteState* ls = store_.find(l);
        RemoteState* rs = store_.find(r);
        RemoteState* parent = store_.find(v.node);
        if (ls == nullptr && rs == nullptr) {
            if (parent->hist.empty()) {   // nothing to subtract from: the pair costs more rows, no round
                store_.request(l);
                store_.request(r);
                return nullptr;
            }
            const int32_t asked = 2 * static_cast<int64_t>(n_left) <= v.m ? l : r;
            store_.request(asked);
            if (std::find(parent->awaited.begin(), parent->awaited.end(), asked) == parent->awaited.end())
                parent->awaited.push_back(asked);
            return nullptr;
        }
        RemoteState* known = ls != nullptr ? ls : rs;
        if (ls == nullptr || rs == nullptr) {
            if (parent->hist.empty() || known->hist.empty()) {
                store_.request(ls == nullptr ? l : r);
                return left ? ls : rs;
            }
            store_.touch(*parent);
            store_.touch(*known);
            const int32_t known_node = ls != nullptr ? l : r;
            parent->awaited.erase(std::remove(parent->awaited.begin(), parent->awaited.end(), known_node),
                                  parent->awaited.end());
            RemoteState* derived = store_.put(ls == nullptr ? l : r, minus(*parent, *known), *this, false);
            store_.drop_histograms(v.node, {v.node, known_node, ls == nullptr ? l : r});
            (ls == nullptr ? ls : rs) = derived;
        }
        return left ? ls : rs;
    }
    static RemoteState minus(const RemoteState& parent, const RemoteState& side) {
        RemoteState out;
        out.m = parent.m - side.m;
        out.hash = SubsetHash{parent.hash.a - side.hash.a, parent.hash.b - side.hash.b};
        out.hist.resize(parent.hist.size());
        for (size_t c = 0; c < out.hist.size(); ++c) out.hist[c] = parent.hist[c] - side.hist[c];
        return out;
    }

    RemoteStore& store_;
    mutable std::vector<int64_t> none_;   // the zero sums of a dropped histogram
};

// The rows of the states one partition met in its last rounds, by path, kept between rounds so
// that a round filters a new state from its nearest known ancestor (most often its parent, asked
// for or met the round before) instead of from the root. A pure cache: it changes no answer.
class RowCache {
  public:
    // Holds at most max_bytes of rows after each call (those met in the latest calls are kept).
    explicit RowCache(int64_t max_bytes) : max_bytes_(max_bytes) {}

    // The rows of `key`, or null.
    const std::vector<int32_t>* find(const std::string& key) {
        auto it = entries_.find(key);
        if (it == entries_.end()) return nullptr;
        it->second.stamp = calls_;
        return &it->second.rows;
    }
    void put(const std::string& key, std::vector<int32_t> rows) {
        bytes_ += static_cast<int64_t>(rows.size() * sizeof(int32_t));
        auto [it, inserted] = entries_.try_emplace(key);
        if (!inserted) bytes_ -= static_cast<int64_t>(it->second.rows.size() * sizeof(int32_t));
        it->second = Entry{std::move(rows), calls_};
    }
    // A call on a partition of n_rows rows: a cache serves one partition.
    void begin_call(int64_t n_rows) {
        if (n_rows_ >= 0 && n_rows_ != n_rows)
            throw std::invalid_argument("a row cache serves one partition: it was made for another one");
        n_rows_ = n_rows;
        ++calls_;
    }
    // Drops the rows met longest ago, the largest first among those of one call, until at most
    // max_bytes remain.
    void trim() {
        if (bytes_ <= max_bytes_) return;
        std::vector<std::tuple<int64_t, int64_t, const std::string*>> order;
        for (const auto& [key, entry] : entries_)
            order.emplace_back(entry.stamp, -static_cast<int64_t>(entry.rows.size()), &key);
        std::sort(order.begin(), order.end());
        std::vector<std::string> dropped;
        for (const auto& [stamp, size, key] : order) {
            if (bytes_ <= max_bytes_) break;
            bytes_ += size * static_cast<int64_t>(sizeof(int32_t));
            dropped.push_back(*key);
        }
        for (const std::string& key : dropped) entries_.erase(key);
    }
    int64_t bytes() const { return bytes_; }
    int64_t entries() const { return static_cast<int64_t>(entries_.size()); }
    std::mutex& mutex() { return mutex_; }

  private:
    struct Entry {
        std::vector<int32_t> rows;
        int64_t stamp = 0;   // the last call that met it
    };
    std::unordered_map<std::string, Entry> entries_;
    int64_t bytes_ = 0, max_bytes_ = 0, calls_ = 0, n_rows_ = -1;
    std::mutex mutex_;
};

// For each path, on one machine's rows (ids first_id, first_id + 1, ... in the fit's numbering):
// the count, the subset hash and the binned layout's histogram in the units of the fit's `mass`,
// added into counts[r], hashes[2 r .. 2 r + 1] (wrapping) and hists[r * hist_size ...], so that a
// machine sums its partitions' answers in one place. `cache` (or null) keeps the partition's
// states' rows from call to call.
template <class O, class Code>
void state_histograms(const BinnedData<Code>& data, const O& obj, const std::vector<double>& mass, int64_t first_id,
                      const std::vector<Path>& paths, int64_t* counts, uint64_t* hashes, int64_t* hists,
                      RowCache* cache = nullptr) {
    const BinnedLayout<Code, O> layout(data, obj, mass);
    const int64_t size = layout.histogram_size();
    std::unique_lock<std::mutex> lock;
    if (cache != nullptr) {
        lock = std::unique_lock<std::mutex>(cache->mutex());
        cache->begin_call(data.n);
    }
    // This call's rows by path prefix (the key: the prefix's steps' bytes); the root's are all.
    std::unordered_map<std::string, std::vector<int32_t>> met;
    auto known = [&](const std::string& key) -> const std::vector<int32_t>* {
        if (key.empty()) return &data.all_ids;
        if (auto it = met.find(key); it != met.end()) return &it->second;
        return cache != nullptr ? cache->find(key) : nullptr;
    };
    for (size_t r = 0; r < paths.size(); ++r) {
        const Path& path = paths[r];
        std::vector<std::string> keys(1);
        for (const PathStep& s : path) {
            if (s.feature < 0 || s.feature >= data.p || s.bin < 0 || s.bin >= data.n_bins[s.feature])
                throw std::invalid_argument("a path's split names a feature or bin the data does not have");
            keys.push_back(keys.back() + std::string(reinterpret_cast<const char*>(&s), sizeof(PathStep)));
        }
        // The nearest prefix whose rows are known, then the steps after it.
        size_t k = path.size();
        const std::vector<int32_t>* rows = known(keys[k]);
        while (rows == nullptr) rows = known(keys[--k]);
        for (; k < path.size(); ++k) {
            stop_point();
            rows = &(met[keys[k + 1]] = satisfying(data, *rows, path[k]));
        }
        counts[r] += static_cast<int64_t>(rows->size());
        SubsetHash h;
        for (int32_t i : *rows) {
            const auto id = static_cast<int32_t>(first_id + i);
            h.a += mix_a(id);
            h.b += mix_b(id);
        }
        hashes[2 * r] += h.a;
        hashes[2 * r + 1] += h.b;
        layout.add_into(obj, IdView{static_cast<int32_t>(rows->size()), rows->data(), nullptr},
                        hists + static_cast<int64_t>(r) * size);
    }
    if (cache != nullptr) {
        for (auto& [key, rows] : met) cache->put(key, std::move(rows));
        cache->trim();
    }
}

// The search of a local binned fit, on the remote layout (instantiated with the solver).
template <class O>
FitResult fit_remote(const RemoteLayout<O>& layout, const O& objective, const Params& params, const Poll& poll);

// The driver's side of a remote fit: its rounds (see the top of this file).
template <class O>
class RemoteFit {
  public:
    // `objective` holds no samples (its statistics' functions serve); `n_bins` and `upper` are the
    // features' bins as for a local binned fit; `mass` the quantities' mass over every machine.
    RemoteFit(const O& objective, const Params& params, const std::vector<int32_t>& n_bins, const std::vector<double>& upper,
              std::vector<double> mass)
        : objective_(objective), params_(params), mass_(std::move(mass)),
          bins_(nullptr, 0, static_cast<int64_t>(n_bins.size()), n_bins, upper.data()) {
        if (params_.time_limit > 0.0) throw std::invalid_argument("a fit split over machines cannot have a time limit");
        if (params_.single_alpha >= 0.0)
            throw std::invalid_argument("the bounded search serves exact-threshold classification on one machine only");
        // The rounds' states would carry value bounds the stores of the machines do not key on.
        if (std::any_of(params_.monotonic_cst.begin(), params_.monotonic_cst.end(), [](int c) { return c != 0; }))
            throw std::invalid_argument("monotonic_cst is not supported by fits over machines (dpdt.dask's "
                                        "data-parallel estimators); fit on one machine instead");
        // The rounds' searches read histograms only: one thread, and no projection of a search
        // whose unknown states are leaves.
        params_.n_threads = 1;
        params_.estimated_states = params_.estimated_state_bytes = 0.0;
        layout_ = std::make_unique<RemoteLayout<O>>(bins_, objective_, mass_, store_);
    }

    // One round: the search on the states known so far. Returns the paths of the states it met
    // without knowing them, at most max_states > 0 of them (the others are met again next round:
    // a cap bounds a round's bytes, not the tree); none: the search is complete and result()
    // holds it.
    std::vector<Path> run(const Poll& poll, int64_t max_states = 0) {
        store_.next_round();
        FitResult round = fit_remote(*layout_, objective_, params_, poll);
        ++rounds_;
        store_.end_round();
        std::vector<int32_t> nodes = store_.take_requests(max_states, 8 * layout_->histogram_size());
        std::vector<Path> paths;
        for (int32_t node : nodes) paths.push_back(store_.path_of(node));
        if (paths.empty()) {
            result_ = std::move(round);
            complete_ = true;
        }
        return paths;
    }

    // A state's sums over every machine: m rows, their subset hash, their histogram
    // (histogram_size() numbers).
    void add(const Path& path, int64_t m, SubsetHash hash, const int64_t* hist) {
        if (m < 0 || m > INT32_MAX - 1) throw std::invalid_argument("a state's row count must be in [0, 2**31 - 2]");
        RemoteState state;
        state.m = static_cast<int32_t>(m);
        state.hash = hash;
        state.hist.assign(hist, hist + layout_->histogram_size());
        store_.put(store_.node_of(path), std::move(state), *layout_, true);
        store_.drop_histograms();
    }

    // Histograms held beyond this many bytes are dropped, those read longest ago first (0: never);
    // a state whose histogram is needed again is asked for again. The driver's memory beyond the
    // cap: the states fetched for the coming round, and the few a subtraction is using.
    void set_max_histogram_bytes(int64_t bytes) { store_.set_max_bytes(bytes); }
    int64_t dropped_histograms() const { return store_.dropped(); }

    bool complete() const { return complete_; }
    const FitResult& result() const {
        if (!complete_) throw std::logic_error("the remote fit is not complete: run() still asks for states");
        return result_;
    }
    int64_t histogram_size() const { return layout_->histogram_size(); }
    int64_t rounds() const { return rounds_; }
    int64_t states() const { return store_.known(); }
    int64_t histogram_bytes() const { return store_.held_bytes(); }
    int64_t peak_histogram_bytes() const { return store_.peak_bytes(); }

  private:
    O objective_;
    Params params_;
    std::vector<double> mass_;
    BinnedData<uint8_t> bins_;   // the bins alone, no sample
    RemoteStore store_;
    std::unique_ptr<RemoteLayout<O>> layout_;
    FitResult result_;
    bool complete_ = false;
    int64_t rounds_ = 0;
};

}  // namespace dpdt
