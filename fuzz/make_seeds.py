#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/<target>/: a few small valid files of each format and a
few slightly broken ones (truncated, wrong sizes, bad numbers). Run it from anywhere; it replaces
the seed folders. The fuzzers' own finds are kept elsewhere (scripts/fuzz's work folder)."""
import gzip
import os
import shutil
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- text scenes -------------------------------------------------------------------------------
TEXT = {
    "minimal": "circlescene 1\ncount 1\n0.5 0.5 0 0.25 1 0 0 1\n",
    "full_header": "# three circles\ncirclescene 1\nshading flat\nbackground white\nsize 32 16\ncount 3\n"
                   "0.4 0.5 0.75 0.3 1 0 0 0.5\n0.5 0.5 0.5  0.3 0 1 0 0.5 # green\n0.6 0.5 0.25 0.3 0 0 1 0.5\n",
    "snow": "circlescene 1\nshading snow\nbackground snow-gradient\ncount 2\n"
            "0.5 0.5 0.1 0.4 1 1 1 1\n0.2 0.8 0.9 0.05 1 1 1 1\n",
    "solid_background": "circlescene 1\r\nbackground 0.1 0.2 1.2\r\ncount 1\r\n-0.5 2 0 1e-3 1.2 -1 3e38 0\r\n",
    "extremes": "circlescene 1\nshading snow\ncount 4\n1e20 1e20 0 1e20 1 1 1 1\n-3e38 3e38 -3e38 3.4e38 0 0 0 0.5\n"
                "1e-45 -1e-45 1e-40 1e-45 0 0 0 1\n0x1p-3 0.5 0 0x1.8p-2 1 0 0 1\n",
    "empty_scene": "circlescene 1\ncount 0\n",
    "bad_nan": "circlescene 1\ncount 1\nnan 0.5 0 0.25 1 0 0 1\n",
    "bad_inf": "circlescene 1\ncount 1\n0.5 0.5 0 inf 1 0 0 1\n",
    "bad_overflow": "circlescene 1\ncount 1\n0.5 0.5 0 1e39 1 0 0 1\n",
    "bad_alpha": "circlescene 1\ncount 1\n0.5 0.5 0 0.25 1 0 0 1.5\n",
    "bad_radius": "circlescene 1\ncount 1\n0.5 0.5 0 -0.25 1 0 0 1\n",
    "bad_count_short": "circlescene 1\ncount 2\n0.5 0.5 0 0.25 1 0 0 1\n",
    "bad_count_huge": "circlescene 1\ncount 18446744073709551615\n0.5 0.5 0 0.25 1 0 0 1\n",
    "bad_fields": "circlescene 1\ncount 1\n0.5 0.5 0 0.25 1 0 0\n",
    "bad_keyword": "circlescene 1\nshading flat\nshading snow\nsize 0 70000\ncount 1\n",
    "bad_magic": "circlescene 2\ncount 0\n",
}
for name, text in TEXT.items():
    write("fuzz_scene_text", name + ".scene", text)


# --- binary scenes -----------------------------------------------------------------------------
def tsb(circles, shading=0, background=(0, 1.0, 1.0, 1.0), size=(0, 0), count=None, version=1):
    header = b"TSCENE\x00\xff" + struct.pack("<IIIfffiiQ", version, shading, background[0], *background[1:],
                                             size[0], size[1], len(circles) if count is None else count)
    fields = b"".join(struct.pack("<%df" % len(circles), *[c[i] for c in circles]) for i in range(8))
    return header + fields


CIRCLES = [(0.4, 0.5, 0.75, 0.3, 1, 0, 0, 0.5), (0.5, 0.5, 0.5, 0.3, 0, 1, 0, 0.5), (0.6, 0.5, 0.25, 0.3, 0, 0, 1, 0.5)]
write("fuzz_scene_binary", "three.tsb", tsb(CIRCLES, size=(32, 16)))
write("fuzz_scene_binary", "snow.tsb", tsb([(0.5, 0.5, 0.1, 0.4, 1, 1, 1, 1)], shading=1, background=(1, 0, 0, 0)))
write("fuzz_scene_binary", "solid.tsb", tsb([(1e20, 1e20, 0, 1e20, 1, 1, 1, 1)], shading=1, background=(2, 0.1, 0.2, 1.2)))
write("fuzz_scene_binary", "empty.tsb", tsb([]))
write("fuzz_scene_binary", "bad_truncated.tsb", tsb(CIRCLES)[:-5])
write("fuzz_scene_binary", "bad_count.tsb", tsb(CIRCLES, count=2 ** 62))
write("fuzz_scene_binary", "bad_version.tsb", tsb(CIRCLES, version=2))
write("fuzz_scene_binary", "bad_nan.tsb", tsb([(float("nan"), 0.5, 0, 0.3, 1, 0, 0, 1)]))
write("fuzz_scene_binary", "bad_header_only.tsb", tsb([])[:30])


# --- PNG ---------------------------------------------------------------------------------------
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, colour_type, bit_depth, rows, palette=None, interlace=0):
    raw = b"".join(b"\x00" + row for row in rows)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, interlace))
    if palette:
        out += chunk(b"PLTE", palette)
    return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


write("fuzz_image_png", "rgb_2x2.png", png(2, 2, 2, 8, [bytes([255, 0, 0, 0, 255, 0]), bytes([0, 0, 255, 9, 9, 9])]))
write("fuzz_image_png", "rgba_3x1.png", png(3, 1, 6, 8, [bytes(range(12))]))
write("fuzz_image_png", "grey_4x2.png", png(4, 2, 0, 8, [bytes([0, 64, 128, 255])] * 2))
write("fuzz_image_png", "grey_alpha_1x1.png", png(1, 1, 4, 8, [bytes([200, 100])]))
write("fuzz_image_png", "palette_2x1.png", png(2, 1, 3, 8, [bytes([0, 1])], palette=bytes([255, 0, 0, 0, 0, 255])))
write("fuzz_image_png", "rgb16_1x1.png", png(1, 1, 2, 16, [bytes([255, 255, 0, 0, 128, 0])]))
write("fuzz_image_png", "grey1_8x1.png", png(8, 1, 0, 1, [bytes([0b10110010])]))
write("fuzz_image_png", "bad_truncated.png", png(2, 2, 2, 8, [bytes(6)] * 2)[:40])
write("fuzz_image_png", "bad_huge_header.png", png(2, 2, 2, 8, [bytes(6)] * 2).replace(struct.pack(">II", 2, 2), struct.pack(">II", 30000, 30000), 1))

# --- PPM ---------------------------------------------------------------------------------------
write("fuzz_image_ppm", "p6_2x2.ppm", b"P6\n2 2\n255\n" + bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 1, 2, 3]))
write("fuzz_image_ppm", "p6_comment.ppm", b"P6 # comment\n1 1 # size\n15\n" + bytes([1, 7, 15]))
write("fuzz_image_ppm", "p3_2x1.ppm", b"P3\n# a comment\n2 1\n255\n255 0 0\n0 128 255\n")
write("fuzz_image_ppm", "bad_truncated.ppm", b"P6\n2 2\n255\n" + bytes(5))
write("fuzz_image_ppm", "bad_huge.ppm", b"P6\n1048576 1048576\n255\n" + bytes(12))
write("fuzz_image_ppm", "bad_p3_huge.ppm", b"P3\n1048576 1048576\n255\n1 2 3\n")
write("fuzz_image_ppm", "bad_maxval.ppm", b"P3\n1 1\n65535\n1 2 3\n")

# --- PFM ---------------------------------------------------------------------------------------
write("fuzz_image_pfm", "rgb_le_2x1.pfm", b"PF\n2 1\n-1.0\n" + struct.pack("<6f", 0, 0.5, 1, 1.5, -2, 3e38))
write("fuzz_image_pfm", "grey_be_1x2.pfm", b"Pf\n1 2\n1.0\n" + struct.pack(">2f", 0.25, float("inf")))
write("fuzz_image_pfm", "bad_truncated.pfm", b"PF\n2 2\n-1.0\n" + bytes(10))
write("fuzz_image_pfm", "bad_scale.pfm", b"PF\n1 1\nnan\n" + bytes(12))
write("fuzz_image_pfm", "bad_huge.pfm", b"PF\n1048576 1048576\n-1\n" + bytes(12))

# --- raw f32 -----------------------------------------------------------------------------------
write("fuzz_image_f32", "1x1.f32", struct.pack("<4f", 0.1, 0.2, 0.3, 1.0))
write("fuzz_image_f32", "2x2.f32", struct.pack("<16f", *[i / 8 for i in range(16)]))
write("fuzz_image_f32", "bad_not_square.f32", struct.pack("<8f", *range(8)))
write("fuzz_image_f32", "bad_odd_size.f32", bytes(17))

# --- gzip'd images: first byte = inner format (0 png, 1 ppm, 2 pfm, 3 f32) | 4 to gzip here -----
for index, (target, name) in enumerate([("fuzz_image_png", "rgb_2x2.png"), ("fuzz_image_ppm", "p6_2x2.ppm"),
                                        ("fuzz_image_pfm", "rgb_le_2x1.pfm"), ("fuzz_image_f32", "2x2.f32")]):
    with open(os.path.join(ROOT, target, name), "rb") as f:
        payload = f.read()
    write("fuzz_image_gz", name + ".here", bytes([index | 4]) + payload)
    compressed = gzip.compress(payload, mtime=0)
    write("fuzz_image_gz", name + ".gz", bytes([index]) + compressed)
    write("fuzz_image_gz", name + ".truncated.gz", bytes([index]) + compressed[:-6])
