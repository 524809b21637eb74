// The parts of the native module _tilescan, each adding its functions and classes to it; module.cpp
// calls them in this order (scenes and CUDA images first: the renderer's signatures name them).
#pragma once

#include <pybind11/pybind11.h>

namespace tilescan::python {

void bind_scenes(pybind11::module_& module);       // scenes.cpp: Scene, the built-in scenes, scene files
void bind_cuda_images(pybind11::module_& module);  // cuda_images.cpp: CudaImage, what renders of CUDA arrays return
void bind_renderer(pybind11::module_& module);     // render.cpp: Renderer, render, render_batch
void bind_images(pybind11::module_& module);       // images.cpp: image files and diff
void bind_scan(pybind11::module_& module);         // scan.cpp: the scan library and its primitives

}  // namespace tilescan::python
