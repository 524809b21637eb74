# ctest's `install` test: installs the built project to a fresh prefix, builds examples/ against
# it with find_package(tilescan), and runs every example. Run by ctest with -DBUILD_DIR, -DSOURCE_DIR
# and -DWORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "install test: '${command}' failed (${result})")
  endif()
endfunction()
run_step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run_step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
         -DCMAKE_BUILD_TYPE=Release)
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step(${WORK_DIR}/build/render_from_arrays ${WORK_DIR}/circles.png)
run_step(${WORK_DIR}/build/bin_elements)
run_step(${WORK_DIR}/build/scan_and_compact)
if(NOT EXISTS ${WORK_DIR}/circles.png)
  message(FATAL_ERROR "install test: render_from_arrays wrote no image")
endif()
message(STATUS "install test: installed, built and ran the examples against ${WORK_DIR}/prefix")
