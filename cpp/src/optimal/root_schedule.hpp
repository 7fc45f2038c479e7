// The exact search's root schedule (search_optimal): CART's tree and the root's optimum one level
// shallower first, for an incumbent; then each root feature searched on its own, in the root's
// order, by the run loop's workers. Under a time limit, rounds of tasks first take every
// feature's search a few more steps (RootSeed), so that a search stopped early has a bound from
// every feature. When a limit stops it, the lower bound of the optimum is gathered here.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "optimal/search.hpp"

namespace dpdt {
namespace {

// The best tree found on the run loop's workers, each with a search (its scratch and memo) kept
// from task to task; `stats` sums the searches'. When the clock stops the search, `lower_bound`
// is set to a lower bound of the optimum (in weight units).
template <class O>
Shape search_optimal(const Dataset& data, const O& objective, const Params& params, double alpha,
                     double total, RunLoop& loop, FitStats& stats, double& lower_bound) {
    const int depth = params.max_depth;
    // (n_tasks: 0, unknown, until setup has counted them: a report before then has no total.)
    std::atomic<int64_t> states_seen{0}, tasks_done{0}, n_tasks{0};
    HeldBytes held(params.max_state_bytes, loop);
    // Half the budget for each cache (the depth-two rows are the larger part of the other).
    SolvedStates solved(cache_bytes(params) / 2, held);
    DepthTwoCache depth_twos(depth_two_capacity(cache_bytes(params) / 2), held, kDepthTwoRowBytes);
    // (After the caches: a search gives its bytes back to `held` when destroyed.)
    std::vector<std::unique_ptr<Search<O>>> searches(loop.n_workers());
    auto search = [&](int w) -> Search<O>& {
        if (!searches[w])
            searches[w] = std::make_unique<Search<O>>(data, objective, params, alpha, total, loop, states_seen, held,
                                                     solved, depth_twos);
        return *searches[w];
    };
    auto progress = [&] {
        Progress at;
        at.root_tasks = n_tasks.load();   // the shallower root, each seed, each feature
        at.root_tasks_done = tasks_done.load();
        at.states = states_seen.load(std::memory_order_relaxed);
        return at;
    };

    // First (on one worker): CART's tree, then the root's optimum one level shallower: the
    // incumbent to beat, and the bound at the ends of every root feature's thresholds. The time
    // limit's cut (dpdt/run_loop.hpp) leaves the root a leaf if it comes before CART's tree, and
    // the root features unsearched if before the shallower optimum.
    Outcome incumbent, shallow;
    bool shallow_ran = false;
    auto first = [&](int w) {
        try {
            incumbent = search(w).greedy_root(depth);
        } catch (const Cut&) {
            incumbent = search(w).greedy_root(0);
        }
        try {
            shallow = search(w).solve_root(depth == 1 ? 1 : depth - 1, incumbent.value);
        } catch (const Cut&) {
            return int64_t{0};
        }
        shallow_ran = true;
        tasks_done.fetch_add(1);
        if (shallow.found) incumbent = shallow;
        return static_cast<int64_t>(depth >= 2 ? data.p : 0);
    };
    // Then each root feature searched on its own under that incumbent, in the root's order
    // (CART's score at the root, best first); ties keep the incumbent, then the feature first in
    // that order, as inside every state. Where a search's tree depends on its bound (thresholds
    // of continuous features, rounded values: see Solved), features do not share their
    // incumbents, so that the tree does not depend on which thread finds what first. Where it
    // does not, a feature is searched under the best value found so far, which prunes far more
    // and leaves every feature's found tree and the choice among them as they were: the features
    // are taken in order, so every one before the holder of the best value was taken before it.
    std::vector<RootTask> roots(static_cast<size_t>(depth >= 2 ? data.p : 0));
    std::vector<Outcome> searched(roots.size());
    std::vector<char> ran(roots.size(), 0);   // whether searched[f] is its task's outcome
    // Each feature's seed (RootTask), evaluated first, and what its task found.
    std::vector<RootSeed> seeds(roots.size());
    std::vector<Outcome> seeded(roots.size());
    std::vector<char> seed_ran(roots.size(), 0);
    // Each feature's found value by rank, for the later features' RootTask::bar: the tree kept is
    // the same whichever of them a thread has seen.
    std::vector<std::atomic<double>> found_value(roots.size());
    for (std::atomic<double>& v : found_value) v.store(kInf);
    bool share = false;
    std::vector<int32_t> order, rank;   // the root's order, and each feature's position in it
    std::mutex best_mutex;
    double best_value = kInf;
    int32_t holder_rank = -1;   // of the feature whose tree has best_value; -1: the incumbent's
    size_t next_ranked = 0;
    // The next feature in order, under the best value so far: a later feature's tree of equal
    // value would not be kept. None once that value is 0 (alpha = 0 when shared: no tree does
    // better).
    auto take = [&](double& ub) {
        if (best_value <= 0.0 || next_ranked == order.size()) return int32_t{-1};
        ub = best_value;
        return order[next_ranked++];
    };
    // Tasks 0 .. p - 1 run the rounds (RootSeed): round r advances each feature's search, in the
    // root's order, to its first RootSeed::steps(r) steps, under the incumbent (best_value might be
    // a feature's own tree, which its search would then not find again); the tasks after search
    // each feature to its end. The rounds only reorder the searches' work (and let a feature's
    // tree found early lower the later features' bar sooner): every feature has a bound after
    // the first round, and the bound rises across all of them, not feature after feature.
    int64_t p = 0;   // the rounds' tasks
    int rounds = 0;
    auto by_feature = [&](int w, int64_t t) {
        if (loop.limit_reached()) return;   // the features left keep no tree
        if (t < p) {
            const int32_t f = order[t % static_cast<int64_t>(order.size())];
            const int round = static_cast<int>(t / static_cast<int64_t>(order.size()));
            // A round whose feature's last round still runs (or has ended its search) waits for
            // the next one, which continues from where that one ends.
            if (seeds[f].busy.exchange(true, std::memory_order_acq_rel)) {
                tasks_done.fetch_add(1);
                return;
            }
            RootTask task{f, rank[f], &shallow, incumbent.value, found_value.data(), &seeds[f], true};
            task.resume = true;
            task.until = RootSeed::steps(round);
            task.rounds = rounds;
            const Outcome out = search(w).solve_root_feature(depth, incumbent.value, task);
            // Each round's bound holds; the later one is the tighter unless stopped early.
            const double before = seed_ran[f] ? seeded[f].lower() : 0.0;
            seeded[f] = out;
            if (before > seeded[f].lower()) seeded[f].cut_short_lower = before;
            seed_ran[f] = 1;
            // The feature's search finds a tree at least as good: the later features' bar.
            if (out.found) {
                std::atomic<double>& v = found_value[rank[f]];
                double held = v.load(std::memory_order_relaxed);
                while (out.value < held && !v.compare_exchange_weak(held, out.value, std::memory_order_relaxed)) {
                }
            }
            seeds[f].busy.store(false, std::memory_order_release);
            tasks_done.fetch_add(1);
            return;
        }
        t -= p;
        int32_t f = order[t];
        double ub = incumbent.value;
        if (share) {
            std::lock_guard<std::mutex> lock(best_mutex);
            f = take(ub);
            if (f < 0) return;
        }
        roots[f] = RootTask{f, rank[f], &shallow, incumbent.value, found_value.data(), &seeds[f], false};
        roots[f].resume = !seeds[f].busy.exchange(true, std::memory_order_acq_rel);
        roots[f].rounds = rounds;
        searched[f] = search(w).solve_root_feature(depth, ub, roots[f]);
        ran[f] = 1;
        if (searched[f].found) found_value[rank[f]].store(searched[f].value);
        if (share && searched[f].found) {
            // A feature taken earlier may end later, under a bound another has lowered since.
            std::lock_guard<std::mutex> lock(best_mutex);
            if (searched[f].value < best_value || (searched[f].value == best_value && rank[f] < holder_rank)) {
                best_value = searched[f].value;
                holder_rank = rank[f];
            }
        }
        tasks_done.fetch_add(1);
    };
    auto setup = [&](int w) {
        const int64_t tasks = first(w);
        best_value = incumbent.value;
        share = tasks > 0 && search(w).order_free();
        if (tasks > 0) {
            order = search(w).root_order();
            rank.assign(order.size(), 0);
            for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int32_t>(r);
        }
        // Where the features share their incumbent, their searches prune each other so much that
        // the rounds, under the incumbent alone, add work (a third more on binary features at
        // depth 4) where a stop came before the first round's end anyway: none then.
        // The rounds after the first two reorder the searches' work for the bound's sake, at
        // some cost (the best-ranked feature's search, often the one that lowers the bar the
        // most, ends later): only under a time limit.
        rounds = share ? 0 : params.time_limit > 0.0 ? kRootRounds : kUntimedRounds;
        p = rounds * tasks;
        n_tasks.store(1 + p + tasks);
        return p + tasks;
    };
    loop.run(setup, by_feature, progress);

    if (loop.limit_reached()) {
        // The optimum is the best of the root's leaf and of its splits on each feature: bounded by
        // that feature's tasks where they ran (its seed's, its search's), else by what every
        // split has from the optimum one level shallower (itself bounded where its search ran).
        Search<O>& root = search(0);
        lower_bound = root.root_leaf_value();
        const double any_split = root.any_root_split_bound(depth, shallow_ran && depth >= 2 ? shallow.lower() : 0.0);
        if (depth == 1) lower_bound = std::min(lower_bound, shallow_ran ? shallow.lower() : any_split);
        for (size_t f = 0; f < searched.size(); ++f) {
            double feature = any_split;
            if (seed_ran[f]) feature = seeded[f].lower();
            if (ran[f]) feature = std::max(seed_ran[f] ? feature : 0.0, searched[f].lower());
            lower_bound = std::min(lower_bound, feature);
        }
    }

    // A feature's search finds at least its seed's tree; a search stopped before it has that.
    Outcome best = std::move(incumbent);
    for (int32_t f : order) {
        Outcome& found = ran[f] ? searched[f] : seeded[f];
        if (found.found && found.value < best.value) best = std::move(found);
    }
    for (const auto& s : searches) {
        if (!s) continue;
        stats.states += s->stats.states;
        stats.candidates += s->stats.candidates;
        stats.exact_scans += s->stats.exact_scans;
        stats.sample_reads += s->stats.sample_reads;
        stats.cache_hits += s->stats.cache_hits;
        stats.sweeps += s->stats.sweeps;
    }
    stats.state_bytes = held.peak();
    return std::move(best.shape);
}

}  // namespace
}  // namespace dpdt
