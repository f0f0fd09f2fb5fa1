"""What a fit takes in memory: the growth of the resident set to its peak, and the
fitted model's size pickled (see :mod:`multitest.run._measure`)."""

from __future__ import annotations

import contextlib
import pickle

#: Internal to multitest.run.
__all__: list[str] = []


def _steady_allocator():
    """Give the memory that earlier fits freed back to the system.

    glibc raises its mmap threshold when a mapped block is freed, after which
    large arrays come from the heap and stay resident when freed: the next fit
    in the same process would reuse them and its peak memory would miss them.
    ``malloc_trim(0)`` returns every whole free page of every arena, so that
    memory is faulted in again, and counted, by the fit that uses it.  The
    threshold itself stays dynamic: a fixed one (mapping and unmapping every
    array above 128 KiB) made the fits themselves 10-15 % slower than outside
    the runner.  No-op without glibc.
    """
    global _malloc
    if _malloc is None:
        import ctypes
        import ctypes.util

        try:
            _malloc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        except OSError:
            _malloc = False
    if _malloc:
        with contextlib.suppress(AttributeError):
            _malloc.malloc_trim(0)


_malloc = None


def _status_bytes(*keys):
    """The fields `keys` of ``/proc/self/status``, in bytes, read at one moment."""
    found = {}
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            key = line.split(":", 1)[0]
            if key in keys:
                found[key] = int(line.split()[1]) * 1024
    missing = [key for key in keys if key not in found]
    if missing:
        raise OSError(f"no {', '.join(missing)} in /proc/self/status")
    return tuple(found[key] for key in keys)


def _reset_peak():
    """Reset VmHWM to the current resident set; ``(resident, file-backed resident)`` in bytes."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
        handle.write("5")
    return _status_bytes("VmRSS", "RssFile")


def _peak_since(resident_before, file_before):
    """Growth of the resident set to its high-water mark, without the file pages paged in.

    A forked child maps the parent's libraries without their page-table entries,
    so the first fit that runs a library's code pages it in: shared page cache,
    not memory the fit allocated (up to 16 MB on a first fit, measured).
    The file pages may have come after the high-water moment, once the fit had
    freed memory it held before: the difference is then a lower bound of the
    fit's growth, which is never below 0 (a fit that only frees grew by 0).
    """
    high_water, file_now = _status_bytes("VmHWM", "RssFile")
    return max(high_water - resident_before - max(file_now - file_before, 0), 0)


def pickled_size(value):
    """``len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))``, without the bytes.

    The pickle is streamed to a sink that only counts: a forest of several MB is
    not copied into one bytes object (nor its fresh pages faulted in) to be measured.
    """
    sink = _ByteCounter()
    pickle.dump(value, sink, protocol=pickle.HIGHEST_PROTOCOL)
    return sink.size


class _ByteCounter:
    """A write-only file that keeps the number of bytes written to it, not the bytes."""

    __slots__ = ("size",)

    def __init__(self):
        self.size = 0

    def write(self, chunk):
        # Large buffers of protocol 5 come as PickleBuffer objects, which have no len().
        size = memoryview(chunk).nbytes
        self.size += size
        return size
