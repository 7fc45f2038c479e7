// The objectives the core is built for (each one header of dpdt/objectives/, which
// dpdt/objectives/base.hpp describes). From this one list follow the solver's instantiations
// (cpp/CMakeLists.txt reads the list's lines and builds one translation unit per objective, so
// that they compile in parallel), the binding's dispatch by kName and its drivers of fits over
// machines (a std::variant over `Objectives`). Adding an objective: its header, its #include and
// one X(...) line below.
#pragma once
#include "dpdt/objectives/classification.hpp"
#include "dpdt/objectives/newton.hpp"
#include "dpdt/objectives/policy.hpp"
#include "dpdt/objectives/squared_error.hpp"

// One `X(Type)` per line, in this form: CMake reads it. The last line ends the list, so that an
// objective is added by one line.
#define DPDT_OBJECTIVES(X) \
    X(Classification)      \
    X(SquaredError)        \
    X(Newton)              \
    X(Policy)              \
    /* the list's end */

namespace dpdt {

template <class... O>
struct ObjectiveList {};

namespace detail {
template <class First, class... O>
ObjectiveList<O...> drop_first();
}  // namespace detail

// The list as types, in its order.
#define DPDT_OBJECTIVE_AFTER_COMMA(O) , O
using Objectives = decltype(detail::drop_first<void DPDT_OBJECTIVES(DPDT_OBJECTIVE_AFTER_COMMA)>());
#undef DPDT_OBJECTIVE_AFTER_COMMA

}  // namespace dpdt
