#include "api/trial_template.h"

#include "api/conditions.h"

namespace hpt::api {
namespace {

constexpr std::string_view kOpen = "${";
constexpr std::string_view kTrialParameters = "trialParameters.";

}  // namespace

std::vector<std::string> ReferencedTrialParameters(const std::string& text) {
  std::vector<std::string> names;
  size_t pos = 0;
  while ((pos = text.find(kOpen, pos)) != std::string::npos) {
    size_t end = text.find('}', pos);
    if (end == std::string::npos) break;
    std::string inner = text.substr(pos + 2, end - pos - 2);
    if (inner.rfind(kTrialParameters, 0) == 0) {
      names.push_back(inner.substr(kTrialParameters.size()));
    }
    pos = end + 1;
  }
  return names;
}

StatusOr<std::string> Substitute(const std::string& text,
                                 const TrialTemplate& tmpl,
                                 const Assignment& assignment,
                                 const std::string& trial_name) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t start = text.find(kOpen, pos);
    size_t end = start == std::string::npos ? start : text.find('}', start);
    if (end == std::string::npos) {
      out += text.substr(pos);
      return out;
    }
    out += text.substr(pos, start - pos);
    std::string inner = text.substr(start + 2, end - start - 2);
    if (inner == "trialSpec.Name") {
      out += trial_name;
    } else if (inner.rfind(kTrialParameters, 0) == 0) {
      std::string name = inner.substr(kTrialParameters.size());
      const TrialParameter* tp = nullptr;
      for (const auto& p : tmpl.trial_parameters) {
        if (p.name == name) tp = &p;
      }
      if (!tp) return InvalidArgument("${" + inner + "} is not defined");
      const std::string* value = FindValue(assignment, tp->reference);
      if (!value) {
        return InvalidArgument("${" + inner + "}: parameter '" + tp->reference +
                               "' has no value");
      }
      out += *value;
    } else {
      out += text.substr(start, end - start + 1);  // not ours: keep as is
    }
    pos = end + 1;
  }
}

StatusOr<std::optional<std::string>> SubstituteActive(
    const std::string& text, const std::vector<ParameterSpec>& parameters,
    const TrialTemplate& tmpl, const Assignment& assignment, const std::string& trial_name) {
  for (const std::string& name : ReferencedTrialParameters(text)) {
    for (const TrialParameter& tp : tmpl.trial_parameters) {
      if (tp.name != name) continue;
      for (const ParameterSpec& p : parameters) {
        if (p.name == tp.reference && p.parent &&
            !IsActive(parameters, assignment, p.name)) {
          return std::optional<std::string>();
        }
      }
    }
  }
  HPT_ASSIGN_OR_RETURN(std::string out, Substitute(text, tmpl, assignment, trial_name));
  return std::optional<std::string>(std::move(out));
}

}  // namespace hpt::api
