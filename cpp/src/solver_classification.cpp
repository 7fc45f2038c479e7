#include "solver_impl.hpp"

namespace dpdt {
DPDT_INSTANTIATE(Classification)
DPDT_INSTANTIATE_REMOTE(Classification)
}  // namespace dpdt
