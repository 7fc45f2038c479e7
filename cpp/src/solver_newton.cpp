#include "solver_impl.hpp"

namespace dpdt {
DPDT_INSTANTIATE(Newton)
}  // namespace dpdt
