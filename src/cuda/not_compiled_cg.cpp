// The device CG when the cuda backend is switched off: every entry point throws
// NotCompiled{"cuda"} (src/core/cg.cpp only calls it for a cuda executor, which cannot exist
// in such a build).
#include "core/kernels/cg_kernels.hpp"
#include "portla/error.hpp"

namespace portla::kernels::cuda {

template <typename T>
struct CgLoop<T>::Impl {};

template <typename T>
CgLoop<T>::CgLoop(const Executor&, const CgProblem<T>&) {
    throw NotCompiled("cuda");
}
template <typename T>
CgLoop<T>::~CgLoop() = default;
template <typename T>
void CgLoop<T>::run_batch() {
    throw NotCompiled("cuda");
}
template <typename T>
int CgLoop<T>::iterations() const {
    throw NotCompiled("cuda");
}
template <typename T>
CgStop CgLoop<T>::stop() const {
    throw NotCompiled("cuda");
}
template <typename T>
double CgLoop<T>::residual_norm(int) const {
    throw NotCompiled("cuda");
}
template <typename T>
void CgLoop<T>::resume() {
    throw NotCompiled("cuda");
}

template class CgLoop<double>;
template class CgLoop<float>;

}  // namespace portla::kernels::cuda
