// dist::DistributedCsr: row-block partition, the halo found once at set-up, and the SpMV that
// overlaps the halo exchange with the diagonal block (PETSc's MPIAIJ split: y = A_d x_local
// while the ghosts fly, then y += A_o x_ghost), both through portla's own Csr<T>.
#include "portla/dist/distributed_csr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "portla/blas.hpp"
#include "portla/dist/distributed_stencil.hpp"
#include "portla/matrix/stencil.hpp"
#include "portla/error.hpp"

#include "dist/common.hpp"

namespace portla::dist {

template <typename T>
struct DistributedCsr<T>::Setup {
    std::vector<std::int64_t> offsets;
    std::vector<std::int32_t> d_ptrs, d_cols, o_ptrs, o_cols;
    std::vector<T> d_vals, o_vals;
    std::size_t ghosts = 0;
    std::vector<int> recv_peers, send_peers;
    std::vector<std::size_t> recv_starts{0}, send_starts{0};
    std::vector<std::int32_t> send_idx;
    std::string defect;
};

namespace {

constexpr std::int64_t kIndexMax = std::numeric_limits<std::int32_t>::max();

using detail::message;

// The checks of one rank's part that need nobody else.
template <typename T>
void check_part(std::int64_t global_rows, std::int64_t row_offset,
                const std::vector<std::int64_t>& row_ptrs,
                const std::vector<std::int64_t>& col_idxs, const std::vector<T>& values) {
    if (global_rows < 0 || global_rows > kIndexMax)
        throw BadInput("distributed csr: global rows " + std::to_string(global_rows) +
                       " outside [0, 2^31 - 1]");
    if (row_ptrs.empty() || row_ptrs.front() != 0)
        throw BadInput("distributed csr: row_ptrs must hold rows + 1 entries from 0");
    const auto n = static_cast<std::int64_t>(row_ptrs.size() - 1);
    if (row_offset < 0 || row_offset + n > global_rows)
        throw BadInput("distributed csr: local rows [" + std::to_string(row_offset) + ", " +
                       std::to_string(row_offset + n) + ") outside the matrix's " +
                       std::to_string(global_rows) + " rows");
    for (std::int64_t i = 0; i < n; ++i)
        if (row_ptrs[i + 1] < row_ptrs[i])
            throw BadInput("distributed csr: row_ptrs decrease at global row " +
                           std::to_string(row_offset + i + 1));
    if (row_ptrs.back() != static_cast<std::int64_t>(col_idxs.size()))
        throw DimensionMismatch("distributed csr: col_idxs", row_ptrs.back(), col_idxs.size());
    if (values.size() != col_idxs.size())
        throw DimensionMismatch("distributed csr: values", col_idxs.size(), values.size());
    if (row_ptrs.back() > kIndexMax)
        throw BadInput("distributed csr: more than 2^31 - 1 non-zeros on one rank");
    for (std::int64_t i = 0; i < n; ++i)
        for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k) {
            const std::string where =
                " at global row " + std::to_string(row_offset + i + 1) + " (counting from 1)";
            if (col_idxs[k] < 0 || col_idxs[k] >= global_rows)
                throw BadInput("distributed csr: column " + std::to_string(col_idxs[k] + 1) +
                               " outside [1, " + std::to_string(global_rows) + "]" + where);
            if (!std::isfinite(double(values[k])))
                throw BadInput("distributed csr: a NaN or Inf value" + where);
        }
}

}  // namespace

std::vector<std::int64_t> balanced_partition(const MatrixData& data, int parts) {
    if (parts < 1) throw BadInput("balanced_partition: parts must be >= 1");
    std::vector<std::int64_t> per_row(
        static_cast<std::size_t>(std::max<std::int64_t>(data.rows, 0)), 0);
    for (const auto r : data.row_idx)
        if (r >= 0 && r < data.rows) ++per_row[static_cast<std::size_t>(r)];
    const double total = double(data.entries());
    std::vector<std::int64_t> offsets(parts + 1, data.rows);
    offsets[0] = 0;
    // Block p ends at the first row where the running count reaches (p + 1) / parts of the
    // non-zeros (rows with no entries count as one, so an empty matrix still splits by rows).
    double running = 0;
    const double weight_total = total + double(std::count(per_row.begin(), per_row.end(), 0));
    int p = 0;
    for (std::int64_t r = 0; r < data.rows && p < parts - 1; ++r) {
        running += per_row[r] > 0 ? double(per_row[r]) : 1.0;
        while (p < parts - 1 && running >= weight_total * double(p + 1) / parts)
            offsets[++p] = r + 1;
    }
    return offsets;
}

template <typename T>
DistributedCsr<T>::DistributedCsr(const Executor& exec, std::shared_ptr<const Communicator> comm,
                                  std::int64_t global_rows, std::int64_t row_offset,
                                  const std::vector<std::int64_t>& row_ptrs,
                                  const std::vector<std::int64_t>& col_idxs,
                                  const std::vector<T>& values)
    : DistributedCsr(exec, comm, [&] {
          if (!comm) throw BadInput("distributed csr: no communicator");
          const Communicator& c = *comm;
          const int size = c.size(), rank = c.rank();
          on_every_rank(&c,
                        [&] { check_part(global_rows, row_offset, row_ptrs, col_idxs, values); });
          const auto n = static_cast<std::int64_t>(row_ptrs.size() - 1);
          Setup s;
          // Every rank's row count, summed into place: the offsets.
          std::vector<double> counts(size, 0.0);
          counts[rank] = double(n);
          c.allreduce_sum(counts.data(), size);
          s.offsets.assign(size + 1, 0);
          for (int p = 0; p < size; ++p) s.offsets[p + 1] = s.offsets[p] + std::int64_t(counts[p]);
          on_every_rank(&c, [&] {
              if (s.offsets[rank] != row_offset || s.offsets[size] != global_rows)
                  throw BadInput("distributed csr: rank " + std::to_string(rank) +
                                 "'s rows start at " + std::to_string(row_offset) +
                                 " but the ranks before it hold " +
                                 std::to_string(s.offsets[rank]) + " rows (of " +
                                 std::to_string(s.offsets[size]) + " for a matrix of " +
                                 std::to_string(global_rows) + ")");
          });
          const std::int64_t lo = row_offset, hi = row_offset + n;
          // The ghost columns, sorted (hence grouped by owner).
          std::vector<std::int64_t> ghosts;
          for (const auto col : col_idxs)
              if (col < lo || col >= hi) ghosts.push_back(col);
          std::sort(ghosts.begin(), ghosts.end());
          ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
          s.ghosts = ghosts.size();
          // The diagonal block (local columns) and the off-diagonal one (ghost columns).
          s.d_ptrs.assign(n + 1, 0);
          s.o_ptrs.assign(n + 1, 0);
          for (std::int64_t i = 0; i < n; ++i) {
              for (auto k = row_ptrs[i]; k < row_ptrs[i + 1]; ++k) {
                  const auto col = col_idxs[k];
                  if (col >= lo && col < hi) {
                      s.d_cols.push_back(static_cast<std::int32_t>(col - lo));
                      s.d_vals.push_back(values[k]);
                  } else {
                      const auto g =
                          std::lower_bound(ghosts.begin(), ghosts.end(), col) - ghosts.begin();
                      s.o_cols.push_back(static_cast<std::int32_t>(g));
                      s.o_vals.push_back(values[k]);
                  }
              }
              s.d_ptrs[i + 1] = static_cast<std::int32_t>(s.d_cols.size());
              s.o_ptrs[i + 1] = static_cast<std::int32_t>(s.o_cols.size());
              if (row_ptrs[i + 1] == row_ptrs[i] && s.defect.empty())
                  s.defect = "matrix has an empty row (row " + std::to_string(lo + i + 1) + " of " +
                             std::to_string(global_rows) +
                             ", counting from 1): the system is singular";
          }
          // Who owns each ghost; how many each rank needs from each (an alltoall of counts).
          std::vector<std::int64_t> need(size, 0), give(size, 0);
          std::vector<std::vector<std::int64_t>> asked(size);
          for (const auto g : ghosts) {
              const int owner =
                  int(std::upper_bound(s.offsets.begin(), s.offsets.end(), g) - s.offsets.begin()) -
                  1;
              asked[owner].push_back(g);
              ++need[owner];
          }
          c.alltoall(need.data(), give.data());
          // The indices themselves: each rank tells its owners which of their rows it needs.
          std::vector<std::vector<std::int64_t>> wanted(size);
          std::vector<Communicator::Message> receives, sends;
          for (int p = 0; p < size; ++p) {
              if (give[p] > 0) {
                  wanted[p].resize(give[p]);
                  receives.push_back(message(p, wanted[p]));
              }
              if (need[p] > 0) {
                  sends.push_back(message(p, asked[p]));
                  s.recv_peers.push_back(p);
                  s.recv_starts.push_back(s.recv_starts.back() + asked[p].size());
              }
          }
          c.exchange(receives, sends);
          for (int p = 0; p < size; ++p) {
              if (give[p] == 0) continue;
              s.send_peers.push_back(p);
              for (const auto g : wanted[p])
                  s.send_idx.push_back(static_cast<std::int32_t>(g - lo));
              s.send_starts.push_back(s.send_idx.size());
          }
          return s;
      }()) {}

template <typename T>
DistributedCsr<T>::DistributedCsr(const Executor& exec, std::shared_ptr<const Communicator> comm,
                                  Setup&& s)
    : DistributedOperator<T>(std::move(comm), std::move(s.offsets)),
      local_rows_(s.d_ptrs.size() - 1),
      diag_(exec, local_rows_, local_rows_, s.d_ptrs, s.d_cols, s.d_vals),
      offdiag_(exec, local_rows_, s.ghosts, s.o_ptrs, s.o_cols, s.o_vals),
      defect_(std::move(s.defect)),
      recv_peers_(std::move(s.recv_peers)),
      send_peers_(std::move(s.send_peers)),
      recv_starts_(std::move(s.recv_starts)),
      send_starts_(std::move(s.send_starts)),
      send_idx_(std::move(s.send_idx)),
      send_idx_dev_(exec, send_idx_),
      send_(exec, send_idx_.size()),
      ghost_(exec, s.ghosts),
      offdiag_y_(exec, s.ghosts > 0 ? local_rows_ : 0) {
    this->choose_halo_path(exec);
    if (!direct_ && !peer_) stage_ = detail::pinned_buffer<T>(exec, send_idx_.size() + s.ghosts);
}

template <typename T>
void DistributedCsr<T>::apply(const_view<T> x, view<T> y) const {
    if (x.size != local_rows_)
        throw DimensionMismatch("distributed csr apply: x", local_rows_, x.size);
    if (y.size != local_rows_)
        throw DimensionMismatch("distributed csr apply: y", local_rows_, y.size);
    const auto& exec = executor();
    // The values the other ranks need, gathered in the executor's memory and (unless MPI takes
    // that memory) copied to the page-locked stage; the ghosts come back the same way.
    const std::size_t sent = send_idx_.size(), ghosts = ghost_.size();
    detail::gather_entries<T>(exec, send_idx_dev_.get_view(), x, send_.get_view());
    const bool staged = stage_ != nullptr;
    T* send = staged ? stage_.get() : send_.data();
    T* recv = staged ? stage_.get() + sent : ghost_.data();
    if (staged)
        Executor::copy_bytes(Executor::reference(), send, exec, send_.data(), sent * sizeof(T));
    else if (sent > 0 && !peer_)
        exec.synchronize();  // the gather has finished before MPI reads its output
    std::vector<Communicator::Message> receives, sends;
    for (std::size_t i = 0; i < recv_peers_.size(); ++i)
        receives.push_back({recv_peers_[i], recv + recv_starts_[i],
                            (recv_starts_[i + 1] - recv_starts_[i]) * sizeof(T)});
    for (std::size_t i = 0; i < send_peers_.size(); ++i)
        sends.push_back({send_peers_[i], send + send_starts_[i],
                         (send_starts_[i + 1] - send_starts_[i]) * sizeof(T)});
    if (peer_) {  // device to device, ordered on the executor's stream
        peer_->exchange(receives, sends);
        diag_.apply(x, y);
    } else {
        auto halo = comm_->start_exchange(receives, sends);
        diag_.apply(x, y);  // y = A_d x_local while the halo is in flight
        halo->wait();
    }
    if (ghosts == 0) return;
    if (staged)
        Executor::copy_bytes(exec, ghost_.data(), Executor::reference(), recv, ghosts * sizeof(T));
    offdiag_.apply(ghost_, offdiag_y_);
    blas::axpby<T>(exec, T{1}, offdiag_y_, T{1}, y);  // y += A_o x_ghost
}

template <typename T>
void DistributedOperator<T>::choose_halo_path(const Executor& exec) {
    // an error on one rank is an error on every rank, before any of them starts the peer
    // exchange's collectives
    bool direct = false;
    on_every_rank(comm_.get(), [&] { direct = comm_->exchanges_memory_of(exec); });
    direct_ = direct;
    // One rank has no halo: no NCCL communicator is started for it.
    if (!direct_ && comm_->size() > 1) peer_ = exec.runtime().make_peer_exchange(*comm_);
    halo_path_ = comm_->size() < 2 ? "none"
                 : exec.is_host()  ? "host"
                 : direct_         ? "direct"
                 : peer_           ? "nccl"
                                   : "staged";
}

template <typename T>
std::vector<T> DistributedOperator<T>::gather(const_view<T> x, int root) const {
    return detail::gather_rows(*comm_, offsets_, this->executor(), x, root, this->format().c_str());
}

template <typename T>
std::vector<T> DistributedOperator<T>::scatter_vector(const std::vector<T>& global,
                                                      int root) const {
    return detail::scatter_rows(*comm_, offsets_, global, root, this->format().c_str());
}

namespace {

// Rows [begin, end) of sorted data as CSR with global columns.
template <typename T>
void rows_of(const MatrixData& sorted, std::int64_t begin, std::int64_t end,
             std::vector<std::int64_t>& row_ptrs, std::vector<std::int64_t>& cols,
             std::vector<T>& values) {
    row_ptrs.assign(static_cast<std::size_t>(end - begin + 1), 0);
    cols.clear();
    values.clear();
    const auto first = std::lower_bound(sorted.row_idx.begin(), sorted.row_idx.end(), begin) -
                       sorted.row_idx.begin();
    for (auto k = static_cast<std::size_t>(first); k < sorted.entries() && sorted.row_idx[k] < end;
         ++k) {
        ++row_ptrs[static_cast<std::size_t>(sorted.row_idx[k] - begin + 1)];
        cols.push_back(sorted.col_idx[k]);
        values.push_back(static_cast<T>(sorted.values[k]));
    }
    for (std::size_t i = 1; i < row_ptrs.size(); ++i) row_ptrs[i] += row_ptrs[i - 1];
}

void check_square(const MatrixData& data) {
    if (data.rows != data.cols)
        throw DimensionMismatch("distributed csr: matrix must be square (" +
                                    std::to_string(data.rows) + " x " + std::to_string(data.cols) +
                                    "); rows",
                                data.rows, data.cols);
}

}  // namespace

template <typename T>
DistributedCsr<T> DistributedCsr<T>::from_global(const Executor& exec,
                                                 std::shared_ptr<const Communicator> comm,
                                                 const MatrixData& data) {
    on_every_rank(comm.get(), [&] { check_square(data); });
    MatrixData sorted = data;
    sorted.sort_and_sum_duplicates();
    const auto offsets = balanced_partition(sorted, comm->size());
    const int rank = comm->rank();
    std::vector<std::int64_t> row_ptrs, cols;
    std::vector<T> values;
    rows_of(sorted, offsets[rank], offsets[rank + 1], row_ptrs, cols, values);
    return DistributedCsr(exec, std::move(comm), sorted.rows, offsets[rank], row_ptrs, cols,
                          values);
}

template <typename T>
DistributedCsr<T> DistributedCsr<T>::scatter(const Executor& exec,
                                             std::shared_ptr<const Communicator> comm,
                                             const MatrixData& data, int root) {
    const Communicator& c = *comm;
    const int rank = c.rank(), size = c.size();
    MatrixData sorted;
    std::vector<std::int64_t> offsets(size + 1, 0);
    on_every_rank(&c, [&] {
        if (rank != root) return;
        check_square(data);
        sorted = data;
        sorted.sort_and_sum_duplicates();
        offsets = balanced_partition(sorted, size);
    });
    c.broadcast(offsets.data(), offsets.size() * sizeof(std::int64_t), root);
    // Each rank's non-zeros, then its rows (row_ptrs, global columns, values in T).
    std::vector<std::int64_t> nnz(size, 0);
    std::vector<std::vector<std::int64_t>> ptrs(size), cols(size);
    std::vector<std::vector<T>> vals(size);
    if (rank == root)
        for (int p = 0; p < size; ++p) {
            rows_of(sorted, offsets[p], offsets[p + 1], ptrs[p], cols[p], vals[p]);
            nnz[p] = ptrs[p].back();
        }
    std::vector<std::int64_t> mine(1, 0);
    std::vector<Communicator::Message> receives, sends;
    if (rank == root) {
        for (int p = 0; p < size; ++p)
            if (p != root) sends.push_back({p, &nnz[p], sizeof(std::int64_t)});
    } else {
        receives.push_back(message(root, mine));
    }
    c.exchange(receives, sends);
    if (rank != root) {
        ptrs[rank].resize(static_cast<std::size_t>(offsets[rank + 1] - offsets[rank] + 1));
        cols[rank].resize(static_cast<std::size_t>(mine[0]));
        vals[rank].resize(static_cast<std::size_t>(mine[0]));
    }
    auto send_all = [&](auto& arrays) {
        std::vector<Communicator::Message> r, s;
        if (rank == root) {
            for (int p = 0; p < size; ++p)
                if (p != root && !arrays[p].empty()) s.push_back(message(p, arrays[p]));
        } else if (!arrays[rank].empty()) {
            r.push_back(message(root, arrays[rank]));
        }
        c.exchange(r, s);
    };
    send_all(ptrs);
    send_all(cols);
    send_all(vals);
    return DistributedCsr(exec, std::move(comm), offsets[size], offsets[rank], ptrs[rank],
                          cols[rank], vals[rank]);
}

template <typename T>
DistributedCsr<T> DistributedCsr<T>::poisson(const Executor& exec,
                                             std::shared_ptr<const Communicator> comm, int dim,
                                             std::size_t points) {
    std::vector<std::int64_t> planes;
    on_every_rank(comm.get(), [&] {
        // The checks and the sizes of the matrix-free operator (one Stencil, no storage).
        const std::size_t n = Stencil<T>(Executor::reference(), dim, points).rows();
        if (n > static_cast<std::size_t>(kIndexMax))
            throw BadInput("poisson" + std::to_string(dim) + "d:" + std::to_string(points) +
                           " has " + std::to_string(n) + " rows, more than 2^31 - 1");
        planes = slab_partition(static_cast<std::int64_t>(points), comm->size());
    });
    const std::int64_t p = static_cast<std::int64_t>(points);
    const std::int64_t nx = dim >= 2 ? p : 1, ny = dim >= 3 ? p : 1, plane = nx * ny;
    const int rank = comm->rank();
    const std::int64_t k0 = planes[rank], k1 = planes[rank + 1];
    std::vector<std::int64_t> row_ptrs(1, 0), cols;
    std::vector<T> values;
    row_ptrs.reserve(static_cast<std::size_t>((k1 - k0) * plane + 1));
    cols.reserve(static_cast<std::size_t>((k1 - k0) * plane * (2 * dim + 1)));
    values.reserve(cols.capacity());
    auto add = [&](std::int64_t c, double v) {
        cols.push_back(c);
        values.push_back(static_cast<T>(v));
    };
    // The rows of Stencil::assemble() for planes [k0, k1) of the outermost dimension.
    for (std::int64_t k = k0; k < k1; ++k)
        for (std::int64_t j = 0; j < ny; ++j)
            for (std::int64_t i = 0; i < nx; ++i) {
                const std::int64_t r = (k * ny + j) * nx + i;
                if (k > 0) add(r - plane, -1.0);
                if (j > 0) add(r - nx, -1.0);
                if (i > 0) add(r - 1, -1.0);
                add(r, 2.0 * dim);
                if (i + 1 < nx) add(r + 1, -1.0);
                if (j + 1 < ny) add(r + nx, -1.0);
                if (k + 1 < p) add(r + plane, -1.0);
                row_ptrs.push_back(static_cast<std::int64_t>(cols.size()));
            }
    const std::int64_t global = p * plane;
    return DistributedCsr(exec, std::move(comm), global, k0 * plane, row_ptrs, cols, values);
}

template class DistributedOperator<double>;
template class DistributedOperator<float>;
template class DistributedCsr<double>;
template class DistributedCsr<float>;

}  // namespace portla::dist
