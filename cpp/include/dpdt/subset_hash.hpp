// A sample subset by an order-independent 128-bit hash: the sums of two mixes of its ids. Sums make
// a subset's hash independent of how it was reached, and a child's hash the parent's minus its
// sibling's. The searches key their caches of solved subsets on it (with the subset's size).
#pragma once
#include <cstdint>

namespace dpdt {

struct SubsetHash {
    uint64_t a = 0, b = 0;
};

inline uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
inline uint64_t mix_a(int32_t i) { return splitmix64(static_cast<uint64_t>(i)); }
inline uint64_t mix_b(int32_t i) { return splitmix64(static_cast<uint64_t>(i) ^ 0x5851f42d4c957f2dULL); }

inline SubsetHash hash_of(const int32_t* ids, int64_t m) {
    SubsetHash h;
    for (int64_t j = 0; j < m; ++j) {
        h.a += mix_a(ids[j]);
        h.b += mix_b(ids[j]);
    }
    return h;
}

}  // namespace dpdt
