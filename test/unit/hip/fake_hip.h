// What the fake libamdhip64 (fake_amdhip64.cpp) records.
#pragma once
#include "kosan/abi.h"

#include <vector_types.h>

#include <string>
#include <vector>

struct FakeLaunch {
  const void *handle = nullptr;
  std::string name;                      // as registered for the handle
  std::vector<void *> args;              // the argument pointers it got
  kosan_launch_info info{};              // clones: the launch info
  std::vector<kosan_arg_bounds> bounds;  // clones: one per parameter
};

struct FakeHipLog {
  std::vector<FakeLaunch> launches;
  std::vector<void *> frees;
  std::vector<std::string> registered;
  int mallocs = 0, syncs = 0, moduleLaunches = 0, failedCloneLaunches = 0;
};

extern "C" {
FakeHipLog *fake_hip_log();
void fake_hip_fail_mallocs(int n);
void fake_hip_clones(bool on);
void fake_hip_param_count(unsigned n);
}
