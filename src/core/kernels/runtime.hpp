// Device runtime entry points of the cuda backend (memory, copies, device queries). When the
// backend is switched off, src/cuda/not_compiled.cpp defines them to throw NotCompiled.
#pragma once

#include <cstddef>
#include <vector>

#include "portla/executor.hpp"

namespace portla::kernels::cuda {

bool compiled();
/// 0 when no GPU (or no driver) is present; never throws.
int device_count();
DeviceInfo device_info(int device);
/// Throws OutOfMemory (with the bytes) or DeviceError.
void* allocate(int device, std::size_t bytes);
void deallocate(int device, void* ptr) noexcept;
/// Blocking copies; `device` is the GPU the device pointer(s) belong to.
void copy_to_device(int device, void* dst, const void* src, std::size_t bytes);
void copy_to_host(int device, void* dst, const void* src, std::size_t bytes);
void copy_device_to_device(int device, void* dst, const void* src, std::size_t bytes);
void synchronize(int device);
/// Free and total device memory in bytes.
void memory_info(int device, std::size_t& free_bytes, std::size_t& total_bytes);

/// Device events for timing work on the default stream: create, record, and the seconds
/// between two recorded events (waits for `stop`).
void* event_create(int device);
void event_destroy(void* event) noexcept;
void event_record(int device, void* event);
double event_elapsed_s(void* start, void* stop);

}  // namespace portla::kernels::cuda
