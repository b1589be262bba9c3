#pragma once
// Registry<T, Args...>: extensions (algorithms, early-stopping policies,
// executors) found by name. Registration is explicit (no static
// initialisers); a name can be registered once. Factories receive their
// dependencies as Args (an executor its listener and options); none for
// algorithms and policies. Not thread-safe for writes: fill it at
// start-up, then read it from any thread.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/text.h"

namespace hpt {

template <typename T, typename... Args>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<T>(Args...)>;

  // AlreadyExists when `name` is taken.
  Status Register(const std::string& name, Factory factory) {
    if (!factories_.emplace(name, std::move(factory)).second) {
      return AlreadyExists("'" + name + "' is already registered");
    }
    return Status::Ok();
  }

  // A new instance, or NotFound naming the supported names.
  StatusOr<std::unique_ptr<T>> Create(const std::string& name, Args... args) const {
    auto it = factories_.find(name);
    if (it == factories_.end()) {
      return NotFound("'" + name + "' is not supported (supported: " +
                      api::Join(Names(), ", ") + ")");
    }
    return it->second(std::forward<Args>(args)...);
  }

  bool Contains(const std::string& name) const {
    return factories_.count(name) > 0;
  }

  // Registered names, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, _] : factories_) names.push_back(name);
    return names;
  }

 private:
  std::map<std::string, Factory> factories_;
};

}  // namespace hpt
