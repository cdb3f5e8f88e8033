// The installed references, generated from the option table (config_options.h) so that neither
// drifts from the binary: the man page, warden(1), and the sample warden.conf, commented as
// Redis's redis.conf is. The build writes both with warden-reference (reference_main.cc).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace warden::server {

// warden(1) in roff (man(7) macros): synopsis, description, every option by group with its
// default, signals, files and the pointers to Redis's documentation.
std::string ManPage();

// A warden.conf with every option that has a meaning to set in a file, by group: its help as a
// comment and its default commented out. `active` (name, value) pairs are written uncommented
// after their option's default, as a package sets `dir`.
std::string SampleConfig(std::span<const std::pair<std::string_view, std::string_view>> active);

}  // namespace warden::server
