#!/usr/bin/env bats
# pd-find-context over hand-written workspaces in test/fixtures/pd-find-context.
# Every line number below was read off the fixture with `grep -n` / `cat -n`;
# every figure is the number printed in the fixture's log line.
load helper
load contract

W=$FIX/pd-find-context

# The contract cases that read stdin need "-": without an operand this tool
# is a usage error. The function shadows the binary inside these tests only.
with_stdin() {
	eval 'pd-find-context() { command pd-find-context - "$@"; }'
}

@test "pd-find-context: -h prints usage to stdout" { contract_h pd-find-context; }
@test "pd-find-context: bad option is exit 2" { contract_badopt pd-find-context; }
@test "pd-find-context: missing dir is one error line, exit 5" {
	contract_missing pd-find-context
}
@test "pd-find-context: writing to /dev/full is exit 5" {
	contract_devfull pd-find-context "$W/llm_infer"
}
@test "pd-find-context: no operand is a usage error" {
	run_pd 2 pd-find-context </dev/null
	[ -z "$output" ]
	[[ "$stderr" == usage:* ]]
}
@test "pd-find-context: - with empty stdin writes nothing" {
	with_stdin
	contract_empty pd-find-context
}
@test "pd-find-context: - forwards stdin byte for byte, bad line warned" {
	with_stdin
	contract_passthrough pd-find-context
}
@test "pd-find-context: stdin records come first, then the context" {
	run_pd 0 pd-find-context - "$W/llm_infer" <<<'{"type":"pd.root","v":1}'
	[ "${lines[0]}" = '{"type":"pd.root","v":1}' ]
	[ "$(jqr pd.context .root)" = "\"$W/llm_infer\"" ]
}
@test "pd-find-context: stdin is not read without -" {
	run_pd 0 pd-find-context "$W/llm_infer" <<<'{"type":"pd.root","v":1}'
	[ "$(printf '%s\n' "$output" | grep -c pd.root)" -eq 0 ]
}
@test "pd-find-context: a file operand is rejected, exit 3" {
	run_pd 3 pd-find-context "$W/llm_infer/generate.py"
	[ "$stderr" = "pd-find-context: error: $W/llm_infer/generate.py: not a directory" ]
	[ -z "$output" ]
}
@test "pd-find-context: output is deterministic" {
	a=$(pd-find-context "$W/torchrun_cnn" "$W/npu_ddp" "$W/ms_msrun" "$W/llm_infer")
	b=$(pd-find-context "$W/torchrun_cnn" "$W/npu_ddp" "$W/ms_msrun" "$W/llm_infer")
	[ "$a" = "$b" ]
}

# ---- torchrun_cnn: torchrun, 2 nodes x 4 GPUs, ResNet-50, slow loop ----

@test "torchrun_cnn: record keys in the documented order" {
	run_pd 0 pd-find-context "$W/torchrun_cnn"
	jqv pd.context 'keys_unsorted | join(",")' \
	    '.rank'
	[ "${J[0]}" = '"type,v,root,rank,entry_scripts,stack,stack_evidence,workload,workload_evidence,device_evidence,launcher,world_size,visible_devices,configs,env_lock,metrics,launcher_evidence,metrics_omitted,skipped"' ]
	[ "$(jqr pd.finding 'keys_unsorted | join(",")' | sort -u)" = '"type,v,root,rank,check,file,line,severity,text,hint"' ]
	[ "${J[1]}" = null ]
}
@test "torchrun_cnn: entry, stack and workload with evidence" {
	run_pd 0 pd-find-context "$W/torchrun_cnn"
	# train.py is named by torchrun in run.sh:13; utils.py has no guard
	jqv pd.context '.entry_scripts' \
	    '.stack' \
	    '[.stack_evidence[].line]' \
	    '.stack_evidence[0].text' \
	    '.workload' \
	    '[.workload_evidence[].line]'
	[ "${J[0]}" = '["train.py"]' ]
	[ "${J[1]}" = '"torch"' ]
	# train.py:9 "import torch" .. :12 "from torch.utils.data import"
	[ "${J[2]}" = '[9,10,11,12]' ]
	[ "${J[3]}" = '"import torch"' ]
	[ "${J[4]}" = '"training"' ]
	# model.train() :50, zero_grad :57, backward :58, optimizer.step :59;
	# the docstring's "loss.item()" on line 3 is not code
	[ "${J[5]}" = '[50,57,58,59]' ]
}
@test "torchrun_cnn: launcher, world size from variables, devices, configs" {
	run_pd 0 pd-find-context "$W/torchrun_cnn"
	jqv pd.context '.launcher' \
	    '.world_size' \
	    '.launcher_evidence.line' \
	    '.visible_devices' \
	    '.configs' \
	    '.env_lock'
	[ "${J[0]}" = '"torchrun"' ]
	# --nproc_per_node=$NPROC (NPROC=${NPROC:-4}) x --nnodes $NNODES (2)
	[ "${J[1]}" = 8 ]
	# the commented torchrun on run.sh:10 is not the launcher
	[ "${J[2]}" = 11 ]
	[ "${J[3]}" = '[{"var":"CUDA_VISIBLE_DEVICES","value":"0,1,2,3","file":"run.sh","line":7}]' ]
	# resnet50.yaml is named by run.sh and train.py; unused.json sits in configs/
	[ "${J[4]}" = '["configs/resnet50.yaml","configs/unused.json"]' ]
	[ "${J[5]}" = null ]
}
@test "torchrun_cnn: throughput and step time from logs/train.log" {
	run_pd 0 pd-find-context "$W/torchrun_cnn"
	# logs/train.log:2 "742.3 samples/s | step time: 0.345 s", :4 801.6 / 0.319
	jqv pd.context '.metrics | map("\(.name)=\(.value)\(.unit)@\(.line)") | join(" ")' \
	    '[.metrics[].file] | unique' \
	    '.metrics_omitted'
	[ "${J[0]}" = '"samples_per_s=742.3samples/s@2 step_time=0.345s@2 samples_per_s=801.6samples/s@4 step_time=0.319s@4"' ]
	[ "${J[1]}" = '["logs/train.log"]' ]
	[ "${J[2]}" = 0 ]
}
@test "torchrun_cnn: findings, one per check that fires, with lines" {
	run_pd 0 pd-find-context "$W/torchrun_cnn"
	# :22 DataLoader(ds, batch_size=..., shuffle=True): no num_workers, no
	# pin_memory on a CUDA job; :31 .cpu() in the eval loop over `loader`;
	# :43 models.resnet50() with no cudnn.benchmark; :51 the training loop,
	# no AMP anywhere (autocast only in venv/, __pycache__/, .venv/ and a
	# docstring, all ignored); :54 np.load; :60 loss.item(); :63
	# torch.cuda.synchronize() (:61 is a comment); the print of loss at
	# :64 is under `if step % 10 == 0` (:62), a logging interval: not one
	[ "$(jqr pd.finding '"\(.check)@\(.file):\(.line)/\(.severity)"' | tr -d '"' | tr '\n' ' ')" = 'dataloader_workers@train.py:22/warn pin_memory@train.py:22/info cpu_in_loop@train.py:31/warn cudnn_benchmark@train.py:43/info no_amp@train.py:51/info disk_io_in_loop@train.py:54/warn item_in_loop@train.py:60/warn sync_in_loop@train.py:63/warn ' ]
}
@test "torchrun_cnn: every finding says it is a hint, not a verdict" {
	run_pd 0 pd-find-context "$W/torchrun_cnn"
	[ "$(jqr pd.finding '.text | test("a hint from reading the code, not a verdict")' | sort -u)" = true ]
	[ "$(jqr pd.finding '.hint | length > 0' | sort -u)" = true ]
	[ "$(jqr pd.finding .root | sort -u)" = "\"$W/torchrun_cnn\"" ]
}

# ---- npu_ddp: torch_npu, python -m torch.distributed.run, env.lock.json ----

@test "npu_ddp: torch_npu stack, launcher from scripts/, relative entry" {
	run_pd 0 pd-find-context "$W/npu_ddp"
	# scripts/run_8p.sh:9 runs ../train_npu.py relative to scripts/
	jqv pd.context '.entry_scripts' \
	    '.stack' \
	    '[.stack_evidence[].line]' \
	    '.launcher' \
	    '.world_size' \
	    '.launcher_evidence.file' \
	    '.visible_devices' \
	    '[.workload_evidence[].line]'
	[ "${J[0]}" = '["train_npu.py"]' ]
	[ "${J[1]}" = '"torch_npu"' ]
	[ "${J[2]}" = '[6,7]' ]
	[ "${J[3]}" = '"torch.distributed.run"' ]
	# --nproc_per_node=${RANK_SIZE}, export RANK_SIZE=8 on :6
	[ "${J[4]}" = 8 ]
	[ "${J[5]}" = '"scripts/run_8p.sh"' ]
	[ "${J[6]}" = '[{"var":"ASCEND_RT_VISIBLE_DEVICES","value":"0,1,2,3,4,5,6,7","file":"scripts/run_8p.sh","line":4}]' ]
	# scaler.scale(loss).backward() :40, scaler.step(opt) :41, zero_grad :43
	[ "${J[7]}" = '[40,41,43]' ]
}
@test "npu_ddp: env.lock.json summary" {
	run_pd 0 pd-find-context "$W/npu_ddp"
	jqv pd.context '.env_lock.file' \
	    '.env_lock.packages' \
	    '.env_lock.keys' \
	    '.env_lock.versions'
	[ "${J[0]}" = '"env.lock.json"' ]
	[ "${J[1]}" = 5 ]
	[ "${J[2]}" = '["cann","driver","packages","python"]' ]
	[ "${J[3]}" = '{"python":"3.9.18","cann":"8.0.RC2","driver":"24.1.rc2","torch":"2.1.0","torch_npu":"2.1.0.post6","torchvision":"0.16.0","numpy":"1.24.4"}' ]
}
@test "pd-find-context: env.lock.json as pip list, as a package object, as pins" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	echo '[{"name":"torch","version":"2.4.0"},{"name":"six","version":"1.16.0"}]' >"$d/env.lock.json"
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context '.env_lock | [.keys, .packages, .versions]')" = '[[],2,{"torch":"2.4.0"}]' ]
	echo '{"python_version":"3.11.9","packages":{"mindspore":"2.3.1","numpy":{"version":"1.26.4"}}}' >"$d/env.lock.json"
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context '.env_lock | [.keys, .packages, .versions]')" = '[["packages","python_version"],2,{"python_version":"3.11.9","mindspore":"2.3.1","numpy":"1.26.4"}]' ]
	echo '{"pip":["deepspeed==0.14.4","torch==2.3.1"]}' >"$d/env.lock.json"
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context '.env_lock | [.packages, .versions]')" = '[2,{"torch":"2.3.1","deepspeed":"0.14.4"}]' ]
}
@test "npu_ddp: figures from output/train_8p.out" {
	run_pd 0 pd-find-context "$W/npu_ddp"
	# :3 "throughput: 1523.4 samples/sec, time/step 168.1 ms", :4 1530.9 / 167.2
	[ "$(jqr pd.context '.metrics | map("\(.name)=\(.value)\(.unit)@\(.line)") | join(" ")')" = '"samples_per_s=1523.4samples/s@3 step_time=168.1ms@3 samples_per_s=1530.9samples/s@4 step_time=167.2ms@4"' ]
}
@test "npu_ddp: findings (AMP is on: no no_amp; NPU: no cudnn check)" {
	run_pd 0 pd-find-context "$W/npu_ddp"
	# :31 num_workers=0, :32 pin_memory=False, :36 json.load(open(..)),
	# :37 Image.open, :45 torch.npu.synchronize(); :46 print(.. loss
	# ..cpu()) is under `if it % 50 == 0:` (:44), a logging interval: no
	# cpu_in_loop or print_in_loop for it (the synchronize stays)
	[ "$(jqr pd.finding '"\(.check)@\(.line)/\(.severity)"' | tr -d '"' | tr '\n' ' ')" = 'dataloader_workers@31/warn pin_memory@32/warn disk_io_in_loop@36/warn disk_io_in_loop@37/warn sync_in_loop@45/warn ' ]
}

# ---- ms_msrun: MindSpore, msrun ----

@test "ms_msrun: mindspore, msrun world size, config, step time" {
	run_pd 0 pd-find-context "$W/ms_msrun"
	jqv '' 'select(.type == "pd.context") | .entry_scripts' \
	    'select(.type == "pd.context") | .stack' \
	    'select(.type == "pd.context") | [.stack_evidence[].line]' \
	    'select(.type == "pd.context") | .workload' \
	    'select(.type == "pd.context") | [.workload_evidence[].line]' \
	    'select(.type == "pd.context") | .launcher' \
	    'select(.type == "pd.context") | .world_size' \
	    'select(.type == "pd.context") | .configs' \
	    'select(.type == "pd.context") | .metrics | map("\(.name)=\(.value)\(.unit)@\(.line)") | join(" ")' \
	    'select(.type == "pd.finding") | .check'
	[ "${J[0]}" = '["train.py"]' ]
	[ "${J[1]}" = '"mindspore"' ]
	[ "${J[2]}" = '[4,5,6,7]' ]
	[ "${J[3]}" = '"training"' ]
	# model.train(3, ds, ...) on :23
	[ "${J[4]}" = '[23]' ]
	[ "${J[5]}" = '"msrun"' ]
	# --worker_num=8 on run_distribute.sh:6
	[ "${J[6]}" = 8 ]
	[ "${J[7]}" = '["config/gpt_small.yaml"]' ]
	# msrun_log/worker_0.log:3 "per step time: 612.346 ms", :5 351.235 ms
	[ "${J[8]}" = '"step_time=612.346ms@3 step_time=351.235ms@5"' ]
	# amp_level="O2" and no DataLoader: nothing fires
	[ -z "${J[9]}" ]
}

# ---- llm_infer: inference with generate(), no launcher ----

@test "llm_infer: inference, visible device set in Python, tokens/s" {
	run_pd 0 pd-find-context "$W/llm_infer"
	jqv '' 'select(.type == "pd.context") | .entry_scripts' \
	    'select(.type == "pd.context") | .workload' \
	    'select(.type == "pd.context") | [.workload_evidence[].line]' \
	    'select(.type == "pd.context") | .launcher' \
	    'select(.type == "pd.context") | .world_size' \
	    'select(.type == "pd.context") | .visible_devices' \
	    'select(.type == "pd.context") | .configs' \
	    'select(.type == "pd.context") | .metrics | map("\(.name)=\(.value)\(.unit)@\(.line)") | join(" ")' \
	    'select(.type == "pd.finding") | .check'
	[ "${J[0]}" = '["generate.py"]' ]
	[ "${J[1]}" = '"inference"' ]
	# @torch.inference_mode() :20, model.generate :25, model.eval() :35
	[ "${J[2]}" = '[20,25,35]' ]
	[ "${J[3]}" = null ]
	[ "${J[4]}" = null ]
	[ "${J[5]}" = '[{"var":"CUDA_VISIBLE_DEVICES","value":"1","file":"generate.py","line":7}]' ]
	[ "${J[6]}" = '["prompts.json"]' ]
	# bench.txt:1 tqdm "2.13s/it" (a loading bar: figures are reported as
	# found), :2 "33.6 tokens/s", :3 "34.5 tokens/s"
	[ "${J[7]}" = '"step_time=2.13s@1 tokens_per_s=33.6tokens/s@2 tokens_per_s=34.5tokens/s@3"' ]
	# torch_dtype=torch.bfloat16 counts as reduced precision; no loader loop
	[ -z "${J[8]}" ]
}

# ---- options and bad input ----

@test "pd-find-context: -d 0 stays in the top directory" {
	run_pd 0 pd-find-context -d 0 "$W/npu_ddp"
	# scripts/ and output/ are below the limit: no launcher, no figures;
	# train_npu.py is still an entry (guard + training cues)
	jqv pd.context '.launcher' \
	    '.metrics' \
	    '.entry_scripts'
	[ "${J[0]}" = null ]
	[ "${J[1]}" = '[]' ]
	[ "${J[2]}" = '["train_npu.py"]' ]
}
@test "pd-find-context: binary, big and broken files are skipped with a warning, exit 3" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	printf 'import torch\000\001' >"$d/bad.py"
	head -c 4194305 /dev/zero | tr '\0' 'a' >"$d/big.log"
	printf '{"python": 3' >"$d/env.lock.json"
	printf 'import torch\nif __name__ == "__main__":\n    model.train()\n' >"$d/ok.py"
	run_pd 3 pd-find-context "$d"
	[[ "$stderr" == *"pd-find-context: warning: $d/bad.py: binary file; skipped"* ]]
	[[ "$stderr" == *"pd-find-context: $d/big.log: skipped: larger than 4 MiB"* ]]
	[[ "$stderr" == *"pd-find-context: warning: $d/env.lock.json:1: not valid JSON"* ]]
	jqv pd.context '.skipped' \
	    '.entry_scripts' \
	    '.env_lock'
	[ "${J[0]}" = '[{"file":"big.log","reason":"larger than 4 MiB"},{"file":"bad.py","reason":"binary"},{"file":"env.lock.json","reason":"not valid JSON"}]' ]
	[ "${J[1]}" = '["ok.py"]' ]
	[ "${J[2]}" = null ]
}
@test "pd-find-context: a big file alone is a note, not a rejection" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	head -c 4194305 /dev/zero | tr '\0' 'a' >"$d/big.log"
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context .skipped)" = '[{"file":"big.log","reason":"larger than 4 MiB"}]' ]
}
@test "pd-find-context: unreadable file is a warning, exit 3" {
	[ "$(id -u)" -ne 0 ] || skip "root reads everything"
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	echo 'import torch' >"$d/x.py"
	chmod 000 "$d/x.py"
	run_pd 3 pd-find-context "$d"
	[[ "$stderr" == *"pd-find-context: warning: $d/x.py: Permission denied; skipped"* ]]
}
@test "pd-find-context: CRLF, tabs, invalid UTF-8 and an unterminated string" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	printf 'import torch\r\nif __name__ == "__main__":\r\n\tfor b in loader:\r\n\t\tloss.backward()\r\n\t\tprint(loss.cuda())\r\ns = "open\n' >"$d/crlf.py"
	printf '\377\376 step time: 1.5 s \303\n' >"$d/odd.log"
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context .workload_evidence[0].line)" = 4 ]
	[ "$(jqr pd.context '.metrics[0] | [.name, .value, .unit, .line]')" = '["step_time",1.5,"s",1]' ]
	[ "$(jqr pd.finding '"\(.check)@\(.line)"' | tr -d '"' | tr '\n' ' ')" = 'no_amp@3 print_in_loop@5 ' ]
}
@test "pd-find-context: shell launchers and world sizes" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	echo 'if __name__ == "__main__": pass' >"$d/main.py"
	for c in 'mpirun -np 16 python main.py@mpirun:16' \
	    'deepspeed --num_gpus 8 --num_nodes 2 main.py --deepspeed@deepspeed:16' \
	    'accelerate launch --num_processes=4 main.py@accelerate:4' \
	    'python -m torch.distributed.launch --nproc_per_node 2 main.py@torch.distributed.launch:2' \
	    'export RANK_SIZE=8; python main.py@shell:8' \
	    'srun --ntasks-per-node=4 -N 2 python main.py@srun:8' \
	    'PY=${PYTHON:-/usr/bin/python3}; "$PY" main.py@shell:null' \
	    'N=${N:-2}; S=main.py; torchrun --nproc_per_node=$N "$S"@torchrun:2' \
	    'torchrun --nproc_per_node=gpu main.py@torchrun:null'; do
		printf '%s\n' "${c%%@*}" >"$d/run.sh"
		run_pd 0 pd-find-context "$d"
		want=${c#*@}
		jqv pd.context '"\(.launcher):\(.world_size)"' \
		    '.entry_scripts'
		[ "${J[0]}" = "\"$want\"" ]
		[ "${J[1]}" = '["main.py"]' ]
	done
}
@test "pd-find-context: figures in log patterns" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	cat >"$d/train.log" <<-'EOF'
	 iteration      100/  500000 | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 187.3 |
	{'train_runtime': 120.5, 'train_samples_per_second': 42.75, 'train_steps_per_second': 0.334}
	100%|##########| 500/500 [01:40<00:00,  4.98it/s]
	step 7: 350 ms/step, 1200 img/s
	throughput: 12.5
	epoch 3: 1,523.4 samples/s
	step 4 loss 2.9347 step_ms 28.86 data_ms 25.74
	EOF
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context '.metrics | map("\(.name)=\(.value)\(.unit)@\(.line)") | join(" ")')" = '"step_time=1234.5ms@1 tflops_per_device=187.3TFLOP/s@1 samples_per_s=42.75samples/s@2 iterations_per_s=0.334it/s@2 iterations_per_s=4.98it/s@3 step_time=350ms@4 images_per_s=1200images/s@4 throughput=12.5null@5 samples_per_s=1523.4samples/s@6 step_time=28.86ms@7"' ]
}
@test "pd-find-context: at most 20 figures per name and file, the last ones" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	for i in $(seq 1 25); do echo "step $i: $i.5 samples/s"; done >"$d/a.log"
	run_pd 0 pd-find-context "$d"
	jqv pd.context '.metrics | length' \
	    '.metrics[0] | [.value, .line]' \
	    '.metrics_omitted'
	[ "${J[0]}" = 20 ]
	[ "${J[1]}" = '[6.5,6]' ]
	[ "${J[2]}" = 5 ]
}
@test "pd-find-context: explicit cudnn.benchmark = False and pin_memory=True" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	cat >"$d/train.py" <<-'EOF'
	import torch
	from torch.utils.data import DataLoader
	torch.backends.cudnn.benchmark = False
	net = torch.nn.Conv2d(3, 8, 3).cuda()
	dl = DataLoader(ds, num_workers=8, pin_memory=True)
	if __name__ == "__main__":
	    with torch.autocast("cuda"):
	        for x in dl:
	            loss = net(x).sum()
	            loss.backward()
	EOF
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.finding '"\(.check)@\(.line)/\(.severity)"' | tr -d '"' | tr '\n' ' ')" = 'cudnn_benchmark@3/warn ' ]
}
@test "pd-find-context: workspace modules the entry imports are checked too" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d/src"
	cat >"$d/main.py" <<-'EOF2'
	import torch
	from src.engine import train_one_epoch
	if __name__ == "__main__":
	    model = torch.nn.Linear(4, 4).cuda()
	    train_one_epoch(model)
	EOF2
	cat >"$d/src/engine.py" <<-'EOF2'
	from .meters import Meter
	from torch.utils.data import DataLoader


	def train_one_epoch(model, ds):
	    train_dl = DataLoader(ds, num_workers=4, pin_memory=True)
	    for x in train_dl:
	        loss = model(x).sum()
	        loss.backward()
	        Meter().add(loss.item())
	EOF2
	cat >"$d/src/meters.py" <<-'EOF2'
	class Meter:
	    def add(self, v):
	        for x in loader:
	            print(loss)
	EOF2
	cat >"$d/unrelated.py" <<-'EOF2'
	for x in loader:
	    print(loss.item())
	EOF2
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context .entry_scripts)" = '["main.py"]' ]
	# engine.py:10 loss.item() in the loop over train_dl; meters.py is two
	# imports away and unrelated.py is not imported: neither is checked;
	# no_amp sits on the entry script's guard (main.py:3)
	[ "$(jqr pd.finding '"\(.check)@\(.file):\(.line)"' | tr -d '"' | tr '\n' ' ')" = 'no_amp@main.py:3 item_in_loop@src/engine.py:10 ' ]
}
@test "pd-find-context: a training loop over range(): checked on GPU, not on CPU" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	cat >"$d/train.py" <<-'EOF'
	import torch
	from torch.utils.data import DataLoader


	def main(model, opt, data, steps):
	    loader = DataLoader(data, batch_size=8)
	    it = iter(loader)
	    for epoch in range(2):
	        for step in range(steps):
	            x, y = next(it)
	            loss = model(x, y)
	            loss.backward()
	            opt.step()
	            print("step", step, loss.item())
	        print("epoch", epoch, loss.item())


	if __name__ == "__main__":
	    main(*build())
	EOF
	run_pd 0 pd-find-context "$d"
	# a CPU job: :6 has no num_workers (that costs on a CPU too); .item()
	# and print cost nothing extra without a device, and no AMP hint
	[ "$(jqr pd.finding '"\(.check)@\(.line)"' | tr -d '"' | tr '\n' ' ')" = 'dataloader_workers@6 ' ]
	sed -i 's/x, y = next(it)/x, y = [t.cuda() for t in next(it)]/' "$d/train.py"
	run_pd 0 pd-find-context "$d"
	# on a GPU: the loop around backward() (:9) is the step loop; :14 print
	# of loss.item() inside it; :15 is once per epoch, outside it
	[ "$(jqr pd.finding '"\(.check)@\(.line)"' | tr -d '"' | tr '\n' ' ')" = 'dataloader_workers@6 pin_memory@6 no_amp@9 item_in_loop@14 print_in_loop@14 ' ]
}
@test "pd-find-context: host copies under a logging interval are not flagged" {
	run_pd 0 pd-find-context "$W/log_interval"
	# log_interval/train.py, the step loop at :10 (around backward()):
	# :18 under `if i % 100 == 0:`, :21 under `if global_step %
	# args.log_interval == 0 and ...`, :24 `if (i + 1) % args.log_every
	# == 0: print(loss.item())` on one line: all every N steps, none
	# flagged. :23 is under the elif (`global_step == 1`, no interval),
	# :25 and :26 are unguarded: flagged; :27 is once per epoch
	[ "$(jqr pd.finding '"\(.check)@\(.line)"' | tr -d '"' | tr '\n' ' ')" = 'no_amp@10 item_in_loop@23 print_in_loop@23 item_in_loop@25 print_in_loop@26 ' ]
}
@test "pd-find-context: a copy pd-inject made is not the user's code" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	cp "$W/injected/train.py" "$W/injected/run.sh" "$d"
	run_pd 0 pd-inject "$d/train.py"
	grep -q '^# pd-inject: begin' "$d/train_pd.py"
	run_pd 0 pd-find-context "$d"
	# run.sh runs train_pd.py, the copy: it is skipped, so the entry is
	# the original (guarded, with backward() at :13); the one finding is
	# the synchronize() at train.py:15, none from the copy
	[ "$(jqr pd.context '[.entry_scripts,.skipped]')" = \
	    '[["train.py"],[{"file":"train_pd.py","reason":"instrumented copy made by pd-inject"}]]' ]
	[ "$(jqr pd.finding '"\(.check)@\(.file):\(.line)"' | tr -d '"' | tr '\n' ' ')" = 'sync_in_loop@train.py:15 ' ]
	# the copy alone: no entry script, no findings
	rm "$d/train.py"
	run_pd 0 pd-find-context "$d"
	jqv '' 'select(.type == "pd.context") | .entry_scripts' \
	    'select(.type == "pd.finding") | .check'
	[ "${J[0]}" = '[]' ]
	[ -z "${J[1]}" ]
}
@test "pd-find-context: torch.multiprocessing.spawn is a launcher in Python" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	cat >"$d/main.py" <<-'EOF2'
	import torch
	import torch.multiprocessing as mp


	def worker(rank):
	    pass


	if __name__ == "__main__":
	    mp.spawn(worker, args=(),
	             nprocs=4, join=True)
	EOF2
	echo 'python main.py' >"$d/run.sh"
	run_pd 0 pd-find-context "$d"
	# above "python main.py" (shell), with nprocs=4; main.py:10
	[ "$(jqr pd.context '[.launcher, .world_size, .launcher_evidence.file, .launcher_evidence.line]')" = '["mp.spawn",4,"main.py",10]' ]
	echo 'torchrun --nproc_per_node 2 main.py' >"$d/run.sh"
	run_pd 0 pd-find-context "$d"
	[ "$(jqr pd.context '[.launcher, .world_size]')" = '["torchrun",2]' ]
}
@test "pd-find-context: AMP cues switched off do not count" {
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	cat >"$d/train.py" <<-'EOF2'
	import torch
	if __name__ == "__main__":
	    model = model.cuda()
	    for x in train_loader:
	        model(x).sum().backward()
	EOF2
	printf 'fp16: false\n# bf16: true (commented out)\n' >"$d/config.yaml"
	echo 'python train.py --fp16 False --config config.yaml' >"$d/run.sh"
	run_pd 0 pd-find-context "$d"
	# no_amp at the step loop, train.py:4
	[ "$(jqr pd.finding 'select(.check == "no_amp") | .line')" = 4 ]
	echo 'args = dict(bf16=True, fp16=False)' >>"$d/train.py"
	run_pd 0 pd-find-context "$d"
	[ -z "$(jqr pd.finding 'select(.check == "no_amp") | .line')" ]
}

@test "pd-find-context: device_evidence: the lines that put work on an accelerator" {
	run_pd 0 pd-find-context "$FIX/pd-find-context/llm_infer"
	# generate.py line 23 .to("cuda"), line 34 .cuda()
	[ "$(jqr pd.context '[.device_evidence[]|[.file,.line]]')" = '[["generate.py",23],["generate.py",34]]' ]
	run_pd 0 pd-find-context "$FIX/pd-find-context/ms_msrun"
	[ "$(jqr pd.context .device_evidence)" = '[]' ]
}
@test "pd-find-context: a doubling shell variable is cut, not expanded to 4 GiB" {
	# v0 is 8 bytes and v<i> doubles v<i-1>, so v29 would be 4 GiB; v9 is
	# 4096 bytes (the cap, pd-find-context(1)) and v10 on line 11 (v<i> is
	# on line i+1) is the first value past it.
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	{
		echo 'v0=xxxxxxxx'
		for i in $(seq 1 29); do
			printf 'v%d="$v%d$v%d"\n' "$i" $((i - 1)) $((i - 1))
		done
		echo 'python train.py --x "$v29"'
	} >"$d/run.sh"
	[ "$(wc -c <"$d/run.sh")" -eq 445 ]
	echo 'if __name__ == "__main__": pass' >"$d/train.py"
	run_pd 3 timeout 20 pd-find-context "$d"
	[ "$stderr" = "pd-find-context: warning: $d/run.sh:11: a shell variable expands to more than 4096 bytes: cut there (later cuts in this file are not reported)" ]
	# the last line is still read: it runs train.py
	[ "$(jqr pd.context '[.entry_scripts, .launcher]')" = '[["train.py"],"shell"]' ]
}
@test "pd-find-context: nested references that expand to nothing stop at the work cap" {
	# a, u, w, x each hold 2000 references (single quotes keep them) to the
	# next, y is empty: "$a" on line 7 would scan 2000^4 references; the
	# cap is 16 MiB of scanning per file (pd-find-context(1)). Past it the
	# words are kept as written (here they exceed 4096 bytes: cut too), and
	# the torchrun line after it is still read: N=4 from line 6.
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	python3 - "$d/run.sh" <<-'PY'
	import sys
	refs = lambda v: "'" + ("$" + v) * 2000 + "'"
	with open(sys.argv[1], "w") as f:
	    for v, n in (("a", "u"), ("u", "w"), ("w", "x"), ("x", "y")):
	        f.write(v + "=" + refs(n) + "\n")
	    f.write('y=\nN=4\necho "$a"\ntorchrun --nproc_per_node=$N train.py\n')
	PY
	echo 'if __name__ == "__main__": pass' >"$d/train.py"
	run_pd 3 timeout 20 pd-find-context "$d"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "pd-find-context: warning: $d/run.sh:7: a shell variable expands to more than 4096 bytes: cut there (later cuts in this file are not reported)" ]
	[ "${stderr_lines[1]}" = "pd-find-context: warning: $d/run.sh:7: shell variable expansion stopped after 16 MiB of work: the words from here on are kept as written" ]
	[ "$(jqr pd.context '[.entry_scripts, .launcher, .world_size]')" = '[["train.py"],"torchrun",4]' ]
}
@test "pd-find-context: a script of 200k assignments is read in linear time" {
	# 2 MiB of distinct NAME=1 lines (under the 4 MiB file limit); a
	# lookup that scans every variable took minutes here. The last line
	# names the entry and the last WORLD_SIZE=8 is the world size.
	d=$BATS_TEST_TMPDIR/ws
	mkdir -p "$d"
	python3 - "$d/run.sh" <<-'PY'
	import sys
	with open(sys.argv[1], "w") as f:
	    f.write("".join("a%d=1\n" % i for i in range(200000)))
	    f.write("WORLD_SIZE=8\npython train.py\n")
	PY
	echo 'if __name__ == "__main__": pass' >"$d/train.py"
	run_pd 0 timeout 20 pd-find-context "$d"
	[ "$(jqr pd.context '[.entry_scripts, .launcher, .world_size]')" = '[["train.py"],"shell",8]' ]
}
