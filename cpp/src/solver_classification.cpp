#include "solver_impl.hpp"

namespace dpdt {
DPDT_INSTANTIATE(Classification)
}  // namespace dpdt
