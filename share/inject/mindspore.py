class _PdInjectMsProfiler:
    # mindspore.Profiler has no schedule in every version: skip wait,
    # run warmup steps unprofiled too, record active steps, then analyse.
    def __init__(self):
        import mindspore
        self.prof = mindspore.Profiler(start_profile=False,
                                       output_path=@PD_OUTDIR@,
                                       profile_memory=True)
        self.n = 0
        self.on = False
        if @PD_WAIT@ + @PD_WARMUP@ == 0:
            self.prof.start()
            self.on = True

    def step(self):
        self.n += 1
        if not self.on and self.n == @PD_WAIT@ + @PD_WARMUP@:
            self.prof.start()
            self.on = True

    def stop(self):
        if self.on:
            self.prof.stop()
            self.prof.analyse()
            self.on = False


def _pd_inject_profiler():
    return _PdInjectMsProfiler()
