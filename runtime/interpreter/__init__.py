"""The CPU interpreter: runs a kernel instance's verified IR in lock-step on
numpy arrays (``simt``), with memory checks (``memory``), barriers, shuffles
and atomics (``together``); ``interpret`` binds a launch's arguments."""
