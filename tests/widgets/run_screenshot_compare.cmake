# SPDX-License-Identifier: MIT
# cmake -DAPP=quantscope -DCLI=quantscope-cli -DCHECKER=quantscope_check_screenshot -DWORK_DIR=dir
#       -P run_screenshot_compare.cmake
# The Compare view's picture (docs/screenshots/compare-view.png): the demo checkpoint exported
# twice as compressed-tensors pack-quantized INT4 (group 128 and group 32) with quantscope-cli,
# then the app opens the demo and compares the two exports against it (`--compare A,B,REF`,
# `--view compare`); run_screenshot.cmake takes and checks the picture.
foreach(_var APP CLI CHECKER WORK_DIR)
  if(NOT ${_var})
    message(FATAL_ERROR "run_screenshot_compare.cmake: -D${_var}=… is required")
  endif()
endforeach()
set(_in "${WORK_DIR}_inputs")
file(REMOVE_RECURSE "${_in}")
file(MAKE_DIRECTORY "${_in}")
execute_process(COMMAND "${CLI}" demo "${_in}/demo" RESULT_VARIABLE _rc OUTPUT_QUIET)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "quantscope-cli demo failed (${_rc})")
endif()
foreach(_group 128 32)
  file(WRITE "${_in}/g${_group}.json"
       "{\"quantscope_recipe\": 1, \"rules\": [{\"patterns\": [\"*\"], \"specs\": "
       "[{\"method\": \"int\", \"group\": ${_group}}]}], \"exclude\": [{\"pattern\": \"lm_head\", \"dialect\": \"exact\"}]}")
  execute_process(COMMAND "${CLI}" export --recipe "${_in}/g${_group}.json" --format compressed-tensors
                          --checkpoint "${_in}/demo" --out-dir "${_in}/g${_group}"
                  RESULT_VARIABLE _rc OUTPUT_QUIET)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "quantscope-cli export (group ${_group}) failed (${_rc})")
  endif()
endforeach()
set(OPEN_PATH "${_in}/demo")
set(VIEW compare)
set(EXTRA_ARGS --compare "${_in}/g128,${_in}/g32,${_in}/demo")
include("${CMAKE_CURRENT_LIST_DIR}/run_screenshot.cmake")
