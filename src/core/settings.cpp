// The names of the shared solver enums (portla/solver/types.hpp) and of the matrix formats
// (portla/matrix/format.hpp): the one place where they are spelled.
#include <vector>

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
        case StopReason::bad_scale:
            return "bad_scale";
        case StopReason::unstable_preconditioner:
            return "unstable_preconditioner";
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
        case Preconditioner::amg:
            return "amg";
        case Preconditioner::ilut:
            return "ilut";
        case Preconditioner::iluk:
            return "iluk";
    }
    return "unknown";
}

Preconditioner parse_preconditioner(const std::string& name) {
    for (auto p : {Preconditioner::none, Preconditioner::jacobi, Preconditioner::block_jacobi,
                   Preconditioner::ilu0, Preconditioner::ic0, Preconditioner::chebyshev,
                   Preconditioner::amg, Preconditioner::ilut, Preconditioner::iluk})
        if (name == to_string(p)) return p;
    throw BadInput("unknown preconditioner '" + name +
                   "' (expected none, jacobi, block-jacobi, ilu0, ic0, chebyshev, amg, ilut or "
                   "iluk)");
}

std::string to_string(AmgSmoother s) {
    switch (s) {
        case AmgSmoother::jacobi:
            return "jacobi";
        case AmgSmoother::l1_jacobi:
            return "l1-jacobi";
        case AmgSmoother::chebyshev:
            return "chebyshev";
    }
    return "unknown";
}

AmgSmoother parse_amg_smoother(const std::string& name) {
    for (auto s : {AmgSmoother::jacobi, AmgSmoother::l1_jacobi, AmgSmoother::chebyshev})
        if (name == to_string(s)) return s;
    throw BadInput("unknown amg smoother '" + name + "' (expected jacobi, l1-jacobi or chebyshev)");
}

std::string to_string(AmgCycle c) { return c == AmgCycle::w ? "w" : "v"; }

AmgCycle parse_amg_cycle(const std::string& name) {
    if (name == "v" || name == "V") return AmgCycle::v;
    if (name == "w" || name == "W") return AmgCycle::w;
    throw BadInput("unknown amg cycle '" + name + "' (expected v or w)");
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
        case Solver::minres:
            return "minres";
        case Solver::cgs:
            return "cgs";
        case Solver::tfqmr:
            return "tfqmr";
        case Solver::lgmres:
            return "lgmres";
        case Solver::gcrotmk:
            return "gcrotmk";
        case Solver::bicg:
            return "bicg";
        case Solver::qmr:
            return "qmr";
    }
    return "unknown";
}

std::vector<Solver> all_solvers() {
    return {
        Solver::cg,      Solver::bicgstab, Solver::gmres, Solver::pipecg,
        Solver::minres,  Solver::cgs,      Solver::tfqmr, Solver::lgmres,
        Solver::gcrotmk, Solver::bicg,     Solver::qmr,
    };
}

bool solves_complex(Solver s) { return s != Solver::pipecg && s != Solver::minres; }

std::string complex_solver_names(const std::string& conjunction) {
    std::vector<std::string> names;
    for (auto s : all_solvers())
        if (solves_complex(s)) names.push_back(to_string(s));
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " " + conjunction + " " : ", ") + names[i];
    return list;
}

Solver parse_solver(const std::string& name) {
    for (auto s : all_solvers())
        if (name == to_string(s)) return s;
    std::string expected;
    for (auto s : all_solvers()) expected += (expected.empty() ? "" : ", ") + to_string(s);
    throw BadInput("unknown solver '" + name + "' (expected one of " + expected + ")");
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
