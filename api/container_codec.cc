#include "api/container_codec.h"

namespace hpt::api {

using json = nlohmann::json;

void DecodeContainer(JsonReader& r, const json& j, const std::string& p, ContainerSpec& out) {
  r.RejectUnknown(j, p, {"image", "args", "workingDir", "imagePullPolicy"});
  if (auto image = r.String(j, p, "image", true)) out.image = *image;
  if (const json* args = r.Array(j, p, "args", false)) {
    for (size_t i = 0; i < args->size(); ++i) {
      if (auto a = r.StringValue((*args)[i], JsonReader::Path(p + ".args", i))) {
        out.args.push_back(*a);
      }
    }
  }
  if (auto wd = r.String(j, p, "workingDir", false)) out.working_dir = *wd;
  if (auto pull = r.String(j, p, "imagePullPolicy", false)) out.pull_policy = *pull;
}

json ContainerToJson(const ContainerSpec& c) {
  json out = {{"image", c.image}};
  if (!c.args.empty()) out["args"] = c.args;
  if (!c.working_dir.empty()) out["workingDir"] = c.working_dir;
  if (!c.pull_policy.empty()) out["imagePullPolicy"] = c.pull_policy;
  return out;
}

}  // namespace hpt::api
