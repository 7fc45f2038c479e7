// The found tree written out: its shape on the samples as scikit-learn's tree arrays, the
// last level's split chosen among the equally good by impurity as the dynamic programme does, and
// the front's one row.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "dpdt/split_search.hpp"
#include "optimal/outcome.hpp"

namespace dpdt {
namespace {

// The tree arrays of `shape` on the samples `ids`, and its loss, complexity, impurity and split
// count summed in weight units.
struct Emitted {
    TreeArrays tree;
    double loss = 0.0, tests = 0.0, impurity = 0.0;
    int64_t splits = 0;
};

// The search keeps the first split of lowest loss it meets at the last level; among the equally
// good ones, the tree takes the one of lowest impurity (then lower feature and threshold), as the
// dynamic programme does. (Other objectives break no ties beyond the order: the first split kept
// is the lower feature's and threshold's, as the dynamic programme's.)
ShapeNode refined_stump(const Dataset& data, const Classification& obj, const std::vector<int32_t>& ids,
                        const double* class_w, ShapeNode found) {
    const int32_t m = static_cast<int32_t>(ids.size());
    const double tol = 1e-12 * obj.weight(class_w);
    std::vector<int32_t> sorted(ids);
    sorted.push_back(0);   // room for the branch-free filter's last write
    // Each feature's order of the node's samples, by (value, id): sorted, or read off the
    // presorted blocks (in that order too) when the node holds enough of the samples that one
    // pass over a block costs less than a sort.
    std::vector<char> member;
    if (static_cast<double>(m) * std::log2(m + 1.0) > static_cast<double>(data.n)) {
        member.assign(static_cast<size_t>(data.n), 0);
        for (int32_t i : ids) member[i] = 1;
    }
    detail::ScanScratch scratch;
    SplitRecord best;
    for (int32_t g = 0; g < data.p; ++g) {
        const double* col = data.column(g);
        if (member.empty()) {
            std::sort(sorted.begin(), sorted.begin() + m, [col](int32_t a, int32_t b) {
                return col[a] < col[b] || (col[a] == col[b] && a < b);
            });
        } else {
            const int32_t* block = data.presorted.data() + static_cast<int64_t>(g) * data.n;
            int32_t k = 0;
            for (int64_t j = 0; j < data.n; ++j) {
                sorted[k] = block[j];
                k += member[block[j]];
            }
        }
        const SplitRecord r = detail::best_01_split(data, obj, sorted.data(), m, g, LeafLimits{}, class_w, scratch);
        if (r.found() && (!best.found() || r.score < best.score - tol ||
                          (r.score <= best.score + tol && r.tie < best.tie - tol)))
            best = r;
    }
    return best.found() ? ShapeNode{best.feature, best.threshold} : found;
}

template <class O>
void emit(const Dataset& data, const O& obj, const Shape& shape, size_t& at, std::vector<int32_t> ids,
          Emitted& out) {
    const ShapeNode node = shape[at++];
    TreeArrays& t = out.tree;
    const int64_t id = t.node_count();
    std::vector<double> cw(obj.dim(), 0.0);
    for (int32_t i : ids) obj.add(cw.data(), i);
    const double w = obj.weight(cw.data());
    t.children_left.push_back(kLeaf);
    t.children_right.push_back(kLeaf);
    t.feature.push_back(-2);
    t.threshold.push_back(-2.0);
    t.missing_left.push_back(0);
    const size_t value_at = t.value.size();
    t.value.resize(value_at + obj.value_dim());
    obj.value(cw.data(), t.value.data() + value_at);
    t.impurity.push_back(obj.node_impurity(cw.data()));
    t.n_node_samples.push_back(static_cast<int64_t>(ids.size()));
    t.weighted_n_node_samples.push_back(w);
    if (node.feature < 0) {
        out.loss += obj.loss(cw.data());
        out.impurity += obj.tie(cw.data());
        return;
    }
    ++out.splits;
    out.tests += w;
    const bool stump = shape[at].feature < 0 && shape[at + 1].feature < 0;
    ShapeNode split = node;
    if constexpr (O::kZeroOneLossOnCounts)
        if (stump) split = refined_stump(data, obj, ids, cw.data(), node);
    t.feature[id] = split.feature;
    t.threshold[id] = split.threshold;
    std::vector<int32_t> left, right;
    for (int32_t i : ids) (data.x(split.feature, i) <= split.threshold ? left : right).push_back(i);
    t.children_left[id] = t.node_count();
    emit(data, obj, shape, at, std::move(left), out);
    t.children_right[id] = t.node_count();
    emit(data, obj, shape, at, std::move(right), out);
}

// The front's one row: the tree of `shape` on all samples.
template <class O>
FrontTree front_row(const Dataset& data, const O& objective, const Params& params, double alpha,
                    double total, const Shape& shape) {
    std::vector<int32_t> ids(static_cast<size_t>(data.n));
    for (int32_t i = 0; i < static_cast<int32_t>(data.n); ++i) ids[i] = i;
    Emitted e;
    size_t at = 0;
    emit(data, objective, shape, at, std::move(ids), e);
    FrontTree ft;
    ft.alpha_min = ft.alpha_max = alpha;
    ft.loss = e.loss / total;
    ft.complexity = params.complexity == Complexity::ExpectedTests ? e.tests / total : static_cast<double>(e.splits);
    ft.impurity = e.impurity / total;
    ft.n_splits = e.splits;
    ft.tree = std::move(e.tree);
    return ft;
}

}  // namespace
}  // namespace dpdt
