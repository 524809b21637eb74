// The `cuda` backend: the tile pipeline of architecture.md in CUDA kernels.
//
//   upload           the scene's arrays to grow-only device buffers (once per scene or frame)
//   1. cull+count    per circle: packed records, tiles it really touches
//   2. scan          exclusive scan of the counts (scan library) -> pair slots, 64-bit total
//   3. emit          per circle: (tile, circle) pairs in circle order
//   4. bin           ordered binning (primitives) -> per-tile circle lists in draw order
//   5. shade         one block per tile, pixels in registers, each written once
// Two peers share the code for honest comparison: Binning::sort bins with 64-bit keys through
// cub::DeviceRadixSort, Binning::naive lets every tile block test every circle. All three give the
// `ref` image bit for bit. Stage times come from CUDA events on the backend's stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "renderer/backend.h"

namespace tilescan {

enum class Binning { scan, sort, naive };
Binning parse_binning(const std::string& name);  // "scan" | "sort" | "naive", else InputError
const char* binning_name(Binning binning);

class CudaBackend : public Backend {
public:
    explicit CudaBackend(Binning binning = Binning::scan);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }
    RenderStats render(const Scene& scene, Image& image) override;
    bool renders_on_device() const override { return true; }
    RenderStats render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8) override;

    // For benchmarks and the viewer: the circles stay on the device between frames and the image
    // stays there until downloaded.
    void upload(const Scene& scene);
    RenderStats render_uploaded(int width, int height, bool count_blends);
    void download(Image& image);
    const float* device_image() const;
    void set_binning(Binning binning) { binning_ = binning; }

private:
    struct Buffers;
    Binning binning_;
    std::unique_ptr<Buffers> buffers_;
};

}  // namespace tilescan
