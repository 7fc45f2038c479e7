#include "solver_impl.hpp"

namespace dpdt {
DPDT_INSTANTIATE(SquaredError)
}  // namespace dpdt
