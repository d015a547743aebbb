// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A byte count is never built implicitly from an integer.
// expect-error: conversion from [^ ]*int[^ ]* to non-scalar type
#include <aicb/units/bytes.hpp>

aicb::bytes size = 4096;
