#include "portla/operator.hpp"

#include <complex>

#include "portla/error.hpp"

namespace portla {

template <typename T>
void LinearOperator<T>::diagonal(view<T>) const {
    throw BadInput("the " + format() + " operator does not provide its diagonal");
}

template <typename T>
void LinearOperator<T>::checked_apply(const_view<T> x, view<T> y) const {
    if (x.size != cols()) throw DimensionMismatch(format() + " apply: x", cols(), x.size);
    if (y.size != rows()) throw DimensionMismatch(format() + " apply: y", rows(), y.size);
    apply(x, y);
}

template <typename T>
void LinearOperator<T>::apply_transpose(const_view<T>, view<T>) const {
    throw Unsupported("the " + format() + " operator does not provide its transpose (A^T x)");
}

template <typename T>
void CallbackOperator<T>::apply_transpose(const_view<T> x, view<T> y) const {
    if (!transpose_) LinearOperator<T>::apply_transpose(x, y);
    transpose_(x, y);
}

template <typename T>
void CallbackOperator<T>::diagonal(view<T> d) const {
    if (!diagonal_) LinearOperator<T>::diagonal(d);
    if (d.size != rows_) throw DimensionMismatch("callback diagonal", rows_, d.size);
    diagonal_(d);
}

template class LinearOperator<double>;
template class LinearOperator<float>;
template class CallbackOperator<double>;
template class CallbackOperator<float>;
template class LinearOperator<std::complex<double>>;
template class LinearOperator<std::complex<float>>;
template class CallbackOperator<std::complex<double>>;
template class CallbackOperator<std::complex<float>>;

}  // namespace portla
