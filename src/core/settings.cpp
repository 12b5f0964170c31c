// The names of the shared solver enums (portla/solver/types.hpp) and of the matrix formats
// (portla/matrix/format.hpp): the one place where they are spelled.
#include "portla/error.hpp"
#include "portla/matrix/format.hpp"
#include "portla/solver/settings.hpp"
#include "portla/solver/types.hpp"

namespace portla::solver {

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
        case StopReason::singular_preconditioner:
            return "singular_preconditioner";
    }
    return "unknown";
}

std::string to_string(Preconditioner p) {
    switch (p) {
        case Preconditioner::none:
            return "none";
        case Preconditioner::jacobi:
            return "jacobi";
        case Preconditioner::block_jacobi:
            return "block-jacobi";
        case Preconditioner::ilu0:
            return "ilu0";
        case Preconditioner::ic0:
            return "ic0";
        case Preconditioner::chebyshev:
            return "chebyshev";
    }
    return "unknown";
}

Preconditioner parse_preconditioner(const std::string& name) {
    for (auto p : {Preconditioner::none, Preconditioner::jacobi, Preconditioner::block_jacobi,
                   Preconditioner::ilu0, Preconditioner::ic0, Preconditioner::chebyshev})
        if (name == to_string(p)) return p;
    throw BadInput("unknown preconditioner '" + name +
                   "' (expected none, jacobi, block-jacobi, ilu0, ic0 or chebyshev)");
}

std::string to_string(Solver s) {
    switch (s) {
        case Solver::cg:
            return "cg";
        case Solver::bicgstab:
            return "bicgstab";
        case Solver::gmres:
            return "gmres";
        case Solver::pipecg:
            return "pipecg";
    }
    return "unknown";
}

Solver parse_solver(const std::string& name) {
    for (auto s : {Solver::cg, Solver::bicgstab, Solver::gmres, Solver::pipecg})
        if (name == to_string(s)) return s;
    throw BadInput("unknown solver '" + name + "' (expected cg, bicgstab, gmres or pipecg)");
}

}  // namespace portla::solver

namespace portla {

std::string to_string(Format f) {
    switch (f) {
        case Format::dense:
            return "dense";
        case Format::csr:
            return "csr";
        case Format::ell:
            return "ell";
    }
    return "unknown";
}

Format parse_format(const std::string& name) {
    for (auto f : {Format::dense, Format::csr, Format::ell})
        if (name == to_string(f)) return f;
    throw BadInput("unknown format '" + name + "' (expected dense, csr or ell)");
}

}  // namespace portla
