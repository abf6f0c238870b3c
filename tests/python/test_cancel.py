"""Long calls release the GIL and stop on Ctrl-C (dpg_cancel)."""

import os
import signal
import threading
import time

import pytest

import dpgossip
from dpgossip._lib import lib

# An observer-path accounting of a few seconds at least (T steps of a
# 100-node simulation with provenance: about 9 s of CPU uncancelled).
LONG = dict(rounds=400, trust="pndp", attackers=0, path="observer")
GRAPH = "erdos:n=100,p=0.1,seed=1"


def test_ctrl_c_cancels_a_long_accounting():
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    # CPU time, not wall time: a loaded machine stretches the wall clock,
    # not the work done before the cancel is seen (9 s uncancelled).
    start = time.process_time()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        dpgossip.account(GRAPH, **LONG)
    assert time.process_time() - start < 5.0
    # The next call runs normally (the flag is reset).
    assert len(dpgossip.account("florentine", rounds=2, trust="pndp", attackers=0)) == 14


def test_the_gil_is_released_and_cancel_fails_the_call():
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    t = threading.Thread(target=tick)
    t.start()
    threading.Timer(0.5, lib.dpg_cancel).start()
    try:
        with pytest.raises(dpgossip.Error, match="cancelled"):
            # Called on this thread directly: the Python thread above keeps
            # running only if the call releases the GIL.
            from dpgossip._lib import ffi
            o = ffi.new("DpgAccountOptions *")
            lib.dpg_account_options_init(o)
            keep = [ffi.new("char[]", GRAPH.encode()), ffi.new("char[]", b"pndp"),
                    ffi.new("char[]", b"0"), ffi.new("char[]", b"observer")]
            att = ffi.new("char *[]", [keep[2], ffi.NULL])
            o.graph.generate, o.trust, o.attackers, o.path = keep[0], keep[1], att, keep[3]
            o.rounds = LONG["rounds"]
            err = ffi.new("DpgError *")
            lib.dpg_cancel_reset()
            t0, cpu0 = time.monotonic(), time.process_time()
            r = lib.dpg_account(o, err)
            elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu0
            assert r == ffi.NULL and err.status == 1
            msg = ffi.string(err.message).decode()
            lib.dpg_free(err.message)
            raise dpgossip.Error(msg)
    finally:
        done.set()
        t.join()
        lib.dpg_cancel_reset()
    assert cpu < 5.0  # stopped long before the 9 s of CPU it needs uncancelled
    during = [x for x in ticks if t0 + 0.1 < x < t0 + elapsed - 0.1]
    assert len(during) >= 5  # the ticker ran while the call was in C


def test_ctrl_c_cancels_mafalda_inside_the_optimizer():
    """T = 800: the optimizers alone take about 17 s of CPU uncancelled;
    they poll the flag at every iteration (MfOptions.cancel)."""
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    start = time.process_time()  # both optimizer threads' CPU; load-independent
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        dpgossip.mafalda("florentine", epochs=16, batches=50)
    assert time.process_time() - start < 6.0
