# SPDX-License-Identifier: MIT
# cmake -DAPP=quantscope -DCHECKER=quantscope_check_screenshot -DWORK_DIR=dir [-DOPEN_PATH=path]
#       [-DEXPECT=opened|failed] [-DRUN=ON] [-DVIEW=name] [-DUI_LANGUAGE=de|zh_CN] [-DEXTRA_ARGS=list]
#       -P run_screenshot.cmake
# Starts the GUI under Xvfb with `--screenshot`, requires that opening the checkpoint (the demo
# when OPEN_PATH is empty) succeeded -- or, with EXPECT=failed, that it failed without taking the
# app down -- and checks that the PNG is not blank. With RUN=ON the app also quantizes a weight
# (`--run-demo-quantization`) and the run's results must be shown; VIEW=name shows that view
# (`--view`). Leaves WORK_DIR/quantscope.png.
foreach(_var APP CHECKER WORK_DIR)
  if(NOT ${_var})
    message(FATAL_ERROR "run_screenshot.cmake: -D${_var}=… is required")
  endif()
endforeach()

if(NOT EXPECT)
  set(EXPECT opened)
endif()

find_program(XVFB_RUN xvfb-run)
if(NOT XVFB_RUN)
  message(FATAL_ERROR
    "xvfb-run not found: the GUI screenshot test needs a virtual X server "
    "(Debian: apt-get install xvfb xauth). Refusing to skip silently.")
endif()

# A clean, private environment: demo generated afresh, no user settings, English UI.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/cache" "${WORK_DIR}/config" "${WORK_DIR}/runtime")
file(CHMOD "${WORK_DIR}/runtime" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(ENV{XDG_CACHE_HOME} "${WORK_DIR}/cache")
set(ENV{XDG_CONFIG_HOME} "${WORK_DIR}/config")
set(ENV{XDG_RUNTIME_DIR} "${WORK_DIR}/runtime")
set(ENV{QT_QPA_PLATFORM} "xcb")
set(ENV{LC_ALL} "C.UTF-8")
unset(ENV{LANGUAGE})
unset(ENV{WAYLAND_DISPLAY})

# UI_LANGUAGE: the Language menu's setting, as the app reads it at start.
if(UI_LANGUAGE)
  file(WRITE "${WORK_DIR}/config/Quantscope/Quantscope.conf"
       "[General]\nlanguage=${UI_LANGUAGE}\n")
endif()

set(_png "${WORK_DIR}/quantscope.png")
set(_open_args)
if(RUN)
  list(APPEND _open_args --run-demo-quantization)
endif()
if(VIEW)
  list(APPEND _open_args --view "${VIEW}")
endif()
if(EXTRA_ARGS) # more options of the app (a ;-list), e.g. --compare A,B,REFERENCE
  list(APPEND _open_args ${EXTRA_ARGS})
endif()
if(OPEN_PATH)
  list(APPEND _open_args "${OPEN_PATH}")
endif()

execute_process(
  COMMAND "${XVFB_RUN}" -a -s "-screen 0 1280x800x24" "${APP}" --screenshot "${_png}" ${_open_args}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _err
  TIMEOUT 240)
message(STATUS "quantscope stdout:\n${_out}")
if(_err)
  message(STATUS "quantscope stderr:\n${_err}")
endif()
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "quantscope --screenshot failed (exit status: ${_rc})")
endif()
if(NOT EXISTS "${_png}")
  message(FATAL_ERROR "quantscope exited 0 but wrote no ${_png}")
endif()
if(EXPECT STREQUAL "failed")
  if(NOT _out MATCHES "screenshot [^\n]*: opening failed")
    message(FATAL_ERROR "quantscope should have reported that opening failed")
  endif()
elseif(NOT _out MATCHES "screenshot [^\n]*: opened, [1-9][0-9]* tensors")
  message(FATAL_ERROR "quantscope did not open the checkpoint (see its output above)")
elseif(RUN AND NOT _out MATCHES "screenshot [^\n]*: opened, [1-9][0-9]* tensors, [1-9][0-9]* results")
  message(FATAL_ERROR "quantscope did not show a quantization run (see its output above)")
endif()
if(NOT OPEN_PATH)
  # demo::ensureDemoCheckpoint() writes under $XDG_CACHE_HOME/quantscope/ (a versioned folder).
  file(GLOB _demo_index "${WORK_DIR}/cache/quantscope/*/model.safetensors.index.json")
  if(NOT _demo_index)
    message(FATAL_ERROR "the demo was not generated into the isolated XDG_CACHE_HOME "
                        "(${WORK_DIR}/cache/quantscope/)")
  endif()
endif()

execute_process(COMMAND "${CHECKER}" "${_png}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "the screenshot ${_png} looks blank")
endif()
