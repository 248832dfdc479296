package benchgen

// /var/log/messages as rsyslog writes it on a node: systemd starting and
// stopping container scopes and mounts, the kernel, the kubelet and
// containerd again (rsyslog copies the journal), chronyd, the SSM agent and
// the DHCP client.

func systemdMessage(g *gen, b []byte) []byte {
	b = g.syslogPrefix(b, "systemd", 1)
	switch g.r.IntN(7) {
	case 0:
		b = append(b, "Started cri-containerd-"...)
		id := len(b)
		b = appendHex(b, g.r, 64)
		b = append(b, ".scope - libcontainer container "...)
		return append(b, b[id:id+64]...)
	case 1:
		b = append(b, "cri-containerd-"...)
		b = appendHex(b, g.r, 64)
		return append(b, ".scope: Deactivated successfully."...)
	case 2:
		b = append(b, "cri-containerd-"...)
		b = appendHex(b, g.r, 64)
		b = append(b, ".scope: Consumed "...)
		b = appendMillis(b, 10_000+g.r.Int64N(90_000_000))
		return append(b, " CPU time."...)
	case 3:
		p := g.pod()
		b = append(b, "Created slice kubepods-besteffort-pod"...)
		b = append(b, p.slicePod()...)
		b = append(b, ".slice - libcontainer container kubepods-besteffort-pod"...)
		b = append(b, p.slicePod()...)
		return append(b, ".slice."...)
	case 4:
		b = append(b, "run-containerd-io.containerd.runtime.v2.task-k8s.io-"...)
		b = appendHex(b, g.r, 64)
		return append(b, "-rootfs.mount: Deactivated successfully."...)
	case 5:
		b = append(b, `var-lib-containerd-tmpmounts-containerd\x2dmount`...)
		b = appendInt(b, 100000000+g.r.IntN(899999999))
		return append(b, ".mount: Deactivated successfully."...)
	default:
		p := g.pod()
		b = append(b, "Removed slice kubepods-burstable-pod"...)
		b = append(b, p.slicePod()...)
		b = append(b, ".slice - libcontainer container kubepods-burstable-pod"...)
		b = append(b, p.slicePod()...)
		return append(b, ".slice."...)
	}
}

func chronydMessage(g *gen, b []byte) []byte {
	b = g.syslogPrefix(b, "chronyd", 1623)
	if g.r.IntN(2) == 0 {
		return append(b, "Selected source 169.254.169.123"...)
	}
	b = append(b, "System clock wrong by 0.000"...)
	b = appendPadded(b, g.r.Int64N(999), 3, '0')
	return append(b, " seconds, adjustment started"...)
}

func ssmMessage(g *gen, b []byte) []byte {
	b = g.syslogPrefix(b, "amazon-ssm-agent", 1702)
	b = g.now.appendDate(b)
	b = append(b, ' ')
	b = g.now.appendClock(b)
	switch g.r.IntN(3) {
	case 0:
		b = append(b, " INFO [CredentialRefresher] Next credential rotation will be in "...)
		b = appendFraction(b, 29, g.r.Int64N(100), 2)
		return append(b, " minutes"...)
	case 1:
		b = append(b, " INFO [ssm-agent-worker] [MessageService] [MGSInteractor] listening reply."...)
		return b
	default:
		b = append(b, " INFO [ssm-agent-worker] [HealthCheck] HealthCheck reporting agent health."...)
		return b
	}
}

func dhcpMessage(g *gen, b []byte) []byte {
	b = g.syslogPrefix(b, "systemd-networkd", 1450)
	if g.r.IntN(2) == 0 {
		b = append(b, "eni"...)
		b = appendHex(b, g.r, 11)
		return append(b, ": Gained IPv6LL"...)
	}
	b = append(b, "ens5: DHCPv4 address "...)
	b = append(b, g.id.ip...)
	return append(b, "/20, gateway 10.0.0.1 acquired from 10.0.0.1"...)
}

func syslogKubelet(g *gen, b []byte) []byte {
	b = g.syslogPrefix(b, "kubelet", pidKubelet)
	return kubeletPayload(g, b)
}

func syslogContainerd(g *gen, b []byte) []byte {
	b = g.syslogPrefix(b, "containerd", pidContainerd)
	return containerdPayload(g, b)
}

func syslogKernel(g *gen, b []byte) []byte {
	b = g.syslogPrefix(b, "kernel", 0)
	return kernelMakers.pick(g)(g, b)
}

var syslogMakers = newWeighted(
	option{30, systemdMessage},
	option{12, syslogKernel},
	option{28, syslogKubelet},
	option{18, syslogContainerd},
	option{3, chronydMessage},
	option{5, ssmMessage},
	option{4, dhcpMessage},
)

// syslogLine appends one line of var_log/messages.
func syslogLine(g *gen, b []byte) []byte {
	return syslogMakers.pick(g)(g, b)
}
