// What the root schedule (root_schedule.hpp) hands the search (search.hpp) for one root
// feature: the feature, the bar its tree must beat, and the saved search it resumes from
// (RootSeed) when the rounds under a time limit ran before it.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "optimal/bounds.hpp"
#include "optimal/outcome.hpp"

namespace dpdt {
namespace {

// A root searched one feature at a time; `shallower` is the root's outcome one level shallower.
// The fit keeps this task's tree only if it is below `incumbent` and below the tree of every
// feature before it in the root's order (`earlier[r]` for ranks r < rank: kInf while that task
// runs or when it has none), so a task whose every tree left is at least bar() has no tree the
// fit can keep.
//
// A root feature's first cut (its seed: CART's split on it) and the next steps of its search are
// evaluated by tasks of their own (rounds) before any feature's search goes further, so that every
// feature bounds the root early (a search stopped then has a bound from each, and the bound
// rises round by round across all the features, not one feature after another), and the
// feature's search resumes from the last round (`seed`, once ready). Every round evaluates its
// cuts under the same bound, or where trees do not depend on the bound (Solved), under bounds
// all valid; and a search clears its memo at every round's end whether or not it resumed there
// (start_task): the search is the same however many rounds ran.
struct RootSeed {
    // Round r's task evaluates the seed and the cuts of the search's first steps(r) steps: the
    // first round the seed alone (one cut of every feature bounds the root: where each cut
    // searches two children of depth >= 2, more before that leaves the root unbounded for
    // long), the next two more (a good tree early, from the best-ranked features), each next
    // one as many cuts as all before it.
    static int64_t steps(int round) { return round == 0 ? 0 : 3 * (int64_t{1} << (round - 1)) - 1; }
    std::atomic<bool> busy{false};    // a round's task (or the feature's search) holds it
    std::atomic<bool> ready{false};   // the fields below are written
    Outcome best;                     // the best tree then
    double upper = kInf, lower = kInf;
    std::vector<Interval> queue;      // the intervals left, best first
    int64_t done = 0;                 // the steps taken
};
// The rounds before the root features' searches: the last one takes them to 3 * 2^15 - 1 steps.
constexpr int kRootRounds = 17;
// Without a time limit, the first two: every feature bounded by its seed, then its first
// three cuts (a search stopped by another limit has a bound from each), before any goes on.
constexpr int kUntimedRounds = 2;
struct RootTask {
    int32_t feature = -1;
    int32_t rank = 0;   // the feature's position in the root's order (Search::root_order)
    const Outcome* shallower = nullptr;
    double incumbent = kInf;
    const std::atomic<double>* earlier = nullptr;
    RootSeed* seed = nullptr;
    bool seed_only = false;   // a round's task: evaluate up to `until` steps and save the search
    bool resume = false;      // the task holds `seed` and resumes from it where ready
    int64_t until = 0;
    int rounds = 1;           // the rounds' tasks before the searches (their steps end a task)
    bool round_end(int64_t step) const {
        for (int r = 0; r < rounds; ++r)
            if (step == RootSeed::steps(r)) return true;
        return false;
    }
    double bar() const {
        double b = incumbent;
        for (int32_t r = 0; r < rank && earlier != nullptr; ++r)
            b = std::min(b, earlier[r].load(std::memory_order_relaxed));
        return b;
    }
};

}  // namespace
}  // namespace dpdt
