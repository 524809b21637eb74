# Third-party pieces, all from Debian packages (scripts/setup installs them):
#   libstb-dev   -> stb_image_write.h / stb_image.h (header-only; implemented in renderer/image_io.cpp)
#   catch2 (v2)  -> the test framework
#   libglfw3-dev, libepoxy-dev -> the interactive viewer (optional: `view` is left out without them)
find_path(STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb REQUIRED)
add_library(tilescan_stb INTERFACE)
target_include_directories(tilescan_stb SYSTEM INTERFACE ${STB_INCLUDE_DIR})

if(TILESCAN_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()

find_package(glfw3 3.3 QUIET)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(EPOXY QUIET IMPORTED_TARGET epoxy)
endif()
if(glfw3_FOUND AND EPOXY_FOUND)
  set(TILESCAN_HAVE_VIEWER ON)
else()
  set(TILESCAN_HAVE_VIEWER OFF)
  message(STATUS "tilescan: GLFW or libepoxy not found: the viewer is not built")
endif()

# zlib reads the gzip-compressed conformance images (SCENE_1024.f32.gz) and `.gz` inputs.
find_package(ZLIB REQUIRED)
