#include "nas/data_parallel.h"

#include <ATen/Parallel.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <utility>

namespace hpt::nas {
namespace {

// This thread's libtorch intra-op threads, leaving other threads' alone.
void SetThisThreadsIntraOp(int threads) {
  // libtorch sets a thread's count from its global one on the thread's
  // first parallel call; make that happen first.
  (void)at::get_num_threads();
#ifdef _OPENMP
  omp_set_num_threads(threads);  // per thread (OpenMP's nthreads-var)
#else
  at::set_num_threads(threads);
#endif
}

}  // namespace

ThreadTeam::ThreadTeam(int workers, int intra_op_threads)
    : errors_(static_cast<size_t>(std::max(workers, 1))) {
  for (int i = 0; i < std::max(workers, 1); ++i) {
    threads_.emplace_back([this, i, intra_op_threads] {
      Loop(i, intra_op_threads);
    });
  }
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadTeam::Loop(int index, int intra_op_threads) {
  SetThisThreadsIntraOp(intra_op_threads);
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    start_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    const std::function<void(int)>* job = job_;
    lock.unlock();
    try {
      (*job)(index);
    } catch (...) {
      errors_[static_cast<size_t>(index)] = std::current_exception();
    }
    lock.lock();
    if (--pending_ == 0) done_.notify_all();
  }
}

void ThreadTeam::Run(const std::function<void(int)>& job) {
  std::unique_lock<std::mutex> lock(mu_);
  job_ = &job;
  pending_ = size();
  std::fill(errors_.begin(), errors_.end(), nullptr);
  ++generation_;
  start_.notify_all();
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
  for (const std::exception_ptr& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

int ReplicaCount(int threads, int64_t batch) {
  constexpr int64_t kSmallestShard = 32;
  if (threads < 2) return 1;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(threads, batch / kSmallestShard)));
}

Replicas::Replicas(std::vector<std::shared_ptr<torch::nn::Module>> nets,
                   Forward forward, int threads)
    : nets_(std::move(nets)),
      forward_(std::move(forward)),
      team_(static_cast<int>(nets_.size()),
            std::max(1, threads / static_cast<int>(nets_.size()))) {
  for (const auto& net : nets_) {
    params_.push_back(net->parameters());
    buffers_.push_back(net->buffers());
  }
  torch::NoGradGuard no_grad;
  for (size_t r = 1; r < nets_.size(); ++r) {
    for (size_t k = 0; k < params_[0].size(); ++k) {
      params_[r][k].copy_(params_[0][k]);
    }
    for (size_t k = 0; k < buffers_[0].size(); ++k) {
      buffers_[r][k].copy_(buffers_[0][k]);
    }
  }
}

std::vector<Replicas::Shard> Replicas::ForwardBackward(const torch::Tensor& x,
                                                       const torch::Tensor& y) {
  const int64_t n = x.size(0);
  const int64_t count = static_cast<int64_t>(nets_.size());
  std::vector<Shard> shards(nets_.size());
  const bool training = nets_[0]->is_training();
  team_.Run([&](int r) {
    const int64_t begin = n * r / count, end = n * (r + 1) / count;
    nets_[r]->train(training);
    for (torch::Tensor& p : params_[r]) {
      if (p.grad().defined()) p.mutable_grad().zero_();
    }
    const torch::Tensor ys = y.slice(0, begin, end);
    const torch::Tensor logits = forward_(r, x.slice(0, begin, end));
    const torch::Tensor loss = torch::cross_entropy_loss(logits, ys);
    loss.backward();
    shards[r] = {loss.detach(), logits.detach().argmax(1).eq(ys).sum(),
                 end - begin};
  });
  torch::NoGradGuard no_grad;
  for (size_t k = 0; k < params_[0].size(); ++k) {
    torch::Tensor& grad = params_[0][k].mutable_grad();
    if (!grad.defined()) continue;
    grad.mul_(static_cast<double>(shards[0].size) / static_cast<double>(n));
    for (size_t r = 1; r < nets_.size(); ++r) {
      const torch::Tensor& other = params_[r][k].grad();
      if (other.defined()) {
        grad.add_(other, static_cast<double>(shards[r].size) /
                             static_cast<double>(n));
      }
    }
  }
  return shards;
}

void Replicas::Sync() {
  torch::NoGradGuard no_grad;
  for (size_t r = 1; r < nets_.size(); ++r) {
    for (size_t k = 0; k < params_[0].size(); ++k) {
      params_[r][k].copy_(params_[0][k]);
    }
  }
  for (size_t k = 0; k < buffers_[0].size(); ++k) {
    if (!buffers_[0][k].is_floating_point()) continue;  // step counters
    torch::Tensor mean = buffers_[0][k].clone();
    for (size_t r = 1; r < nets_.size(); ++r) mean.add_(buffers_[r][k]);
    mean.div_(static_cast<double>(nets_.size()));
    for (size_t r = 0; r < nets_.size(); ++r) buffers_[r][k].copy_(mean);
  }
}

}  // namespace hpt::nas
