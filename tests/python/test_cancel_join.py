"""Ctrl-C returns from a call only once the library call is over: the next
call and the interpreter's exit then run with nothing of it left (a worker
left running crashed the interpreter at exit)."""

import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import os, signal, threading
    import dpgossip

    def library_threads():
        # The optimizer's own thread (GLib names it): alive only while
        # dpg_mafalda runs, which joins it before returning.
        names = []
        for tid in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{tid}/comm") as f:
                    names.append(f.read().strip())
            except OSError:
                pass
        return [n for n in names if n == "mafalda"]

    for i in range(3):
        threading.Timer(0.3 + 0.2 * i, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            dpgossip.mafalda("florentine", epochs=16, batches=50)
            raise SystemExit("not interrupted")
        except KeyboardInterrupt:
            pass
        left = library_threads()
        assert not left, f"still running after the cancel returned: {left}"
        r = dpgossip.account("florentine", rounds=2, trust="pndp", attackers="all")
        assert len(r) > 0
    print("clean")
""")


def test_ctrl_c_then_more_calls_then_a_clean_exit():
    for _ in range(3):
        p = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                           env=os.environ, timeout=240)
        assert p.returncode == 0 and p.stdout.strip() == "clean", (p.returncode, p.stderr)
