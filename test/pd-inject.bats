#!/usr/bin/env bats
# pd-inject on the scripts in fixtures/pd-inject. Every line number and
# iterable asserted below was read off the fixture (grep -n on the loop
# header); the instrumented copies are checked with python3 -m py_compile,
# and undo.py (which deletes the pd-inject block and the
# _pd_inject_steps( ) wrapper) must give back the original byte for byte.
load helper
load contract

F=$FIX/pd-inject

setup() {
	W=$BATS_TEST_TMPDIR/w
	mkdir -p "$W"
	cp "$F"/*.py "$W"/
}

need_python() {
	command -v python3 >/dev/null || skip "python3 not found"
}

# The instrumented copy compiles, and is the original plus insertions.
check_copy() {
	need_python
	python3 -m py_compile "$2"
	python3 "$F/undo.py" "$2" | cmp - "$1"
}

# The stdin contract cases need "-" and a script; the function shadows the
# binary inside these tests only.
with_stdin() {
	eval 'pd-inject() { command pd-inject -o "$W/o.py" - "$W/tiny_cpu.py" "$@"; }'
}

@test "pd-inject: -h prints usage to stdout" { contract_h pd-inject; }
@test "pd-inject: bad option is exit 2" { contract_badopt pd-inject; }
@test "pd-inject: missing script is one error line, exit 5" {
	contract_missing pd-inject
}
@test "pd-inject: writing to /dev/full is exit 5" {
	contract_devfull pd-inject "$W/tiny_cpu.py"
}
@test "pd-inject: - forwards stdin byte for byte, bad line warned" {
	with_stdin
	contract_passthrough pd-inject
}
@test "pd-inject: empty stdin with - gives only the record" {
	run_pd 0 pd-inject - "$W/tiny_cpu.py" </dev/null
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jqr pd.inject .type)" = '"pd.inject"' ]
}
@test "pd-inject: no script, or two, is a usage error" {
	run_pd 2 pd-inject </dev/null
	[ -z "$output" ]
	[[ "$stderr" == usage:* ]]
	run_pd 2 pd-inject "$W/tiny_cpu.py" "$W/no_loop.py"
	[ ! -e "$W/tiny_cpu_pd.py" ]
}
@test "pd-inject: bad numbers and stacks are usage errors" {
	run_pd 2 pd-inject -a 0 "$W/tiny_cpu.py"
	run_pd 2 pd-inject -w -1 "$W/tiny_cpu.py"
	run_pd 2 pd-inject -s jax "$W/tiny_cpu.py"
	[ ! -e "$W/tiny_cpu_pd.py" ]
}

@test "pd-inject: a script that runs without a launcher gets python3, not torchrun" {
	# optional_ddp.py reads LOCAL_RANK with a default (:8), calls
	# init_process_group only under `if "WORLD_SIZE" in os.environ:` (:9-10)
	# and names LOCAL_RANK in a message (:12): python3 runs it
	run_pd 0 pd-inject "$W/optional_ddp.py"
	[ "$(jqr pd.inject '[.distributed,.command]')" = \
	    "[false,\"python3 $W/optional_ddp_pd.py\"]" ]
	check_copy "$W/optional_ddp.py" "$W/optional_ddp_pd.py"
	# spawn_ddp.py calls init_process_group (:11) in workers it starts
	# itself with mp.spawn (:21): python3 is its launcher
	run_pd 0 pd-inject "$W/spawn_ddp.py"
	[ "$(jqr pd.inject '[.distributed,.command]')" = \
	    "[false,\"python3 $W/spawn_ddp_pd.py\"]" ]
	# the same script reading LOCAL_RANK with no default needs torchrun
	sed -i 's/os.environ.get("LOCAL_RANK", 0)/os.environ["LOCAL_RANK"]/' "$W/optional_ddp.py"
	run_pd 0 pd-inject -o "$W/o.py" "$W/optional_ddp.py"
	[ "$(jqr pd.inject '[.distributed,.command]')" = \
	    "[true,\"torchrun --standalone --nproc_per_node=1 $W/o.py\"]" ]
}
@test "pd-inject: torchrun script, inner batch loop of the epoch loop" {
	run_pd 0 pd-inject "$W/torchrun_train.py"
	jqv pd.inject '[.script,.output,.outdir]' \
	    '.loop' \
	    '[.stack,.stack_from,.distributed]' \
	    '.profiler' \
	    '.command' \
	    '.then'
	[ "${J[0]}" = \
	    "[\"$W/torchrun_train.py\",\"$W/torchrun_train_pd.py\",\"$W/pd_trace\"]" ]
	# grep -n 'for i, (x, y)' torchrun_train.py: line 45 (epoch loop: 42)
	[ "${J[1]}" = \
	    "{\"file\":\"$W/torchrun_train.py\",\"line\":45,\"iterable\":\"enumerate(train_loader)\",\"found_by\":\"train_step\"}" ]
	[ "${J[2]}" = \
	    '["torch","imports",true]' ]
	[ "${J[3]}" = \
	    '{"api":"torch.profiler.profile","wait":1,"warmup":1,"active":5,"repeat":1,"activities":["CPU","CUDA"],"record_shapes":true,"profile_memory":true,"with_stack":false,"profiler_level":null,"aic_metrics":null,"trace_handler":"tensorboard_trace_handler"}' ]
	# init_process_group and LOCAL_RANK: launched with torchrun
	[ "${J[4]}" = \
	    "\"torchrun --standalone --nproc_per_node=1 $W/torchrun_train_pd.py\"" ]
	[ "${J[5]}" = \
	    "\"pd-locate $W/pd_trace | pd-sum-step | pd-sum-comm | pd-sum-mem | pd-sum-input | pd-sum-gaps | pd-hotspots | pd-profile | pd-classify | pd-report -o $W/pd_report\"" ]
	grep -q '^        for i, (x, y) in _pd_inject_steps(enumerate(train_loader)):  # the step loop$' "$W/torchrun_train_pd.py"
	grep -q 'tensorboard_trace_handler("'"$W"'/pd_trace")' "$W/torchrun_train_pd.py"
	grep -q 'schedule=tp.schedule(wait=1, warmup=1,' "$W/torchrun_train_pd.py"
	# the docstring and the __future__ import stay first
	[ "$(grep -n '^# pd-inject: begin' "$W/torchrun_train_pd.py" | cut -d: -f1)" -eq 8 ]
	cmp "$F/torchrun_train.py" "$W/torchrun_train.py"
	check_copy "$W/torchrun_train.py" "$W/torchrun_train_pd.py"
}

@test "pd-inject: continue and break in the body, a header over two lines" {
	run_pd 0 pd-inject "$W/continue_break.py"
	# grep -n 'for step' continue_break.py: 10; the comment is dropped
	[ "$(jqr pd.inject '[.loop.line,.loop.iterable,.command]')" = \
	    "[10,\"enumerate( loader, start=1)\",\"python3 $W/continue_break_pd.py\"]" ]
	# nothing is added to the body: the step is in the wrapper
	[ "$(grep -c 'prof' "$W/continue_break_pd.py")" -eq "$(sed -n '/^# pd-inject: begin/,/^# pd-inject: end/p' "$W/continue_break_pd.py" | grep -c prof)" ]
	check_copy "$W/continue_break.py" "$W/continue_break_pd.py"
}

@test "pd-inject: nested loops, tabs: the batch loop around backward()" {
	run_pd 0 pd-inject "$W/nested_loops.py"
	# line 15 is the tab-indented batch loop in train_one_epoch, not the
	# epoch loop (25) nor evaluate's loader loop (9)
	[ "$(jqr pd.inject '[.loop.line,.loop.iterable,.loop.found_by]')" = \
	    '[15,"enumerate(train_loader)","train_step"]' ]
	grep -q "^	for batch_idx, (x, y) in _pd_inject_steps(enumerate(train_loader)):$" "$W/nested_loops_pd.py"
	check_copy "$W/nested_loops.py" "$W/nested_loops_pd.py"
}

@test "pd-inject: torch_npu script gets the Ascend profiler" {
	run_pd 0 pd-inject -o "$W/npu_prof.py" -d "$W/prof" "$W/npu_train.py"
	# grep -n 'for images' npu_train.py: 15 (inside a while loop)
	jqv pd.inject '[.stack,.loop.line,.loop.iterable,.output,.outdir]' \
	    '.profiler | [.api,.activities,.profiler_level,.aic_metrics]'
	[ "${J[0]}" = \
	    "[\"torch_npu\",15,\"loader\",\"$W/npu_prof.py\",\"$W/prof\"]" ]
	[ "${J[1]}" = \
	    '["torch_npu.profiler.profile",["CPU","NPU"],"Level1","PipeUtilization"]' ]
	grep -q 'profiler_level=tp.ProfilerLevel.Level1' "$W/npu_prof.py"
	grep -q 'aic_metrics=tp.AiCMetrics.PipeUtilization' "$W/npu_prof.py"
	grep -q 'on_trace_ready=tp.tensorboard_trace_handler("'"$W"'/prof")' "$W/npu_prof.py"
	check_copy "$W/npu_train.py" "$W/npu_prof.py"
}

@test "pd-inject: mindspore loop over create_dict_iterator, options" {
	cat >"$W/ms.py" <<-'PY'
	import mindspore as ms
	from mindspore import nn

	net = nn.Dense(4, 2)
	ds = make_dataset()
	for data in ds.create_dict_iterator(num_epochs=1):
	    train_net(data["x"], data["y"])
	PY
	cd "$W"
	run_pd 0 pd-inject -w 2 -W 0 -a 3 -k -d rel/out ms.py
	jqv pd.inject '[.stack,.loop.line,.loop.found_by,.outdir]' \
	    '.profiler | [.api,.wait,.warmup,.active,.with_stack,.trace_handler]'
	[ "${J[0]}" = \
	    "[\"mindspore\",6,\"loader\",\"$W/rel/out\"]" ]
	[ "${J[1]}" = \
	    '["mindspore.Profiler",2,0,3,true,null]' ]
	grep -q 'output_path="'"$W"'/rel/out"' "$W/ms_pd.py"
	check_copy "$W/ms.py" "$W/ms_pd.py"
}

@test "pd-inject: -s names the stack when no import does" {
	printf 'import lib\nfor b in lib.train_loader():\n    lib.step(b)\n' >"$W/plain.py"
	run_pd 3 pd-inject "$W/plain.py"
	[ "$stderr" = "pd-inject: error: $W/plain.py: no torch, torch_npu or mindspore import: name the stack with -s" ]
	[ ! -e "$W/plain_pd.py" ]
	run_pd 0 pd-inject -s torch "$W/plain.py"
	[ "$(jqr pd.inject '[.stack,.stack_from]')" = '["torch","option"]' ]
	check_copy "$W/plain.py" "$W/plain_pd.py"
}

@test "pd-inject: no step loop is exit 3 and no file" {
	run_pd 3 pd-inject "$W/no_loop.py"
	[ -z "$output" ]
	[ "$stderr" = "pd-inject: error: $W/no_loop.py: no step loop found: no for loop around backward() or an optimizer step, nor over a data loader; nothing written" ]
	[ ! -e "$W/no_loop_pd.py" ]
}

@test "pd-inject: never the script itself, never twice" {
	run_pd 2 pd-inject -o "$W/tiny_cpu.py" "$W/tiny_cpu.py"
	[ "$stderr" = "pd-inject: error: $W/tiny_cpu.py: the output would replace the script itself" ]
	cmp "$F/tiny_cpu.py" "$W/tiny_cpu.py"
	run_pd 0 pd-inject "$W/tiny_cpu.py"
	run_pd 3 pd-inject "$W/tiny_cpu_pd.py"
	[[ "$stderr" == *"tiny_cpu_pd.py: already instrumented by pd-inject"* ]]
	[ ! -e "$W/tiny_cpu_pd_pd.py" ]
}

@test "pd-inject: the copy keeps the mode, CRLF line ends, no temp file" {
	chmod 755 "$W/continue_break.py"
	run_pd 0 pd-inject "$W/continue_break.py"
	[ "$(stat -c %a "$W/continue_break_pd.py")" = 755 ]
	sed 's/$/\r/' "$F/tiny_cpu.py" >"$W/crlf.py"
	run_pd 0 pd-inject "$W/crlf.py"
	[ "$(grep -c $'\r$' "$W/crlf_pd.py")" -eq "$(wc -l <"$W/crlf_pd.py")" ]
	check_copy "$W/crlf.py" "$W/crlf_pd.py"
	[ -z "$(find "$W" -name '*.py.*')" ]
}

@test "pd-inject: share files missing is exit 4" {
	run_pd 4 pd-inject -S "$W/nowhere" "$W/tiny_cpu.py"
	[ "$stderr" = "pd-inject: error: cannot read inject/torch.py from the share directory (see -S and PD_SHAREDIR)" ]
	[ ! -e "$W/tiny_cpu_pd.py" ]
}

# End to end with Debian's python3-torch (require_torch): 2 epochs of 8
# batches, a continue at batch 3 (still a step: the wrapper steps per
# item); wait 6 + warmup 1, so the 4 active steps run across the epoch
# boundary, and pd-locate finds the one trace written.
@test "pd-inject: end to end on CPU, pd-locate finds the trace" {
	require_torch
	run_pd 0 pd-inject -w 6 -W 1 -a 4 "$W/tiny_cpu.py"
	cd "$W"
	run_pd 0 "$PY" tiny_cpu_pd.py
	[ "$output" = trained ]
	run_pd 0 pd-locate "$W/pd_trace"
	[ "$(jqr pd.root '.exports | map(.kind)')" = '["kineto_trace"]' ]
	[ "$(grep -o '"ProfilerStep#[0-9]*"' "$W"/pd_trace/*.json | sort -u | wc -l)" -eq 4 ]
}

# Python's view of the copy: the number of attribute calls named NAME.
py_calls() {
	python3 -c 'import ast, sys
t = ast.parse(open(sys.argv[1], "rb").read())
print(sum(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == sys.argv[2]
          for n in ast.walk(t)))' "$1" "$2"
}

@test "pd-inject: a newline in the directory name never becomes code" {
	need_python
	local d=$W/$'x\nimport os; os.system("touch PWNED")\n#'
	mkdir -p "$d"
	cp "$F/tiny_cpu.py" "$d/"
	run_pd 0 pd-inject "$d/tiny_cpu.py"
	[ "$(jqr pd.inject .script)" = "$(jq -cn --arg s "$d/tiny_cpu.py" '$s')" ]
	# the name sits in the begin comment as one escaped literal, and
	# nothing in the copy calls .system()
	grep -q '^# pd-inject: begin: a profiler around the step loop of "'"$W"'/x\\x0aimport os; os.system(\\"touch PWNED\\")\\x0a#/tiny_cpu.py";$' \
	    "$d/tiny_cpu_pd.py"
	[ "$(py_calls "$d/tiny_cpu_pd.py" system)" = 0 ]
	check_copy "$d/tiny_cpu.py" "$d/tiny_cpu_pd.py"
}

# Byte 0xFF in the directory: the record writes it as U+10FFFF (1114111,
# pd-record(5)); the copy names it "\udcff", which Python's file system
# encoding turns back into the byte 0xFF.
@test "pd-inject: a directory name that is not UTF-8 gives a valid copy and record" {
	need_python
	local d=$W/$(printf 'b\377')
	mkdir -p "$d"
	cp "$F/tiny_cpu.py" "$d/"
	run_pd 0 pd-inject "$d/tiny_cpu.py"
	[ "$(jqr pd.inject '[.script,.output,.outdir]|map(explode|index([98,1114111,47]) != null)')" = \
	    '[true,true,true]' ]
	[[ "$stderr" == *"pd-inject: warning: name '$W/b\\xFF/tiny_cpu.py' is not valid UTF-8"* ]]
	check_copy "$d/tiny_cpu.py" "$d/tiny_cpu_pd.py"
	python3 -c 'import ast, os, sys
t = ast.parse(open(sys.argv[1], "rb").read())
s = [n.args[0].value for n in ast.walk(t) if isinstance(n, ast.Call)
     and getattr(n.func, "attr", "") == "tensorboard_trace_handler"][0]
sys.stdout.buffer.write(os.fsencode(s))' "$d/tiny_cpu_pd.py" | cmp - <(printf '%s' "$d/pd_trace")
}
