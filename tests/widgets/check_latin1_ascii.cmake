# SPDX-License-Identifier: MIT
# cmake -DSRC=<source dir> -P check_latin1_ascii.cmake
# No Latin-1 string view given a non-ASCII literal: QLatin1String("·") reads the UTF-8 bytes of
# the literal as two Latin-1 characters and shows "Â·" (mojibake). Scans every .cpp/.h under
# app/, widgets/, core/, gpu/, bench/ and tests/ (or SRC itself when it has none of them) for
# QLatin1String / QLatin1StringView / QLatin1Literal / QLatin1Char literals and "…"_L1 literals
# with a byte outside printable ASCII; fails listing each one (use QStringLiteral or u"…"_s).
cmake_minimum_required(VERSION 3.25)
set(files "")
foreach(top app widgets core gpu bench tests)
  file(GLOB_RECURSE part "${SRC}/${top}/*.h" "${SRC}/${top}/*.cpp")
  list(APPEND files ${part})
endforeach()
if(NOT files)
  file(GLOB_RECURSE files "${SRC}/*.h" "${SRC}/*.cpp" "${SRC}/*.cpp.in")
endif()
list(FILTER files EXCLUDE REGEX "/latin1_fixture/")
if(SRC MATCHES "latin1_fixture")
  file(GLOB_RECURSE files "${SRC}/*.cpp.in")
endif()
list(LENGTH files nfiles)
if(nfiles EQUAL 0)
  message(FATAL_ERROR "no sources under ${SRC}")
endif()
set(bad "")
set(nliterals 0)
foreach(f IN LISTS files)
  file(STRINGS "${f}" lines ENCODING UTF-8 REGEX "QLatin1(String|StringView|Literal|Char)|_L1")
  foreach(line IN LISTS lines)
    string(REGEX MATCHALL "QLatin1(String|StringView|Literal|Char) *[({] *(\"[^\"]*\"|'[^']*')|\"[^\"]*\"_L1"
           lits "${line}")
    foreach(lit IN LISTS lits)
      math(EXPR nliterals "${nliterals} + 1")
      # Drop every printable ASCII character and tab: anything left is a non-ASCII byte.
      string(REGEX REPLACE "[ -~\t]" "" rest "${lit}")
      if(NOT rest STREQUAL "")
        file(RELATIVE_PATH rel "${SRC}" "${f}")
        string(APPEND bad "\n  ${rel}: ${lit}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "QLatin1 literals with non-ASCII characters (mojibake; use QStringLiteral):${bad}")
endif()
message(STATUS "${nfiles} sources, ${nliterals} Latin-1 literals, all ASCII")
