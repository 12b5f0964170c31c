/// \file
/// The storage formats of portla's matrices, by name (the batch matrices and the command line).
#pragma once

#include <string>

namespace portla {

/// dense: row-major values; csr: compressed sparse rows; ell: padded columns, column-major.
enum class Format { dense, csr, ell };
/// "dense", "csr", "ell"; parse throws BadInput for an unknown name.
std::string to_string(Format f);
/// The inverse of to_string(Format); throws BadInput for an unknown name.
Format parse_format(const std::string& name);

}  // namespace portla
