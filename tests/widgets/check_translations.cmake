# SPDX-License-Identifier: MIT
# cmake -DLUPDATE=… -DTS=quantscope_de.ts -DWORK_DIR=… -DROOT=<source dir> -P check_translations.cmake
# Runs lupdate on a copy of the .ts with the sources of app/gui and widgets (as the app's
# qt_add_translations does): every UI string of the code must be in
# the file and translated (no unfinished entries: a release ships every language complete).
file(GLOB SOURCES "${ROOT}/app/gui/*.cpp" "${ROOT}/app/gui/*.h" "${ROOT}/widgets/*/*.cpp"
     "${ROOT}/widgets/*/*.h")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
get_filename_component(_name "${TS}" NAME)
set(_copy "${WORK_DIR}/${_name}")
file(COPY_FILE "${TS}" "${_copy}")
execute_process(COMMAND "${LUPDATE}" -no-obsolete -locations none ${SOURCES} -ts "${_copy}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "lupdate failed:\n${_out}\n${_err}")
endif()
file(STRINGS "${_copy}" _unfinished REGEX "type=\"unfinished\"")
list(LENGTH _unfinished _n)
if(_n GREATER 0)
  message(FATAL_ERROR "${_name}: ${_n} unfinished entries after lupdate (run `ninja update_translations` "
                      "and translate them):\n${_out}")
endif()
message(STATUS "${_name}: complete\n${_out}")

# At least 98 % of the entries differ from the English source: an entry whose translation is
# the English text counts as untranslated unless what is left after removing placeholders,
# symbols and the short allow-list below (units, and names of formats, metrics, toolkits and
# the product; docs/glossary.md "Kept as is") has no word in it.
set(_allow "TFLOP/s" "GiB" "MB" "µs" "ms" "dB" "SQNR" "RMSE" "MSE" "CPU" "GPU" "CUDA" "MXFP4" "INT4" "FP32"
    "FP16" "BF16" "Quantscope" "Quark" "compressed-tensors" "Kurtosis" "Spearman" "Lloyd–Max" "symlog"
    "pow2" "R.json" "Regex")
file(READ "${_copy}" _ts)
# Keep list separators and brackets out of CMake's list handling.
string(REPLACE ";" "@SEMI@" _ts "${_ts}")
string(REPLACE "[" "@LB@" _ts "${_ts}")
string(REPLACE "]" "@RB@" _ts "${_ts}")
string(REGEX MATCHALL "<message" _all "${_ts}")
list(LENGTH _all _total)
string(REGEX MATCHALL "<source>[^<]*</source>[ \r\n\t]*<translation>[^<]*</translation>" _pairs
       "${_ts}")
set(_same 0)
set(_same_list "")
foreach(_p IN LISTS _pairs)
  string(REGEX MATCH "<source>([^<]*)</source>[ \r\n\t]*<translation>([^<]*)</translation>" _m
         "${_p}")
  if(CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
    set(_source "${CMAKE_MATCH_1}")
    set(_words "${_source}")
    foreach(_a IN LISTS _allow)
      string(REPLACE "${_a}" "" _words "${_words}")
    endforeach()
    string(REGEX REPLACE "%[0-9n]+|&[a-z]+@SEMI@|&" "" _words "${_words}")
    if(_words MATCHES "[A-Za-z][A-Za-z][A-Za-z]")
      math(EXPR _same "${_same} + 1")
      string(APPEND _same_list "\n  ${_source}")
    endif()
  endif()
endforeach()
math(EXPR _limit "${_total} * 2 / 100")
if(_same GREATER _limit)
  message(FATAL_ERROR "${_name}: ${_same} of ${_total} entries are the English text "
                      "(at most ${_limit}):${_same_list}")
endif()
message(STATUS "${_name}: ${_same} of ${_total} entries the same as English (limit ${_limit})")
