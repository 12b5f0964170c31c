// Everything in portla's public API.
#pragma once

#include "portla/array.hpp"
#include "portla/blas.hpp"
#include "portla/eigen/perron.hpp"
#include "portla/error.hpp"
#include "portla/executor.hpp"
#include "portla/io/matrix_market.hpp"
#include "portla/matrix/csr.hpp"
#include "portla/matrix/dense.hpp"
#include "portla/matrix/ell.hpp"
#include "portla/matrix/matrix_data.hpp"
#include "portla/matrix/stencil.hpp"
#include "portla/operator.hpp"
#include "portla/solver/bicgstab.hpp"
#include "portla/solver/cg.hpp"
#include "portla/solver/settings.hpp"
#include "portla/gemm.hpp"
