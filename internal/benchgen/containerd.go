package benchgen

// containerd's logfmt lines as the CRI plugin writes them while pods come
// and go: sandboxes, containers, image pulls, shims, exec probes.

// logfmtLine wraps a msg maker with containerd's time and level fields.
func logfmtLine(level string, msg func(g *gen, p *pod, b []byte) []byte) payloadMaker {
	return func(g *gen, b []byte) []byte {
		b = appendLogfmtHead(g, b, level)
		return msg(g, g.pod(), b)
	}
}

// appendLogfmtHead appends `time="..." level=info msg=`.
func appendLogfmtHead(g *gen, b []byte, level string) []byte {
	b = append(b, `time="`...)
	b = g.now.appendRFC3339Nano(b, g.r.IntN(1000))
	b = append(b, `" level=`...)
	b = append(b, level...)
	return append(b, ` msg=`...)
}

var snapshotters = []string{"overlayfs", "soci", "native"}

var probeCommands = []string{
	"[/bin/grpc_health_probe -addr=:50051]",
	"[/app/healthcheck --timeout=2s]",
	"[sh -c pg_isready -U postgres -h 127.0.0.1 -p 5432]",
	"[redis-cli ping]",
	"[/usr/bin/curl -fsS http://127.0.0.1:8080/healthz]",
}

var containerdMakers = newWeighted(
	option{6, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"StartContainer for \"`...)
		b = appendHex(b, g.r, 64)
		return append(b, `\" returns successfully"`...)
	})},
	option{4, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"StartContainer for \"`...)
		b = appendHex(b, g.r, 64)
		return append(b, `\""`...)
	})},
	option{4, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"CreateContainer within sandbox \"`...)
		b = append(b, p.sandbox...)
		b = append(b, `\" for container &ContainerMetadata{Name:`...)
		b = append(b, g.container(p)...)
		b = append(b, `,Attempt:`...)
		b = appendInt(b, g.r.IntN(3))
		return append(b, `,}"`...)
	})},
	option{4, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"CreateContainer within sandbox \"`...)
		b = append(b, p.sandbox...)
		b = append(b, `\" for &ContainerMetadata{Name:`...)
		b = append(b, g.container(p)...)
		b = append(b, `,Attempt:0,} returns container id \"`...)
		b = appendHex(b, g.r, 64)
		return append(b, `\""`...)
	})},
	option{3, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"RunPodSandbox for &PodSandboxMetadata{Name:`...)
		b = append(b, p.name...)
		b = append(b, `,Uid:`...)
		b = append(b, p.uid...)
		b = append(b, `,Namespace:`...)
		b = append(b, p.namespace...)
		return append(b, `,Attempt:0,}"`...)
	})},
	option{3, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"RunPodSandbox for &PodSandboxMetadata{Name:`...)
		b = append(b, p.name...)
		b = append(b, `,Uid:`...)
		b = append(b, p.uid...)
		b = append(b, `,Namespace:`...)
		b = append(b, p.namespace...)
		b = append(b, `,Attempt:0,} returns sandbox id \"`...)
		b = append(b, p.sandbox...)
		return append(b, `\""`...)
	})},
	option{2, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"PullImage \"`...)
		b = append(b, p.image...)
		return append(b, `\""`...)
	})},
	option{2, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"ImageCreate event name:\"`...)
		b = append(b, p.image...)
		b = append(b, `\" labels:{key:\"io.cri-containerd.image\" value:\"managed\"}"`...)
		return b
	})},
	option{2, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"ImageUpdate event name:\"sha256:`...)
		b = appendHex(b, g.r, 64)
		return append(b, `\" labels:{key:\"io.cri-containerd.image\" value:\"managed\"}"`...)
	})},
	option{2, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Pulled image \"`...)
		b = append(b, p.image...)
		b = append(b, `\" with image id \"sha256:`...)
		b = appendHex(b, g.r, 64)
		b = append(b, `\", repo tag \"`...)
		b = append(b, p.image...)
		b = append(b, `\", repo digest \"`...)
		b = append(b, p.image...)
		b = append(b, `@sha256:`...)
		b = appendHex(b, g.r, 64)
		b = append(b, `\", size \"`...)
		b = appendInt(b, 3_000_000+g.r.IntN(300_000_000))
		b = append(b, `\" in `...)
		b = appendMillis(b, 200_000+g.r.Int64N(9_000_000))
		return append(b, '"')
	})},
	option{4, func(g *gen, b []byte) []byte {
		b = appendLogfmtHead(g, b, "info")
		b = append(b, `"shim disconnected" id=`...)
		b = appendHex(b, g.r, 64)
		return append(b, ` namespace=k8s.io`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		b = appendLogfmtHead(g, b, "warning")
		b = append(b, `"cleaning up after shim disconnected" id=`...)
		b = appendHex(b, g.r, 64)
		return append(b, ` namespace=k8s.io`...)
	}},
	option{3, func(g *gen, b []byte) []byte {
		b = appendLogfmtHead(g, b, "info")
		return append(b, `"cleaning up dead shim" namespace=k8s.io`...)
	}},
	option{4, func(g *gen, b []byte) []byte {
		b = appendLogfmtHead(g, b, "info")
		b = append(b, `"connecting to shim `...)
		b = appendHex(b, g.r, 64)
		b = append(b, `" address="unix:///run/containerd/s/`...)
		b = appendHex(b, g.r, 64)
		return append(b, `" namespace=k8s.io protocol=ttrpc version=3`...)
	}},
	option{3, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"StopPodSandbox for \"`...)
		b = append(b, p.sandbox...)
		return append(b, `\""`...)
	})},
	option{3, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"TearDown network for sandbox \"`...)
		b = append(b, p.sandbox...)
		return append(b, `\" successfully"`...)
	})},
	option{3, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"StopPodSandbox for \"`...)
		b = append(b, p.sandbox...)
		return append(b, `\" returns successfully"`...)
	})},
	option{3, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"RemoveContainer for \"`...)
		b = appendHex(b, g.r, 64)
		return append(b, `\" returns successfully"`...)
	})},
	option{5, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"ExecSync for \"`...)
		b = appendHex(b, g.r, 64)
		b = append(b, `\" with command `...)
		b = append(b, pick(g.r, probeCommands)...)
		return append(b, ` and timeout 5 (s)"`...)
	})},
	option{5, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Finish piping \"stdout\" of container exec \"`...)
		b = appendHex(b, g.r, 64)
		return append(b, `\""`...)
	})},
	option{5, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"ExecSync for \"`...)
		b = appendHex(b, g.r, 64)
		return append(b, `\" returns with exit code 0"`...)
	})},
	option{1, func(g *gen, b []byte) []byte {
		b = appendLogfmtHead(g, b, "info")
		b = append(b, `"loading plugin" id=io.containerd.snapshotter.v1.`...)
		b = append(b, pick(g.r, snapshotters)...)
		return append(b, ` type=io.containerd.snapshotter.v1`...)
	}},
	option{2, logfmtLine("info", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"container event discarded" container=`...)
		b = appendHex(b, g.r, 64)
		return append(b, ` type=CONTAINER_STOPPED_EVENT`...)
	})},
)

// containerdPayload appends one containerd logfmt message.
func containerdPayload(g *gen, b []byte) []byte {
	return containerdMakers.pick(g)(g, b)
}

// containerdJournalLine appends one line of containerd/containerd-log.txt.
func containerdJournalLine(g *gen, b []byte) []byte {
	b = g.journalPrefix(b, "containerd", pidContainerd)
	return containerdPayload(g, b)
}
