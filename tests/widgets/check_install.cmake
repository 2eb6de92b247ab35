# SPDX-License-Identifier: MIT
# cmake -DBUILD_DIR=… -DPREFIX=… -P check_install.cmake: `cmake --install` puts the app, its
# .desktop file and its icon where desktops look for them.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE _rc OUTPUT_QUIET)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${_rc})")
endif()
foreach(_f bin/quantscope share/applications/quantscope.desktop
           share/icons/hicolor/scalable/apps/quantscope.svg)
  if(NOT EXISTS "${PREFIX}/${_f}")
    message(FATAL_ERROR "cmake --install did not install ${_f}")
  endif()
endforeach()
file(STRINGS "${PREFIX}/share/applications/quantscope.desktop" _exec REGEX "^Exec=quantscope")
file(STRINGS "${PREFIX}/share/applications/quantscope.desktop" _icon REGEX "^Icon=quantscope$")
if(NOT _exec OR NOT _icon)
  message(FATAL_ERROR "quantscope.desktop must name Exec=quantscope and Icon=quantscope")
endif()
