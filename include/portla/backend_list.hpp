// The one list of backends. The Backend enum, the kernel declarations of every family, the
// dispatch from an algorithm to a backend's kernel and the NotCompiled error of a backend that
// was switched off are all generated from it (src/core/dispatch.hpp). A new backend is one word
// here, one folder src/<name>/ with the same file names as the others, and one CMake block.
#pragma once

// X(name) for every backend, in the order `auto` considers them last to first.
#define PORTLA_FOR_EACH_BACKEND(X) X(reference) X(omp) X(cuda)
