#pragma once
// TEMPORARY tuning hooks; remove before hand-off.
#include <cstdlib>
inline double Tune(const char* name, double def) {
  const char* v = std::getenv(name);
  return v ? std::atof(v) : def;
}
