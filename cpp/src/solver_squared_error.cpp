#include "solver_impl.hpp"

namespace dpdt {
DPDT_INSTANTIATE(SquaredError)
DPDT_INSTANTIATE_REMOTE(SquaredError)
}  // namespace dpdt
