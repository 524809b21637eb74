# Installing tilescan as a CMake package: headers under include/tilescan, static libraries, and
# tilescanConfig.cmake so another project writes find_package(tilescan) and links
# tilescan::renderer, tilescan::scenes, tilescan::scan or tilescan::primitives.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(TILESCAN_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/tilescan)
set(TILESCAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilescan)

# Includes are rooted at the project ("renderer/scene.h") in the build tree and at
# include/tilescan once installed; `export_name` is what users link: tilescan::<export_name>.
function(tilescan_library target export_name)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                               $<INSTALL_INTERFACE:${TILESCAN_INSTALL_INCLUDEDIR}>)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  add_library(tilescan::${export_name} ALIAS ${target})
  set_property(GLOBAL APPEND PROPERTY TILESCAN_EXPORTED_TARGETS ${target})
endfunction()

function(tilescan_install)
  get_property(targets GLOBAL PROPERTY TILESCAN_EXPORTED_TARGETS)
  install(TARGETS ${targets} EXPORT tilescanTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(TARGETS tilescan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/renderer ${PROJECT_SOURCE_DIR}/kernels ${PROJECT_SOURCE_DIR}/scenes
          DESTINATION ${TILESCAN_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
  install(EXPORT tilescanTargets NAMESPACE tilescan:: DESTINATION ${TILESCAN_INSTALL_CMAKEDIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilescanConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/tilescanConfig.cmake INSTALL_DESTINATION ${TILESCAN_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilescanConfigVersion.cmake COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/tilescanConfig.cmake ${PROJECT_BINARY_DIR}/tilescanConfigVersion.cmake
          DESTINATION ${TILESCAN_INSTALL_CMAKEDIR})
endfunction()
