#pragma once
// The shell script of a trial that resumes from its checkpoint, for the
// tests of preemption (hpt's own, and its cluster's): steps 1..6, one
// line "step=<s> loss=<l>" each, a checkpoint at each even step in
// $HPT_CHECKPOINT_DIR. A first run (no checkpoint) reports loss 0.<s>,
// stops after step 3 and waits there to be stopped; a resumed run starts
// after its checkpoint's step (so it reports step 3 again) and reports
// loss 1.<s>. Stored once each, its steps read {1, 0.1}, {2, 0.2},
// {3, 0.3}, {4, 1.4}, {5, 1.5}, {6, 1.6}.

#include <string>

namespace hpt::testing {

// `resumed_step_seconds`: how long a resumed run's steps take (long enough
// for a poll that must see it run).
inline std::string ResumableTrialScript(const std::string& resumed_step_seconds = "0.05") {
  return R"sh(
ckpt="$HPT_CHECKPOINT_DIR/step"
s=0; run=first
if [ -f "$ckpt" ]; then s=$(cat "$ckpt"); run=resumed; fi
echo "resuming from step $s ($run run)"
while [ "$s" -lt 6 ]; do
  s=$((s + 1))
  if [ "$run" = first ]; then echo "step=$s loss=0.$s"; else echo "step=$s loss=1.$s"; fi
  if [ $((s % 2)) -eq 0 ]; then echo "$s" > "$ckpt"; fi
  if [ "$run" = first ] && [ "$s" -eq 3 ]; then while true; do sleep 0.05; done; fi
  if [ "$run" = first ]; then sleep 0.05; else sleep )sh" +
         resumed_step_seconds + R"sh(; fi
done
)sh";
}

}  // namespace hpt::testing
