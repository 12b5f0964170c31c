#include "portla/solver/settings.hpp"

#include "portla/error.hpp"

namespace portla::solver {

std::string to_string(Preconditioner p) {
    switch (p) {
        case Preconditioner::none:
            return "none";
        case Preconditioner::jacobi:
            return "jacobi";
    }
    return "unknown";
}

Preconditioner parse_preconditioner(const std::string& name) {
    if (name == "none") return Preconditioner::none;
    if (name == "jacobi") return Preconditioner::jacobi;
    throw BadInput("unknown preconditioner '" + name + "' (expected none or jacobi)");
}

std::string to_string(StopReason reason) {
    switch (reason) {
        case StopReason::converged:
            return "converged";
        case StopReason::max_iterations:
            return "max_iterations";
        case StopReason::breakdown:
            return "breakdown";
        case StopReason::non_finite:
            return "non_finite";
        case StopReason::indefinite:
            return "indefinite";
        case StopReason::stagnation:
            return "stagnation";
    }
    return "unknown";
}

}  // namespace portla::solver
