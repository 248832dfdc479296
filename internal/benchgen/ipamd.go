package benchgen

// The Amazon VPC CNI's zap JSON lines: ipamd.log (the IP address manager
// reconciling its pool and answering the plugin) and plugin.log (the CNI
// binary called for each pod sandbox).

// appendZapHead appends `{"level":"info","ts":"...","caller":"...","msg":"`.
func appendZapHead(g *gen, b []byte, level, caller string) []byte {
	b = append(b, `{"level":"`...)
	b = append(b, level...)
	b = append(b, `","ts":"`...)
	b = g.now.appendZapISO(b)
	b = append(b, `","caller":"`...)
	b = append(b, caller...)
	return append(b, `","msg":"`...)
}

// appendPodIP appends the address of one of the node's pods.
func appendPodIP(g *gen, b []byte) []byte {
	return append(b, g.pod().ip...)
}

var ipamdMakers = newWeighted(
	option{6, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/ipamd.go:1525")
		b = append(b, "IP pool stats for network card 0: Total IPs/Prefixes = "...)
		total := 28 + g.r.IntN(3)*14
		b = appendInt(b, total)
		b = append(b, "/0, AssignedIPs/CooldownIPs: "...)
		b = appendInt(b, 5+g.r.IntN(total-5))
		b = append(b, '/')
		b = appendInt(b, g.r.IntN(3))
		return append(b, `, c.maxIPsPerENI = 14"}`...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/ipamd.go:1473")
		b = append(b, "Reconciling ENI/IP pool info because time since last "...)
		b = appendMillis(b, 60_000_000+g.r.Int64N(2_000_000))
		return append(b, ` > 1m0s"}`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/ipamd.go:1493")
		b = append(b, "Total number of interfaces found: "...)
		b = appendInt(b, 1+g.r.IntN(3))
		return append(b, ` "}`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/ipamd.go:1644")
		b = append(b, "Reconcile existing ENI "...)
		b = append(b, pick(g.r, g.id.eniIDs)...)
		return append(b, ` IP pool"}`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/ipamd.go:1669")
		b = append(b, "Found ENIs having "...)
		b = appendInt(b, 9+g.r.IntN(6))
		return append(b, ` secondary IPs and 0 Prefixes"}`...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "info", "rpc/rpc.pb.go:863")
		b = append(b, "Received AddNetwork for NS /var/run/netns/cni-"...)
		b = appendUUID(b, g.r)
		b = append(b, ", Sandbox "...)
		b = append(b, p.sandbox...)
		return append(b, `, ifname eth0"}`...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "debug", "rpc/rpc.pb.go:863")
		b = append(b, "AddNetworkRequest: K8S_POD_NAME:\\\""...)
		b = append(b, p.name...)
		b = append(b, `\" K8S_POD_NAMESPACE:\"`...)
		b = append(b, p.namespace...)
		b = append(b, `\" K8S_POD_INFRA_CONTAINER_ID:\"`...)
		b = append(b, p.sandbox...)
		b = append(b, `\" ContainerID:\"`...)
		b = append(b, p.sandbox...)
		b = append(b, `\" IfName:\"eth0\" NetworkName:\"aws-cni\" Netns:\"/var/run/netns/cni-`...)
		b = appendUUID(b, g.r)
		return append(b, `\""}`...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "info", "datastore/data_store.go:899")
		b = append(b, "AssignPodIPv4Address: Assign IP "...)
		b = append(b, p.ip...)
		b = append(b, " to sandbox aws-cni/"...)
		b = append(b, p.sandbox...)
		return append(b, `/eth0"}`...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "info", "rpc/rpc.pb.go:881")
		b = append(b, "Send AddNetworkReply: IPv4Addr: "...)
		b = appendPodIP(g, b)
		b = append(b, ", IPv6Addr: , DeviceNumber: "...)
		b = appendInt(b, g.r.IntN(3))
		return append(b, `, err: <nil>"}`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "info", "rpc/rpc.pb.go:881")
		b = append(b, "Received DelNetwork for Sandbox "...)
		b = append(b, p.sandbox...)
		return append(b, `"}`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "debug", "datastore/data_store.go:1283")
		b = append(b, "UnassignPodIPAddress: sandbox aws-cni/"...)
		b = append(b, p.sandbox...)
		b = append(b, "/eth0's ipAddr "...)
		b = append(b, p.ip...)
		b = append(b, ", DeviceNumber "...)
		b = appendInt(b, g.r.IntN(3))
		return append(b, `"}`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "info", "datastore/data_store.go:1317")
		b = append(b, "Unassigned IP "...)
		b = append(b, p.ip...)
		b = append(b, " from sandbox aws-cni/"...)
		b = append(b, p.sandbox...)
		return append(b, `/eth0"}`...)
	}},
	option{2, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/ipamd.go:767")
		b = append(b, "IP pool is too low: available ("...)
		b = appendInt(b, 3+g.r.IntN(5))
		return append(b, `) vs pool size (14); warmIPTarget 0, warmENITarget 1, minimumIPTarget 0"}`...)
	}},
	option{2, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/ipamd.go:1110")
		b = append(b, "Node found \\\""...)
		b = append(b, g.id.hostname...)
		b = append(b, "\\\" - labels - "...)
		b = appendInt(b, 18+g.r.IntN(4))
		return append(b, `"}`...)
	}},
	option{2, func(g *gen, b []byte) []byte {
		b = appendZapHead(g, b, "debug", "ipamd/introspect.go:102")
		b = append(b, "Handling http request: GET, from: 127.0.0.1:"...)
		b = appendInt(b, 32768+g.r.IntN(28000))
		b = append(b, ", URI: /v1/"...)
		b = append(b, pick(g.r, introspectPaths)...)
		return append(b, `"}`...)
	}},
)

var introspectPaths = []string{"enis", "pods", "networkutils-env-settings", "ipamd-env-settings", "eni-configs"}

var pluginMakers = newWeighted(
	option{3, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "info", "routed-eni-cni-plugin/cni.go:125")
		b = append(b, "Received CNI add request: ContainerID("...)
		b = append(b, p.sandbox...)
		b = append(b, ") Netns(/var/run/netns/cni-"...)
		b = appendUUID(b, g.r)
		b = append(b, ") IfName(eth0) Args(K8S_POD_INFRA_CONTAINER_ID="...)
		b = append(b, p.sandbox...)
		b = append(b, ";K8S_POD_UID="...)
		b = append(b, p.uid...)
		b = append(b, ";IgnoreUnknown=1;K8S_POD_NAMESPACE="...)
		b = append(b, p.namespace...)
		b = append(b, ";K8S_POD_NAME="...)
		b = append(b, p.name...)
		return append(b, `) Path(/opt/cni/bin) argsStdinData({\"cniVersion\":\"0.4.0\",\"mtu\":\"9001\",\"name\":\"aws-cni\",\"pluginLogFile\":\"/var/log/aws-routed-eni/plugin.log\",\"pluginLogLevel\":\"DEBUG\",\"podSGEnforcingMode\":\"strict\",\"type\":\"aws-cni\",\"vethPrefix\":\"eni\"})"}`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "info", "routed-eni-cni-plugin/cni.go:283")
		b = append(b, "Received add network response from ipamd for container "...)
		b = append(b, p.sandbox...)
		b = append(b, " interface eth0: Success:true IPAllocationMetadata:{IPv4Addr:\\\""...)
		b = append(b, p.ip...)
		b = append(b, `\" RouteTableId:254} VPCv4CIDRs:\"10.0.0.0/16\""}`...)
		return b
	}},
	option{2, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "debug", "driver/driver.go:289")
		b = append(b, "SetupPodNetwork: hostVethName=eni"...)
		b = appendHex(b, g.r, 11)
		b = append(b, ", contVethName=eth0, netnsPath=/var/run/netns/cni-"...)
		b = appendUUID(b, g.r)
		b = append(b, ", v4Addr="...)
		b = append(b, p.ip...)
		return append(b, `/32, v6Addr=<nil>, deviceNumber=0, mtu=9001"}`...)
	}},
	option{2, func(g *gen, b []byte) []byte {
		p := g.pod()
		b = appendZapHead(g, b, "info", "routed-eni-cni-plugin/cni.go:384")
		b = append(b, "Received CNI del request: ContainerID("...)
		b = append(b, p.sandbox...)
		b = append(b, ") Netns(/var/run/netns/cni-"...)
		b = appendUUID(b, g.r)
		b = append(b, ") IfName(eth0) Args(K8S_POD_NAMESPACE="...)
		b = append(b, p.namespace...)
		b = append(b, ";K8S_POD_NAME="...)
		b = append(b, p.name...)
		return append(b, `) Path(/opt/cni/bin)"}`...)
	}},
)

// ipamdLine appends one line of var_log/aws-routed-eni/ipamd.log.
func ipamdLine(g *gen, b []byte) []byte {
	return ipamdMakers.pick(g)(g, b)
}

// pluginLine appends one line of var_log/aws-routed-eni/plugin.log.
func pluginLine(g *gen, b []byte) []byte {
	return pluginMakers.pick(g)(g, b)
}
