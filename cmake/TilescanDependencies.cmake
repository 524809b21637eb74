# Third-party pieces, all from Debian packages (scripts/setup installs them):
#   libstb-dev   -> stb_image_write.h / stb_image.h (header-only; implemented in renderer/image_io.cpp)
#   catch2 (v2)  -> the test framework
#   libglfw3-dev, libepoxy-dev -> the interactive viewer (optional: `view` is left out without them)
find_path(STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb REQUIRED)

if(TILESCAN_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()

# epoxy is found by header and library rather than pkg-config, so a prefix of unpacked packages
# (CMAKE_PREFIX_PATH, as on the GPU machine) works without a pkg-config there.
find_package(glfw3 3.3 QUIET)
find_path(EPOXY_INCLUDE_DIR epoxy/gl.h)
find_library(EPOXY_LIBRARY epoxy)
if(EPOXY_INCLUDE_DIR AND EPOXY_LIBRARY)
  set(EPOXY_FOUND ON)
  add_library(tilescan_epoxy INTERFACE)
  target_include_directories(tilescan_epoxy SYSTEM INTERFACE ${EPOXY_INCLUDE_DIR})
  target_link_libraries(tilescan_epoxy INTERFACE ${EPOXY_LIBRARY})
endif()
if(glfw3_FOUND AND EPOXY_FOUND)
  set(TILESCAN_HAVE_VIEWER ON)
else()
  set(TILESCAN_HAVE_VIEWER OFF)
  message(STATUS "tilescan: GLFW or libepoxy not found: the viewer is not built")
endif()

# zlib reads the gzip-compressed conformance images (SCENE_1024.f32.gz) and `.gz` inputs.
find_package(ZLIB REQUIRED)
