def _pd_inject_profiler():
    import torch
    import torch.profiler as tp
    activities = [tp.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(tp.ProfilerActivity.CUDA)
    prof = tp.profile(
        activities=activities,
        schedule=tp.schedule(wait=@PD_WAIT@, warmup=@PD_WARMUP@,
                             active=@PD_ACTIVE@, repeat=1),
        on_trace_ready=tp.tensorboard_trace_handler(@PD_OUTDIR@),
        record_shapes=True,
        profile_memory=True,
        with_stack=@PD_WITH_STACK@)
    prof.start()
    return prof
