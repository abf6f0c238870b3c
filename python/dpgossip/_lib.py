"""libdpgossip through cffi (ABI mode: nothing compiled), and the helpers
every public function shares: errors, interruptible calls, tables."""

import glob
import math
import numbers
import os
import re
import shutil
import threading

import cffi
import numpy as np

# The library's soname: the ABI major version this package calls.
SONAME = "libdpgossip.so.0"

# The declarations come from the library itself (dpg_api_header: the text
# of api/dpgossip.h it was built with), so they cannot drift from it.
_BOOTSTRAP = "const char *dpg_api_header(void);"


def _declarations(header):
    """The header as cffi's cdef takes it: no comments, no preprocessor
    lines, no C++ guard (the header keeps to plain C declarations)."""
    text = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    text = re.sub(r"#ifdef __cplusplus.*?#endif", "", text, flags=re.S)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def _candidates():
    """Where libdpgossip may be, in order: DPGOSSIP_LIBRARY; the library
    this package was built or installed with by CMake (its _libpath.py);
    the one beside an installed dpgossip command on PATH (PREFIX/bin and
    PREFIX/lib..., as `make install` lays them out: how a package installed
    by pip finds it); the dynamic loader's search path."""
    env = os.environ.get("DPGOSSIP_LIBRARY")
    if env:
        return [env]
    try:
        from . import _libpath
        return [_libpath.LIBRARY]
    except ImportError:
        pass
    out = []
    exe = shutil.which("dpgossip")
    if exe:
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(exe)))
        for pattern in ("lib*", os.path.join("lib*", "*")):
            out += sorted(glob.glob(os.path.join(prefix, pattern, SONAME)))
    return out + [SONAME]


def _load(path):
    """The library at @path with the declarations it carries."""
    boot = cffi.FFI()
    boot.cdef(_BOOTSTRAP)
    handle = boot.dlopen(path)
    try:
        header = boot.string(handle.dpg_api_header()).decode()
    except AttributeError:
        raise ImportError(f"dpgossip: {path} has no dpg_api_header (an older libdpgossip): "
                          "rebuild the library and this package together") from None
    ffi = cffi.FFI()
    ffi.cdef(_declarations(header))
    return ffi, ffi.dlopen(path)


def _open():
    tried = []
    for path in _candidates():
        try:
            return (*_load(path), path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("dpgossip: libdpgossip not found; tried " + "; ".join(tried) +
                      ". Install dpgossip (make install) and put its dpgossip command on "
                      "PATH, or set DPGOSSIP_LIBRARY to the library's path")


ffi, lib, LIBRARY = _open()


class Error(Exception):
    """A dpgossip call failed; the message is the command line's (what
    ``dpgossip CMD`` prints after ``dpgossip CMD:``). ``status`` is the
    command line's exit status: 1 (the run failed), 2 (a bad option)."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


class UsageError(Error, ValueError):
    """A bad argument value (the command line's exit status 2)."""


def call(func, *args):
    """Runs ``func(*args, err)`` (a libdpgossip call, which releases the
    GIL) on a worker thread so that Ctrl-C in the main thread cancels it
    (dpg_cancel) instead of waiting for it; raises Error on failure. After a
    Ctrl-C it returns (raising KeyboardInterrupt) only once the library call
    has returned: nothing of it runs on behind the caller's back."""
    err = ffi.new("DpgError *")
    box = {}
    # Released by the worker when the library call is over. Thread.join is
    # not used to wait: on Python 3.11 a KeyboardInterrupt inside it can mark
    # a running thread as stopped, after which join (and the interpreter's
    # shutdown) no longer waits for it.
    finished = threading.Lock()
    finished.acquire()
    # The main thread abandons a worker that has not entered the library yet
    # (an interrupt while starting it) under this lock: the worker then
    # returns at once, and the main thread knows whether to wait.
    gate = threading.Lock()

    def work():
        try:
            with gate:
                if box.get("abandoned"):
                    return
                box["entered"] = True
            box["result"] = func(*args, err)
        except BaseException as e:  # noqa: B902 (re-raised below)
            box["exception"] = e
        finally:
            box["done"] = True
            finished.release()

    # Not a daemon: the interpreter's shutdown also waits for it.
    t = threading.Thread(target=work, name="dpgossip")
    # Everything from the reset on is inside the try: a Ctrl-C that lands
    # while the worker is being started must still cancel and wait for it.
    try:
        lib.dpg_cancel_reset()
        t.start()
        while "done" not in box:
            finished.acquire(timeout=0.05)
    except KeyboardInterrupt:
        lib.dpg_cancel()
        _wait_despite_interrupts(t, box, gate, finished)
        _take_error(err)
        raise
    _reap(t)
    if "exception" in box:
        raise box["exception"]
    _raise_if_failed(err)
    return box["result"]


def _wait_despite_interrupts(t, box, gate, finished):
    """Waits until the worker's library call (if it entered one) is over,
    whatever further Ctrl-C come: each one only repeats the cancel."""
    while True:
        try:
            with gate:
                box["abandoned"] = True
                entered = box.get("entered", False)
            break
        except KeyboardInterrupt:
            lib.dpg_cancel()
    while entered and "done" not in box:
        try:
            finished.acquire(timeout=0.05)
        except KeyboardInterrupt:
            lib.dpg_cancel()
    _reap(t)


def _reap(t):
    """Joins a worker whose library call is over (only its Python epilogue
    may remain): further Ctrl-C repeat the cancel, harmlessly."""
    while t.ident is not None and t.is_alive():
        try:
            t.join()
        except KeyboardInterrupt:
            lib.dpg_cancel()


def _take_error(err):
    msg = None
    if err.message != ffi.NULL:
        msg = ffi.string(err.message).decode("utf-8", "replace")
        lib.dpg_free(err.message)
        err.message = ffi.NULL
    return msg


def _raise_if_failed(err):
    msg = _take_error(err)
    if msg is not None or err.status != 0:
        cls = UsageError if err.status == 2 else Error
        raise cls(msg or "failed", err.status)


def integer(name, v, lo=-2**31, hi=2**31 - 1):
    """@v as an int for the C option @name: an integral number (4, 4.0,
    numpy integers) between @lo and @hi, else UsageError (4.9 is not
    silently 4, 2**40 does not wrap)."""
    if isinstance(v, numbers.Integral):
        i = int(v)
    elif isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer():
        i = int(v)
    else:
        raise UsageError(f"{name}: an integer is needed, got {v!r}", 2)
    if not lo <= i <= hi:
        raise UsageError(f"{name}: {i} is out of range ({lo} to {hi})", 2)
    return i


def real(name, v):
    """@v as a float for the C option @name: a real number (int, float,
    numpy scalars), else UsageError: a bool or a string is refused, not read
    as a number (True is not 1, '1' is not 1.0)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise UsageError(f"{name}: a number is needed, got {v!r}", 2)
    return float(v)


class Strings:
    """Keeps C strings (and NULL-terminated arrays of them) alive for a call."""

    def __init__(self):
        self._keep = []

    def str(self, s):
        if s is None:
            return ffi.NULL
        p = ffi.new("char[]", os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode())
        self._keep.append(p)
        return p

    def strv(self, items):
        if items is None:
            return ffi.NULL
        ptrs = [self.str(s) for s in items] + [ffi.NULL]
        arr = ffi.new("char *[]", ptrs)
        self._keep.append(arr)
        return arr

    def keep(self, obj):
        self._keep.append(obj)
        return obj


def table_columns(t):
    """A DpgTable's columns as {name: numpy array} (taking and freeing
    it), its attributes as {key: value} and its matrix (or None)."""
    try:
        n = lib.dpg_table_n_rows(t)
        cols = {}
        for j in range(lib.dpg_table_n_cols(t)):
            name = ffi.string(lib.dpg_table_col_name(t, j)).decode()
            kind = lib.dpg_table_col_type(t, j)
            if kind == 0:
                a = np.frombuffer(ffi.buffer(lib.dpg_table_col_int(t, j), 8 * n), dtype=np.int64)
                cols[name] = a.copy()
            elif kind == 1:
                a = np.frombuffer(ffi.buffer(lib.dpg_table_col_double(t, j), 8 * n),
                                  dtype=np.float64)
                cols[name] = a.copy()
            else:
                vals = []
                for i in range(n):
                    p = lib.dpg_table_col_string(t, j, i)
                    vals.append(None if p == ffi.NULL else ffi.string(p).decode())
                cols[name] = np.array(vals, dtype=object)
        attrs = {}
        for i in range(lib.dpg_table_n_attrs(t)):
            attrs[ffi.string(lib.dpg_table_attr_key(t, i)).decode()] = \
                ffi.string(lib.dpg_table_attr_value(t, i)).decode()
        rows = ffi.new("unsigned *")
        ncols = ffi.new("unsigned *")
        m = lib.dpg_table_matrix(t, rows, ncols)
        matrix = None
        if m != ffi.NULL:
            matrix = np.frombuffer(ffi.buffer(m, 8 * rows[0] * ncols[0]),
                                   dtype=np.float64).reshape(rows[0], ncols[0]).copy()
        return cols, attrs, matrix
    finally:
        lib.dpg_table_free(t)


INT_MISSING = np.iinfo(np.int64).min
