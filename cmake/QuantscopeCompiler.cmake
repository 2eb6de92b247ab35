# SPDX-License-Identifier: MIT
# Compiler settings shared by every target: warnings, ccache, and the numerical contract
# (-ffp-contract=off: no FMA contraction in code whose rounding feeds a quantization decision).
find_program(QUANTSCOPE_CCACHE ccache)
if(QUANTSCOPE_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER "${QUANTSCOPE_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${QUANTSCOPE_CCACHE}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${QUANTSCOPE_CCACHE}")
endif()

add_library(quantscope_options INTERFACE)
add_library(Quantscope::Options ALIAS quantscope_options)
target_compile_options(quantscope_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -ffp-contract=off -fno-fast-math>)
target_compile_definitions(quantscope_options INTERFACE
  QUANTSCOPE_VERSION="${PROJECT_VERSION}")
