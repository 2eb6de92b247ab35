# SPDX-License-Identifier: MIT
# cmake -DLUPDATE=… -DTS=quantscope_de.ts -DWORK_DIR=… -DROOT=<source dir> -P check_translations.cmake
# Runs lupdate on a copy of the .ts with the sources of app/gui and widgets (as the app's
# qt_add_translations does): every UI string of the code must be in
# the file and translated (no unfinished entries: a release ships every language complete).
file(GLOB SOURCES "${ROOT}/app/gui/*.cpp" "${ROOT}/app/gui/*.h" "${ROOT}/widgets/*.cpp"
     "${ROOT}/widgets/*.h")
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
