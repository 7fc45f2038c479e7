// Split search on a node whose samples are kept sorted by every feature.
#pragma once
#include <cstdint>
#include <vector>

#include "dpdt/dataset.hpp"
#include "dpdt/params.hpp"

namespace dpdt {

// A node's samples: p blocks of m sample ids, block f sorted by feature f.
// Invariant: every block holds the same set of ids.
struct NodeView {
    int32_t m = 0;
    const int32_t* blocks = nullptr;
    const int32_t* block(int64_t f) const { return blocks + f * static_cast<int64_t>(m); }
};

// What a valid split leaves on each side.
struct LeafLimits {
    int min_samples = 1;
    double min_weight = 0.0;
    bool allow(int32_t n_left, int32_t n_right, double w_left, double w_right) const {
        return n_left >= min_samples && n_right >= min_samples && w_left >= min_weight &&
               w_right >= min_weight;
    }
};

struct SplitRecord {
    int32_t feature = -1;
    double threshold = 0.0;
    int32_t n_left = 0;        // samples [0, n_left) of the feature's block go left
    double score = 0.0;        // what the search maximised or minimised
    double tie = 0.0;          // secondary key
    bool found() const { return feature >= 0; }
};

// Midpoint between consecutive distinct values; a value equal to it goes left.
inline double midpoint(double lo, double hi) {
    double t = lo / 2.0 + hi / 2.0;
    if (!(t < hi)) t = lo;
    return t;
}

// Weighted class sums and total weight of a node.
void class_weights(const Dataset& data, NodeView node, double* class_w, double* total);

// The split of largest weighted impurity decrease among `features` (CART's rule). Ties go to the
// lower feature index, then the lower threshold. `decrease` is W*imp - W_L*imp_L - W_R*imp_R.
SplitRecord best_impurity_split(const Dataset& data, NodeView node, const std::vector<int32_t>& features,
                                Criterion criterion, const LeafLimits& limits, const double* class_w,
                                double total, double* decrease);

// A node whose exact stump is searched: its statistics in, per-feature best splits out.
struct StumpSearch {
    const double* class_w = nullptr;
    double total = 0.0;
    // One record per feature (not found when the feature has no valid threshold): score = weighted
    // 0-1 loss, tie = weighted impurity of the two children. Ties in loss go to the lower impurity,
    // then the lower threshold.
    std::vector<SplitRecord> best;
};

// For every feature, the split of lowest weighted 0-1 loss of the node.
void best_01_splits(const Dataset& data, NodeView node, Criterion criterion, const LeafLimits& limits,
                    StumpSearch& search);

// Every valid threshold of every feature, in (feature, threshold) order; with per_feature > 0 only
// the first valid threshold at or after each of per_feature evenly spaced quantiles of a feature.
void all_splits(const Dataset& data, NodeView node, const LeafLimits& limits, double total, int per_feature,
                std::vector<SplitRecord>& out);

// Weighted class sums of the samples a split of the node sends left.
void left_class_weights(const Dataset& data, NodeView node, const SplitRecord& split, double* class_w);

// Number of samples of the node going left of `threshold` on `feature` (binary search in its block).
int32_t count_left(const Dataset& data, NodeView node, int32_t feature, double threshold);

// Stable partition of every block: ids with in_left[id] == 1 go to `left` (p x n_left), ids with
// in_left[id] == 0 to `right`. Both outputs need one slot of slack after their p blocks.
void partition(const Dataset& data, NodeView node, const uint8_t* in_left, int32_t n_left,
               int32_t* left, int32_t* right);

}  // namespace dpdt
