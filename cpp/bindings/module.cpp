// The Python boundary: validated, contiguous arrays in; plain arrays and dicts out.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "dpdt/binning.hpp"
#include "dpdt/branches.hpp"
#include "dpdt/memory.hpp"
#include "dpdt/objectives.hpp"
#include "dpdt/optimal.hpp"
#include "dpdt/remote.hpp"
#include "dpdt/solver.hpp"
#include "dpdt/split_rule.hpp"
#include "dpdt/tree.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <typename T>
using Array1 = nb::ndarray<const T, nb::numpy, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <typename T>
using Array2 = nb::ndarray<const T, nb::numpy, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

// Hands a vector to numpy without copying; the capsule frees it with the array.
template <typename T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& values, std::initializer_list<size_t> shape) {
    auto* owned = new std::vector<T>(std::move(values));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return nb::ndarray<nb::numpy, T>(owned->data(), shape, owner);
}

nb::dict tree_to_dict(dpdt::TreeArrays&& t, size_t n_classes) {
    const size_t nodes = static_cast<size_t>(t.node_count());
    nb::dict d;
    d["children_left"] = to_numpy(std::move(t.children_left), {nodes});
    d["children_right"] = to_numpy(std::move(t.children_right), {nodes});
    d["feature"] = to_numpy(std::move(t.feature), {nodes});
    d["threshold"] = to_numpy(std::move(t.threshold), {nodes});
    d["missing_go_to_left"] = to_numpy(std::move(t.missing_left), {nodes});
    d["value"] = to_numpy(std::move(t.value), {nodes, n_classes});
    d["impurity"] = to_numpy(std::move(t.impurity), {nodes});
    d["n_node_samples"] = to_numpy(std::move(t.n_node_samples), {nodes});
    d["weighted_n_node_samples"] = to_numpy(std::move(t.weighted_n_node_samples), {nodes});
    return d;
}

// What a call adds to the Params: reports, and how it takes part in a fit split over processes.
struct Call {
    // Called as progress(states, root_tasks_done, root_tasks, seconds) at most every
    // progress_seconds while the fit runs; None costs nothing.
    nb::object progress = nb::none();
    double progress_seconds = 1.0;
    // dpdt.dask: how this call takes part in a fit split over processes (dpdt/solver.hpp).
    dpdt::RootPlan plan;
    // dpdt/run_loop.hpp: stops the call with the other fits of its caller (Python's _runner.STOP).
    const dpdt::SharedStop* stop = nullptr;
};

// The RootPlan of the arguments count_root_tasks, root_tasks and root_solutions (at most one).
dpdt::RootPlan root_plan(bool count_root_tasks, std::optional<std::vector<int64_t>> root_tasks,
                         std::optional<std::vector<nb::bytes>> root_solutions) {
    if (count_root_tasks + root_tasks.has_value() + root_solutions.has_value() > 1)
        throw nb::value_error("count_root_tasks, root_tasks and root_solutions exclude each other");
    dpdt::RootPlan plan;
    if (count_root_tasks) plan.mode = dpdt::RootPlan::Mode::Count;
    if (root_tasks) {
        plan.mode = dpdt::RootPlan::Mode::Solve;
        plan.tasks = std::move(*root_tasks);
    }
    if (root_solutions) {
        plan.mode = dpdt::RootPlan::Mode::Combine;
        for (const nb::bytes& b : *root_solutions) plan.solutions.emplace_back(b.c_str(), b.size());
    }
    return plan;
}

void check_feature_costs(const dpdt::Params& params, int64_t p) {
    if (!params.feature_costs.empty() && static_cast<int64_t>(params.feature_costs.size()) != p)
        throw nb::value_error("feature_costs must have one entry per feature");
}

void check_shapes(Array2<double> X, Array1<double> sample_weight, const dpdt::Params& params) {
    const int64_t n = static_cast<int64_t>(X.shape(0)), p = static_cast<int64_t>(X.shape(1));
    if (static_cast<int64_t>(sample_weight.shape(0)) != n)
        throw nb::value_error("X and sample_weight must have the same number of rows");
    check_feature_costs(params, p);
    dpdt::check_monotonic_cst(params.monotonic_cst, p);
    if (n < 1 || p < 1) throw nb::value_error("empty training data");
    if (n > INT32_MAX - 1) throw nb::value_error("at most 2**31 - 2 samples are supported");
}

// The bounded search when a single alpha is asked on exact thresholds of an objective it serves
// (dpdt::kHasBoundedSearch), else the dynamic programme over the whole front. A constrained fit
// (monotonic_cst) is always the dynamic programme, which keeps the constraints by the rule of
// dpdt/split_rule.hpp (the bounded search knows no value bounds): the single alpha's tree is then
// one of its front's.
template <class Data, class O>
dpdt::FitResult solve(const Data& data, const O& objective, const dpdt::Params& params, const dpdt::Poll& poll,
                      const dpdt::RootPlan& plan) {
    if (dpdt::any_constraint(params.monotonic_cst)) {
        dpdt::Params front = params;
        front.single_alpha = -1.0;
        return dpdt::fit(data, objective, front, poll, plan);
    }
    if constexpr (dpdt::kHasBoundedSearch<O> && std::is_same_v<Data, dpdt::Dataset>)
        if (params.single_alpha >= 0.0 && plan.mode == dpdt::RootPlan::Mode::Local)
            return dpdt::fit_optimal(data, objective, params, params.single_alpha, poll);
    if (params.single_alpha >= 0.0)
        throw std::invalid_argument("the bounded search serves exact thresholds on one machine, for an objective "
                                    "whose loss only grows with samples");
    return dpdt::fit(data, objective, params, poll, plan);
}

// Only the calling (main) thread may check for Ctrl-C: a run loop's poll (dpdt/run_loop.hpp).
bool interrupted(const dpdt::Progress&) {
    nb::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
}

// Runs `go()`, the GIL released and its run loops under `stop` (if any), with Interrupted as
// Python's KeyboardInterrupt. Ctrl-C reaches a fit's poll on the main thread only (Python runs
// signal handlers there): a fit on another thread is stopped by its caller's stop.cancel().
template <class Go>
void without_gil(Go&& go, const dpdt::SharedStop* stop = nullptr) {
    nb::gil_scoped_release release;
    try {
        const dpdt::SharedStopScope scope(stop);
        go();
    } catch (const dpdt::Interrupted&) {
        nb::gil_scoped_acquire gil;
        // The signal handler raised it already, unless the fit was cancelled.
        if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
        throw nb::python_error();
    }
}

// Presorted features (dpdt/dataset.hpp), sorted on a run loop's worker so that Ctrl-C stops it.
dpdt::Dataset presorted(const double* X, int64_t n, int64_t p, const dpdt::Poll& poll) {
    std::optional<dpdt::Dataset> data;
    dpdt::run_polled(poll, [&] { data.emplace(X, n, p); });
    return std::move(*data);
}

// A run loop's poll for a call from Python: true (stop) after Ctrl-C, and the call's progress
// reported once `next_report` (its own, advanced here) has passed. Only the calling (main) thread
// may check for Ctrl-C; the run loop asks it every few ms.
bool poll_python(const Call& call, double& next_report, const dpdt::Progress& at) {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) return true;
    if (!call.progress.is_none() && at.seconds >= next_report) {
        next_report = at.seconds + call.progress_seconds;
        try {
            call.progress(at.states, at.root_tasks_done, at.root_tasks, at.seconds);
        } catch (nb::python_error& e) {
            e.discard_as_unraisable("dpdt progress callback");   // a report never stops a fit
        }
    }
    return false;
}

nb::dict result_dict(dpdt::FitResult&& result, size_t value_dim, dpdt::RootPlan::Mode mode);

// `data` is built by `make_data` with the GIL released (it presorts), unless given ready-made.
template <class O, class MakeData>
nb::dict run_fit(MakeData&& make_data, const O& objective, const dpdt::Params& params, const Call& call) {
    double next_report = call.progress_seconds;
    auto poll = [&](const dpdt::Progress& at) { return poll_python(call, next_report, at); };
    dpdt::FitResult result;
    without_gil([&] { result = solve(make_data(poll), objective, params, poll, call.plan); }, call.stop);
    return result_dict(std::move(result), static_cast<size_t>(objective.value_dim()), call.plan.mode);
}

// A fit's result as Python reads it: stats, and the front's trees or a split fit's parts.
nb::dict result_dict(dpdt::FitResult&& result, size_t value_dim, dpdt::RootPlan::Mode mode) {
    nb::dict stats;
    stats["states"] = result.stats.states;
    stats["candidates"] = result.stats.candidates;
    stats["exact_scans"] = result.stats.exact_scans;
    stats["sample_reads"] = result.stats.sample_reads;
    stats["shared_states"] = result.stats.shared_states;
    stats["cache_hits"] = result.stats.cache_hits;
    stats["sweeps"] = result.stats.sweeps;
    stats["state_bytes"] = result.stats.state_bytes;
    stats["seconds"] = result.stats.seconds;
    stats["complete"] = result.stats.complete;
    // The parameter that stopped the search, or None.
    switch (result.stats.stopped_by) {
        case dpdt::Limit::None: stats["stopped_by"] = nb::none(); break;
        case dpdt::Limit::Time: stats["stopped_by"] = "time_limit"; break;
        case dpdt::Limit::States: stats["stopped_by"] = "max_states"; break;
        case dpdt::Limit::Memory: stats["stopped_by"] = "memory_limit"; break;
    }
    // What the runaway projection put the search on course to (states or bytes), when it stopped it.
    if (result.stats.projected > 0.0) stats["projected"] = result.stats.projected;
    nb::dict out;
    out["stats"] = stats;
    out["root_tasks"] = result.root_tasks;
    out["lower_bound"] = result.lower_bound;
    if (mode == dpdt::RootPlan::Mode::Solve) {
        nb::list solutions;
        for (const std::string& bytes : result.solutions) solutions.append(nb::bytes(bytes.data(), bytes.size()));
        out["solutions"] = solutions;
    }
    if (mode == dpdt::RootPlan::Mode::Count || mode == dpdt::RootPlan::Mode::Solve) return out;
    nb::list front;
    for (dpdt::FrontTree& ft : result.front) {
        nb::dict row;
        row["alpha_min"] = ft.alpha_min;
        row["alpha_max"] = ft.alpha_max;
        row["train_loss"] = ft.loss;
        row["complexity"] = ft.complexity;
        row["impurity"] = ft.impurity;
        row["n_splits"] = ft.n_splits;
        row["tree"] = tree_to_dict(std::move(ft.tree), value_dim);
        front.append(row);
    }
    out["front"] = front;
    return out;
}

template <typename Code>
using Codes = nb::ndarray<const Code, nb::numpy, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

// Binned features (dpdt/layout.hpp), checked: codes (n x p, uint8 or uint16) in [0, n_bins[f]], the
// last meaning missing; `upper` the n_bins[f] increasing thresholds of each feature in turn.
// The features' bins: n_bins[f] in [1, max_bins], upper holding each feature's increasing values.
void check_bins(Array1<int32_t> n_bins, Array1<double> upper, int64_t p, int64_t max_bins) {
    if (static_cast<int64_t>(n_bins.shape(0)) != p) throw nb::value_error("n_bins needs one entry per feature");
    int64_t values = 0;
    for (int64_t f = 0; f < p; ++f) {
        const int32_t nb = n_bins(f);
        if (nb < 1 || nb > max_bins)
            throw nb::value_error("every feature needs between 1 and the code type's maximum of bins");
        if (values + nb > static_cast<int64_t>(upper.shape(0))) throw nb::value_error("upper is too short");
        for (int32_t b = 1; b < nb; ++b)
            if (!(upper(values + b - 1) < upper(values + b)))
                throw nb::value_error("each feature's bin thresholds must increase");
        values += nb;
    }
    if (values != static_cast<int64_t>(upper.shape(0))) throw nb::value_error("upper is too long");
}

template <typename Code>
dpdt::BinnedData<Code> binned_data(Codes<Code> codes, Array1<int32_t> n_bins, Array1<double> upper, int64_t n,
                                   int64_t p) {
    if (static_cast<int64_t>(codes.shape(0)) != n || static_cast<int64_t>(codes.shape(1)) != p)
        throw nb::value_error("the bin codes must have the shape of X");
    check_bins(n_bins, upper, p, std::numeric_limits<Code>::max());
    const Code* c = codes.data();
    for (int64_t i = 0; i < n; ++i)
        for (int64_t f = 0; f < p; ++f)
            if (c[i * p + f] > n_bins(f)) throw nb::value_error("a bin code exceeds its feature's bins");
    std::vector<int32_t> bins(n_bins.data(), n_bins.data() + p);
    return dpdt::BinnedData<Code>(c, n, p, std::move(bins), upper.data());
}

// Binned features as Python passes them (all three or none): the codes, one type or the other,
// n_bins and upper.
using AnyCodes = std::variant<Codes<uint8_t>, Codes<uint16_t>>;
struct Bins {
    std::optional<AnyCodes> codes;
    std::optional<Array1<int32_t>> n_bins;
    std::optional<Array1<double>> upper;

    bool given() const {
        if (codes.has_value() != n_bins.has_value() || codes.has_value() != upper.has_value())
            throw nb::value_error("binned features need codes, n_bins (int32) and upper (float64)");
        return codes.has_value();
    }
    // Calls go(codes, n_bins, upper) with the codes of their type.
    template <class Go>
    auto visit(Go&& go) const {
        return std::visit([&](const auto& c) { return go(c, *n_bins, *upper); }, *codes);
    }
};

// Runs `go(make_data)` on the exact layout of X, or on its bins.
template <class Go>
nb::dict with_layout(Array2<double> X, const Bins& bins, Go&& go) {
    const int64_t n = static_cast<int64_t>(X.shape(0)), p = static_cast<int64_t>(X.shape(1));
    if (!bins.given()) return go([&](const dpdt::Poll& poll) { return presorted(X.data(), n, p, poll); });
    return bins.visit([&](auto codes, Array1<int32_t> n_bins, Array1<double> upper) {
        auto data = binned_data(codes, n_bins, upper, n, p);
        return go([&](const dpdt::Poll&) -> const auto& { return data; });
    });
}

// ---- Objectives, chosen by name from the list (dpdt/objectives.hpp) ----------------------------

template <class T>
struct Tag {
    using type = T;
};

template <class... O>
std::string objective_names(dpdt::ObjectiveList<O...>) {
    std::string names;
    ((names += (names.empty() ? "'" : ", '") + std::string(O::kName) + "'"), ...);
    return names;
}

// The names of the objectives the bounded search serves (dpdt::kHasBoundedSearch).
template <class... O>
nb::tuple bounded_search_names(dpdt::ObjectiveList<O...>) {
    nb::list names;
    ((dpdt::kHasBoundedSearch<O> ? names.append(O::kName) : void()), ...);
    return nb::tuple(names);
}

// go(Tag<O>{}) for the objective O of the list named `kind`.
template <class Go, class O, class... Rest>
auto by_name(const std::string& kind, dpdt::ObjectiveList<O, Rest...>, Go&& go) {
    if (kind == O::kName) return go(Tag<O>{});
    if constexpr (sizeof...(Rest) > 0)
        return by_name(kind, dpdt::ObjectiveList<Rest...>{}, std::forward<Go>(go));
    else
        throw nb::value_error(("kind must be one of " + objective_names(dpdt::Objectives{})).c_str());
}

// The objective O over y (an array of O's Target type, one row per sample; None for the driver of a
// fit over machines) and the n weights w; its `make` checks the rest.
template <class O>
O make_objective(const nb::object& y, const double* w, int64_t n, dpdt::ObjectiveInputs inputs) {
    inputs.w = w;
    if (!y.is_none()) {
        using T = typename O::Target;
        static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, double>, "a target is int32 or float64");
        constexpr bool kVector = O::kTargetDims == 1;
        std::conditional_t<kVector, Array1<T>, Array2<T>> values;
        if (!nb::try_cast(y, values, false))
            throw nb::type_error((std::string("y must be a C-contiguous ") +
                                  (std::is_same_v<T, int32_t> ? "int32" : "float64") + (kVector ? " vector" : " matrix") +
                                  " for the objective '" + O::kName + "'")
                                     .c_str());
        inputs.y = values.data();
        inputs.rows = static_cast<int64_t>(values.shape(0));
        inputs.columns = kVector ? 1 : static_cast<int64_t>(values.shape(values.ndim() - 1));
        if (inputs.rows != n) throw nb::value_error("y needs one row per sample");
    }
    return O::make(inputs);
}

// Calls go(objective) with the objective of the list (dpdt/objectives.hpp) named `kind`, made from
// `inputs` with y (an array of its Target type, or None for the driver of a fit over machines) and
// the n weights w.
template <class Go>
auto with_objective(const std::string& kind, const nb::object& y, const double* w, int64_t n,
                    dpdt::ObjectiveInputs inputs, Go&& go) {
    return by_name(kind, dpdt::Objectives{}, [&](auto tag) {
        using O = typename decltype(tag)::type;
        return go(make_objective<O>(y, w, n, inputs));
    });
}

// ---- Fits over machines (dpdt.dask; dpdt/remote.hpp) ----------------------------------------

// The inputs of a fit over machines: only the target's width, which its parts cannot tell (the
// classes of a classifier, the columns of a matrix target).
dpdt::ObjectiveInputs width_of(int n_classes) {
    dpdt::ObjectiveInputs inputs;
    inputs.width = n_classes;
    return inputs;
}

std::vector<double> as_vector(Array1<double> a) { return std::vector<double>(a.data(), a.data() + a.shape(0)); }

// Paths as Python passes them: steps of four int32 (feature, bin, missing_left, left), path r being
// steps [offsets[r], offsets[r + 1]).
std::vector<dpdt::Path> read_paths(Array1<int32_t> steps, Array1<int64_t> offsets) {
    const int64_t n_steps = static_cast<int64_t>(steps.shape(0)) / 4;
    if (static_cast<int64_t>(steps.shape(0)) != 4 * n_steps) throw nb::value_error("paths hold four numbers per step");
    if (offsets.shape(0) < 1 || offsets(0) != 0 || offsets(offsets.shape(0) - 1) != n_steps)
        throw nb::value_error("path_offsets must run from 0 to the number of steps");
    std::vector<dpdt::Path> paths;
    for (size_t r = 0; r + 1 < offsets.shape(0); ++r) {
        if (offsets(r + 1) < offsets(r)) throw nb::value_error("path_offsets must not decrease");
        dpdt::Path path;
        for (int64_t k = offsets(r); k < offsets(r + 1); ++k) {
            dpdt::PathStep step{steps(4 * k), steps(4 * k + 1), steps(4 * k + 2), steps(4 * k + 3)};
            if ((step.missing_left != 0 && step.missing_left != 1) || (step.left != 0 && step.left != 1))
                throw nb::value_error("a path step's missing_left and left must be 0 or 1");
            path.push_back(step);
        }
        paths.push_back(std::move(path));
    }
    return paths;
}

nb::ndarray<nb::numpy, double> quantity_mass(const std::string& kind, nb::object y, Array1<double> sample_weight,
                                             int n_classes) {
    const auto n = static_cast<int64_t>(sample_weight.shape(0));
    return with_objective(kind, y, sample_weight.data(), n, width_of(n_classes), [&](const auto& obj) {
        using O = std::decay_t<decltype(obj)>;
        std::vector<double> mass = dpdt::FixedQuantities<O>::mass_of(obj, n);
        const size_t columns = mass.size();
        return to_numpy(std::move(mass), {columns});
    });
}

template <typename T>
using Out1 = nb::ndarray<T, nb::numpy, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <typename T>
using Out2 = nb::ndarray<T, nb::numpy, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

nb::tuple state_histograms(const std::string& kind, AnyCodes codes, nb::object y, Array1<double> sample_weight,
                           int64_t first_id, Array1<int32_t> paths, Array1<int64_t> path_offsets,
                           Array1<int32_t> n_bins, Array1<double> upper, int n_classes, Array1<double> mass,
                           std::optional<std::tuple<Out1<int64_t>, Out2<uint64_t>, Out2<int64_t>>> into,
                           dpdt::RowCache* cache) {
    const auto n = static_cast<int64_t>(sample_weight.shape(0));
    if (first_id < 0 || first_id + n > INT32_MAX - 1)
        throw nb::value_error("the rows' ids (first_id onwards) must stay below 2**31 - 1");
    const std::vector<dpdt::Path> requested = read_paths(paths, path_offsets);
    const std::vector<double> fit_mass = as_vector(mass);
    return with_objective(kind, y, sample_weight.data(), n, width_of(n_classes), [&](const auto& obj) {
        return std::visit(
            [&](const auto& c) {
                const auto p = static_cast<int64_t>(c.shape(1));
                auto data = binned_data(c, n_bins, upper, n, p);
                using O = std::decay_t<decltype(obj)>;
                using Code = typename std::decay_t<decltype(data)>::CodeType;
                const auto size = static_cast<size_t>(dpdt::BinnedLayout<Code, O>(data, obj, fit_mass).histogram_size());
                const size_t R = requested.size();
                if (into) {
                    auto& [counts, hashes, hists] = *into;
                    if (counts.shape(0) != R || hashes.shape(0) != R || hashes.shape(1) != 2 || hists.shape(0) != R ||
                        hists.shape(1) != size)
                        throw nb::value_error("into must hold (counts (R,), hashes (R, 2), hists (R, H)) for the R paths");
                    {
                        nb::gil_scoped_release release;
                        dpdt::state_histograms(data, obj, fit_mass, first_id, requested, counts.data(), hashes.data(),
                                               hists.data(), cache);
                    }
                    return nb::make_tuple(counts, hashes, hists);
                }
                std::vector<int64_t> counts(R, 0), hists(R * size, 0);
                std::vector<uint64_t> hashes(2 * R, 0);
                {
                    nb::gil_scoped_release release;
                    dpdt::state_histograms(data, obj, fit_mass, first_id, requested, counts.data(), hashes.data(),
                                           hists.data(), cache);
                }
                return nb::make_tuple(to_numpy(std::move(counts), {R}), to_numpy(std::move(hashes), {R, 2}),
                                      to_numpy(std::move(hists), {R, size}));
            },
            codes);
    });
}

// The driver of a fit over machines, for Python: the RemoteFit of any objective of the list.
template <class... O>
std::variant<std::unique_ptr<dpdt::RemoteFit<O>>...> remote_fit_of(dpdt::ObjectiveList<O...>);
using AnyRemoteFit = decltype(remote_fit_of(dpdt::Objectives{}));

class RemoteFitHandle {
  public:
    RemoteFitHandle(const std::string& kind, dpdt::Params params, Array1<int32_t> n_bins, Array1<double> upper,
                    int n_classes, Array1<double> mass, int64_t max_histogram_bytes) {
        if (max_histogram_bytes < 0) throw nb::value_error("max_histogram_bytes must be >= 0 (0: no cap)");
        check_bins(n_bins, upper, static_cast<int64_t>(n_bins.shape(0)), 65535);
        if (n_bins.shape(0) < 1) throw nb::value_error("a fit needs at least one feature");
        check_feature_costs(params, static_cast<int64_t>(n_bins.shape(0)));
        std::vector<int32_t> bins(n_bins.data(), n_bins.data() + n_bins.shape(0));
        const std::vector<double> uppers = as_vector(upper);
        dpdt::ObjectiveInputs inputs = width_of(n_classes);
        inputs.criterion = params.criterion;
        with_objective(kind, nb::none(), nullptr, 0, inputs, [&](const auto& obj) {
            using O = std::decay_t<decltype(obj)>;
            value_dim_ = static_cast<size_t>(obj.value_dim());
            auto fit = std::make_unique<dpdt::RemoteFit<O>>(obj, params, bins, uppers, as_vector(mass));
            fit->set_max_histogram_bytes(max_histogram_bytes);
            fit_ = std::move(fit);
            return 0;
        });
    }

    nb::tuple run(int64_t max_states) {
        if (max_states < 0) throw nb::value_error("max_states must be >= 0 (0: no cap)");
        std::vector<dpdt::Path> paths;
        Call call;
        double next_report = 0.0;
        auto poll = [&](const dpdt::Progress& at) { return poll_python(call, next_report, at); };
        without_gil([&] { std::visit([&](auto& fit) { paths = fit->run(poll, max_states); }, fit_); });
        std::vector<int32_t> steps;
        std::vector<int64_t> offsets(1, 0);
        for (const dpdt::Path& path : paths) {
            for (const dpdt::PathStep& s : path) steps.insert(steps.end(), {s.feature, s.bin, s.missing_left, s.left});
            offsets.push_back(static_cast<int64_t>(steps.size() / 4));
        }
        const size_t n_steps = steps.size(), n_offsets = offsets.size();
        return nb::make_tuple(to_numpy(std::move(steps), {n_steps}), to_numpy(std::move(offsets), {n_offsets}));
    }

    void add(Array1<int32_t> paths, Array1<int64_t> path_offsets, Array1<int64_t> counts, Array2<uint64_t> hashes,
             Array2<int64_t> hists) {
        const std::vector<dpdt::Path> given = read_paths(paths, path_offsets);
        const size_t R = given.size();
        if (counts.shape(0) != R || hashes.shape(0) != R || hashes.shape(1) != 2 || hists.shape(0) != R ||
            static_cast<int64_t>(hists.shape(1)) != histogram_size())
            throw nb::value_error("counts (R,), hashes (R, 2) and hists (R, histogram_size) must match the R paths");
        std::visit(
            [&](auto& fit) {
                for (size_t r = 0; r < R; ++r)
                    fit->add(given[r], counts(r), dpdt::SubsetHash{hashes(r, 0), hashes(r, 1)},
                             hists.data() + r * hists.shape(1));
            },
            fit_);
    }

    nb::dict result() {
        dpdt::FitResult copy = std::visit([](auto& fit) { return fit->result(); }, fit_);
        return result_dict(std::move(copy), value_dim_, dpdt::RootPlan::Mode::Local);
    }
    int64_t histogram_size() const { return std::visit([](auto& f) { return f->histogram_size(); }, fit_); }
    int64_t rounds() const { return std::visit([](auto& f) { return f->rounds(); }, fit_); }
    int64_t states() const { return std::visit([](auto& f) { return f->states(); }, fit_); }
    int64_t histogram_bytes() const { return std::visit([](auto& f) { return f->histogram_bytes(); }, fit_); }
    int64_t peak_histogram_bytes() const {
        return std::visit([](auto& f) { return f->peak_histogram_bytes(); }, fit_);
    }
    bool complete() const { return std::visit([](auto& f) { return f->complete(); }, fit_); }
    int64_t dropped_histograms() const { return std::visit([](auto& f) { return f->dropped_histograms(); }, fit_); }

  private:
    AnyRemoteFit fit_;
    size_t value_dim_ = 1;
};

// Boosting fits many trees on the same X: it is presorted, or binned, once into a PreparedData.
// A binned one owns a copy of its codes, which its BinnedData points into (a moved vector keeps
// its buffer, so a moved PreparedData stays valid; copies are forbidden).
template <typename Code>
struct OwnedBins {
    std::vector<Code> codes;
    dpdt::BinnedData<Code> data;
};

struct PreparedData {
    int64_t n = 0, p = 0;
    std::variant<dpdt::Dataset, OwnedBins<uint8_t>, OwnedBins<uint16_t>> layout;

    PreparedData(int64_t n, int64_t p, decltype(layout) layout) : n(n), p(p), layout(std::move(layout)) {}
    PreparedData(PreparedData&&) = default;
    PreparedData(const PreparedData&) = delete;
    PreparedData& operator=(const PreparedData&) = delete;
    bool binned() const { return layout.index() != 0; }
};

template <typename Code>
OwnedBins<Code> own_bins(Codes<Code> codes, Array1<int32_t> n_bins, Array1<double> upper, int64_t n, int64_t p) {
    dpdt::BinnedData<Code> data = binned_data<Code>(codes, n_bins, upper, n, p);
    OwnedBins<Code> owned{std::vector<Code>(codes.data(), codes.data() + n * p), std::move(data)};
    owned.data.codes = owned.codes.data();
    return owned;
}

// The bin codes of X (dpdt/binning.hpp) for features whose bins' upper values are
// upper[offset[f] .. offset[f + 1]): uint8 unless `wide`, then uint16.
template <class Code>
nb::ndarray<nb::numpy, Code> coded(Array2<double> X, Array1<double> upper, Array1<int64_t> offset, int n_threads,
                                   const dpdt::SharedStop* stop) {
    const int64_t n = static_cast<int64_t>(X.shape(0)), p = static_cast<int64_t>(X.shape(1));
    const int64_t* off = offset.data();
    if (static_cast<int64_t>(offset.shape(0)) != p + 1 || off[0] != 0 ||
        off[p] != static_cast<int64_t>(upper.shape(0)))
        throw nb::value_error("offset must hold n_features + 1 increasing positions in upper, from 0 to its size");
    for (int64_t f = 0; f < p; ++f) {
        const int64_t count = off[f + 1] - off[f];
        // Codes run to the bin count (a missing value's), which the code type must hold.
        if (count < 1 || count > static_cast<int64_t>(std::numeric_limits<Code>::max()))
            throw nb::value_error("every feature needs at least one bin, and no more than its code type holds");
    }
    if (n_threads < 1) throw nb::value_error("n_threads must be at least 1");
    std::vector<Code> codes(static_cast<size_t>(n) * static_cast<size_t>(p));
    without_gil([&] {
        dpdt::bin_codes(X.data(), n, p, upper.data(), off, codes.data(), n_threads, interrupted);
    }, stop);
    return to_numpy(std::move(codes), {static_cast<size_t>(n), static_cast<size_t>(p)});
}

// Each feature's bins (dpdt/binning.hpp): (n_bins, upper), upper the features' upper values one
// feature after the other.
nb::tuple bin_uppers(Array2<double> columns, Array1<double> present_max, int max_bins, int n_threads,
                     const dpdt::SharedStop* stop) {
    const int64_t p = static_cast<int64_t>(columns.shape(0)), m = static_cast<int64_t>(columns.shape(1));
    if (static_cast<int64_t>(present_max.shape(0)) != p)
        throw nb::value_error("present_max needs one value per column");
    if (max_bins < 2 || max_bins > 65535) throw nb::value_error("max_bins must be in [2, 65535]");
    if (n_threads < 1) throw nb::value_error("n_threads must be at least 1");
    std::vector<std::vector<double>> uppers;
    without_gil([&] {
        uppers = dpdt::bin_uppers(columns.data(), m, p, present_max.data(), max_bins, n_threads, interrupted);
    }, stop);
    std::vector<int32_t> n_bins;
    std::vector<double> upper;
    for (const std::vector<double>& u : uppers) {
        n_bins.push_back(static_cast<int32_t>(u.size()));
        upper.insert(upper.end(), u.begin(), u.end());
    }
    const size_t total = upper.size();
    return nb::make_tuple(to_numpy(std::move(n_bins), {static_cast<size_t>(p)}), to_numpy(std::move(upper), {total}));
}

nb::object bin_codes(Array2<double> X, Array1<double> upper, Array1<int64_t> offset, bool wide, int n_threads,
                     const dpdt::SharedStop* stop) {
    if (wide) return nb::cast(coded<uint16_t>(X, upper, offset, n_threads, stop));
    return nb::cast(coded<uint8_t>(X, upper, offset, n_threads, stop));
}

PreparedData prepare(Array2<double> X, std::optional<AnyCodes> codes, std::optional<Array1<int32_t>> n_bins,
                     std::optional<Array1<double>> upper, const dpdt::SharedStop* stop) {
    const int64_t n = static_cast<int64_t>(X.shape(0)), p = static_cast<int64_t>(X.shape(1));
    if (n < 1 || p < 1) throw nb::value_error("empty training data");
    if (n > INT32_MAX - 1) throw nb::value_error("at most 2**31 - 2 samples are supported");
    const Bins bins{codes, n_bins, upper};
    if (!bins.given()) {
        std::optional<PreparedData> prepared;
        without_gil([&] { prepared.emplace(n, p, presorted(X.data(), n, p, interrupted)); }, stop);
        return std::move(*prepared);
    }
    return bins.visit([&](auto codes, Array1<int32_t> n_bins, Array1<double> upper) {
        return PreparedData(n, p, own_bins(codes, n_bins, upper, n, p));
    });
}

// The fit of the objective named `kind` (dpdt/objectives.hpp) on X, an array or, for many fits
// on the same X (boosting), a PreparedData; y is the objective's target, and n_classes, reg_lambda
// and gamma the scalars of its ObjectiveInputs.
using AnyX = std::variant<Array2<double>, const PreparedData*>;

nb::dict fit(const std::string& kind, AnyX X, nb::object y, Array1<double> sample_weight, dpdt::Params params,
             int n_classes, double reg_lambda, double gamma, nb::object progress, double progress_seconds,
             std::optional<AnyCodes> codes, std::optional<Array1<int32_t>> n_bins, std::optional<Array1<double>> upper,
             bool count_root_tasks, std::optional<std::vector<int64_t>> root_tasks,
             std::optional<std::vector<nb::bytes>> root_solutions, const dpdt::SharedStop* stop) {
    if (y.is_none()) throw nb::value_error("a fit needs y");
    dpdt::ObjectiveInputs inputs;
    inputs.width = n_classes;
    inputs.criterion = params.criterion;
    inputs.reg_lambda = reg_lambda;
    inputs.gamma = gamma;
    const Bins bins{codes, n_bins, upper};
    const PreparedData* prepared = X.index() == 1 ? std::get<1>(X) : nullptr;
    if (prepared == nullptr) {
        check_shapes(std::get<0>(X), sample_weight, params);
    } else {
        if (bins.given()) throw nb::value_error("prepared data has its bins already (prepare())");
        if (static_cast<int64_t>(sample_weight.shape(0)) != prepared->n)
            throw nb::value_error("sample_weight needs one entry per prepared row");
        check_feature_costs(params, prepared->p);
    }
    const int64_t n = static_cast<int64_t>(sample_weight.shape(0));
    const Call call{progress, progress_seconds, root_plan(count_root_tasks, std::move(root_tasks), std::move(root_solutions)),
                    stop};
    return with_objective(kind, y, sample_weight.data(), n, inputs, [&](const auto& objective) {
        if (prepared == nullptr)
            return with_layout(std::get<0>(X), bins,
                               [&](auto&& make_data) { return run_fit(make_data, objective, params, call); });
        return std::visit(
            [&](const auto& layout) {
                if constexpr (std::is_same_v<std::decay_t<decltype(layout)>, dpdt::Dataset>)
                    return run_fit([&](const dpdt::Poll&) -> const dpdt::Dataset& { return layout; }, objective,
                                   params, call);
                else
                    return run_fit([&](const dpdt::Poll&) -> const auto& { return layout.data; }, objective, params,
                                   call);
            },
            prepared->layout);
    });
}

nb::dict fit_branches(nb::ndarray<const int32_t, nb::numpy, nb::ndim<2>, nb::c_contig, nb::device::cpu> X,
                      Array1<int32_t> y, Array1<double> sample_weight, dpdt::BranchesParams params,
                      int n_classes, nb::object progress, double progress_seconds, const dpdt::SharedStop* stop) {
    const int64_t n = static_cast<int64_t>(X.shape(0)), q = static_cast<int64_t>(X.shape(1));
    if (n < 1 || q < 1) throw nb::value_error("empty training data");
    if (static_cast<int64_t>(y.shape(0)) != n || static_cast<int64_t>(sample_weight.shape(0)) != n)
        throw nb::value_error("X, y and sample_weight must have the same number of rows");
    dpdt::CategoricalData data;
    data.n = n;
    data.q = q;
    data.X = X.data();
    data.y = y.data();
    data.w = sample_weight.data();
    data.n_classes = n_classes;
    data.n_categories.assign(q, 1);
    for (int64_t i = 0; i < n; ++i) {
        if (y(i) < 0 || y(i) >= n_classes) throw nb::value_error("class codes must be in [0, n_classes)");
        for (int64_t f = 0; f < q; ++f) {
            const int32_t c = X.data()[i * q + f];
            if (c < 0) throw nb::value_error("category codes must be non-negative");
            data.n_categories[f] = std::max(data.n_categories[f], c + 1);
        }
    }
    dpdt::BranchesResult r;
    // Its progress: the branches expanded, as `states` (no root tasks).
    const Call call{progress, progress_seconds, dpdt::RootPlan{}, stop};
    double next_report = call.progress_seconds;
    without_gil([&] {
        r = dpdt::solve_branches(data, params,
                                 [&](const dpdt::Progress& at) { return poll_python(call, next_report, at); });
    }, stop);
    const size_t nodes = r.tree.feature.size(), edges = r.tree.edge_category.size();
    nb::dict out;
    out["feature"] = to_numpy(std::move(r.tree.feature), {nodes});
    out["edge_begin"] = to_numpy(std::move(r.tree.edge_begin), {nodes + 1});
    out["edge_category"] = to_numpy(std::move(r.tree.edge_category), {edges});
    out["edge_child"] = to_numpy(std::move(r.tree.edge_child), {edges});
    out["value"] = to_numpy(std::move(r.tree.value), {nodes, static_cast<size_t>(n_classes)});
    out["n_node_samples"] = to_numpy(std::move(r.tree.n_node_samples), {nodes});
    out["objective"] = r.objective;
    out["upper_bound"] = r.upper_bound;
    out["optimal"] = r.optimal;
    out["iterations"] = r.iterations;
    out["branches"] = r.branches;
    out["stopped_by"] = r.stopped_by_branches ? nb::object(nb::str("max_branches"))
                        : r.optimal           ? nb::none()
                                              : nb::object(nb::str("time_limit"));
    out["seconds"] = r.seconds;
    return out;
}

nb::ndarray<nb::numpy, int64_t> apply_tree(Array1<int64_t> children_left, Array1<int64_t> children_right,
                                           Array1<int64_t> feature, Array1<double> threshold,
                                           Array1<uint8_t> missing_go_to_left, Array2<double> X) {
    const size_t n = X.shape(0);
    const int64_t count = static_cast<int64_t>(children_left.shape(0));
    if (count < 1 || children_right.shape(0) != children_left.shape(0) ||
        feature.shape(0) != children_left.shape(0) || threshold.shape(0) != children_left.shape(0) ||
        missing_go_to_left.shape(0) != children_left.shape(0))
        throw nb::value_error("a tree needs at least one node and arrays of one length");
    // Traversal trusts the arrays, which may come from a file: children must lie after their
    // parent (so every path ends) and features inside X.
    const int64_t p = static_cast<int64_t>(X.shape(1));
    for (int64_t i = 0; i < count; ++i) {
        const int64_t l = children_left.data()[i], r = children_right.data()[i], f = feature.data()[i];
        if (l == dpdt::kLeaf && r == dpdt::kLeaf) continue;
        if (l <= i || r <= i || l >= count || r >= count)
            throw nb::value_error(("node " + std::to_string(i) + " has children outside the tree").c_str());
        if (f < 0 || f >= p)
            throw nb::value_error(("node " + std::to_string(i) + " tests feature " + std::to_string(f) +
                                   " but X has " + std::to_string(p) + " columns").c_str());
    }
    std::vector<int64_t> leaves(n);
    {
        nb::gil_scoped_release release;
        dpdt::apply(children_left.data(), children_right.data(), feature.data(), threshold.data(),
                    missing_go_to_left.data(), X.data(), static_cast<int64_t>(n), static_cast<int64_t>(X.shape(1)),
                    leaves.data());
    }
    return to_numpy(std::move(leaves), {n});
}

// An enum whose Python member names are the strings of `names` (dpdt/params.hpp).
template <class E, size_t N>
void bind_enum(nb::module_& m, const char* name, const std::pair<const char*, E> (&names)[N]) {
    nb::enum_<E> e(m, name);
    for (const auto& [member, value] : names) e.value(member, value);
}

// A parameter struct, each of its fields (P::fields) read and written by name.
template <class P>
void bind_params(nb::module_& m, const char* name, const char* doc) {
    nb::class_<P> params(m, name, doc);
    params.def(nb::init<>());
    P::fields([&](const char* field, auto member) { params.def_rw(field, member); });
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "dpdt's C++ core: the DPDT solver and tree traversal.";
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const dpdt::StateLimitExceeded& e) {
            PyErr_SetString(PyExc_MemoryError, e.what());
        } catch (const dpdt::BadSolution& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const std::bad_alloc&) {
            PyErr_SetString(PyExc_MemoryError, "dpdt ran out of memory during the fit");
        }
    });
    bind_enum(m, "Splitter", dpdt::kSplitterNames);
    bind_enum(m, "Criterion", dpdt::kCriterionNames);
    bind_enum(m, "Complexity", dpdt::kComplexityNames);
    bind_enum(m, "Front", dpdt::kFrontNames);
    bind_params<dpdt::Params>(m, "Params", "Every knob of a DPDT fit (dpdt/params.hpp documents each field).");
    bind_params<dpdt::BranchesParams>(m, "BranchesParams", "Every knob of a BRANCHES search (dpdt/branches.hpp).");

    // The objectives (kName) whose single-alpha exhaustive fits the bounded search serves.
    m.attr("bounded_search_objectives") = bounded_search_names(dpdt::Objectives{});
    m.def("fit", &fit, "kind"_a, "X"_a.noconvert(), "y"_a, "sample_weight"_a.noconvert(), "params"_a, nb::kw_only(),
          "n_classes"_a = 0, "reg_lambda"_a = 1.0, "gamma"_a = 0.0, "progress"_a.none() = nb::none(),
          "progress_seconds"_a = 1.0, "codes"_a.noconvert().none() = nb::none(),
          "n_bins"_a.noconvert().none() = nb::none(), "upper"_a.noconvert().none() = nb::none(),
          "count_root_tasks"_a = false, "root_tasks"_a.none() = nb::none(), "root_solutions"_a.none() = nb::none(),
          "stop"_a.none() = nb::none(),
          "The fit of the objective named `kind` (the kName of one of dpdt/objectives.hpp's list) on X, float64 "
          "(n, p) or a PreparedData: y is the objective's target, as its header declares (Target, kTargetDims), "
          "n_classes its width where y cannot tell it, reg_lambda and gamma the Newton objective's.");
    m.def("quantity_mass", &quantity_mass, "kind"_a, "y"_a, "sample_weight"_a.noconvert(), "n_classes"_a,
          "Sum over the rows of each fixed-point quantity's absolute value (dpdt/remote.hpp): add the machines' "
          "arrays and pass the total as `mass`.");
    m.def("state_histograms", &state_histograms, "kind"_a, "codes"_a.noconvert(), "y"_a,
          "sample_weight"_a.noconvert(), "first_id"_a, "paths"_a.noconvert(), "path_offsets"_a.noconvert(),
          nb::kw_only(), "n_bins"_a.noconvert(), "upper"_a.noconvert(), "n_classes"_a, "mass"_a.noconvert(),
          "into"_a.noconvert().none() = nb::none(), "cache"_a.none() = nb::none(),
          "(counts, hashes, hists) of the states named by the paths, on these rows (ids first_id on): exact "
          "integer sums, to be added over the machines (dpdt/remote.hpp). With into=(counts, hashes, hists) "
          "(int64, uint64, int64 arrays of those shapes), added into them in place: one machine's partitions "
          "summed without a copy each. With cache=RowCache (one per partition), the rows of the states met are "
          "kept from call to call.");
    nb::class_<dpdt::RowCache>(m, "RowCache",
                               "One partition's rows of the states it met, kept between the rounds of a fit over "
                               "machines (dpdt/remote.hpp): a round filters a state from its nearest known ancestor.")
        .def(nb::init<int64_t>(), "max_bytes"_a)
        .def_prop_ro("bytes", &dpdt::RowCache::bytes)
        .def_prop_ro("entries", &dpdt::RowCache::entries);
    nb::class_<RemoteFitHandle>(m, "RemoteFit", "The driver of a fit whose rows live on other machines (dpdt/remote.hpp).")
        .def(nb::init<const std::string&, dpdt::Params, Array1<int32_t>, Array1<double>, int, Array1<double>, int64_t>(),
             "kind"_a, "params"_a, "n_bins"_a.noconvert(), "upper"_a.noconvert(), "n_classes"_a, "mass"_a.noconvert(),
             "max_histogram_bytes"_a = 0)
        .def("run", &RemoteFitHandle::run, "max_states"_a = 0,
             "One round: (paths, path_offsets) of the states still needed, at most max_states > 0 of them; none: "
             "done.")
        .def("add", &RemoteFitHandle::add, "paths"_a.noconvert(), "path_offsets"_a.noconvert(), "counts"_a.noconvert(),
             "hashes"_a.noconvert(), "hists"_a.noconvert(), "Records the summed answers for these paths.")
        .def("result", &RemoteFitHandle::result, "The complete fit, as fit returns it.")
        .def_prop_ro("histogram_size", &RemoteFitHandle::histogram_size)
        .def_prop_ro("rounds", &RemoteFitHandle::rounds)
        .def_prop_ro("states", &RemoteFitHandle::states)
        .def_prop_ro("histogram_bytes", &RemoteFitHandle::histogram_bytes)
        .def_prop_ro("peak_histogram_bytes", &RemoteFitHandle::peak_histogram_bytes,
                     "The most bytes of histograms held at once, over the fit.")
        .def_prop_ro("complete", &RemoteFitHandle::complete)
        .def_prop_ro("dropped_histograms", &RemoteFitHandle::dropped_histograms);
    nb::class_<PreparedData>(m, "PreparedData", "Training features presorted or binned once, for many fits.")
        .def_prop_ro("n_samples", [](const PreparedData& d) { return d.n; })
        .def_prop_ro("n_features", [](const PreparedData& d) { return d.p; })
        .def_prop_ro("binned", &PreparedData::binned);
    m.def("bin_uppers", &bin_uppers, "columns"_a.noconvert(), "present_max"_a.noconvert(), nb::kw_only(),
          "max_bins"_a, "n_threads"_a = 1, "stop"_a.none() = nb::none(),
          "Upper values of each feature's bins, from the sorted sampled values columns[f] (NaN last) and the "
          "largest present value of every feature: (n_bins, upper), upper one feature after the other.");
    m.def("bin_codes", &bin_codes, "X"_a.noconvert(), "upper"_a.noconvert(), "offset"_a.noconvert(), nb::kw_only(),
          "wide"_a, "n_threads"_a = 1, "stop"_a.none() = nb::none(),
          "Bin codes of X: per feature f, the first bin whose upper value upper[offset[f] + b] is >= x "
          "(numpy's searchsorted, side='left'), or the feature's bin count for NaN; uint16 if wide, else uint8.");
    m.def("prepare", &prepare, "X"_a.noconvert(), nb::kw_only(), "codes"_a.noconvert().none() = nb::none(),
          "n_bins"_a.noconvert().none() = nb::none(), "upper"_a.noconvert().none() = nb::none(),
          "stop"_a.none() = nb::none());
    nb::class_<dpdt::SharedStop>(m, "Stop",
                                 "Stops the fits it is given (their `stop`) together: cancel() interrupts them, and a "
                                 "time limit, if given, is one deadline for all of them (dpdt/run_loop.hpp).")
        .def(nb::init<double>(), "time_limit"_a = 0.0)
        .def("cancel", &dpdt::SharedStop::cancel)
        .def_prop_ro("cancelled", &dpdt::SharedStop::cancelled)
        .def_prop_ro("remaining", &dpdt::SharedStop::remaining,
                     "Seconds left until the deadline: negative once passed, inf without one.");
    m.def("fit_branches", &fit_branches, "X"_a.noconvert(), "y"_a.noconvert(), "sample_weight"_a.noconvert(),
          "params"_a, nb::kw_only(), "n_classes"_a, "progress"_a.none() = nb::none(), "progress_seconds"_a = 1.0,
          "stop"_a.none() = nb::none());
    m.def(
        "fixed_fit_bytes",
        [](int64_t n_samples, int64_t n_features, int64_t max_depth, int64_t max_budget, int64_t n_threads,
           int64_t stat_dim, std::optional<std::vector<int32_t>> n_bins, int64_t code_bytes,
           std::optional<int64_t> sample_quantities) {
            return dpdt::fixed_fit_bytes(dpdt::FitShape{n_samples, n_features, max_depth, max_budget, n_threads,
                                                        stat_dim, n_bins.value_or(std::vector<int32_t>{}), code_bytes,
                                                        sample_quantities.value_or(stat_dim)});
        },
        "n_samples"_a, "n_features"_a, "max_depth"_a, "max_budget"_a, "n_threads"_a, "stat_dim"_a, nb::kw_only(),
        "n_bins"_a.none() = nb::none(), "code_bytes"_a = 1, "sample_quantities"_a.none() = nb::none(),
        "The bytes a fit allocates in the core besides its solved states (dpdt/memory.hpp); n_bins None means "
        "exact thresholds, sample_quantities None the statistics' size.");
    m.def("state_bytes", &dpdt::state_bytes, "stat_dim"_a, "cached"_a,
          "The bytes a state holds when created: its solution, statistics, leaf and, when cached, its cache "
          "entry (dpdt/memory.hpp).");
    m.def("solved_bytes", &dpdt::solved_bytes, "hull_points"_a, "actions"_a,
          "The bytes a state holds more once solved with that many hull points and actions (dpdt/memory.hpp).");
    m.def("apply", &apply_tree, "children_left"_a.noconvert(), "children_right"_a.noconvert(),
          "feature"_a.noconvert(), "threshold"_a.noconvert(), "missing_go_to_left"_a.noconvert(),
          "X"_a.noconvert());
}
