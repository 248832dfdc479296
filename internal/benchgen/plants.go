package benchgen

// Planted failures: short blocks of lines, each with one line that shows a
// known node failure in the words real nodes log it. They are written at a
// fixed fraction of their file, so a bundle of any size holds them at a
// known file and line.

// plant is one failure that can be planted.
type plant struct {
	id     string
	stream stream
	at     float64 // where in the file, as a fraction of its bytes
	count  int     // lines in the block
	key    int     // index of the line that shows the failure
	line   func(g *gen, b []byte, i int) []byte
}

// DefaultPlants are the failures planted when Options.Plant is empty.
var DefaultPlants = []string{
	"nodeadm-no-config-in-chain",
	"kubelet-unauthorized",
	"ipamd-insufficient-addresses",
	"kernel-oom-kill",
	"kernel-soft-lockup",
	"containerd-pull-no-auth",
	"conntrack-table-full",
}

// NoPlants, given alone in Options.Plant, plants nothing.
const NoPlants = "none"

var plants = []plant{
	{id: "nodeadm-no-config-in-chain", stream: streamNodeadmConfig, at: 0.97, count: 3, key: 2, line: func(g *gen, b []byte, i int) []byte {
		b = g.journalPrefix(b, "nodeadm", pidNodeadm)
		switch i {
		case 0:
			return append(b, `info init/init.go:62 Loading configuration.. {"configSource": ["imds://user-data"], "configCache": "/run/eks/nodeadm/config.json"}`...)
		case 1:
			return append(b, `warn configprovider/chain.go:30 Encountered error in config provider {"error": "could not find NodeConfig within UserData"}`...)
		}
		return append(b, `fatal cli/main.go:35 Command failed {"error": "no config in chain"}`...)
	}},
	{id: "kubelet-unauthorized", stream: streamKubelet, at: 0.9, count: 2, key: 1, line: func(g *gen, b []byte, i int) []byte {
		b = g.journalPrefix(b, "kubelet", pidKubelet)
		if i == 0 {
			b = g.klogHeader(b, 'I', pidKubelet, "kubelet_node_status.go:75")
			b = append(b, `"Attempting to register node" node="`...)
		} else {
			b = g.klogHeader(b, 'E', pidKubelet, "kubelet_node_status.go:107")
			b = append(b, `"Unable to register node with API server" err="Unauthorized" node="`...)
		}
		b = append(b, g.id.hostname...)
		return append(b, '"')
	}},
	{id: "ipamd-insufficient-addresses", stream: streamIpamd, at: 0.8, count: 1, line: func(g *gen, b []byte, i int) []byte {
		b = appendZapHead(g, b, "error", "ipamd/ipamd.go:866")
		b = append(b, `Failed to increase pool size due to not able to allocate ENI AllocENI: error attaching ENI: failed to create ENI: InsufficientFreeAddressesInSubnet: The specified subnet `...)
		b = append(b, g.id.subnetID...)
		b = append(b, ` does not have enough free addresses to satisfy the request.\n\tstatus code: 400, request id: `...)
		b = appendUUID(b, g.r)
		return append(b, `"}`...)
	}},
	{id: "kernel-oom-kill", stream: streamDmesg, at: 0.6, count: 3, key: 2, line: func(g *gen, b []byte, i int) []byte {
		b = appendDmesgStamp(g, b)
		switch i {
		case 0:
			return append(b, "containerd invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=-999"...)
		case 1:
			return append(b, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/containerd.service,task=containerd,pid=1234,uid=0"...)
		}
		return append(b, "Out of memory: Killed process 1234 (containerd) total-vm:2816344kB, anon-rss:1843200kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4212kB oom_score_adj:-999"...)
	}},
	{id: "kernel-soft-lockup", stream: streamDmesg, at: 0.75, count: 2, key: 0, line: func(g *gen, b []byte, i int) []byte {
		b = appendDmesgStamp(g, b)
		if i == 0 {
			return append(b, "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:1:123]"...)
		}
		return append(b, "CPU: 1 PID: 123 Comm: kworker/1:1 Tainted: G             L     "+kernelRelease+" #1"...)
	}},
	{id: "containerd-pull-no-auth", stream: streamContainerd, at: 0.85, count: 1, line: func(g *gen, b []byte, i int) []byte {
		const image = ecrRegistry + "/eks/pause:3.10"
		b = g.journalPrefix(b, "containerd", pidContainerd)
		b = appendLogfmtHead(g, b, "error")
		return append(b, `"PullImage \"`+image+`\" failed" error="failed to pull and unpack image \"`+image+`\": failed to resolve reference \"`+image+`\": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials"`...)
	}},
	{id: "conntrack-table-full", stream: streamSyslog, at: 0.7, count: 1, line: func(g *gen, b []byte, i int) []byte {
		b = g.syslogPrefix(b, "kernel", 0)
		return append(b, "nf_conntrack: nf_conntrack: table full, dropping packet"...)
	}},
}

// PlantIDs lists every failure that can be planted.
func PlantIDs() []string {
	ids := make([]string, len(plants))
	for i, p := range plants {
		ids[i] = p.id
	}
	return ids
}

// findPlant returns the plant called id.
func findPlant(id string) (plant, bool) {
	for _, p := range plants {
		if p.id == id {
			return p, true
		}
	}
	return plant{}, false
}
