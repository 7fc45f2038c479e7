// The byte format of solution_io.hpp: a magic number and the count of solutions, then each
// solution (statistics, actions by the indices of their children, hull) after its children.
#include "solution_io.hpp"

#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dpdt/solver.hpp"

namespace dpdt {
namespace {

class SolutionWriter {
  public:
    std::string write(const Solution& root) {
        put(kMagic);
        const size_t count_at = out_.size();
        put(int32_t{0});
        visit(&root);
        const int32_t count = static_cast<int32_t>(index_.size());
        std::memcpy(out_.data() + count_at, &count, sizeof count);
        return std::move(out_);
    }

  private:
    int32_t visit(const Solution* s) {
        if (auto it = index_.find(s); it != index_.end()) return it->second;
        std::vector<std::pair<int32_t, int32_t>> children;
        for (const Action& a : s->actions) children.emplace_back(visit(a.left.get()), visit(a.right.get()));
        put(s->n_samples);
        put(s->total);
        put(s->impurity);
        put(static_cast<int32_t>(s->stats.size()));
        for (double v : s->stats) put(v);
        put(static_cast<int32_t>(s->actions.size()));
        for (size_t a = 0; a < s->actions.size(); ++a) {
            put(s->actions[a].feature);
            put(s->actions[a].threshold);
            put(static_cast<uint8_t>(s->actions[a].missing_left));
            put(children[a].first);
            put(children[a].second);
        }
        put(static_cast<int32_t>(s->hull.size()));
        for (const HullPoint& p : s->hull) {
            put(p.C);
            put(p.L);
            put(p.I);
            put(p.S);
            put(p.action);
            put(p.left_point);
            put(p.right_point);
        }
        const int32_t id = static_cast<int32_t>(index_.size());
        index_.emplace(s, id);
        return id;
    }
    template <class T>
    void put(T v) {
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }

    static constexpr uint32_t kMagic = 0x54445044;   // "DPDT"
    std::string out_;
    std::unordered_map<const Solution*, int32_t> index_;

    friend class SolutionReader;
};

class SolutionReader {
  public:
    SolutionReader(const std::string& bytes, int dim, int64_t n_features)
        : bytes_(bytes), dim_(dim), p_(n_features) {}

    SolutionPtr read() {
        if (get<uint32_t>() != SolutionWriter::kMagic) fail();
        const int32_t count = get<int32_t>();
        if (count < 1) fail();
        std::vector<SolutionPtr> solutions;
        for (int32_t k = 0; k < count; ++k) {
            auto s = std::make_shared<Solution>();
            s->n_samples = get<int32_t>();
            s->total = get<double>();
            s->impurity = get<double>();
            if (get<int32_t>() != dim_) fail();
            s->stats.resize(dim_);
            for (double& v : s->stats) v = get<double>();
            const int32_t n_actions = get<int32_t>();
            if (n_actions < 0 || n_actions > k) fail();
            for (int32_t a = 0; a < n_actions; ++a) {
                Action action;
                action.feature = get<int32_t>();
                action.threshold = get<double>();
                if (action.feature < 0 || action.feature >= p_) fail();
                action.missing_left = get<uint8_t>() != 0;
                const int32_t l = get<int32_t>(), r = get<int32_t>();
                if (l < 0 || l >= k || r < 0 || r >= k) fail();
                action.left = solutions[l];
                action.right = solutions[r];
                s->actions.push_back(std::move(action));
            }
            const int32_t n_points = get<int32_t>();
            if (n_points < 1 || n_points > (int64_t{1} << 24)) fail();
            for (int32_t q = 0; q < n_points; ++q) {
                HullPoint p;
                p.C = get<double>();
                p.L = get<double>();
                p.I = get<double>();
                p.S = get<double>();
                p.action = get<int32_t>();
                p.left_point = get<int32_t>();
                p.right_point = get<int32_t>();
                if (p.action >= n_actions || p.action < -1) fail();
                if (p.action >= 0) {
                    const Action& a = s->actions[p.action];
                    if (p.left_point < 0 || p.left_point >= static_cast<int32_t>(a.left->hull.size()) ||
                        p.right_point < 0 || p.right_point >= static_cast<int32_t>(a.right->hull.size()))
                        fail();
                }
                s->hull.push_back(p);
            }
            solutions.push_back(std::move(s));
        }
        if (at_ != bytes_.size()) fail();
        return solutions.back();
    }

  private:
    template <class T>
    T get() {
        T v;
        if (bytes_.size() - at_ < sizeof v) fail();
        std::memcpy(&v, bytes_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    [[noreturn]] static void fail() {
        throw BadSolution("a subproblem solution does not decode: it is corrupt or from another fit");
    }
    const std::string& bytes_;
    const int dim_;
    const int64_t p_;
    size_t at_ = 0;
};

}  // namespace

std::string write_solution(const Solution& root) { return SolutionWriter().write(root); }

SolutionPtr read_solution(const std::string& bytes, int dim, int64_t n_features) {
    return SolutionReader(bytes, dim, n_features).read();
}

}  // namespace dpdt
