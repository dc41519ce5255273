#!/usr/bin/env bats
# pd-sum-comm on PyTorch traces. Fixture numbers are worked out by hand
# (see each comment); corpus numbers were computed once with a python3
# one-liner over the whole trace (json with Decimal floats: per "Collective
# name" the count, sum of dur, and sum of "In msg nelems" x 4 for Float).
load helper
load contract

KF=$FIX/kineto
PT=$CORPUS/pytorch

@test "pd-sum-comm kineto: -h prints usage to stdout" { contract_h pd-sum-comm; }
@test "pd-sum-comm kineto: bad option is exit 2" { contract_badopt pd-sum-comm; }
@test "pd-sum-comm kineto: input passes through byte for byte" { contract_passthrough pd-sum-comm; }
@test "pd-sum-comm kineto: empty input, empty output" { contract_empty pd-sum-comm; }
@test "pd-sum-comm kineto: missing operand is exit 5" { contract_missing pd-sum-comm; }
@test "pd-sum-comm kineto: writing to /dev/full is exit 5" {
	contract_devfull pd-sum-comm "$KF/sum-kineto.json"
}

# sum-kineto.json: ncclDevKernel AllReduce, 300 us, 1048576 Float = 4194304
# bytes: algbw 4194304 B / 300000 ns = 13.981 GB/s; ncclKernel_AllGather
# (old naming, no size args) 100 us. Sorted by total time.
@test "pd-sum-comm kineto: ops by type with sizes and algbw" {
	run_pd 0 pd-sum-comm "$KF/sum-kineto.json"
	[ "$(jqr pd.comm '[.rank,.source,.lane,.total_us,.wait_ratio,.transports,.links]')" = \
	    '[3,"kineto_trace","gpu_kernels",400,null,null,null]' ]
	[ "$(jqr pd.comm '[.ops[] | [.op_type,.count,.total_us,.bytes,.algbw_gb_per_s,.wait_us]]')" = \
	    '[["allreduce",1,300,4194304,13.981,null],["allgather",1,100,null,null,null]]' ]
	[ "$(jqr pd.comm '[.slowest[] | [.elapse_us,.step]]')" = '[[300,10],[100,11]]' ]
}

# sum-busbw.json (written by hand): the size of a collective is the larger
# of its input and output, as nccl-tests counts it, and the bus bandwidth
# is algbw x nccl-tests' factor for the group of 4 (doc/PERFORMANCE.md):
# all-gather 4194304 floats out = 16777216 B in 2000 us: algbw 8.389,
# busbw x 3/4 = 6.291; reduce-scatter 16777216 B in 1000 us: 16.777 and
# 12.583; all-reduce 16777216 + 4096 + 4096 B in 1200 us: algbw 13.988;
# the one without "Group size" has no bus factor, so busbw =
# (16777216 + 4096) x 2 x 3/4 / 1100000 ns = 22.884; two of the three
# are under 1 MiB, 200 of 1200 us: small_ratio 0.1667.
@test "pd-sum-comm kineto: bus bandwidth and small messages per collective type" {
	run_pd 0 pd-sum-comm "$KF/sum-busbw.json"
	[ "$(jqr pd.comm '[.ops[] | [.op_type,.bytes,.algbw_gb_per_s,.busbw_gb_per_s,.small_count,.small_ratio]]')" = \
	    '[["allgather",16777216,8.389,6.291,0,0],["allreduce",16785408,13.988,22.884,2,0.1667],["reduce_scatter_tensor",16777216,16.777,12.583,0,0]]' ]
}

# Per-collective starts, for cross-rank skew: allreduce starts at 1300 us,
# 300 us into step 10 (which starts at 1000); allgather 100 us into step 11.
@test "pd-sum-comm kineto: per-collective start times and step offsets" {
	run_pd 0 pd-sum-comm "$KF/sum-kineto.json"
	[ "$(jqr pd.comm '[.collectives_total, (.collectives[] | [.op_type,.seq,.step,.start_ns,.offset_us,.dur_us,.bytes])]')" = \
	    '[2,["allreduce",0,10,1300000,300,300,4194304],["allgather",0,11,2100000,100,100,null]]' ]
}

@test "pd-sum-comm kineto: NCCL < 2.8 kernel names (2021 schema)" {
	run_pd 0 pd-sum-comm "$KF/sum-2021.json"
	[ "$(jqr pd.comm '[.ops[] | [.op_type,.count,.total_us]]')" = '[["allreduce",1,100]]' ]
}

# CPU-only gloo: the gloo:all_reduce annotation, 400 us; Input Dims
# [[1000, 25]] float = 100000 bytes; 100000 / 400000 ns = 0.25 GB/s.
@test "pd-sum-comm kineto: CPU-only gloo trace uses the annotations" {
	run_pd 0 pd-sum-comm "$KF/sum-cpuonly.json"
	[ "$(jqr pd.comm '[.rank,.lane,(.ops[] | [.op_type,.count,.total_us,.bytes,.algbw_gb_per_s])]')" = \
	    '[5,"cpu_annotations",["all_reduce",1,400,100000,0.25]]' ]
}

# The bytes of a gloo annotation from the forms its "Input Dims" and "Input
# type" take. Each annotation has an op type of its own (the name after
# "gloo:"); expected, by hand from the args: plain [[4, 8]] float = 128;
# spaces and a third dimension [[ 2 , 3 ,4 ]] int64 = 24 x 8 = 192; the type
# written with an escape ("flo\u0061t" is "float") = 2 x 4 = 8, as JSON
# reads it; a dimension written as a real (1.0), a negative one, an empty
# first entry, a type of no known size, a first entry that is not a list,
# a dimension past int64 when multiplied (2^62 x 4): no bytes (null).
@test "pd-sum-comm kineto: annotation bytes from every form of Input Dims" {
	local f=$BATS_TEST_TMPDIR/annot.json i=0 a
	{
		printf '{"schemaVersion": 1, "distributedInfo": {"rank": 0}, "traceEvents": [\n'
		for a in \
		    'plain|"Input type": ["float"], "Input Dims": [[4, 8]]' \
		    'spaced|"Input type": [ "long int" ], "Input Dims": [ [ 2 , 3 ,4 ] , [1]]' \
		    'escaped|"Input type": ["flo\u0061t"], "Input Dims": [[2]]' \
		    'real|"Input type": ["float"], "Input Dims": [[1.0, 4]]' \
		    'negative|"Input type": ["float"], "Input Dims": [[-1, 4]]' \
		    'empty|"Input type": ["float"], "Input Dims": [[], [4]]' \
		    'unknown|"Input type": ["Scalar"], "Input Dims": [[4]]' \
		    'notlist|"Input type": ["float"], "Input Dims": [null, [4]]' \
		    'huge|"Input type": ["float"], "Input Dims": [[4611686018427387904, 4]]'; do
			i=$((i + 1))
			printf '{"ph": "X", "cat": "user_annotation", "name": "gloo:%s", "pid": 1, "tid": 1, "ts": %d, "dur": 10, "args": {"External id": %d, %s}},\n' \
			    "${a%%|*}" $((i * 100)) $i "${a#*|}"
		done
		printf '{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 1}\n]}\n'
	} >"$f"
	run_pd 0 pd-sum-comm "$f"
	[ "$(jqr pd.comm '[.ops[] | [.op_type, .bytes]] | sort')" = \
	    '[["empty",null],["escaped",8],["huge",null],["negative",null],["notlist",null],["plain",128],["real",null],["spaced",192],["unknown",null]]' ]
}

@test "pd-sum-comm kineto: no communication gives empty lists, null totals" {
	run_pd 0 pd-sum-comm "$KF/sum-autograd.json"
	[ "$(jqr pd.comm '[.total_us,.ops,.slowest,.lane,.collectives_total]')" = '[null,[],[],null,0]' ]
}

@test "pd-sum-comm kineto: -p makes a kernel of ones own a collective" {
	run_pd 0 pd-sum-comm -p "$KF/sum-ep-patterns.txt" "$KF/sum-deepep.json"
	[ "$(jqr pd.comm '[.ops[] | [.op_type,.count,.total_us]]')" = \
	    '[["void myteam::a2a::dispatch<8>",1,100]]' ]
}

@test "pd-sum-comm kineto: -n limits the slowest list" {
	run_pd 0 pd-sum-comm -n 1 "$KF/sum-kineto.json"
	[ "$(jqr pd.comm '.slowest | length')" = 1 ]
}

# A generated trace of 9000 all-reduce kernels written latest first: the
# kernel written i-th (from 0) starts at (9000 - i) x 10 us and lasts
# (i x 7919 mod 9000) + 1 us (7919 is prime to 9000: every duration from 1
# to 9000 us once). Only the 4096 earliest and the -n slowest are kept as
# it is read (sorted and cut each time twice as many are held), so the
# lists must be those of sorting all of them: the earliest starts at 10 us
# (seq 0), the 4096th at 40960 us (seq 4095); the slowest last 9000, 8999
# and 8998 us.
@test "pd-sum-comm kineto: long lists are cut to the earliest and slowest" {
	python3 - "$BATS_TEST_TMPDIR/many.json" <<-'PY'
	import json, sys
	ev = [{"ph": "X", "cat": "kernel", "pid": 0, "tid": 7,
	       "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)",
	       "ts": (9000 - i) * 10, "dur": i * 7919 % 9000 + 1,
	       "args": {"device": 0, "stream": 7}} for i in range(9000)]
	json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
	PY
	run_pd 0 pd-sum-comm -n 3 "$BATS_TEST_TMPDIR/many.json"
	jqv pd.comm '.collectives_total' '.collectives | length' \
	    '[.collectives[0,4095] | [.seq,.start_ns]]' '[.slowest[].elapse_us]' \
	    '[.collectives[].start_ns] == ([.collectives[].start_ns] | sort)'
	[ "${J[0]}" = 9000 ]
	[ "${J[1]}" = 4096 ]
	[ "${J[2]}" = '[[0,10000],[4095,40960000]]' ]
	[ "${J[3]}" = '[9000,8999,8998]' ]
	[ "${J[4]}" = true ]
}

@test "pd-sum-comm kineto: a cut-off trace is summarized, exit 3" {
	run_pd 3 pd-sum-comm "$KF/sum-cut.json"
	[[ "$stderr" == *"sum-cut.json:15: file ends inside an event"* ]]
	[ "$(jqr pd.comm '[.truncated,.total_us]')" = '[true,null]' ]
}

# Corpus NCCL 2-rank: allreduce 15 kernels, 46762.159 us, 306684384 bytes
# (algbw 306684384 / 46762159 ns = 6.558); broadcast 6, 114.334 us,
# 638712 bytes (Float and Long).
@test "pd-sum-comm kineto: corpus NCCL kernel args" {
	require_corpus
	run_pd 0 pd-sum-comm "$PT/hta-nccl-2rank-a100/nccl_data.json.gz"
	[ "$(jqr pd.comm '[.ops[] | [.op_type,.count,.total_us,.bytes,.algbw_gb_per_s]]')" = \
	    '[["allreduce",15,46762.159,306684384,6.558],["broadcast",6,114.334,638712,5.586]]' ]
}

# Corpus 2 of 128 ranks: 10 SendRecv kernels each (no size args).
@test "pd-sum-comm kineto: corpus ranks of one job line up by (op_type, seq)" {
	require_corpus
	run_pd 0 pd-sum-comm "$PT/hta-sampled-2of128rank/sampled_rank-0.json.gz"
	[ "$(jqr pd.comm '[.rank,.collectives_total,.collectives[0].op_type,.collectives[0].seq,.collectives[0].step]')" = '[0,10,"sendrecv",0,551]' ]
	run_pd 0 pd-sum-comm "$PT/hta-sampled-2of128rank/sampled_rank-1.json.gz"
	[ "$(jqr pd.comm '[.rank,.collectives_total,.collectives[0].op_type,.collectives[0].seq,.collectives[0].step]')" = '[1,10,"sendrecv",0,551]' ]
}

@test "pd-sum-comm kineto: every corpus trace gives one pd.comm, exit 0" {
	require_corpus
	local f
	for f in $(find "$PT" -name '*.json.gz' ! -name '*.raw.gz' | sort); do
		run_pd 0 pd-sum-comm "$f"
		nrec pd.comm
		[ "$NREC" -eq 1 ]
	done
}
