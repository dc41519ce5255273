/* libFuzzer target for pd_smi (make fuzz): the same text through every
 * parser (nvidia-smi CSV with and without --query-gpu fields, table,
 * dmon/pmon, npu-smi table and -t blocks, lscpu, the recognizer, the
 * process lists: compute-apps, uuids, npu-smi's process table), and each
 * device object made into a pd.sample. */
#include "fuzz.h"
#include "pd_smi.h"

static void
done(json_t *r)
{
	size_t i;
	json_t *v;

	if (!r)
		abort();
	if (json_is_array(r))
		json_array_foreach(r, i, v)
			json_decref(pd_smi_sample(v, "run", 1.0, 0.5));
	json_decref(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	done(pd_smi_nv_csv(s, NULL));
	done(pd_smi_nv_csv(s, "index,name,memory.total,power.limit,"
	    "clocks.max.sm,utilization.gpu"));
	done(pd_smi_nv_table(s));
	done(pd_smi_nv_mon(s));
	done(pd_smi_npu_table(s));
	done(pd_smi_npu_kv(s));
	done(pd_smi_lscpu(s));
	done(pd_smi_parse(s));
	done(pd_smi_nv_apps(s));
	done(pd_smi_nv_uuids(s));
	done(pd_smi_npu_procs(s));
	free(s);
	return 0;
}
