// The bytes a solved state holds, from the solver's own types (dpdt/memory.hpp).
#include "dpdt/memory.hpp"

#include <memory>

#include "solution.hpp"

namespace dpdt {
namespace {

// std::make_shared's single block: the control block's two counts and vtable pointer, then the
// Solution.
constexpr int64_t kSharedSolution = sizeof(Solution) + 2 * sizeof(int) + sizeof(void*);
// A node of std::unordered_map<StateKey, SolutionPtr> (its next pointer, the key, the value and
// the cached hash) and the bucket pointers of a map kept at load factor <= 1 (doubled on growth).
constexpr int64_t kCacheNode = sizeof(void*) + kStateKeyBytes + sizeof(SolutionPtr) + sizeof(size_t);
constexpr int64_t kCacheBuckets = 2 * sizeof(void*);

}  // namespace

int64_t state_bytes(int64_t stat_dim, bool cached) {
    return heap_chunk(kSharedSolution) + heap_chunk(stat_dim * static_cast<int64_t>(sizeof(double))) +
           heap_chunk(sizeof(HullPoint)) + (cached ? heap_chunk(kCacheNode) + kCacheBuckets : 0);
}

int64_t solved_bytes(int64_t hull_points, int64_t actions) {
    return heap_chunk(hull_points * static_cast<int64_t>(sizeof(HullPoint))) +
           heap_chunk(actions * static_cast<int64_t>(sizeof(Action))) - heap_chunk(sizeof(HullPoint));
}

}  // namespace dpdt
