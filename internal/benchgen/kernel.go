package benchgen

// Kernel messages of a busy EKS node: veth interfaces of pods coming and
// going, ENIs being hot-plugged, BPF programs of the network policy agent
// loading, audit records. Used by kernel/dmesg.current (with the "[ secs ]"
// stamp) and by the syslog file (as "kernel:" lines).

var kernelMakers = newWeighted(
	option{6, func(g *gen, b []byte) []byte {
		b = append(b, "IPv6: ADDRCONF(NETDEV_CHANGE): eni"...)
		b = appendHex(b, g.r, 11)
		return append(b, ": link becomes ready"...)
	}},
	option{5, func(g *gen, b []byte) []byte {
		b = append(b, "eni"...)
		b = appendHex(b, g.r, 11)
		return append(b, ": Caught tx_queue_len zero misconfig"...)
	}},
	option{8, func(g *gen, b []byte) []byte {
		b = append(b, "audit: type=1334 audit("...)
		b = g.now.appendEpochSeconds(b, 3)
		b = append(b, ':')
		b = appendInt(b, 1000+g.r.IntN(900000))
		b = append(b, "): prog-id="...)
		b = appendInt(b, 100+g.r.IntN(9000))
		return append(b, pick(g.r, bpfOps)...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		b = append(b, "kauditd_printk_skb: "...)
		b = appendInt(b, 2+g.r.IntN(40))
		return append(b, " callbacks suppressed"...)
	}},
	option{2, func(g *gen, b []byte) []byte {
		slot := 5 + g.r.IntN(4)
		b = append(b, "pci 0000:00:0"...)
		b = appendInt(b, slot)
		b = append(b, ".0: [1d0f:ec20] type 00 class 0x020000"...)
		return b
	}},
	option{2, func(g *gen, b []byte) []byte {
		slot := 5 + g.r.IntN(4)
		b = append(b, "ena 0000:00:0"...)
		b = appendInt(b, slot)
		b = append(b, ".0: Elastic Network Adapter (ENA) v2.14.1g"...)
		return b
	}},
	option{2, func(g *gen, b []byte) []byte {
		slot := 5 + g.r.IntN(4)
		b = append(b, "ena 0000:00:0"...)
		b = appendInt(b, slot)
		b = append(b, ".0 eth"...)
		b = appendInt(b, slot-4)
		b = append(b, ": renamed from eth0"...)
		return b
	}},
	option{3, func(g *gen, b []byte) []byte {
		b = append(b, "overlayfs: fs on '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/"...)
		b = appendInt(b, 100+g.r.IntN(5000))
		return append(b, "/fs' does not support file handles, falling back to xino=off."...)
	}},
	option{2, func(g *gen, b []byte) []byte {
		b = append(b, "xfs filesystem being remounted at /run/containerd/io.containerd.runtime.v2.task/k8s.io/"...)
		b = appendHex(b, g.r, 64)
		return append(b, "/rootfs/etc/hosts supports timestamps until 2038-01-19 (0x7fffffff)"...)
	}},
	option{1, func(g *gen, b []byte) []byte {
		b = append(b, "IPVS: rr: TCP 172.20.0.10:53 - no destination available"...)
		return b
	}},
	option{2, func(g *gen, b []byte) []byte {
		b = append(b, "audit: type=1130 audit("...)
		b = g.now.appendEpochSeconds(b, 3)
		b = append(b, ':')
		b = appendInt(b, 1000+g.r.IntN(900000))
		b = append(b, "): pid=1 uid=0 auid=4294967295 ses=4294967295 subj=system_u:system_r:init_t:s0 msg='unit=run-containerd-runc-k8s.io-"...)
		b = appendHex(b, g.r, 64)
		return append(b, "-runc.abc123.mount comm=\"systemd\" exe=\"/usr/lib/systemd/systemd\" hostname=? addr=? terminal=? res=success'"...)
	}},
	option{1, func(g *gen, b []byte) []byte {
		b = append(b, "nvme nvme1: "...)
		b = appendInt(b, 2)
		return append(b, "/0/0 default/read/poll queues"...)
	}},
)

var bpfOps = []string{" op=LOAD", " op=UNLOAD", " op=LOAD", " op=UNLOAD"}

// dmesgLine appends one line of kernel/dmesg.current.
func dmesgLine(g *gen, b []byte) []byte {
	b = appendDmesgStamp(g, b)
	return kernelMakers.pick(g)(g, b)
}

// appendDmesgStamp appends "[   12.345678] " for the current time.
func appendDmesgStamp(g *gen, b []byte) []byte {
	since := max(g.now.micros-g.boot, 0)
	b = append(b, '[')
	b = appendPadded(b, since/1_000_000, 5, ' ')
	b = append(b, '.')
	b = appendPadded(b, since%1_000_000, 6, '0')
	return append(b, ']', ' ')
}
