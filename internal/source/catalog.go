package source

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/nodetriage/nodetriage/internal/imds"
	"github.com/nodetriage/nodetriage/internal/probe"
)

// Env is what the catalog needs to know about the run.
type Env struct {
	Tree    *Tree
	Journal *Journal
	// IMDS is nil when the metadata service must not be asked (--no-imds).
	IMDS         *imds.Client
	Probes       bool
	ProbeOptions probe.Options
	// TailBytes is how many of the newest bytes of a big log are read; zero
	// reads whole files.
	TailBytes int64
}

// Plan is the list of sources for one node, in the order they should start,
// with the handles the orchestrator reads the host identity from.
type Plan struct {
	Sources  []Source
	IMDS     *IMDS
	UserData *UserData
}

// Catalog lists every source for the node: what eks-log-collector.sh
// gathers, under the same bundle paths, and what it misses. Cheap sources
// that explain most failures come first, the bulk of the logs last.
func Catalog(env Env) Plan {
	md := NewIMDS(env.IMDS, env.Tree)
	ud := NewUserData(env.IMDS, env.Tree, md)
	p := Plan{IMDS: md, UserData: ud}
	add := func(s ...Source) { p.Sources = append(p.Sources, s...) }

	add(md, ud)
	add(nodeadmSources(env)...)
	add(cloudInitSources(env)...)
	add(kubeletSources(env)...)
	add(containerdSources(env)...)
	if env.Probes {
		add(NewProbes(env.Tree, md, ud, env.ProbeOptions))
	}
	add(systemSources(env)...)
	add(networkSources(env)...)
	add(kernelSources(env)...)
	add(logSources(env)...)
	add(otherUnitSources(env)...)
	add(NewJournalBoots(env.Journal))
	return p
}

func nodeadmSources(env Env) []Source {
	t, j := env.Tree, env.Journal
	return []Source{
		NewJournalUnit("nodeadm/nodeadm-config", j, "nodeadm/nodeadm-config.log", "nodeadm-config"),
		NewJournalUnit("nodeadm/nodeadm-run", j, "nodeadm/nodeadm-run.log", "nodeadm-run"),
		NewJournalUnit("nodeadm/nodeadm-boot-hook", j, "nodeadm/nodeadm-boot-hook.log", "nodeadm-boot-hook"),
		NewJournalUnitEach("nodeadm/udev-net-manager", j, func(unit string) string {
			return "nodeadm/udev-net-manager_" + InstanceName(unit) + ".log"
		}, "udev-net-manager@*"),
		NewFiles("nodeadm/config", t,
			Copy{From: "/etc/eks/nodeadm.d", To: "nodeadm/nodeadm.d", Dir: true},
			Copy{From: "/run/eks/nodeadm/config.json", To: "nodeadm/config.json"},
			Copy{From: "/etc/eks/kubelet/environment", To: "nodeadm/kubelet-environment"},
		),
		NewUnitFiles(t, "nodeadm-config.service", "nodeadm/nodeadm-config_service.txt"),
		NewUnitFiles(t, "nodeadm-run.service", "nodeadm/nodeadm-run_service.txt"),
		NewFiles("eks", t, Copy{From: "/etc/eks", To: "eks", Dir: true, SkipOver: 1 << 20}),
	}
}

func cloudInitSources(env Env) []Source {
	t, j := env.Tree, env.Journal
	return []Source{
		NewFiles("var_log/cloud-init", t,
			Copy{From: "/var/log/cloud-init.log", To: "var_log/cloud-init.log", Tail: env.TailBytes},
			Copy{From: "/var/log/cloud-init-output.log", To: "var_log/cloud-init-output.log", Tail: env.TailBytes},
			Copy{From: "/var/log/user-data.log", To: "var_log/user-data.log", Tail: env.TailBytes},
		),
		NewFiles("cloud-init/state", t,
			Copy{From: "/run/cloud-init/result.json", To: "cloud-init/result.json"},
			Copy{From: "/run/cloud-init/status.json", To: "cloud-init/status.json"},
			// /run is gone on a volume mounted elsewhere; cloud-init keeps
			// the same files under /var/lib/cloud/data.
			Copy{From: "/var/lib/cloud/data/result.json", To: "cloud-init/result.json", Fallback: true},
			Copy{From: "/var/lib/cloud/data/status.json", To: "cloud-init/status.json", Fallback: true},
		),
		NewJournalUnit("cloud-init/journal", j, "cloud-init/cloud-init-journal.log",
			"cloud-init-local", "cloud-init", "cloud-config", "cloud-final", "cloud-init-main", "cloud-init-network"),
	}
}

func kubeletSources(env Env) []Source {
	t, j := env.Tree, env.Journal
	return []Source{
		NewFiles("kubelet/config", t,
			Copy{From: "/etc/kubernetes/kubelet/config.json", To: "kubelet/config.json"},
			Copy{From: "/etc/kubernetes/kubelet/config.json.d", To: "kubelet/config.json.d", Dir: true},
			Copy{From: "/etc/kubernetes/kubelet/kubelet-config.json", To: "kubelet/kubelet-config.json"},
			Copy{From: "/etc/kubernetes/pki/ca.crt", To: "kubelet/ca.crt"},
		),
		NewKubeconfig(t, "kubelet/kubeconfig.yaml"),
		NewUnitFiles(t, "kubelet.service", "kubelet/kubelet_service.txt"),
		NewJournalUnit("kubelet/journal", j, "kubelet/kubelet.log", "kubelet"),
	}
}

func containerdSources(env Env) []Source {
	t, j := env.Tree, env.Journal
	sources := []Source{
		NewFiles("containerd/config", t,
			Copy{From: "/etc/containerd/config.toml", To: "containerd/config.toml"},
			Copy{From: "/etc/containerd/config.d", To: "containerd/config.d", Dir: true},
		),
		NewUnitFiles(t, "containerd.service", "containerd/containerd_service.txt"),
		NewJournalUnit("containerd/journal", j, "containerd/containerd-log.txt", "containerd"),
		NewJournalUnit("sandbox-image/journal", j, "sandbox-image/sandbox-image-log.txt", "sandbox-image"),
		NewCommand("containerd/config-dump", t, "containerd/containerd-config.txt", "containerd", "config", "dump"),
		NewCommand("containerd/version", t, "containerd/containerd-version.txt", "ctr", "version"),
		NewCommand("containerd/images", t, "containerd/containerd-images.txt", "ctr", "--namespace", "k8s.io", "images", "list"),
		NewCommand("containerd/containers", t, "containerd/containerd-containers.txt", "ctr", "--namespace", "k8s.io", "containers", "list"),
		NewCommand("containerd/tasks", t, "containerd/containerd-tasks.txt", "ctr", "--namespace", "k8s.io", "tasks", "list"),
		NewCommand("containerd/namespaces", t, "containerd/containerd-namespaces.txt", "ctr", "namespaces", "list"),
		NewCommand("containerd/plugins", t, "containerd/containerd-plugins.txt", "ctr", "--namespace", "k8s.io", "plugins", "list"),
		NewFiles("cni", t, Copy{From: "/etc/cni/net.d", To: "cni", Dir: true, SkipOver: 1 << 20}),
		NewLive("cni/aws-node-container", t, "cni/cni-configuration-variables-containerd.json", VPCCNIContainerInfo).
			WithDeadline(stepsDeadline),
	}
	return append(sources, dockerSources(t)...)
}

// stepsDeadline bounds a live reader that runs a tool several times, each
// run within stepTimeout.
const stepsDeadline = 45 * time.Second

// dockerSocket exists when dockerd runs (AL2 nodes may still have it).
const dockerSocket = "/var/run/docker.sock"

// dockerSources describe dockerd, on nodes where it runs.
func dockerSources(t *Tree) []Source {
	running := PathExists(dockerSocket)
	return []Source{
		NewCommand("docker/info", t, "docker/docker-info.txt", "docker", "info").OnlyIf(running),
		NewCommand("docker/ps", t, "docker/docker-ps.txt", "docker", "ps", "--all", "--no-trunc").OnlyIf(running),
		NewCommand("docker/images", t, "docker/docker-images.txt", "docker", "images").OnlyIf(running),
		NewCommand("docker/version", t, "docker/docker-version.txt", "docker", "version").OnlyIf(running),
	}
}

func systemSources(env Env) []Source {
	t := env.Tree
	sources := []Source{
		NewFiles("system/release", t,
			Copy{From: "/etc/os-release", To: "system/os-release"},
			Copy{From: "/etc/hostname", To: "system/hostname"},
			Copy{From: "/etc/fstab", To: "storage/fstab.txt"},
			Copy{From: "/proc/stat", To: "system/procstat.txt", LiveOnly: true},
			Copy{From: "/proc/meminfo", To: "system/meminfo.txt", LiveOnly: true},
			Copy{From: "/proc/cmdline", To: "kernel/cmdline.txt", LiveOnly: true},
		),
		NewFiles("sysctls/config", t,
			Copy{From: "/etc/sysctl.conf", To: "sysctls/sysctl.conf"},
			Copy{From: "/etc/sysctl.d", To: "sysctls/sysctl.d", Dir: true},
		),
		NewLive("kernel/uname", t, "kernel/uname.txt", Uname),
		NewLive("system/uptime", t, "system/uptime.txt", Uptime),
		NewLive("storage/mounts", t, "storage/mounts.txt", Mounts),
		NewLive("storage/inodes", t, "storage/inodes.txt", Inodes),
		NewLive("sysctls/all", t, "sysctls/sysctl_all.txt", Sysctls),
		NewLive("modinfo/ip_vs", t, "modinfo/ip_vs", Modules("ip_vs", "nf_conntrack")),
		NewCommand("system/ps", t, "system/ps.txt", "ps", "fauxwww", "--headers").WithFallback(liveFallback(Processes)),
		NewCommand("system/top", t, "system/top.txt", "top", "-b", "-n", "1"),
		NewCommand("system/services", t, "system/services.txt", "systemctl", "list-units", "--all", "--no-pager"),
		NewCommand("system/failed-units", t, "system/failed-units.txt", "systemctl", "list-units", "--failed", "--all", "--no-pager"),
		NewCommand("system/pkglist-rpm", t, "system/pkglist.txt", "rpm", "-qa").WithTimeout(30 * time.Second),
		NewCommand("system/pkglist-dpkg", t, "system/pkglist-dpkg.txt", "dpkg", "--list").WithTimeout(30 * time.Second),
		NewCommand("system/selinux", t, "system/selinux.txt", "getenforce"),
		NewCommand("system/last-reboot", t, "system/last_reboot.txt", "last", "reboot"),
		NewCommand("system/timedatectl", t, "system/timedatectl.txt", "timedatectl", "status"),
		NewCommand("system/chrony-tracking", t, "system/chrony-tracking.txt", "chronyc", "tracking"),
		NewCommand("system/chrony-sources", t, "system/chrony-sources.txt", "chronyc", "sources", "-v"),
		NewCommand("storage/lsblk", t, "storage/lsblk.txt", "lsblk"),
	}
	return append(append(sources, processSources(t)...), storageSources(t)...)
}

// processSources describe the processes: threads, sockets, per-process
// counters, CPU and block I/O throttling.
func processSources(t *Tree) []Source {
	return []Source{
		NewCommand("system/ps-threads", t, "system/ps-threads.txt", "ps", "-eTF", "--headers"),
		NewCommand("system/netstat", t, "system/netstat.txt", "netstat", "-plant"),
		NewLive("system/allprocstat", t, "system/allprocstat.txt", AllProcStat("/proc")),
		NewLive("system/large-environments", t, "system/large_environments.txt", LargeEnvironments("/proc")),
		NewLive("system/cpu-throttling", t, "system/cpu_throttling.txt", CPUThrottling("/sys/fs/cgroup", "/proc")),
		NewLive("system/io-throttling", t, "system/io_throttling.txt", IOThrottling("/proc")),
		NewCommand("system/systemd-analyze", t, "system/systemd-analyze.svg", "systemd-analyze", "plot"),
		NewCommand("modinfo/lustre", t, "modinfo/lustre", "modinfo", "lustre").OnlyIf(ModuleAvailable("lustre")),
	}
}

// storageSources describe LVM and the XFS file systems.
func storageSources(t *Tree) []Source {
	return []Source{
		NewCommand("storage/lvs", t, "storage/lvs.txt", "lvs"),
		NewCommand("storage/pvs", t, "storage/pvs.txt", "pvs"),
		NewCommand("storage/vgs", t, "storage/vgs.txt", "vgs"),
		NewLive("storage/xfs", t, "storage/xfs.txt", XFSInfo("/proc/self/mounts")).WithDeadline(stepsDeadline),
	}
}

func networkSources(env Env) []Source {
	t := env.Tree
	sources := []Source{
		NewFiles("networking/config", t,
			Copy{From: "/etc/resolv.conf", To: "networking/resolv.conf"},
			Copy{From: "/etc/hosts", To: "networking/hosts"},
			Copy{From: "/usr/lib/systemd/network/*", To: "networking/systemd-network"},
			Copy{From: "/etc/systemd/network/*", To: "networking/systemd-network"},
			Copy{From: "/run/systemd/network/*", To: "networking/systemd-network"},
			Copy{From: "/usr/local/lib/systemd/network/*", To: "networking/systemd-network"},
		),
		NewCommand("networking/ipaddr", t, "networking/ipaddr.txt", "ip", "addr", "show").WithFallback(liveFallback(Addresses)),
		NewCommand("networking/iprule", t, "networking/iprule.txt", "ip", "rule", "show"),
		NewCommand("networking/ip6rule", t, "networking/ip6rule.txt", "ip", "-6", "rule", "show"),
		NewCommand("networking/iproute", t, "networking/iproute.txt", "ip", "route", "show", "table", "all"),
		NewCommand("networking/ip6route", t, "networking/ip6route.txt", "ip", "-6", "route", "show", "table", "all"),
		NewCommand("networking/iptables-save", t, "networking/iptables-save.txt", "iptables-save"),
		NewCommand("networking/ip6tables-save", t, "networking/ip6tables-save.txt", "ip6tables-save"),
		NewCommand("networking/ipvsadm", t, "networking/ipvsadm.txt", "ipvsadm", "--save", "-n"),
		NewCommand("networking/ipset", t, "networking/ipset.txt", "ipset", "--list"),
		NewCommand("networking/conntrack", t, "networking/conntrack.txt", "conntrack", "-S"),
		NewCommand("networking/ss", t, "networking/ss.txt", "ss", "-tanp"),
		NewCommand("networking/ifconfig", t, "networking/ifconfig.txt", "ifconfig"),
		NewCommand("networking/iptables", t, "networking/iptables.txt",
			"iptables", "--wait", "1", "--numeric", "--verbose", "--list"),
		NewCommand("networking/ip6tables", t, "networking/ip6tables.txt",
			"ip6tables", "--wait", "1", "--numeric", "--verbose", "--list"),
		NewLive("networking/ethtool", t, "networking/ethtool.txt", EthtoolStats("/sys/class/net")).WithDeadline(stepsDeadline),
	}
	for _, table := range []string{"mangle", "filter", "nat"} {
		sources = append(sources,
			NewCommand("networking/iptables-"+table, t, "networking/iptables-"+table+".txt",
				"iptables", "--wait", "1", "--numeric", "--verbose", "--list", "--table", table),
			NewCommand("networking/ip6tables-"+table, t, "networking/ip6tables-"+table+".txt",
				"ip6tables", "--wait", "1", "--numeric", "--verbose", "--list", "--table", table))
	}
	for _, ep := range []struct{ name, url string }{
		{"enis.json", "http://127.0.0.1:61679/v1/enis"},
		{"pods.json", "http://127.0.0.1:61679/v1/pods"},
		{"networkutils-env-settings.json", "http://127.0.0.1:61679/v1/networkutils-env-settings"},
		{"ipamd-env-settings.json", "http://127.0.0.1:61679/v1/ipamd-env-settings"},
		{"eni-configs.json", "http://127.0.0.1:61679/v1/eni-configs"},
		{"metrics.json", "http://127.0.0.1:61678/metrics"},
	} {
		sources = append(sources, NewLive("ipamd/"+ep.name, t, "ipamd/"+ep.name, httpGet(ep.url)))
	}
	return sources
}

func kernelSources(env Env) []Source {
	t := env.Tree
	sources := []Source{
		NewFiles("kernel/dmesg-boot", t, Copy{From: "/var/log/dmesg", To: "kernel/dmesg.boot", Tail: env.TailBytes}),
	}
	if !t.Live() {
		return append(sources, NewKernelJournal(env.Journal, "kernel/dmesg.current"))
	}
	return append(sources,
		NewCommand("kernel/dmesg", t, "kernel/dmesg.current", "dmesg").WithFallback(liveFallback(Kmsg)),
		NewCommand("kernel/dmesg-human", t, "kernel/dmesg.human.current", "dmesg", "--ctime"),
	)
}

// podLogPatterns are the pod log folders of /var/log/pods the AWS
// collector copies: the VPC CNI, kube-proxy, CoreDNS and the CSI drivers.
var podLogPatterns = []string{
	"kube-system_aws-node*", "kube-system_cni-metrics-helper*", "kube-system_coredns*",
	"kube-system_kube-proxy*", "kube-system_ebs-csi-*", "kube-system_efs-csi-*",
	"kube-system_fsx-csi-*", "kube-system_fsx-openzfs-csi-*", "kube-system_file-cache-csi-*",
	"kube-system_s3-csi*", "mount-s3_mp-*", "mount-s3_hr-*", "kube-system_eks-pod-identity-agent*",
	"kube-system_eks-node-monitoring-agent*", "kube-system_kube-multus*",
}

func logSources(env Env) []Source {
	t, tail := env.Tree, env.TailBytes
	pods := make([]Copy, 0, len(podLogPatterns))
	for _, p := range podLogPatterns {
		pods = append(pods, Copy{From: "/var/log/pods/" + p, To: "var_log", Dir: true, Tail: tail})
	}
	return []Source{
		NewFiles("var_log/aws-routed-eni", t, Copy{From: "/var/log/aws-routed-eni", To: "var_log/aws-routed-eni", Dir: true, Tail: tail}),
		NewFiles("ipamd/aws-node", t, Copy{From: "/var/run/aws-node", To: "ipamd", Dir: true, SkipOver: 16 << 20}),
		NewFiles("var_log/pods", t, pods...),
		NewFiles("var_log/kube-proxy", t, Copy{From: "/var/log/kube-proxy.log", To: "var_log/kube-proxy.log", Tail: tail}),
		NewFiles("var_log/messages", t, Copy{From: "/var/log/messages", To: "var_log/messages", Tail: tail}),
		NewFiles("var_log/syslog", t,
			Copy{From: "/var/log/syslog", To: "var_log/syslog", Tail: tail},
			Copy{From: "/var/log/cron", To: "var_log/cron", Tail: tail},
			Copy{From: "/var/log/unattended-upgrades", To: "var_log/unattended-upgrades", Dir: true, Tail: tail},
		),
	}
}

func otherUnitSources(env Env) []Source {
	j := env.Journal
	return []Source{
		NewJournalUnit("journal/systemd-networkd", j, "journal/systemd-networkd.log", "systemd-networkd"),
		NewJournalUnit("journal/chronyd", j, "journal/chronyd.log", "chronyd"),
		NewJournalUnit("journal/amazon-ssm-agent", j, "journal/amazon-ssm-agent.log", "amazon-ssm-agent"),
		NewJournalUnit("docker/journal", j, "docker/docker.log", "docker"),
		NewJournalUnit("networking/configure-multicard-interfaces", j, "networking/configure-multicard-interfaces.txt", "configure-multicard-interfaces"),
		NewJournalUnit("containerd/soci-snapshotter", j, "containerd/soci-snapshotter/soci-snapshotter-log.txt", "soci-snapshotter"),
	}
}

// liveFallback adapts a Go reader of the live machine to a command fallback.
func liveFallback(fn func(context.Context, io.Writer) error) func(context.Context, *File) error {
	return func(ctx context.Context, f *File) error { return fn(ctx, f) }
}

// httpGetTimeout bounds a request to a local agent (ipamd introspection).
const httpGetTimeout = 3 * time.Second

// httpGet writes the body of a GET to a local agent of the node.
func httpGet(url string) func(context.Context, io.Writer) error {
	return func(ctx context.Context, w io.Writer) error {
		ctx, cancel := context.WithTimeout(ctx, httpGetTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		client := &http.Client{Transport: &http.Transport{Proxy: nil}}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrSkipped, url, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
		}
		_, err = io.Copy(w, io.LimitReader(resp.Body, 16<<20))
		return err
	}
}
