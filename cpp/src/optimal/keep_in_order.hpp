// The exact solver's filter (optimal.cpp) when the ranks come in the block's order: the ids of a
// block whose rank (in another feature's order) falls in a range, in the block's order. Every
// child of a state is made by it, once per feature: the solver's innermost loop with the scans.
#pragma once

#include <cstdint>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define DPDT_KEEP_IN_ORDER_AVX2 1
#endif

namespace dpdt {

// Slots past the kept ids that a KeepInOrder may write (the caller owns them).
constexpr int32_t kKeepSlack = 8;

// The ids[q] (q < n) with lo <= rank[q] < lo + span, in their order, into out; returns their
// count, and may write up to kKeepSlack slots past it. Ranks R of 32 bits, or of 16 where every
// rank is below 2^16 (half the bytes to keep and to read).
template <class R>
using KeepInOrder = int32_t (*)(const int32_t* ids, const R* rank, int32_t n, int32_t lo, uint32_t span,
                                int32_t* out);

namespace detail {

// Branch-free (which samples stay is unpredictable), unrolled.
template <class R>
inline int32_t keep_in_order_scalar(const int32_t* ids, const R* rank, int32_t n, int32_t lo, uint32_t span,
                                    int32_t* out) {
    int64_t s = 0;
#pragma GCC unroll 8
    for (int32_t q = 0; q < n; ++q) {
        out[s] = ids[q];
        s += static_cast<uint32_t>(rank[q] - lo) < span;
    }
    return static_cast<int32_t>(s);
}

#ifdef DPDT_KEEP_IN_ORDER_AVX2
// For each 8-bit mask, the positions of its set bits, lowest first, a byte each.
struct CompressTable {
    uint64_t lanes[256];
    constexpr CompressTable() : lanes{} {
        for (int mask = 0; mask < 256; ++mask) {
            uint64_t packed = 0;
            int k = 0;
            for (int b = 0; b < 8; ++b)
                if (mask >> b & 1) packed |= static_cast<uint64_t>(b) << (8 * k++);
            lanes[mask] = packed;
        }
    }
};
inline constexpr CompressTable kCompress{};

// Eight at a time: the kept ids moved to the front of a vector that is stored whole (AVX2 has
// no compressing store). Ranks are below 2^31, so two signed compares make the unsigned one.
// (Gathering the ranks by id instead is slower than the scalar filter on AMD's Zen 3.)
template <class R>
__attribute__((target("avx2,popcnt"))) inline int32_t keep_in_order_avx2(const int32_t* ids, const R* rank,
                                                                         int32_t n, int32_t lo, uint32_t span,
                                                                         int32_t* out) {
    const __m256i above = _mm256_set1_epi32(lo - 1);
    const __m256i below = _mm256_set1_epi32(static_cast<int32_t>(lo + static_cast<int64_t>(span)));
    int64_t s = 0;
    int32_t q = 0;
    for (; q + 8 <= n; q += 8) {
        const __m256i id = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids + q));
        __m256i r;
        if constexpr (sizeof(R) == 2)
            r = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rank + q)));
        else
            r = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rank + q));
        const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(r, above), _mm256_cmpgt_epi32(below, r));
        const unsigned mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(in)));
        const __m256i order = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(kCompress.lanes[mask])));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + s), _mm256_permutevar8x32_epi32(id, order));
        s += __builtin_popcount(mask);
    }
    return static_cast<int32_t>(s) + keep_in_order_scalar(ids + q, rank + q, n - q, lo, span, out + s);
}
#endif

}  // namespace detail

// The fastest of the two this processor runs.
template <class R>
inline KeepInOrder<R> keep_in_order_for_cpu() {
#ifdef DPDT_KEEP_IN_ORDER_AVX2
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) return detail::keep_in_order_avx2<R>;
#endif
    return detail::keep_in_order_scalar<R>;
}

}  // namespace dpdt
