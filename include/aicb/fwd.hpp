// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Forward declarations of aicb's public types.
///
/// Include this in headers that only name aicb types (parameters, pointers, friend declarations):
/// it costs almost nothing to compile and pulls in no Boost, range-v3 or standard containers.
/// Default template arguments, when aicb has any, are given here and only here.

#include <aicb/config.hpp>

#include <cstdint>

AICB_BEGIN_NAMESPACE

// units/
class bytes;      // <aicb/units/bytes.hpp>
class byte_rate;  // <aicb/units/rate.hpp>

// error.hpp
class error;
class parse_error;
class config_error;
class io_error;

// workload/
enum class collective : std::uint8_t;  // <aicb/workload/collective.hpp>
enum class comm_group : std::uint8_t;  // <aicb/workload/group.hpp>
struct collective_op;                  // <aicb/workload/record.hpp>
struct phase;                          // <aicb/workload/record.hpp>
struct record;                         // <aicb/workload/record.hpp>

AICB_END_NAMESPACE
