def _pd_inject_profiler():
    import torch
    import torch_npu
    tp = torch_npu.profiler
    experimental = tp._ExperimentalConfig(
        profiler_level=tp.ProfilerLevel.Level1,
        aic_metrics=tp.AiCMetrics.PipeUtilization)
    prof = tp.profile(
        activities=[tp.ProfilerActivity.CPU, tp.ProfilerActivity.NPU],
        schedule=tp.schedule(wait=@PD_WAIT@, warmup=@PD_WARMUP@,
                             active=@PD_ACTIVE@, repeat=1),
        on_trace_ready=tp.tensorboard_trace_handler(@PD_OUTDIR@),
        record_shapes=True,
        profile_memory=True,
        with_stack=@PD_WITH_STACK@,
        experimental_config=experimental)
    prof.start()
    return prof
