"""Type stubs of tilescan.scan: the scan library and the primitives built on it."""

from typing import Any, Tuple, Union

import numpy as np
import numpy.typing as npt

def algorithms() -> list[str]: ...
def inclusive_scan(
    a: npt.ArrayLike, *, op: str = "sum", algorithm: str = "cpu", dtype: Any = None, threads: int = 0
) -> np.ndarray: ...
def exclusive_scan(
    a: npt.ArrayLike, *, op: str = "sum", algorithm: str = "cpu", dtype: Any = None, threads: int = 0
) -> np.ndarray: ...
def compact(a: npt.ArrayLike, mask: npt.ArrayLike, *, algorithm: str = "cpu", threads: int = 0) -> np.ndarray: ...
def find_repeats(a: npt.ArrayLike, *, algorithm: str = "cpu", threads: int = 0) -> npt.NDArray[np.int64]: ...
def radix_sort(
    keys: npt.ArrayLike,
    values: Union[npt.ArrayLike, None] = None,
    *,
    begin_bit: int = 0,
    end_bit: Union[int, None] = None,
    digit_bits: int = 8,
    algorithm: str = "cpu",
    threads: int = 0,
) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]: ...
def histogram(
    samples: npt.ArrayLike, bins: int, range: Tuple[float, float], *, algorithm: str = "cpu", threads: int = 0
) -> npt.NDArray[np.uint64]: ...
