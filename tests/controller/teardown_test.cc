// A Controller destroyed right after CreateExperiment, before the first
// Reconcile() the creation posted has run: Shutdown() and the destructor
// must wait for (or drop) that work, never let it run on what is gone.
#include <gtest/gtest.h>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller {
namespace {

class TeardownTest : public testing::ControllerTest {};

TEST_F(TeardownTest, ControllerGoesRightAfterCreateExperiment) {
  StartController();
  Create(testing::RunnerSpec("quick", 2, 1));
  // The fixture's destructor shuts the controller down now.
}

}  // namespace
}  // namespace hpt::controller
