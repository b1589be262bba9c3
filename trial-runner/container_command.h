#pragma once
// A trial in a container image: the local executor (and its supervisor,
// trial_shim.h) runs `podman run` in the trial's place, so the container
// is followed, logged, timed out and killed as any local trial is, and a
// restarted server re-attaches to it the same way. The container is named
// after the trial (ContainerName), and removed by that name once the trial
// has ended or was killed, and by a restarted server when nothing is left
// to follow (the podman client was killed, the container may run on).

#include <string>
#include <vector>

#include "api/status.h"
#include "trial-runner/executor.h"
#include "trial-runner/gpu_pool.h"

namespace hpt::runner {

// "hpt-<experiment>-<trial>-<8 hex digits of a hash of its log path>", in
// podman's name characters ([a-zA-Z0-9_.-]): the same for the same launch,
// so a restarted server finds the container from the LaunchSpec alone, and
// distinct for two servers' trials of the same names (their logs differ).
std::string ContainerName(const LaunchSpec& spec);

// The host folders bind-mounted into the trial's container, each at its own
// path: the working dir, an absolute File collector's folder,
// $HPT_CHECKPOINT_DIR and a TensorFlowEvent trial's events_dir (never "/").
std::vector<std::string> ContainerMounts(const LaunchSpec& spec);

// `spec`, whose env holds its GPU lease already (AddLeaseToEnv), as the
// podman command that runs it in spec.container.image:
//   <podman> [--runtime R] run --rm --replace --name <ContainerName>
//     --network host --log-driver none --pull always|missing|never
//     [--ulimit U]... [--cpus C] [--memory M] --pids-limit P
//     [--device D]... [-v F:F]... [--workdir=W] [-e K]...
//     [--entrypoint=argv[0]] <image> [argv[1:]...] [container.args...]
// The trial's variables reach the container by name only (`-e K` takes
// the podman client's own value): HPT_TOKEN is not on a command line.
// --network host: the trial reaches HPT_URL on 127.0.0.1. The working dir
// is container.working_dir, else the host's (mounted). GPUs: card N of
// `lease` as CDI's nvidia.com/gpu=N where the host has a CDI spec, else
// <gpu_device_prefix>N with the NVIDIA control devices that exist.
// cpu, memory and pids become podman's limits and leave the returned
// launch (the client needs none, and an RLIMIT_AS would break it).
// FailedPrecondition when podman is not installed (options.podman "") or
// the trial must run as another user (run_as_user: not supported).
StatusOr<LaunchSpec> InContainer(const LaunchSpec& spec, const GpuLease& lease,
                                 const ContainerOptions& options);

// Creates the mount folders that are missing, but the working dir (a File
// collector's folder such as /var/log/katib): podman refuses a mount of
// nothing.
Status MakeContainerMounts(const LaunchSpec& spec);

// `podman rm -f -t 0 <name>`: the trial's container, and whatever still
// runs in it, removed. Blocks while podman runs (about 0.1 s); a container
// that is already gone is fine.
void RemoveContainer(const ContainerOptions& options, const std::string& name);

// The podman binary in PATH; "" when podman is not installed.
std::string FindPodman();

}  // namespace hpt::runner
