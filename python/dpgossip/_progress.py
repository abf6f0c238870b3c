"""The progress of a long call on stderr, as the command line prints it
(cli/progress.c) and silenced as its -q silences it (``quiet=True``):

    on a terminal (stderr)  one line redrawn at most ten times a second:
                            "dpgossip train: 120/800 steps (15%), 0:12
                            elapsed, ETA 1:08";
    elsewhere (a log, CI,   the same line, newline-terminated, every
    a notebook)             $DPGOSSIP_PROGRESS_INTERVAL seconds (default
                            10), so that a short run prints none.

A phase that reports nothing itself (the library's DpgProgressFunc with no
count, or the Python side's own work) is named by a heartbeat thread
whenever no other line came for one interval; after the first count, the
heartbeat repeats the last count (a long last step keeps its line alive).
The library calls back on the thread that runs the call while a heartbeat
may print: one lock orders them."""

import math
import os
import sys
import threading
import time


def _log_interval():
    """$DPGOSSIP_PROGRESS_INTERVAL in seconds (tests set it tiny), else 10,
    as the command line reads it."""
    v = os.environ.get("DPGOSSIP_PROGRESS_INTERVAL")
    if v is not None:
        try:
            s = float(v)
        except ValueError:
            s = math.nan
        if math.isfinite(s) and 0 <= s <= 86400:
            return s
    return 10.0


def _duration(seconds):
    """m:ss or h:mm:ss; "?" when unknown."""
    if not math.isfinite(seconds) or seconds < 0:
        return "?"
    s = int(seconds + 0.5)
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


class Printer:
    """One call's progress line on @stream (default sys.stderr)."""

    def __init__(self, cmd, stream=None):
        self.cmd = cmd
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self.interval = 0.1 if self.tty else _log_interval()
        self.start = self.last = time.monotonic()
        # The ETA's reference: the time and fraction of the first count of
        # the current phase, reset when the fraction goes back.
        self.rate_start, self.rate_fraction = 0.0, -1.0
        self.width = 0
        self.drawn = False
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.phase_what = None
        self.last_what, self.last_fraction = None, -1.0
        self.stop = False
        self.heartbeat = None

    def _eta(self, fraction, now):
        if not 0 <= fraction <= 1:
            return math.nan
        if self.rate_fraction < 0 or fraction < self.rate_fraction:
            self.rate_start, self.rate_fraction = now, fraction
            return math.nan
        done = fraction - self.rate_fraction
        return (now - self.rate_start) * (1 - fraction) / done if done > 0 else math.nan

    def _report(self, fraction, what):
        """Under the lock: prints @what unless a line came less than one
        interval ago."""
        now = time.monotonic()
        left = self._eta(fraction, now)
        if now - self.last < self.interval:
            return
        self.last = now
        line = (f"dpgossip {self.cmd}: {what}, {_duration(now - self.start)} elapsed, "
                f"ETA {_duration(left)}")
        try:
            if self.tty:
                self.stream.write("\r" + line + " " * max(0, self.width - len(line)))
                self.width, self.drawn = len(line), True
            else:
                self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed stderr: progress is not worth failing for
            pass

    def _beat(self):
        with self.lock:
            while not self.stop:
                self.wake.wait(max(self.interval, 0.05))
                if self.stop:
                    break
                if self.phase_what is not None:
                    self._report(-1.0, self.phase_what)
                elif self.last_what is not None:
                    self._report(self.last_fraction, self.last_what)

    def _start_heartbeat(self):
        if self.heartbeat is None:
            self.heartbeat = threading.Thread(target=self._beat, name="dpgossip-progress",
                                              daemon=True)
            self.heartbeat.start()

    def phase(self, what):
        """@what runs now and reports nothing itself."""
        with self.lock:
            self.phase_what = what
            if self.interval == 0:
                self._report(-1.0, what)  # interval 0: a line at every change too
            self._start_heartbeat()

    def update(self, done, total, unit):
        """@done of @total @unit: the phase (if any) is over."""
        with self.lock:
            self.phase_what = None
            fraction = done / total if total > 0 else 0.0
            what = f"{done}/{total} {unit} ({math.floor(fraction * 100)}%)"
            self.last_what, self.last_fraction = what, fraction
            self._report(fraction, what)
            self._start_heartbeat()

    def library(self, phase, done, total):
        """The library's DpgProgressFunc (phase names, or steps counted)."""
        if total > 0:
            self.update(done, total, phase)
        else:
            self.phase(phase)

    def close(self):
        """Stops the heartbeat; a terminal line stays, what follows below."""
        with self.lock:
            self.stop = True
            self.wake.notify_all()
        if self.heartbeat is not None:
            self.heartbeat.join()
        if self.drawn:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
