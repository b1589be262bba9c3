#pragma once
// Before a local-executor experiment is created: does the file its trial
// command names exist on this machine? A Katib example's
// `python3 /opt/pytorch-mnist/mnist.py` names a script inside its container
// image; run here, every trial would fail on it and burn the failure budget.
// Controller::Validate refuses such an experiment instead (400), naming the
// file and the template field.
//
// The files checked: argv[0] when it is a path (holds a '/'; a bare name is
// looked up in the trial's PATH by the executor), and the script argument
// of a known interpreter (python*, pypy*, sh, bash, dash, zsh, ksh, Rscript,
// perl, ruby, node, julia): its first argument that is not an option, unless
// an option says the program comes inline (`-c`, `-m`, `-e`, ...), in which
// case there is no file to check. Arguments with `${...}` placeholders are
// not checked (their value comes per trial). Relative paths are relative to
// trialTemplate.workingDir, or to `cwd` when it is empty (as the trial's).
//
// Only for the local executor: Slurm runs the command on its nodes, where
// the files may be and this machine cannot see.

#include <string>

#include "api/status.h"
#include "api/types.h"

namespace hpt::controller {

// InvalidArgument "trialTemplate.command[i]: ..." naming the first missing
// file; Ok when every checked file exists (or nothing could be checked).
Status CheckCommandFiles(const api::TrialTemplate& tmpl, const std::string& cwd);

}  // namespace hpt::controller
