#pragma once
// Which trials run in a container image (Katib's trialSpec container, run
// by the local executor with podman: trial-runner/container_command.h),
// and why a server cannot run a template's trials.

#include <functional>
#include <string>

#include "api/json_reader.h"
#include "api/types.h"

namespace hpt::api {

// trialTemplate.executor's value for "the local machine, in the image".
inline constexpr char kContainerExecutor[] = "container";

// Whether trials of `tmpl` run in its image: its executor is "container",
// or the server runs containers (`containers`: hpt serve --containers
// podman), the template names an image and its trials run on the local
// machine (its executor, else `default_executor`, is "local").
bool RunsInContainer(const TrialTemplate& tmpl, bool containers,
                     const std::string& default_executor);

// The server executor that runs trials of `tmpl`: its executor, else
// `default_executor`; "local" for "container".
std::string ExecutorNameOf(const TrialTemplate& tmpl, const std::string& default_executor);

// Why a server cannot run trials of `tmpl` (one line naming the field and
// what to do), "" when it can: trials in containers where podman is not
// installed; an image for Slurm on a server told to run images
// (`containers`); a template with no command (the image's ENTRYPOINT, with
// or without container.args) whose trials run on the host.
std::string ContainerProblem(const TrialTemplate& tmpl, bool containers,
                             const std::string& default_executor, bool podman_installed);

// Records in `r` the problems of `t`.container, each naming its field
// (trialTemplate.container.image, .args[i], .workingDir, .imagePullPolicy);
// `check_refs(text, path)` checks the ${trialParameters.x} in an argument.
// Part of ValidateSpec (validation.h).
void ValidateContainer(JsonReader& r, const TrialTemplate& t,
                       const std::function<void(const std::string& text,
                                                const std::string& path)>& check_refs);

}  // namespace hpt::api
