_pd_inject_state = {"prof": None, "steps": 0, "done": False}


def _pd_inject_stop():
    state = _pd_inject_state
    prof, state["prof"], state["done"] = state["prof"], None, True
    if prof is not None:
        prof.stop()


def _pd_inject_steps(iterable):
    # Wraps the step loop's iterable: one profiler step per item, whatever
    # the loop body does (continue, break, return); the profiler lives
    # across epochs and stops once its schedule is done, or at exit.
    state = _pd_inject_state
    if state["prof"] is None and not state["done"]:
        import atexit
        state["prof"] = _pd_inject_profiler()
        atexit.register(_pd_inject_stop)
    for item in iterable:
        yield item
        prof = state["prof"]
        if prof is not None:
            prof.step()
            state["steps"] += 1
            if state["steps"] >= @PD_WAIT@ + @PD_WARMUP@ + @PD_ACTIVE@:
                _pd_inject_stop()
