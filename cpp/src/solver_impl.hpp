// The solver's definitions, included by one translation unit per objective, which
// cpp/CMakeLists.txt generates from the list in dpdt/objectives.hpp: the search is instantiated
// for every objective and layout, and one unit for all of them was the build's critical path.
#pragma once
#include "dpdt/solver.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <stdexcept>
#include <string>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "dpdt/criterion.hpp"
#include "dpdt/hull.hpp"
#include "dpdt/layout.hpp"
#include "dpdt/lookahead.hpp"
#include "dpdt/memory.hpp"
#include "dpdt/remote.hpp"
#include "dpdt/run_loop.hpp"
#include "dpdt/screen.hpp"
#include "dpdt/split_rule.hpp"
#include "dpdt/split_search.hpp"
#include "dpdt/subset_hash.hpp"
#include "solution.hpp"
#include "solution_io.hpp"

namespace dpdt {
namespace {

// A state: its subset hash with its value bounds mixed in (with_bounds, split_rule.hpp), its size
// and depth.
struct StateKey {
    uint64_t a, b;
    int32_t m, depth;
    bool operator==(const StateKey& o) const {
        return a == o.a && b == o.b && m == o.m && depth == o.depth;
    }
};
static_assert(sizeof(StateKey) == kStateKeyBytes, "memory.hpp counts the cache's keys");
struct StateKeyHash {
    size_t operator()(const StateKey& k) const {
        return static_cast<size_t>(k.a ^ splitmix64(k.b + static_cast<uint64_t>(k.depth)));
    }
};

// Identical states reached by different paths are solved once. Sharded to keep threads apart.
class SolutionCache {
  public:
    SolutionPtr find(const StateKey& key) {
        Shard& s = shard(key);
        std::lock_guard<std::mutex> lock(s.mutex);
        auto it = s.map.find(key);
        return it == s.map.end() ? nullptr : it->second;
    }
    // Returns the solution stored under key: `sol` unless another thread stored one first
    // (identical, since a state's solution depends on the state alone).
    SolutionPtr insert(const StateKey& key, SolutionPtr sol) {
        Shard& s = shard(key);
        std::lock_guard<std::mutex> lock(s.mutex);
        auto [it, inserted] = s.map.emplace(key, std::move(sol));
        return it->second;
    }

  private:
    struct Shard {
        std::mutex mutex;
        std::unordered_map<StateKey, SolutionPtr, StateKeyHash> map;
    };
    static constexpr size_t kShards = 64;
    Shard& shard(const StateKey& key) { return shards_[(key.a >> 7) % kShards]; }
    Shard shards_[kShards];
};

// The best generator splits of recently scanned sample sets, by subset. A state's CART generator
// scans the state and the children of its best split, which are the states its first candidate
// leads to; their own CART (or last-level scan) would repeat those scans. A pure cache of a
// function of the subset: a hit returns what the scan would, so the tree never depends on it.
class SplitMemo {
  public:
    const SplitRecord* find(const SubsetHash& h, int32_t m) const {
        const Entry& e = slots_[h.a % kSlots];
        return e.m == m && e.a == h.a && e.b == h.b ? &e.split : nullptr;
    }
    void insert(const SubsetHash& h, int32_t m, const SplitRecord& split) {
        slots_[h.a % kSlots] = Entry{h.a, h.b, m, split};
    }

  private:
    struct Entry {
        uint64_t a = 0, b = 0;
        int32_t m = -1;   // no sample set has -1 samples: an empty slot
        SplitRecord split;
    };
    // Direct-mapped: the useful entries are those of the current path's generators, a few dozen.
    static constexpr size_t kSlots = 256;
    std::vector<Entry> slots_ = std::vector<Entry>(kSlots);
};

// Per-thread scratch: the membership mask and the children's views at every depth.
template <class Buffer>
struct Workspace {
    std::vector<uint8_t> in_left;
    std::vector<int32_t> rank;   // the lookahead generator's ranks, filled per state
    std::vector<Buffer> left, right;
    // The CART generator's nodes, reused from state to state (a node's histogram is large).
    std::vector<Buffer> cart;
    SplitMemo memo;
    SplitMemo secondary_memo;   // the lexicographic generator's (kGeneratorHasSecondary)
    SplitMemo exact_memo;   // the exact last level's, where its rule differs (TieRule::kFirst)
    // The share of the fit's tasks that this thread has solved (a fraction of them) and the share
    // of the state being solved, published to `progress` for Search's projection of its memory.
    double done = 0.0, share = 0.0;
    std::atomic<double>* progress = nullptr;
    const int worker;   // the run loop's worker that owns it
    Workspace(int64_t n, int max_depth, int worker)
        : in_left(n, 0), left(max_depth + 1), right(max_depth + 1), worker(worker) {}
};

struct Candidate {
    SplitRecord split;
    double cost = 1.0;
    SubsetHash left_hash, right_hash;
    Bounds left_bounds, right_bounds;   // what the children inherit (split_rule.hpp)
};

// The cache's key of a state.
inline StateKey state_key(SubsetHash hash, Bounds bounds, int32_t m, int depth) {
    const SubsetHash k = with_bounds(hash, bounds);
    return StateKey{k.a, k.b, m, depth};
}

template <class O, class L>
class Search {
  public:
    using View = typename L::View;
    using Workspace = dpdt::Workspace<typename L::Buffer>;

    // `stops_short`: max_states and the state budget end the search as the time limit does (the
    // run loop's reach()) rather than with StateLimitExceeded; only a fit whose every state is
    // solved in this process can (a process solving some of a split fit's tasks cannot hand back
    // a partial front, nor a data-parallel round a partial search).
    Search(const L& layout, const O& objective, const Params& params, RunLoop& loop, bool stops_short)
        : layout_(layout), obj_(objective), rule_(objective, params.monotonic_cst, layout.p()), params_(params),
          loop_(loop), stops_short_(stops_short),
          completion_reserve_(stops_short && params.max_state_bytes > 0 ? completion_reserve() : 0),
          greedy_first_(params.time_limit > 0.0 ||
                        (stops_short && (params.estimated_states * kMayStop >= static_cast<double>(params.max_states) ||
                                         (params.max_state_bytes > 0 &&
                                          params.estimated_state_bytes * kMayStop >=
                                              static_cast<double>(params.max_state_bytes))))),
          workspaces_(loop.n_workers()) {
        std::vector<double> root(obj_.dim());
        const View all = layout.root();
        layout.stats(obj_, all, root.data());
        total_weight_ = obj_.weight(root.data());
        for (int32_t f = 0; f < static_cast<int32_t>(layout.p()); ++f) all_features_.push_back(f);
        limits_.min_samples = params.min_samples_leaf;
        limits_.min_weight = params.min_weight_leaf;
        uniform_costs_ = true;
        for (double c : params.feature_costs) uniform_costs_ = uniform_costs_ && c == params.feature_costs[0];
    }

    SolutionPtr solve(View node, SubsetHash hash, int depth, Bounds bounds, Workspace& ws) {
        const StateKey key = state_key(hash, bounds, node.m, depth);
        const double share = ws.share, entry = ws.done;
        if (SolutionPtr hit = cache_.find(key)) {
            cache_hits_.fetch_add(1, std::memory_order_relaxed);
            advance(ws, entry + share);
            return hit;
        }
        std::vector<Candidate> candidates;
        auto sol = expand(node, hash, depth, bounds, candidates, ws);
        if (!candidates.empty()) {
            std::vector<std::pair<SolutionPtr, SolutionPtr>> children;
            double lent = 0.0;   // the jobs' progress, counted in jobs_done_ until the state's own
            children.reserve(candidates.size());
            children.resize(candidates.size());
            try {
                const std::vector<size_t> order = solve_order(node, bounds, *sol, candidates);
                for (size_t task = 0; task < order.size(); ++task) {
                    // A worker with nothing to do takes a share of the candidates left.
                    if (worth_jobs(node, depth)) {
                        lent = solve_in_jobs(node, depth, candidates, order, task, share, children, ws);
                        break;
                    }
                    // Out of time, a state still completes its greedy candidate: the tree
                    // returned is then never worse than the greedy one.
                    if (task > 0 && out_of_time()) break;
                    // The projection assumes that every side of every candidate is as large a
                    // search.
                    ws.share = share / (2.0 * static_cast<double>(order.size()));
                    children[order[task]] = solve_children(node, depth, candidates[order[task]], ws);
                    advance(ws, entry + share * static_cast<double>(task + 1) /
                                            static_cast<double>(order.size()));
                }
            } catch (const Cut&) {
                skipped_.store(true, std::memory_order_relaxed);   // the candidates solved stay
            }
            drop_unsolved(candidates, children);
            finish(*sol, candidates, children);
            advance(ws, entry + share);
            add(jobs_done_, -lent);
        }
        advance(ws, entry + share);
        return cache_.insert(key, std::move(sol));
    }

    // A state's subproblems are handed to idle workers when there are any and the subproblems are
    // large enough searches to outweigh the handing (a job partitions its state again).
    static constexpr int32_t kMinJobSamples = 512;
    bool worth_jobs(View node, int depth) const {
        return loop_.n_workers() > 1 && params_.max_depth - depth >= 2 && node.m >= kMinJobSamples &&
               loop_.wants_jobs();
    }

    // Solves the sides of the candidates order[first..] as jobs of the run loop (see JobGroup); the
    // children do not depend on which worker solves them. Returns the progress of the jobs, which
    // counts in jobs_done_ from each job's end until the caller counts its whole state.
    double solve_in_jobs(View node, int depth, const std::vector<Candidate>& candidates,
                       const std::vector<size_t>& order, size_t first, double share,
                       std::vector<std::pair<SolutionPtr, SolutionPtr>>& children, Workspace& ws) {
        const double side_share = share / (2.0 * static_cast<double>(order.size()));
        std::atomic<int64_t> lent{0};
        std::vector<std::function<void(int)>> jobs;
        jobs.reserve(2 * (order.size() - first));
        for (size_t task = first; task < order.size(); ++task) {
            for (const bool left_side : {true, false}) {
                jobs.emplace_back([&, task, left_side](int worker) {
                    // As in solve: out of time, only the greedy candidate is completed.
                    if (task > 0 && out_of_time()) return;
                    Workspace& own = workspace(worker);
                    // The job's progress counts on its worker while it runs; once it returns, on
                    // the state that handed it out.
                    const double done = own.done, kept_share = own.share;
                    own.share = side_share;
                    auto& pair = children[order[task]];
                    try {
                        (left_side ? pair.first : pair.second) =
                            solve_side(node, depth, candidates[order[task]], left_side, own);
                    } catch (const Cut&) {
                        skipped_.store(true, std::memory_order_relaxed);
                    }
                    own.share = kept_share;
                    advance(own, done);
                    add(jobs_done_, side_share);
                    lent.fetch_add(1, std::memory_order_relaxed);
                });
            }
        }
        shared_states_.fetch_add(1, std::memory_order_relaxed);
        JobGroup group(loop_, depth, std::move(jobs));
        group.join(ws.worker);
        return side_share * static_cast<double>(lent.load());
    }

    // Worker w's scratch, made on first use by that worker.
    Workspace& workspace(int w) {
        auto& ws = workspaces_[static_cast<size_t>(w)];
        if (!ws) {
            ws = std::make_unique<Workspace>(layout_.n(), params_.max_depth, w);
            ws->progress = progress_slot(w);
        }
        return *ws;
    }

    // Each worker's progress, for the projection of the states' memory (charge): `n_tasks` tasks
    // shared among `n_workers`.
    void start_tasks(int n_workers, int64_t n_tasks) {
        progress_ = std::make_unique<std::atomic<double>[]>(static_cast<size_t>(n_workers));
        for (int w = 0; w < n_workers; ++w) progress_[w].store(0.0);
        n_progress_ = n_workers;
        task_share_ = n_tasks > 0 ? 1.0 / static_cast<double>(n_tasks) : 0.0;
        for (auto& ws : workspaces_)
            if (ws) ws->progress = progress_slot(ws->worker);
    }
    std::atomic<double>* progress_slot(int w) { return w < n_progress_ ? &progress_[w] : nullptr; }
    // The thread has solved this share of the tasks.
    static void add(std::atomic<double>& a, double x) {
        double v = a.load(std::memory_order_relaxed);
        while (!a.compare_exchange_weak(v, v + x, std::memory_order_relaxed)) {
        }
    }
    static void advance(Workspace& ws, double done) {
        ws.done = done;
        if (ws.progress != nullptr) ws.progress->store(done, std::memory_order_relaxed);
    }

    // Statistics, leaf and (for the last level) the exact split; or the candidates to recurse on.
    std::shared_ptr<Solution> expand(View node, SubsetHash hash, int depth, Bounds bounds,
                                     std::vector<Candidate>& candidates, Workspace& ws) {
        std::vector<double> stats(obj_.dim());
        layout_.stats(obj_, node, stats.data());
        auto sol = new_state(node.m, std::move(stats), bounds);

        const int remaining = params_.max_depth - depth;
        if (remaining <= 0 || !splittable(*sol)) return sol;
        try {
            if (remaining == 1)
                solve_last_level(node, hash, bounds, *sol, ws);
            else
                generate(node, hash, depth, bounds, *sol, candidates, ws);
        } catch (const Cut&) {
            // Cut by the time limit: the state is a leaf.
            candidates.clear();
            skipped_.store(true, std::memory_order_relaxed);
        }
        return sol;
    }

    std::pair<SolutionPtr, SolutionPtr> solve_children(View node, int depth,
                                                       const Candidate& c, Workspace& ws) {
        const SubsetHash& right_hash = c.right_hash;
        const int32_t n_left = c.split.n_left, n_right = node.m - n_left;
        SolutionPtr left = cache_.find(state_key(c.left_hash, c.left_bounds, n_left, depth + 1));
        SolutionPtr right = cache_.find(state_key(right_hash, c.right_bounds, n_right, depth + 1));
        cache_hits_.fetch_add((left != nullptr) + (right != nullptr), std::memory_order_relaxed);
        if (left && right) return {left, right};
        const auto [lview, rview] = partition_children(node, depth, c, ws);
        if (!left) left = solve(lview, c.left_hash, depth + 1, c.left_bounds, ws);
        if (!right) right = solve(rview, right_hash, depth + 1, c.right_bounds, ws);
        return {left, right};
    }

    // One side of a candidate, so that threads can share a candidate's two subproblems.
    SolutionPtr solve_side(View node, int depth, const Candidate& c, bool left_side, Workspace& ws) {
        const SubsetHash& h = left_side ? c.left_hash : c.right_hash;
        const int32_t m = left_side ? c.split.n_left : node.m - c.split.n_left;
        const Bounds& b = left_side ? c.left_bounds : c.right_bounds;
        if (SolutionPtr hit = cache_.find(state_key(h, b, m, depth + 1))) {
            cache_hits_.fetch_add(1, std::memory_order_relaxed);
            return hit;
        }
        const auto views = partition_children(node, depth, c, ws);
        return solve(left_side ? views.first : views.second, h, depth + 1, b, ws);
    }

    // The children's blocks, in the thread's buffers for this depth.
    std::pair<View, View> partition_children(View node, int depth, const Candidate& c, Workspace& ws) {
        return layout_.partition(obj_, node, c.split, ws.in_left, ws.left[depth], ws.right[depth]);
    }

    void finish(Solution& sol, const std::vector<Candidate>& candidates,
                const std::vector<std::pair<SolutionPtr, SolutionPtr>>& children) {
        std::vector<HullPoint> points = sol.hull;
        const bool pareto = params_.front == Front::Pareto;
        for (size_t a = 0; a < candidates.size(); ++a) {
            Action action{candidates[a].split.feature, candidates[a].split.threshold,
                          candidates[a].split.missing_left, children[a].first, children[a].second};
            const auto id = static_cast<int32_t>(sol.actions.size());
            if (pareto) {
                add_pareto_sum(action.left->hull, action.right->hull, candidates[a].cost, id, points);
            } else {
                Hull h = split_hull(action.left->hull, action.right->hull, candidates[a].cost, id);
                points.insert(points.end(), h.begin(), h.end());
            }
            sol.actions.push_back(std::move(action));
        }
        sol.hull = pareto ? pareto_set(std::move(points)) : lower_hull(std::move(points));
        keep_used_actions(sol);
        charge(solved_bytes(static_cast<int64_t>(sol.hull.capacity()), static_cast<int64_t>(sol.actions.capacity())));
    }

    // The order in which a state's candidates are solved. When a limit may stop the search
    // (greedy_first_) the greedy split goes first; the order does not change the result of a
    // search that completes.
    std::vector<size_t> solve_order(View node, Bounds bounds, const Solution& sol,
                                    const std::vector<Candidate>& candidates) {
        std::vector<size_t> order(candidates.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        if (!greedy_first_ || candidates.size() < 2) return order;
        SplitRecord greedy = generator_split(node, all_features_, sol.stats.data(), bounds);
        route_missing(node, greedy);
        for (size_t i = 0; i < candidates.size(); ++i) {
            if (candidates[i].split.feature == greedy.feature && candidates[i].split.threshold == greedy.threshold &&
                candidates[i].split.missing_left == greedy.missing_left) {
                std::rotate(order.begin(), order.begin() + i, order.begin() + i + 1);
                break;
            }
        }
        return order;
    }

    // Candidates whose children the time limit left unsolved are dropped.
    static void drop_unsolved(std::vector<Candidate>& candidates,
                              std::vector<std::pair<SolutionPtr, SolutionPtr>>& children) {
        size_t solved = 0;
        for (size_t i = 0; i < candidates.size(); ++i) {
            if (!children[i].first || !children[i].second) continue;
            candidates[solved] = candidates[i];
            children[solved++] = children[i];
        }
        candidates.resize(solved);
        children.resize(solved);
    }

    // Once the time limit has passed, states keep the candidates already solved and skip the rest.
    bool out_of_time() {
        if (!loop_.limit_reached()) return false;
        skipped_.store(true, std::memory_order_relaxed);
        return true;
    }
    // Whether the time limit made the search skip a candidate.
    bool timed_out() const { return skipped_.load(); }

    int64_t states() const { return states_.load(); }
    int64_t n_candidates() const { return candidates_.load(); }
    int64_t exact_scans() const { return exact_scans_.load(); }
    int64_t sample_reads() const { return sample_reads_.load(); }
    int64_t cache_hits() const { return cache_hits_.load(); }
    int64_t shared_states() const { return shared_states_.load(); }
    int64_t state_bytes() const { return state_bytes_.load(); }
    double total_weight() const { return total_weight_; }
    const SplitRule<O>& rule() const { return rule_; }
    // The course on which the runaway projection stopped the search, in its limit's unit (states
    // or bytes); 0 if it did not.
    double projected() const { return projected_.load(); }

  private:
    HullPoint leaf_point(const Solution& s, Bounds bounds) const {
        HullPoint p;
        p.L = rule_.leaf_loss(s.stats.data(), bounds);
        p.I = obj_.tie(s.stats.data());
        return p;
    }

    // Where a split sends a missing value when the state has none for its feature: to the side
    // with more samples, as scikit-learn's trees do. (A split found deep in the CART generator
    // comes with the route of that node.)
    void route_missing(View node, SplitRecord& s) const {
        if (!layout_.has_missing(node, s.feature)) s.missing_left = 2 * static_cast<int64_t>(s.n_left) > node.m;
    }

    // A runaway search stops once its course is clear rather than when it reaches a limit: when
    // it has used 1/kEvidence of the limit and, if the rest of the search costs what its solved
    // share did, would pass kMargin times the limit. A search that stops short then ends as at the
    // limit (reach(), with the projection in projected()), with the best tree found: grinding on
    // to the limit would cost many times the time and memory for a tree little better; the
    // others throw StateLimitExceeded. The margin covers the projection's error (the
    // first candidates of a state fill the cache that later ones hit). With less evidence, down
    // to 1/kLeastEvidence of that, the margin grows as the inverse square root of the evidence,
    // and Python's estimate of the search (Params::estimated_states, estimated_state_bytes) must
    // pass the limit by as much: a search whose states are costly (10^5 exhaustive candidates
    // each) then stops within seconds, not after 1/kEvidence of its limit, when both say it
    // would pass the limit many times over (and after kLeastStates states, whose progress is no
    // longer a few paths'). A limit the estimate does not pass is never projected, so that the
    // projection's error cannot stop a fit expected within it; nor is a search with a time limit,
    // which ends at its deadline, not at its projected end.
    static constexpr double kEvidence = 64.0, kMargin = 4.0, kLeastEvidence = 4096.0;
    static constexpr int64_t kLeastStates = 1024;

    // The share of the fit's tasks solved so far (0 before the root's tasks start).
    double solved_share() const {
        double done = jobs_done_.load(std::memory_order_relaxed);
        for (int w = 0; w < n_progress_; ++w) done += progress_[w].load(std::memory_order_relaxed);
        return done * task_share_;
    }

    // Whether `so_far` of `limit`, which Python's estimate puts at `estimated`, projects far
    // enough past the limit (see kMargin), with the projection in `projected` and the solved share
    // in `share`.
    bool off_course(double so_far, double limit, double estimated, double& projected, double& share) const {
        if (estimated <= limit || params_.time_limit > 0.0) return false;
        const double evidence = std::min(1.0, so_far * kEvidence / limit);
        if (evidence < 1.0 && (evidence * kLeastEvidence < 1.0 || states_.load() < kLeastStates)) return false;
        const double margin = kMargin / std::sqrt(evidence);
        if (estimated < margin * limit) return false;
        share = solved_share();
        if (share <= 0.0) return false;
        projected = so_far / std::min(share, 1.0);
        return projected > margin * limit;
    }

    // The projection stopped the search at `limit`, or throws `what` when the search cannot stop
    // short. The first projection is the one reported.
    void stop_runaway(Limit limit, double projected, const std::string& what) {
        if (!stops_short_) throw StateLimitExceeded(what);
        double none = 0.0;
        projected_.compare_exchange_strong(none, projected);
        loop_.reach(limit);
    }

    static std::string course(double projected, const char* unit, double so_far, double share) {
        char percent[32];
        std::snprintf(percent, sizeof percent, "%.2g%%", std::min(share, 1.0) * 100.0);
        return "on course to about " + std::to_string(static_cast<int64_t>(projected)) + unit +
               " (projected from the " + std::to_string(static_cast<int64_t>(so_far)) + unit + " that solved " +
               percent + " of the search)";
    }

    // The bytes a search that stops short keeps for the greedy completion of the states in
    // progress once it reaches its state budget: an eighth of it, or up to half for what the
    // completion may take (each worker's path of states completes its greedy subtrees: fewer
    // than 2^(max_depth + 2) states, or two a sample, each solved with a few hull points).
    int64_t completion_reserve() const {
        const int64_t limit = params_.max_state_bytes;
        const int depth = std::min(params_.max_depth, 40);
        const int64_t states = std::min<int64_t>(int64_t{1} << (depth + 2), 2 * static_cast<int64_t>(layout_.n()) + 2);
        const int64_t bytes_each = dpdt::state_bytes(obj_.dim(), true) + dpdt::solved_bytes(4, 2);
        const double completion = static_cast<double>(loop_.n_workers()) * static_cast<double>(states) *
                                  static_cast<double>(bytes_each);
        return static_cast<int64_t>(std::clamp(completion, static_cast<double>(limit / 8), static_cast<double>(limit / 2)));
    }

    // Counts the bytes of the solved states (memory.hpp), and stops the fit before they pass
    // Params::max_state_bytes or once they are on course to: a search that stops short
    // (stops_short_) reaches the limit when what is left of it is its completion_reserve_; should
    // its greedy completion take more than that (a budget below twice what it may take), it is
    // cut where it stands, every state in progress keeping what it has, a few states past the
    // budget. The others throw.
    void charge(int64_t bytes) {
        const int64_t total = state_bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
        const int64_t limit = params_.max_state_bytes;
        if (limit <= 0) return;
        static constexpr const char* advice = " bytes memory_limit leaves them); lower max_depth or candidates (the "
                                              "deepest levels' first), or raise memory_limit";
        if (total > limit) {
            if (!stops_short_)
                throw StateLimitExceeded("the solved states would take more memory than memory_limit allows (" +
                                         std::to_string(limit) + advice);
            skipped_.store(true, std::memory_order_relaxed);
            if (!loop_.cut()) loop_.cut_short(Limit::Memory);
            return;
        }
        if (stops_short_ && total > limit - completion_reserve_) loop_.reach(Limit::Memory);
        // Past a limit, what is left is the greedy completion, not the course the projection reads.
        if (stops_short_ && loop_.limit_reached()) return;
        double projected = 0.0, share = 0.0;
        if (off_course(static_cast<double>(total), static_cast<double>(limit), params_.estimated_state_bytes, projected,
                       share))
            stop_runaway(Limit::Memory, projected,
                         "the solved states' memory is " + course(projected, " bytes", static_cast<double>(total), share) +
                             ", far beyond what memory_limit allows (" + std::to_string(limit) + advice);
    }

    bool splittable(const Solution& s) const {
        if (s.n_samples < params_.min_samples_split || s.n_samples < 2 * params_.min_samples_leaf ||
            s.total < 2 * params_.min_weight_leaf)
            return false;
        return obj_.improvable(s.stats.data());
    }

    double split_cost(const Solution& s, int32_t feature) const {
        const double c = params_.feature_costs.empty() ? 1.0 : params_.feature_costs[feature];
        return c * (params_.complexity == Complexity::ExpectedTests ? s.total : total_weight_);
    }

    // A state with its statistics and leaf; `counted` states count against max_states.
    std::shared_ptr<Solution> new_state(int32_t m, std::vector<double> stats, Bounds bounds, bool counted = true) {
        if (counted) {
            if (loop_.stopped()) throw Interrupted();
            const int64_t solved = states_.fetch_add(1, std::memory_order_relaxed);
            sample_reads_.fetch_add(m, std::memory_order_relaxed);
            static constexpr const char* advice =
                "; lower max_depth or candidates (the deepest levels' first), or raise max_states";
            if (solved >= params_.max_states) {
                if (!stops_short_)
                    throw StateLimitExceeded("the search exceeded max_states=" + std::to_string(params_.max_states) +
                                             " states" + advice);
                // The states of the greedy completion pass the limit: the state budget bounds them.
                loop_.reach(Limit::States);
            }
            double projected = 0.0, share = 0.0;
            if (!(stops_short_ && loop_.limit_reached()) &&
                off_course(static_cast<double>(solved), static_cast<double>(params_.max_states),
                           params_.estimated_states, projected, share))
                stop_runaway(Limit::States, projected,
                             "the search's number of states is " +
                                 course(projected, " states", static_cast<double>(solved), share) +
                                 ", far beyond max_states=" + std::to_string(params_.max_states) + advice);
        }
        charge(dpdt::state_bytes(static_cast<int64_t>(stats.size()), counted));
        auto sol = std::make_shared<Solution>();
        sol->n_samples = m;
        sol->stats = std::move(stats);
        sol->total = obj_.weight(sol->stats.data());
        sol->impurity = obj_.node_impurity(sol->stats.data());
        sol->hull.push_back(leaf_point(*sol, bounds));
        return sol;
    }

    // One split left: every feature and threshold is tried for the true loss. With uniform costs
    // the best split over all features is the only one that can be optimal; with feature costs each
    // feature's best split is a point of the hull.
    void solve_last_level(View node, SubsetHash hash, Bounds bounds, Solution& sol, Workspace& ws) {
        exact_scans_.fetch_add(1, std::memory_order_relaxed);
        std::vector<SplitRecord> chosen;
        // Under the rule, leaves lose at their clipped values: the generator's score is no loss.
        if (O::kGeneratorIsLoss && uniform_costs_ && !rule_.active()) {
            const SplitRecord best = best_split_of(node, hash, sol.stats.data(), bounds, ws, TieRule::kFirst);
            if (best.found()) chosen.push_back(best);
        } else {
            std::vector<SplitRecord> best;
            const double tol = 1e-12 * (std::abs(sol.hull[0].L) + sol.total);
            auto lowest = [&] {
                int32_t b = -1;
                for (int32_t f = 0; f < static_cast<int32_t>(best.size()); ++f) {
                    if (!best[f].found()) continue;
                    if (b < 0 || best[f].score < best[b].score - tol ||
                        (best[f].score <= best[b].score + tol && best[f].tie < best[b].tie - tol))
                        b = f;
                }
                return b;
            };
            // Under the rule, the unconstrained scan's best split, when the rule admits it and
            // clips neither child, is the rule's best: no admissible split loses less than its
            // unclipped loss. Objectives whose generator is the loss do not gain by it.
            const bool fast_first = rule_.active() && uniform_costs_ && !O::kGeneratorIsLoss;
            if (!rule_.active() || fast_first)
                layout_.best_loss_splits(obj_, node, limits_, sol.stats.data(), best, uniform_costs_);
            if (fast_first && !admitted_unclipped(node, bounds, sol, best, lowest())) {
                ruled_loss_splits(layout_, obj_, rule_, node, all_features_, limits_, sol.stats.data(), bounds, best,
                                  uniform_costs_);
            } else if (rule_.active() && !fast_first) {
                ruled_loss_splits(layout_, obj_, rule_, node, all_features_, limits_, sol.stats.data(), bounds, best,
                                  uniform_costs_);
            }
            if (uniform_costs_) {
                const int32_t b = lowest();
                if (b >= 0) chosen.push_back(best[b]);
            } else {
                for (const SplitRecord& s : best)
                    if (s.found()) chosen.push_back(s);
            }
        }
        if (chosen.empty()) return;
        std::vector<Candidate> candidates;
        std::vector<std::pair<SolutionPtr, SolutionPtr>> children;
        const int D = obj_.dim();
        for (const SplitRecord& split : chosen) {
            std::vector<double> left(D), right(D);
            layout_.left_stats(obj_, node, split, left.data());
            for (int d = 0; d < D; ++d) right[d] = sol.stats[d] - left[d];
            Candidate c;
            c.split = split;
            route_missing(node, c.split);
            c.cost = split_cost(sol, split.feature);
            candidates.push_back(c);
            const auto [lb, rb] = rule_.child_bounds(split.feature, left.data(), right.data(), bounds);
            children.emplace_back(new_state(split.n_left, std::move(left), lb, false),
                                  new_state(sol.n_samples - split.n_left, std::move(right), rb, false));
        }
        finish(sol, candidates, children);
    }

    // Whether split best[b] is one the rule admits at the state's bounds, with neither child's
    // value clipped: its loss is then the unconstrained one.
    bool admitted_unclipped(View node, Bounds bounds, const Solution& sol, const std::vector<SplitRecord>& best,
                            int32_t b) const {
        if (b < 0) return false;
        const SplitRecord& split = best[b];
        const int D = obj_.dim();
        std::vector<double> left(D), right(D);
        layout_.left_stats(obj_, node, split, left.data());
        for (int d = 0; d < D; ++d) right[d] = sol.stats[d] - left[d];
        if (!rule_.admissible(split.feature, left.data(), right.data(), bounds)) return false;
        const auto [lb, rb] = rule_.child_bounds(split.feature, left.data(), right.data(), bounds);
        return rule_.leaf_loss(left.data(), lb) == obj_.loss(left.data()) &&
               rule_.leaf_loss(right.data(), rb) == obj_.loss(right.data());
    }

    // The state's candidates; past the time limit, the greedy split alone (what a search out of
    // time completes, see solve).
    void generate(View node, SubsetHash hash, int depth, Bounds bounds, const Solution& sol,
                  std::vector<Candidate>& out, Workspace& ws) {
        std::vector<SplitRecord> splits;
        if (!out_of_time()) {
            try {
                OptionalWork optional;
                generate_splits(node, hash, depth, bounds, sol, splits, ws);
                to_candidates(node, hash, bounds, sol, splits, out);
                return;
            } catch (const Cut&) {
                if (loop_.cut()) throw;
                skipped_.store(true, std::memory_order_relaxed);
            }
        }
        splits.clear();
        const SplitRecord greedy = best_split_of(node, hash, sol.stats.data(), bounds, ws);
        if (greedy.found()) splits.push_back(greedy);
        to_candidates(node, hash, bounds, sol, splits, out);
    }

    // The generators' splits. Under the rule, each generator's own scans ask it (its best splits
    // are the best admissible ones at the state's bounds), and to_candidates asks it of every
    // split whatever its source.
    void generate_splits(View node, SubsetHash hash, int depth, Bounds bounds, const Solution& sol,
                         std::vector<SplitRecord>& splits, Workspace& ws) {
        const Splitter splitter =
            depth < static_cast<int>(params_.splitters.size()) ? params_.splitters[depth] : Splitter::Cart;
        const int budget = depth < static_cast<int>(params_.candidates.size()) ? params_.candidates[depth] : 1;
        const double* stats = sol.stats.data();
        switch (splitter) {
            case Splitter::Exhaustive: layout_.all_splits(obj_, node, limits_, sol.total, 0, splits); break;
            case Splitter::Quantile: layout_.all_splits(obj_, node, limits_, sol.total, budget, splits); break;
            case Splitter::Cart: cart_splits(node, hash, bounds, sol, budget, splits, ws); break;
            case Splitter::TopK:
                if (rule_.active())
                    ruled_top_k_splits(layout_, obj_, rule_, node, all_features_, limits_, stats, bounds, budget, splits);
                else
                    layout_.top_k_splits(obj_, node, limits_, stats, budget, splits);
                break;
            case Splitter::TopB:
                if (rule_.active())
                    ruled_top_b_splits(layout_, obj_, rule_, node, all_features_, limits_, stats, bounds, budget, splits);
                else
                    layout_.top_b_splits(obj_, node, limits_, stats, budget, splits);
                break;
            case Splitter::Lookahead: lookahead_splits(node, hash, bounds, sol, budget, splits, ws); break;
            case Splitter::Screen: screen_splits(node, hash, bounds, sol, budget, splits, ws); break;
        }
        // The exact depth-2 candidate is the split of best depth-2 loss without bounds: under the
        // rule its children's bounds would change that loss and its search's pruning, so a
        // constrained fit does without it rather than rank by a loss it does not have.
        if (params_.exact_depth2_work > 0 && !rule_.active()) add_exact_depth2_split(node, splits, ws);
    }

    // The splits as the state's candidates, each applied to the whole state, in (feature,
    // threshold) order, duplicates and splits the leaf limits forbid dropped.
    // Under the rule, a split it does not admit at the state's bounds is dropped here, whichever
    // generator proposed it, and the children inherit the bounds it gives them.
    void to_candidates(View node, SubsetHash hash, Bounds bounds, const Solution& sol,
                       std::vector<SplitRecord>& splits, std::vector<Candidate>& out) {
        candidates_.fetch_add(static_cast<int64_t>(splits.size()), std::memory_order_relaxed);
        std::sort(splits.begin(), splits.end(), [](const SplitRecord& a, const SplitRecord& b) {
            if (a.feature != b.feature) return a.feature < b.feature;
            if (a.threshold != b.threshold) return a.threshold < b.threshold;
            return a.missing_left < b.missing_left;
        });
        out.clear();
        // Those kept, by action: a set rather than a scan of them, as exhaustive generation gives
        // a state some 10^5 splits (the scan took a minute per state on 5 000 x 30).
        std::unordered_set<ActionKey, ActionKeyHash> kept;
        kept.reserve(splits.size());
        std::vector<double> left_stats(rule_.active() ? obj_.dim() : 0), right_stats(left_stats.size());
        for (SplitRecord s : splits) {
            stop_point();
            // A split found deep in the generator's tree is applied to the whole state.
            Candidate c;
            const LeftSide left = layout_.left_side(obj_, node, s);
            s.n_left = left.n;
            c.left_hash = left.hash;
            const double wl = left.weight;
            if (!limits_.allow(s.n_left, node.m - s.n_left, wl, sol.total - wl)) continue;
            c.left_bounds = c.right_bounds = bounds;
            if (rule_.constrains(s.feature)) {
                layout_.left_stats(obj_, node, s, left_stats.data());
                for (size_t d = 0; d < left_stats.size(); ++d) right_stats[d] = sol.stats[d] - left_stats[d];
                if (!rule_.admissible(s.feature, left_stats.data(), right_stats.data(), bounds)) continue;
                std::tie(c.left_bounds, c.right_bounds) =
                    rule_.child_bounds(s.feature, left_stats.data(), right_stats.data(), bounds);
            }
            route_missing(node, s);
            c.split = s;
            c.cost = split_cost(sol, s.feature);
            c.right_hash = SubsetHash{hash.a - c.left_hash.a, hash.b - c.left_hash.b};
            // Two splits with the same partition and cost are the same action: the first is kept
            // (the rule reads the partition alone, so they inherit the same bounds).
            if (kept.insert(ActionKey{c.left_hash.a, c.left_hash.b, c.split.n_left, c.cost + 0.0}).second)
                out.push_back(c);
        }
    }

    // A candidate's action: its left side and cost (+0.0 for -0.0, so that equal costs hash alike).
    struct ActionKey {
        uint64_t a, b;
        int32_t n_left;
        double cost;
        bool operator==(const ActionKey& o) const {
            return a == o.a && b == o.b && n_left == o.n_left && cost == o.cost;
        }
    };
    struct ActionKeyHash {
        size_t operator()(const ActionKey& k) const {
            uint64_t cost_bits = 0;
            std::memcpy(&cost_bits, &k.cost, sizeof cost_bits);
            return static_cast<size_t>(k.a ^ splitmix64(k.b ^ splitmix64(static_cast<uint64_t>(k.n_left) ^ cost_bits)));
        }
    };

    // CART's splits and the `budget` splits of best depth-2 lookahead (dpdt/lookahead.hpp).
    // Under the rule, the lookahead's own splits are ranked without bounds; to_candidates keeps
    // those the rule admits.
    void lookahead_splits(View node, SubsetHash hash, Bounds bounds, const Solution& sol, int budget,
                          std::vector<SplitRecord>& out, Workspace& ws) {
        if constexpr (!O::kLossGrowsWithSamples) {
            throw std::invalid_argument("the lookahead splitter needs a loss that grows with the samples");
        } else if constexpr (!L::kExact) {
            throw std::invalid_argument("the lookahead splitter needs exact thresholds (max_bins=None)");
        } else {
            const Dataset& data_ = layout_.data;
            if (data_.has_missing) throw std::invalid_argument("the lookahead splitter does not take missing values");
            cart_splits(node, hash, bounds, sol, budget, out, ws);
            add_lookahead_splits(node, budget, 0, out, ws);
        }
    }

    // The split of best exact depth-2 lookahead, if its search reads at most
    // params_.exact_depth2_work sample ids (an extra candidate where it is cheap).
    void add_exact_depth2_split(View node, std::vector<SplitRecord>& out, Workspace& ws) {
        if constexpr (L::kExact && O::kLossGrowsWithSamples) {
            if (!layout_.data.has_missing) add_lookahead_splits(node, 1, params_.exact_depth2_work, out, ws);
        }
    }

    // Appends the `count` splits of best lookahead, unless the search would read more than
    // max_reads > 0 sample ids; the splits already in `out` seed its bound.
    void add_lookahead_splits(View node, int count, int64_t max_reads, std::vector<SplitRecord>& out, Workspace& ws) {
        if constexpr (L::kExact && O::kLossGrowsWithSamples) {
            const Dataset& data = layout_.data;
            if (ws.rank.empty()) ws.rank.resize(data.n);
            Lookahead<O> lookahead(data, obj_, limits_, ws.rank);
            // A split found deep in a generator's tree applies to the whole state.
            std::vector<SplitRecord> seeds;
            for (SplitRecord s : out) {
                s.n_left = count_left(data, node, s.feature, s.threshold);
                if (s.n_left >= params_.min_samples_leaf && node.m - s.n_left >= params_.min_samples_leaf)
                    seeds.push_back(s);
            }
            std::vector<SplitRecord> best;
            if (lookahead.top_splits(node, count, seeds, best, max_reads)) out.insert(out.end(), best.begin(), best.end());
        }
    }

    // CART's splits and the `budget` splits of best screened depth-3 value (dpdt/screen.hpp).
    // Under the rule, the screen's own splits are ranked without bounds; to_candidates keeps
    // those the rule admits.
    void screen_splits(View node, SubsetHash hash, Bounds bounds, const Solution& sol, int budget,
                       std::vector<SplitRecord>& out, Workspace& ws) {
        if constexpr (!L::kExact) {
            throw std::invalid_argument("the screen splitter needs exact thresholds (max_bins=None)");
        } else {
            cart_splits(node, hash, bounds, sol, budget, out, ws);
            if (ws.rank.empty()) ws.rank.resize(layout_.data.n);
            Screen<O> screen(layout_.data, obj_, ws.rank);
            std::vector<int32_t> features = all_features_;
            if (static_cast<int>(features.size()) > Screen<O>::kMaxFeatures) {
                // Top-k's features: those whose best split decreases the impurity most.
                std::vector<SplitRecord> top;
                layout_.top_k_splits(obj_, node, limits_, sol.stats.data(), Screen<O>::kMaxFeatures, top);
                features.clear();
                for (const SplitRecord& s : top) features.push_back(s.feature);
                std::sort(features.begin(), features.end());
            }
            std::vector<SplitRecord> best;
            screen.top_splits(node, features, budget, best);
            out.insert(out.end(), best.begin(), best.end());
        }
    }

    // The splits of a best-first CART grown on the node's samples until it has `budget` splits,
    // and, for an objective whose generator has a secondary key (kGeneratorHasSecondary) and a
    // budget above 1, those of a second such tree grown by the lexicographic rule.
    // `in_left` is the thread's all-zero membership mask, left all zero.
    // A node waits in the heap under a bound on its best score until the bound says it may be next,
    // and is only then searched: the nodes of a budget's last level mostly never are. The splits
    // are those of eager scoring, ties included (equal scores go to the node created first).
    // Under the rule each node of the generator's tree has bounds, as in monotone CART: its best
    // split is the best admissible one, and its children inherit the rule's bounds.
    void cart_splits(View node, SubsetHash hash, Bounds bounds, const Solution& sol, int budget,
                     std::vector<SplitRecord>& out, Workspace& ws) {
        grow_cart(node, hash, bounds, sol, budget, out, ws, TieRule::kGreedy);
        if constexpr (O::kGeneratorHasSecondary) {
            // Both trees: where the score is flat the lexicographic tree's splits are the
            // informative ones, where it is not they may be worse, and a search over the union of
            // candidates is never worse at any state than over either. A budget of 1 stays the
            // greedy split, which a search out of time completes (solve) and which is the
            // greedy tree's that the default is never below.
            if (budget <= 1) return;
            std::vector<SplitRecord> more;
            grow_cart(node, hash, bounds, sol, budget, more, ws, TieRule::kLexicographic);
            out.insert(out.end(), more.begin(), more.end());
        }
    }

    void grow_cart(View node, SubsetHash hash, Bounds bounds, const Solution& sol, int budget,
                   std::vector<SplitRecord>& out, Workspace& ws, TieRule rule) {
        struct CartNode {
            View view;   // the root reads the state's view, the others a buffer of ws.cart
            SubsetHash hash;   // kept only when the memo serves (every feature scanned)
            Bounds bounds;
            std::vector<double> stats;
            double total = 0.0;
            std::vector<int32_t> features;   // a subsample's, drawn when the node is created
            bool scored = false;
            SplitRecord split;   // once scored
            double key = 0.0;   // the best score once scored, a bound on it before
            int64_t order = 0;
        };
        auto cmp = [](const std::shared_ptr<CartNode>& a, const std::shared_ptr<CartNode>& b) {
            return a->key < b->key || (a->key == b->key && a->order > b->order);
        };
        std::priority_queue<std::shared_ptr<CartNode>, std::vector<std::shared_ptr<CartNode>>, decltype(cmp)>
            heap(cmp);
        std::mt19937_64 rng(splitmix64(params_.random_state ^ hash.a) ^ hash.b);
        const int32_t p = static_cast<int32_t>(layout_.p());
        const bool subsample = params_.max_features > 0 && params_.max_features < p;
        int64_t order = 0;

        // Finds the node's best split: false if it has none worth taking.
        auto score = [&](CartNode& cn) {
            // A subsample's features depend on the state, so its splits are no function of the node's
            // samples alone and stay out of the memo.
            cn.split = subsample ? generator_split(cn.view, cn.features, cn.stats.data(), cn.bounds, rule)
                                 : best_split_of(cn.view, cn.hash, cn.stats.data(), cn.bounds, ws, rule);
            if (!cn.split.found() || cn.split.score < params_.min_impurity_decrease * total_weight_) return false;
            cn.scored = true;
            cn.key = cn.split.score;
            return true;
        };
        auto consider = [&](std::shared_ptr<CartNode> cn) {
            const int32_t m = cn->view.m;
            if (m < params_.min_samples_split || m < 2 * params_.min_samples_leaf) return;
            if (!obj_.improvable(cn->stats.data())) return;
            if (subsample) {
                // Partial Fisher-Yates draw of max_features features, seeded by the state.
                cn->features = all_features_;
                for (int i = 0; i < params_.max_features; ++i) {
                    const uint64_t j = i + rng() % static_cast<uint64_t>(p - i);
                    std::swap(cn->features[i], cn->features[j]);
                }
                cn->features.resize(params_.max_features);
                std::sort(cn->features.begin(), cn->features.end());
            }
            cn->order = order++;
            // Slack over the bound covers the rounding of the scores.
            const double bound = obj_.generator_score_bound(cn->stats.data());
            cn->key = bound * (1.0 + 1e-9) + 1e-300;
            if (std::isinf(bound) && !score(*cn)) return;
            heap.push(std::move(cn));
        };

        auto root = std::make_shared<CartNode>();
        root->view = node;
        root->hash = hash;
        root->stats = sol.stats;
        root->total = sol.total;
        root->bounds = bounds;
        consider(root);
        while (static_cast<int>(out.size()) < budget && !heap.empty()) {
            stop_point();
            std::shared_ptr<CartNode> cn = heap.top();
            heap.pop();
            if (!cn->scored) {
                if (score(*cn)) heap.push(std::move(cn));
                continue;
            }
            out.push_back(cn->split);
            if (static_cast<int>(out.size()) >= budget) break;
            auto left = std::make_shared<CartNode>(), right = std::make_shared<CartNode>();
            const size_t first = 2 * (out.size() - 1);
            if (ws.cart.size() < first + 2) ws.cart.resize(first + 2);
            std::tie(left->view, right->view) =
                layout_.partition(obj_, cn->view, cn->split, ws.in_left, ws.cart[first], ws.cart[first + 1]);
            if (!subsample) {
                CartNode& small = left->view.m <= right->view.m ? *left : *right;
                CartNode& large = &small == left.get() ? *right : *left;
                small.hash = layout_.hash(small.view);
                large.hash = SubsetHash{cn->hash.a - small.hash.a, cn->hash.b - small.hash.b};
            }
            for (auto* child : {&left, &right}) {
                (*child)->stats.resize(obj_.dim());
                layout_.stats(obj_, (*child)->view, (*child)->stats.data());
                (*child)->total = obj_.weight((*child)->stats.data());
            }
            std::tie(left->bounds, right->bounds) =
                rule_.child_bounds(cn->split.feature, left->stats.data(), right->stats.data(), cn->bounds);
            consider(std::move(left));
            consider(std::move(right));
        }
    }

    // The best generator split over every feature of a sample set at its bounds by tie rule
    // `rule`, through the thread's memo of that rule.
    SplitRecord best_split_of(View node, const SubsetHash& hash, const double* stats, Bounds bounds, Workspace& ws,
                              TieRule rule = TieRule::kGreedy) {
        // Without a second key or a balance, the exact rule's split is the greedy one.
        constexpr bool kFirstDiffers = O::kGeneratorHasSecondary || O::kGeneratorMinShare > 0.0;
        SplitMemo& memo = rule == TieRule::kLexicographic           ? ws.secondary_memo
                          : rule == TieRule::kFirst && kFirstDiffers ? ws.exact_memo
                                                                     : ws.memo;
        const SubsetHash key = with_bounds(hash, bounds);
        if (const SplitRecord* known = memo.find(key, node.m)) return *known;
        const SplitRecord split = generator_split(node, all_features_, stats, bounds, rule);
        memo.insert(key, node.m, split);
        return split;
    }

    // The best generator split among `features`, among those the rule admits at `bounds`.
    // (The lexicographic rule serves objectives with a second key, which the split rule does not
    // constrain: SplitRule refuses constraints on an objective without a bounded value.)
    SplitRecord generator_split(View node, const std::vector<int32_t>& features, const double* stats, Bounds bounds,
                                TieRule rule = TieRule::kGreedy) {
        const LeafLimits limits = rule == TieRule::kFirst ? limits_ : generator_limits(node.m);
        if (!rule_.active()) return layout_.best_generator_split(obj_, node, features, limits, stats, rule);
        return ruled_generator_split(layout_, obj_, rule_, node, features, limits, stats, bounds);
    }

    // The leaf limits of the generators' splits of a node of m samples: the user's, and each
    // child at least the objective's share of the samples (O::kGeneratorMinShare).
    LeafLimits generator_limits(int32_t m) const {
        LeafLimits limits = limits_;
        if constexpr (O::kGeneratorMinShare > 0.0)
            limits.min_samples = std::max(limits.min_samples, static_cast<int>(std::ceil(O::kGeneratorMinShare * m)));
        return limits;
    }

    // Drops the actions no hull vertex uses, so unused subtrees can be freed.
    static void keep_used_actions(Solution& sol) {
        std::vector<int32_t> remap(sol.actions.size(), -1);
        std::vector<Action> kept;
        for (HullPoint& p : sol.hull) {
            if (p.action < 0) continue;
            if (remap[p.action] < 0) {
                remap[p.action] = static_cast<int32_t>(kept.size());
                kept.push_back(sol.actions[p.action]);
            }
            p.action = remap[p.action];
        }
        sol.actions = std::move(kept);
    }

    const L& layout_;
    const O& obj_;
    const SplitRule<O> rule_;
    const Params& params_;
    RunLoop& loop_;
    const bool stops_short_;
    const int64_t completion_reserve_;
    // Whether a state solves its greedy candidate first (solve_order), so that a search stopped
    // by a limit completes it: under a time limit, or when the estimate made before the fit comes
    // within kMayStop times max_states or the state budget (the greedy split costs a scan of the
    // state, spared to a search that its limits leave far alone).
    static constexpr double kMayStop = 4.0;
    const bool greedy_first_;
    std::vector<std::unique_ptr<Workspace>> workspaces_;   // one per worker
    double total_weight_;
    bool uniform_costs_;
    std::vector<int32_t> all_features_;
    LeafLimits limits_;
    SolutionCache cache_;
    std::unique_ptr<std::atomic<double>[]> progress_;   // tasks solved by each worker
    int n_progress_ = 0;
    double task_share_ = 0.0;
    std::atomic<int64_t> states_{0}, candidates_{0}, exact_scans_{0}, cache_hits_{0}, state_bytes_{0};
    std::atomic<int64_t> sample_reads_{0}, shared_states_{0};
    std::atomic<bool> skipped_{false};
    std::atomic<double> jobs_done_{0.0};   // tasks solved as jobs, until their state counts them
    std::atomic<double> projected_{0.0};   // see projected()
};

// Preorder (left first) arrays of the subtree of `sol` chosen by hull vertex `point`.
// Every node outputs its value clipped to its bounds (split_rule.hpp), which the rule derives
// again from the statistics on the way down.
template <class O>
void emit(const O& obj, const SplitRule<O>& rule, const Solution& sol, Bounds bounds, int32_t point, TreeArrays& t) {
    const int64_t id = t.node_count();
    t.children_left.push_back(kLeaf);
    t.children_right.push_back(kLeaf);
    t.feature.push_back(-2);
    t.threshold.push_back(-2.0);
    t.missing_left.push_back(0);
    const size_t at = t.value.size();
    t.value.resize(at + obj.value_dim());
    rule.leaf_value(sol.stats.data(), bounds, t.value.data() + at);
    t.impurity.push_back(sol.impurity);
    t.n_node_samples.push_back(sol.n_samples);
    t.weighted_n_node_samples.push_back(sol.total);
    const HullPoint& p = sol.hull[point];
    if (p.action < 0) return;
    const Action& a = sol.actions[p.action];
    t.feature[id] = a.feature;
    t.threshold[id] = a.threshold;
    t.missing_left[id] = a.missing_left;
    const auto [lb, rb] = rule.child_bounds(a.feature, a.left->stats.data(), a.right->stats.data(), bounds);
    t.children_left[id] = t.node_count();
    emit(obj, rule, *a.left, lb, p.left_point, t);
    t.children_right[id] = t.node_count();
    emit(obj, rule, *a.right, rb, p.right_point, t);
}

// The root's trees, most complex first. A tree of a Pareto set that is no vertex of its lower hull
// is optimal for no alpha: its alpha range is NaN.
template <class O>
std::vector<FrontTree> front_of(const O& obj, const SplitRule<O>& rule, const Solution& root, double total_weight,
                                Front shape) {
    const Hull& points = root.hull;
    const Hull h = shape == Front::Pareto ? lower_hull(points) : points;
    const size_t n = h.size();
    // Breakpoint between vertices k and k + 1 (k + 1 is more complex, less lossy).
    std::vector<double> brk(n > 0 ? n - 1 : 0);
    for (size_t k = 0; k + 1 < n; ++k) {
        const double dl = h[k].L - h[k + 1].L, dc = h[k + 1].C - h[k].C;
        const bool tie = hull_detail::sign_diff(h[k].L, h[k + 1].L) == 0;
        brk[k] = tie || dc <= 0.0 ? 0.0 : std::max(0.0, dl / dc);
        // Three vertices in a line (up to rounding) give two slopes that rounding may order the
        // wrong way, which would give the middle one an empty range: it is optimal at that alpha
        // alone.
        if (k > 0) brk[k] = std::min(brk[k], brk[k - 1]);
    }
    // vertex[q]: the hull vertex that point q is, or -1. The vertices are copies of points, in the
    // same order (both by increasing C).
    std::vector<int64_t> vertex(points.size(), -1);
    for (size_t q = 0, k = 0; q < points.size() && k < n; ++q) {
        const HullPoint &a = points[q], &b = h[k];
        if (a.C == b.C && a.L == b.L && a.I == b.I && a.S == b.S) vertex[q] = static_cast<int64_t>(k++);
    }
    std::vector<FrontTree> front;
    for (size_t r = 0; r < points.size(); ++r) {
        const size_t q = points.size() - 1 - r;   // most complex first
        const HullPoint& p = points[q];
        FrontTree ft;
        ft.alpha_min = ft.alpha_max = std::numeric_limits<double>::quiet_NaN();
        if (const int64_t k = vertex[q]; k >= 0) {
            ft.alpha_min = k + 1 < static_cast<int64_t>(n) ? brk[k] : 0.0;
            ft.alpha_max = k > 0 ? brk[k - 1] : std::numeric_limits<double>::infinity();
        }
        ft.loss = p.L / total_weight;
        ft.complexity = p.C / total_weight;
        ft.impurity = p.I / total_weight;
        ft.n_splits = static_cast<int64_t>(p.S + 0.5);
        emit(obj, rule, root, Bounds{}, static_cast<int32_t>(q), ft.tree);
        front.push_back(std::move(ft));
    }
    return front;
}

// The root of a fit and its subproblems, the "tasks": task t is side t % 2 of root candidate
// order[t / 2]. The root's candidates are independent subproblems; the run loop's workers solve
// them and the root combines them in candidate order, so the tree does not depend on n_threads.
// Under a dpdt.dask plan the tasks are solved where the data is and travel as bytes.
template <class O, class L>
struct Root {
    typename L::Buffer buffer;
    typename L::View view;
    SubsetHash hash;
    std::shared_ptr<Solution> sol;
    std::vector<Candidate> candidates;
    std::vector<size_t> order;
    std::vector<std::pair<SolutionPtr, SolutionPtr>> children;

    int64_t n_tasks() const { return 2 * static_cast<int64_t>(candidates.size()); }
    SolutionPtr& side(int64_t t) {
        auto& pair = children[order[t / 2]];
        return t % 2 == 0 ? pair.first : pair.second;
    }
};

// The tasks this process solves: all of them for a local fit, the plan's for RootPlan::Solve.
std::vector<int64_t> tasks_to_solve(const RootPlan& plan, int64_t n_tasks) {
    std::vector<int64_t> tasks;
    if (plan.mode == RootPlan::Mode::Local) {
        for (int64_t t = 0; t < n_tasks; ++t) tasks.push_back(t);
    } else if (plan.mode == RootPlan::Mode::Solve) {
        for (int64_t t : plan.tasks) {
            if (t < 0 || t >= n_tasks)
                throw std::invalid_argument("root task " + std::to_string(t) + " does not exist (" +
                                            std::to_string(n_tasks) + " tasks)");
            tasks.push_back(t);
        }
    }
    return tasks;
}

// RootPlan::Combine: the solutions of every task, shipped by the processes that solved them.
template <class O, class L>
void receive_solutions(const RootPlan& plan, int dim, int64_t n_features, Root<O, L>& root) {
    if (static_cast<int64_t>(plan.solutions.size()) != root.n_tasks())
        throw BadSolution("expected " + std::to_string(root.n_tasks()) + " subproblem solutions, got " +
                          std::to_string(plan.solutions.size()));
    for (int64_t t = 0; t < root.n_tasks(); ++t) root.side(t) = read_solution(plan.solutions[t], dim, n_features);
}

// Expands the root, then solves `tasks` on the run loop's workers; a worker keeps its scratch from
// the root's expansion to its tasks.
template <class O, class L>
void solve_root(const L& layout, const O& objective, Search<O, L>& search, RunLoop& loop, const RootPlan& plan,
                Root<O, L>& root, std::vector<int64_t>& tasks) {
    std::atomic<int64_t> n_tasks{0}, tasks_done{0};
    auto expand = [&](int w) {
        try {
            root.view = layout.with_histogram(objective, root.view, root.buffer);
        } catch (const Cut&) {
            // Then the root is a leaf (the cut reaches its generator), which needs no histogram.
        }
        root.sol = search.expand(root.view, root.hash, 0, Bounds{}, root.candidates, search.workspace(w));
        try {
            root.order = search.solve_order(root.view, Bounds{}, *root.sol, root.candidates);
        } catch (const Cut&) {
            root.candidates.clear();
        }
        root.children.resize(root.candidates.size());
        tasks = tasks_to_solve(plan, root.n_tasks());
        n_tasks.store(static_cast<int64_t>(tasks.size()));
        search.start_tasks(loop.n_workers(), static_cast<int64_t>(tasks.size()));
        return static_cast<int64_t>(tasks.size());
    };
    auto solve_task = [&](int w, int64_t k) {
        // Tasks 0 and 1 (the greedy candidate under a time limit) always run.
        if (k > 1 && search.out_of_time()) return;
        const int64_t t = tasks[k];
        Workspace<typename L::Buffer>& ws = search.workspace(w);
        const double done = ws.done;
        ws.share = 1.0;   // in tasks
        root.side(t) = search.solve_side(root.view, 0, root.candidates[root.order[t / 2]], t % 2 == 0, ws);
        Search<O, L>::advance(ws, done + 1.0);
        tasks_done.fetch_add(1);
    };
    loop.run(expand, solve_task, [&] {
        Progress at;
        at.states = search.states();
        at.root_tasks = n_tasks.load();
        at.root_tasks_done = tasks_done.load();
        return at;
    });
}

template <class O, class L>
FitResult run(const L& layout, const O& objective, const Params& params, const Poll& poll, const RootPlan& plan,
              bool stops_short) {
    using Mode = RootPlan::Mode;
    if (plan.mode != Mode::Local && params.time_limit > 0.0)
        throw std::invalid_argument("a fit split over processes cannot have a time limit");
    RunLoop loop(params.n_threads, params.time_limit, poll);
    Search<O, L> search(layout, objective, params, loop, stops_short && plan.mode == Mode::Local);
    Root<O, L> root;
    root.view = layout.root();
    root.hash = layout.hash(root.view);
    std::vector<int64_t> tasks;
    solve_root(layout, objective, search, loop, plan, root, tasks);

    FitResult result;
    result.root_tasks = root.n_tasks();
    if (plan.mode == Mode::Solve)
        for (int64_t t : tasks) result.solutions.push_back(write_solution(*root.side(t)));
    if (plan.mode == Mode::Combine) receive_solutions(plan, objective.dim(), layout.p(), root);
    result.stats.states = search.states();
    result.stats.candidates = search.n_candidates();
    result.stats.exact_scans = search.exact_scans();
    result.stats.sample_reads = search.sample_reads();
    result.stats.cache_hits = search.cache_hits();
    result.stats.shared_states = search.shared_states();
    result.stats.complete = !search.timed_out();
    if (!result.stats.complete) result.stats.stopped_by = loop.limit();
    result.stats.projected = search.projected();
    if (plan.mode == Mode::Local || plan.mode == Mode::Combine) {
        search.drop_unsolved(root.candidates, root.children);
        if (!root.candidates.empty()) search.finish(*root.sol, root.candidates, root.children);
        result.front = front_of(objective, search.rule(), *root.sol, search.total_weight(), params.front);
    }
    result.stats.state_bytes = search.state_bytes();
    result.stats.seconds = loop.seconds();
    return result;
}

}  // namespace

template <class O>
FitResult fit(const Dataset& data, const O& objective, const Params& params, const Poll& poll,
              const RootPlan& plan) {
    return run(ExactLayout(data), objective, params, poll, plan, true);
}

template <class O, class Code>
FitResult fit(const BinnedData<Code>& data, const O& objective, const Params& params, const Poll& poll,
              const RootPlan& plan) {
    return run(BinnedLayout<Code, O>(data, objective), objective, params, poll, plan, true);
}

template <class O>
FitResult fit_remote(const RemoteLayout<O>& layout, const O& objective, const Params& params, const Poll& poll) {
    // A round replays the search on the states known so far: it cannot stop short of them.
    return run(layout, objective, params, poll, RootPlan{}, false);
}

// The fits of objective O on samples held by other machines (dpdt/remote.hpp).
#define DPDT_INSTANTIATE_REMOTE(O) \
    template FitResult fit_remote(const RemoteLayout<O>&, const O&, const Params&, const Poll&);

// The fits of objective O, for the exact and both binned layouts.
#define DPDT_INSTANTIATE(O)                                                                              \
    template FitResult fit(const Dataset&, const O&, const Params&, const Poll&, const RootPlan&);        \
    template FitResult fit(const BinnedData<uint8_t>&, const O&, const Params&, const Poll&, const RootPlan&); \
    template FitResult fit(const BinnedData<uint16_t>&, const O&, const Params&, const Poll&, const RootPlan&);

}  // namespace dpdt
