#pragma once
// Data-parallel training on the CPU (internal to nas/): copies of one
// network, each trained on its shard of every batch by a thread of its
// own, like DistributedDataParallel within one process.
//
// Why: a DARTS network is many small operations, and libtorch's intra-op
// threads leave cores idle between them. On the 2-core machine, two
// one-thread copies train 1.5x the images per second of one network with
// two intra-op threads.
//
// What changes: batch normalisation sees each shard's statistics (as DDP
// without SyncBatchNorm does); the gradient, the step and everything else
// are the whole batch's. A seeded run stays reproducible: the shards are
// fixed slices and their gradients are summed in a fixed order.

#include <torch/torch.h>

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hpt::nas {

// `workers` threads, each running libtorch with `intra_op_threads`
// threads, that run one job each per Run.
class ThreadTeam {
 public:
  ThreadTeam(int workers, int intra_op_threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }
  // job(i) on worker i for every i < size(); returns when all are done,
  // rethrowing the first exception one of them threw.
  void Run(const std::function<void(int)>& job);

 private:
  void Loop(int index, int intra_op_threads);

  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

// How many copies a CPU run with `threads` threads and batches of
// `batch` trains: one per thread, but no shard under 32 images; 1 means
// no data parallelism.
int ReplicaCount(int threads, int64_t batch);

// nets[0] (the one the optimizer steps) and its copies.
class Replicas {
 public:
  using Forward =
      std::function<torch::Tensor(size_t replica, const torch::Tensor& x)>;
  // Copies nets[0]'s parameters and buffers into the others; nets must
  // share one architecture. Each copy's thread gets threads / nets.size()
  // intra-op threads (at least one).
  Replicas(std::vector<std::shared_ptr<torch::nn::Module>> nets,
           Forward forward, int threads);

  struct Shard {
    torch::Tensor loss;     // the shard's mean cross-entropy
    torch::Tensor correct;  // its correct predictions
    int64_t size = 0;
  };
  // Each copy's forward and backward on its slice of (x, y); nets[0]'s
  // gradients become the batch's mean-loss gradient (the shards'
  // gradients weighted by their size). Needs x.size(0) >= nets.size().
  std::vector<Shard> ForwardBackward(const torch::Tensor& x,
                                     const torch::Tensor& y);
  // After the optimizer stepped nets[0]: its parameters to every copy,
  // and the batch-norm running statistics averaged over all of them.
  void Sync();

 private:
  std::vector<std::shared_ptr<torch::nn::Module>> nets_;
  std::vector<std::vector<torch::Tensor>> params_, buffers_;
  Forward forward_;
  ThreadTeam team_;
};

}  // namespace hpt::nas
