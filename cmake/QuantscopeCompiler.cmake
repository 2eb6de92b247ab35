# SPDX-License-Identifier: MIT
# Compiler settings shared by every target: warnings, ccache, and the numerical contract
# (-ffp-contract=off: no FMA contraction in code whose rounding feeds a quantization decision).
find_program(QUANTSCOPE_CCACHE ccache)
if(QUANTSCOPE_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER "${QUANTSCOPE_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${QUANTSCOPE_CCACHE}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${QUANTSCOPE_CCACHE}")
endif()

# Precompiled headers (docs/perf.md "Build time"): the heavy headers nearly every source of a
# target parses (nlohmann/json and the standard library in core; Qt and QCustomPlot in the
# widgets and the window; GoogleTest in the tests). Off in sanitizer and fuzz builds, whose
# sources carry flags of their own.
option(QUANTSCOPE_PCH "Precompiled headers for the large targets" ON)
set(QUANTSCOPE_PCH_ACTIVE OFF)
if(QUANTSCOPE_PCH AND QUANTSCOPE_SANITIZE STREQUAL "OFF" AND NOT QUANTSCOPE_FUZZ)
  set(QUANTSCOPE_PCH_ACTIVE ON)
endif()
function(quantscope_pch target)
  if(QUANTSCOPE_PCH_ACTIVE)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
set(QUANTSCOPE_PCH_STD <algorithm> <cstdint> <functional> <map> <memory> <optional> <string> <vector>)

add_library(quantscope_options INTERFACE)
add_library(Quantscope::Options ALIAS quantscope_options)
target_compile_options(quantscope_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -ffp-contract=off -fno-fast-math>)
target_compile_definitions(quantscope_options INTERFACE
  QUANTSCOPE_VERSION="${PROJECT_VERSION}")

# The CPU reference is written so that vectorisation never changes a result (explicit lanes,
# no reassociation, no FMA contraction); -march=native only makes it faster on the machine
# that builds it. Turn it off for binaries that must run on other CPUs.
option(QUANTSCOPE_NATIVE_ARCH "Compile C++ for the building machine's CPU (-march=native)" ON)
if(QUANTSCOPE_NATIVE_ARCH)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-march=native QUANTSCOPE_HAS_MARCH_NATIVE)
  if(QUANTSCOPE_HAS_MARCH_NATIVE)
    target_compile_options(quantscope_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
  endif()
endif()
