/* smi-dump: print what lib/pd_smi makes of a capture file, one JSON value
 * per line (a device object per line; lscpu: one object).
 *   smi-dump MODE FILE [FIELDS]
 * MODE: parse, csv, table, mon, npu, kv, lscpu, apps, uuids, npuprocs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_smi.h"

int
main(int argc, char **argv)
{
	json_t *r = NULL, *v;
	char *text;
	size_t i;

	if (argc < 3) {
		fprintf(stderr, "usage: smi-dump MODE FILE [FIELDS]\n");
		return 2;
	}
	if (!(text = pd_smi_slurp(argv[2], NULL))) {
		perror(argv[2]);
		return 5;
	}
	if (strcmp(argv[1], "parse") == 0)
		r = pd_smi_parse(text);
	else if (strcmp(argv[1], "csv") == 0)
		r = pd_smi_nv_csv(text, argc > 3 ? argv[3] : NULL);
	else if (strcmp(argv[1], "table") == 0)
		r = pd_smi_nv_table(text);
	else if (strcmp(argv[1], "mon") == 0)
		r = pd_smi_nv_mon(text);
	else if (strcmp(argv[1], "npu") == 0)
		r = pd_smi_npu_table(text);
	else if (strcmp(argv[1], "kv") == 0)
		r = pd_smi_npu_kv(text);
	else if (strcmp(argv[1], "apps") == 0)
		r = pd_smi_nv_apps(text);
	else if (strcmp(argv[1], "uuids") == 0)
		r = pd_smi_nv_uuids(text);
	else if (strcmp(argv[1], "npuprocs") == 0)
		r = pd_smi_npu_procs(text);
	else if (strcmp(argv[1], "lscpu") == 0)
		r = pd_smi_lscpu(text);
	free(text);
	if (!r)
		return 2;
	if (json_is_array(r)) {
		json_array_foreach(r, i, v) {
			json_dumpf(v, stdout, JSON_COMPACT |
			    JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
			putchar('\n');
		}
	} else {
		json_dumpf(r, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER |
		    JSON_REAL_PRECISION(15));
		putchar('\n');
	}
	json_decref(r);
	return 0;
}
