package source

import (
	"testing"
)

// plannedPaths maps the bundle paths that the catalog's copies, commands
// and live readers write to the name of the source writing each.
func plannedPaths(t *testing.T, p Plan) map[string]string {
	t.Helper()
	paths := map[string]string{}
	claim := func(path, name string) {
		if other, ok := paths[path]; ok && other != name {
			t.Errorf("%s is written by both %s and %s", path, other, name)
		}
		paths[path] = name
	}
	for _, s := range p.Sources {
		switch s := s.(type) {
		case *Command:
			claim(s.to, s.name)
		case *Live:
			claim(s.to, s.name)
		case *Files:
			for _, c := range s.copies {
				claim(c.To, s.name)
			}
		}
	}
	return paths
}

// TestCatalogCoversTheAWSCollector checks that the files eks-log-collector.sh
// writes from commands and /proc are planned under the same bundle paths,
// and that no two sources share a name.
func TestCatalogCoversTheAWSCollector(t *testing.T) {
	plan := Catalog(Env{Tree: openTree(t, "/")})
	names := map[string]bool{}
	for _, s := range plan.Sources {
		if names[s.Name()] {
			t.Errorf("two sources are named %s", s.Name())
		}
		names[s.Name()] = true
	}
	paths := plannedPaths(t, plan)
	for _, want := range []string{
		"system/ps.txt", "system/ps-threads.txt", "system/netstat.txt", "system/top.txt",
		"system/procstat.txt", "system/allprocstat.txt", "system/large_environments.txt",
		"system/cpu_throttling.txt", "system/io_throttling.txt", "system/systemd-analyze.svg",
		"system/services.txt", "system/last_reboot.txt", "system/pkglist.txt", "system/selinux.txt",
		"modinfo/lustre", "modinfo/ip_vs", "kernel/uname.txt",
		"docker/docker-info.txt", "docker/docker-ps.txt", "docker/docker-images.txt", "docker/docker-version.txt",
		"containerd/containerd-config.txt", "containerd/containerd-version.txt", "containerd/containerd-namespaces.txt",
		"containerd/containerd-images.txt", "containerd/containerd-containers.txt", "containerd/containerd-tasks.txt",
		"containerd/containerd-plugins.txt", "cni/cni-configuration-variables-containerd.json",
		"storage/mounts.txt", "storage/inodes.txt", "storage/lsblk.txt", "storage/fstab.txt",
		"storage/lvs.txt", "storage/pvs.txt", "storage/vgs.txt", "storage/xfs.txt",
		"networking/iptables.txt", "networking/ip6tables.txt", "networking/iptables-nat.txt", "networking/ip6tables-filter.txt",
		"networking/iptables-save.txt", "networking/ifconfig.txt", "networking/ss.txt", "networking/ethtool.txt",
		"networking/iprule.txt", "networking/ip6route.txt", "networking/conntrack.txt", "networking/resolv.conf",
		"sysctls/sysctl_all.txt",
	} {
		if _, ok := paths[want]; !ok {
			t.Errorf("no source writes %s", want)
		}
	}
	if _, ok := paths["networking/conntrack6.txt"]; ok {
		t.Error("conntrack -L (networking/conntrack6.txt) can be huge and is not collected")
	}
}
