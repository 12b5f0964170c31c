/// \file
/// Owning arrays on an executor, and non-owning views of them.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "portla/error.hpp"
#include "portla/executor.hpp"

namespace portla {

/// A non-owning pointer + length into memory of some executor. Element access with [] is only
/// valid for host memory. `const_view<T>` is `view<const T>`; a view<T> converts to it.
template <typename T>
struct view {
    /// First element (memory of the executor the view was taken from).
    T* data = nullptr;
    /// Number of elements.
    std::size_t size = 0;

    view() = default;
    /// The n elements at d (nothing is checked or copied).
    view(T* d, std::size_t n) : data(d), size(n) {}
    template <typename U, typename = std::enable_if_t<std::is_same<const U, T>::value>>
    /// A view<T> as a const_view<T>.
    view(const view<U>& other) : data(other.data), size(other.size) {}

    /// Element i, unchecked; host memory only.
    T& operator[](std::size_t i) const { return data[i]; }
    /// data, for range-for over host memory.
    T* begin() const { return data; }
    /// data + size, for range-for over host memory.
    T* end() const { return data + size; }
    /// Whether size is 0.
    bool empty() const { return size == 0; }
};

template <typename T>
/// A read-only view: view<const T>.
using const_view = view<const T>;

/// Owning, move-only array of `size()` elements in the memory of `executor()`.
template <typename T>
class Array {
public:
    Array() : exec_(Executor::reference()) {}
    /// Uninitialised storage for n elements. Throws OutOfMemory.
    Array(const Executor& exec, std::size_t n) : exec_(exec), size_(n) {
        if (n > 0) data_ = static_cast<T*>(exec_.allocate(n * sizeof(T)));
    }
    /// A copy of host data on `exec`.
    Array(const Executor& exec, const std::vector<T>& host) : Array(exec, host.size()) {
        Executor::copy_bytes(exec_, data_, Executor::reference(), host.data(),
                             host.size() * sizeof(T));
    }
    /// A deep copy of `other` on `exec`.
    Array(const Executor& exec, const Array& other) : Array(exec, other.size()) {
        Executor::copy_bytes(exec_, data_, other.exec_, other.data_, size_ * sizeof(T));
    }
    /// A non-owning Array over `n` elements at `data`, memory of `exec` allocated by someone else
    /// (e.g. a CuPy or PyTorch array reached through DLPack): nothing is copied or freed. The
    /// caller keeps the memory alive, and unchanged where it is read, while the Array lives.
    static Array borrow(const Executor& exec, T* data, std::size_t n) {
        Array a;
        a.exec_ = exec;
        a.data_ = n > 0 ? data : nullptr;
        a.size_ = n;
        a.owning_ = false;
        return a;
    }
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    /// Takes over other's memory; other is left empty.
    Array(Array&& other) noexcept
        : exec_(other.exec_),
          data_(std::exchange(other.data_, nullptr)),
          size_(std::exchange(other.size_, 0)),
          owning_(std::exchange(other.owning_, true)) {}
    /// Frees this array's memory (when owning) and takes over other's; other is left empty.
    Array& operator=(Array&& other) noexcept {
        if (this != &other) {
            release();
            exec_ = other.exec_;
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
            owning_ = std::exchange(other.owning_, true);
        }
        return *this;
    }
    ~Array() { release(); }

    /// The executor whose memory holds the elements.
    const Executor& executor() const { return exec_; }
    /// Number of elements.
    std::size_t size() const { return size_; }
    /// Whether size() is 0.
    bool empty() const { return size_ == 0; }
    /// false for an Array made by borrow().
    bool owning() const { return owning_; }
    /// First element, in the executor's memory (nullptr when empty).
    T* data() { return data_; }
    /// First element, in the executor's memory (nullptr when empty).
    const T* data() const { return data_; }

    /// A view of every element (what the kernels take).
    view<T> get_view() { return {data_, size_}; }
    /// A read-only view of every element.
    const_view<T> get_view() const { return {data_, size_}; }
    /// get_view(), so that an Array can be passed where a view is expected.
    operator view<T>() { return get_view(); }
    /// get_view(), so that an Array can be passed where a const_view is expected.
    operator const_view<T>() const { return get_view(); }

    /// Copies the contents to a host vector (blocks).
    std::vector<T> to_host() const {
        std::vector<T> host(size_);
        Executor::copy_bytes(Executor::reference(), host.data(), exec_, data_, size_ * sizeof(T));
        return host;
    }
    /// Overwrites the contents with host data of the same size (blocks).
    void copy_from_host(const std::vector<T>& host) {
        if (host.size() != size_)
            throw DimensionMismatch("Array::copy_from_host", size_, host.size());
        Executor::copy_bytes(exec_, data_, Executor::reference(), host.data(), size_ * sizeof(T));
    }
    /// Overwrites the contents with those of another array of the same size, on any executor.
    void copy_from(const Array& other) {
        if (other.size_ != size_) throw DimensionMismatch("Array::copy_from", size_, other.size_);
        Executor::copy_bytes(exec_, data_, other.exec_, other.data_, size_ * sizeof(T));
    }

private:
    void release() noexcept {
        if (data_ && owning_) exec_.deallocate(data_);
        data_ = nullptr;
        size_ = 0;
    }
    Executor exec_;
    T* data_ = nullptr;
    std::size_t size_ = 0;
    bool owning_ = true;
};

}  // namespace portla
