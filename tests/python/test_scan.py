"""tilescan.scan: every scan and primitive equals numpy exactly on integers (and the serial float
scan equals numpy's left-to-right cumsum)."""

import numpy as np
import pytest
import tilescan
from tilescan import scan

# Around the CPU scan's chunk (64 Ki elements): one chunk, one chunk +- 1, several chunks.
SIZES = [0, 1, 2, 31, 33, 1000, 65535, 65536, 65537, 300001]
INTEGERS = [np.int32, np.uint32, np.int64, np.uint64]
CPU = ["serial", "cpu"]
GPU = [name for name in scan.algorithms() if name not in CPU]


def integers(n, dtype, seed=0):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    # the whole range, so sums and products wrap as numpy's do
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def exclusive(inclusive, identity):
    return np.concatenate([np.array([identity], dtype=inclusive.dtype), inclusive[:-1]]) if len(inclusive) else inclusive


@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize("dtype", INTEGERS)
@pytest.mark.parametrize("n", SIZES)
def test_sum_equals_cumsum(algorithm, dtype, n):
    a = integers(n, dtype, seed=n)
    expected = np.cumsum(a, dtype=dtype)
    assert np.array_equal(scan.inclusive_scan(a, algorithm=algorithm), expected)
    assert np.array_equal(scan.exclusive_scan(a, algorithm=algorithm), exclusive(expected, 0))


@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize("dtype", INTEGERS)
def test_other_operators_equal_numpy(algorithm, dtype):
    a = integers(70000, dtype, seed=1)
    info = np.iinfo(dtype)
    cases = {"product": (np.multiply, 1), "min": (np.minimum, info.max), "max": (np.maximum, info.min)}
    for op, (ufunc, identity) in cases.items():
        expected = ufunc.accumulate(a, dtype=dtype)
        assert np.array_equal(scan.inclusive_scan(a, op=op, algorithm=algorithm), expected), op
        assert np.array_equal(scan.exclusive_scan(a, op=op, algorithm=algorithm), exclusive(expected, identity)), op


@pytest.mark.parametrize("algorithm", CPU)
def test_widening_sums(algorithm):
    for source, target in [(np.uint32, np.uint64), (np.int32, np.int64), (np.uint8, np.uint32), (np.uint8, np.uint64)]:
        a = integers(200000, source, seed=2)
        expected = np.cumsum(a, dtype=target)
        result = scan.inclusive_scan(a, dtype=target, algorithm=algorithm)
        assert result.dtype == target and np.array_equal(result, expected), (source, target)


def test_serial_float_scan_is_numpys_left_to_right_sum():
    a = np.random.default_rng(3).standard_normal(100000).astype(np.float32)
    assert np.array_equal(scan.inclusive_scan(a, algorithm="serial"), np.cumsum(a, dtype=np.float32))
    # the chunked scan groups differently, the same for any thread count
    assert np.array_equal(scan.inclusive_scan(a, threads=1), scan.inclusive_scan(a, threads=2))


@pytest.mark.parametrize("algorithm", GPU)
def test_gpu_algorithms_equal_numpy_or_say_why_not(algorithm):
    a = integers(100000, np.int32, seed=4)
    try:
        result = scan.exclusive_scan(a, algorithm=algorithm)
    except tilescan.InputError as error:
        assert "runs on a CUDA device" in str(error)
        pytest.skip(str(error))
    assert np.array_equal(result, exclusive(np.cumsum(a, dtype=np.int32), 0))


@pytest.mark.parametrize("algorithm", CPU)
def test_compact_and_find_repeats(algorithm):
    rng = np.random.default_rng(5)
    for dtype in INTEGERS + [np.float32, np.float64]:
        a = rng.integers(0, 4, 200003).astype(dtype)
        mask = rng.integers(0, 2, len(a)).astype(bool)
        assert np.array_equal(scan.compact(a, mask, algorithm=algorithm), a[mask])
        assert np.array_equal(scan.compact(a, mask.astype(np.uint8), algorithm=algorithm), a[mask])
        assert np.array_equal(scan.find_repeats(a, algorithm=algorithm), np.flatnonzero(a[:-1] == a[1:]))


@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize("digit_bits", [4, 8])
def test_radix_sort_equals_stable_sort(algorithm, digit_bits):
    for dtype in INTEGERS:
        keys = integers(150000, dtype, seed=6)
        values = np.arange(len(keys), dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        assert np.array_equal(scan.radix_sort(keys, digit_bits=digit_bits, algorithm=algorithm), keys[order])
        sorted_keys, sorted_values = scan.radix_sort(keys, values, digit_bits=digit_bits, algorithm=algorithm)
        assert np.array_equal(sorted_keys, keys[order]) and np.array_equal(sorted_values, values[order])
    floats = np.random.default_rng(7).standard_normal(100000).astype(np.float32)
    assert np.array_equal(scan.radix_sort(floats, algorithm=algorithm), np.sort(floats))
    # only the low byte: a stable sort by key & 0xff
    keys = integers(50000, np.uint32, seed=8)
    assert np.array_equal(scan.radix_sort(keys, end_bit=8, algorithm=algorithm),
                          keys[np.argsort(keys & 0xFF, kind="stable")])


@pytest.mark.parametrize("algorithm", CPU)
def test_histogram_equals_numpy_on_integers(algorithm):
    rng = np.random.default_rng(9)
    for dtype in [np.int32, np.uint32]:
        samples = rng.integers(0, 120, 300000).astype(dtype)
        counts = scan.histogram(samples, 10, (0, 100), algorithm=algorithm)
        inside = samples[samples < 100]  # [lower, upper): numpy's last bin also takes upper
        assert counts.dtype == np.uint64
        assert np.array_equal(counts, np.histogram(inside, bins=10, range=(0, 100))[0])


def test_bad_arguments_raise_with_a_clear_message():
    a = np.arange(10, dtype=np.int32)
    with pytest.raises(ValueError, match=r"a: expected a 1-D array, got shape \(2, 5\)"):
        scan.inclusive_scan(a.reshape(2, 5))
    with pytest.raises(ValueError, match="a: the array is not C-contiguous"):
        scan.inclusive_scan(a[::2])
    with pytest.raises(ValueError, match=r"a: dtype int16"):
        scan.inclusive_scan(a.astype(np.int16))
    with pytest.raises(ValueError, match="op: unknown 'mean'"):
        scan.inclusive_scan(a, op="mean")
    with pytest.raises(ValueError, match="algorithm: unknown 'fast'"):
        scan.inclusive_scan(a, algorithm="fast")
    with pytest.raises(ValueError, match="dtype: sum from int32 to uint64 is not offered"):
        scan.inclusive_scan(a, dtype=np.uint64)
    with pytest.raises(ValueError, match="mask: 3 flags for 10 elements"):
        scan.compact(a, np.ones(3, bool))
    with pytest.raises(ValueError, match=r"bits: \[0, 40\) is not within the 32-bit key"):
        scan.radix_sort(a, end_bit=40)
    with pytest.raises(ValueError, match="range: need bins > 0 and lower < upper"):
        scan.histogram(a, 4, (5, 5))
    with pytest.raises(ValueError, match="algorithm: 'blelloch' is a GPU scan"):
        scan.compact(a, a > 3, algorithm="blelloch")
