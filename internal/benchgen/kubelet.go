package benchgen

// The kubelet's everyday klog lines: volume reconciling, the sync loop, pod
// lifecycle events, the CPU and memory managers, status patches. None of
// them is an error a signature should report; the few warnings are the
// harmless ones every node has.

// klogLine wraps a body maker with its klog level and source location.
func klogLine(level byte, src string, body func(g *gen, p *pod, b []byte) []byte) payloadMaker {
	return func(g *gen, b []byte) []byte {
		b = g.klogHeader(b, level, pidKubelet, src)
		return body(g, g.pod(), b)
	}
}

// appendPodRef appends ` pod="ns/name"`.
func appendPodRef(b []byte, p *pod) []byte {
	b = append(b, ` pod="`...)
	b = append(b, p.key...)
	return append(b, '"')
}

// appendVolumeSpec appends the part of a volume message that names the
// volume, its unique name and its pod.
func appendVolumeSpec(g *gen, p *pod, b []byte) []byte {
	v := g.volume(p)
	b = append(b, `for volume \"`...)
	b = append(b, v...)
	b = append(b, `\" (UniqueName: \"kubernetes.io/`...)
	b = append(b, pick(g.r, volumePlugins)...)
	b = append(b, '/')
	b = append(b, p.uid...)
	b = append(b, '-')
	b = append(b, v...)
	b = append(b, `\") pod \"`...)
	b = append(b, p.name...)
	b = append(b, `\" (UID: \"`...)
	b = append(b, p.uid...)
	return append(b, `\")`...)
}

var volumePlugins = []string{"projected", "configmap", "secret", "host-path", "empty-dir", "csi"}

var podEventTypes = []string{"ContainerStarted", "ContainerDied", "ContainerStarted", "ContainerStarted"}

var exitCodes = []string{"0", "0", "0", "0", "137", "143", "1"}

var nodeEvents = []string{"NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"}

var probeKinds = []string{"readiness", "liveness", "startup"}

var probeStatuses = []string{"ready", "started", ""}

var gracePeriods = []string{"30", "30", "60", "10", "120"}

var configKinds = []string{"*v1.ConfigMap", "*v1.Secret", "*v1.Service", "*v1.Node", "*v1.Pod", "*v1.CSIDriver", "*v1.RuntimeClass"}

var kubeletMakers = newWeighted(
	option{8, klogLine('I', "reconciler_common.go:251", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"operationExecutor.VerifyControllerAttachedVolume started `...)
		b = appendVolumeSpec(g, p, b)
		b = append(b, ` "`...)
		return appendPodRef(b, p)
	})},
	option{8, klogLine('I', "reconciler_common.go:224", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"operationExecutor.MountVolume started `...)
		b = appendVolumeSpec(g, p, b)
		b = append(b, ` "`...)
		return appendPodRef(b, p)
	})},
	option{8, klogLine('I', "operation_generator.go:664", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"MountVolume.SetUp succeeded `...)
		b = appendVolumeSpec(g, p, b)
		b = append(b, ` "`...)
		return appendPodRef(b, p)
	})},
	option{4, klogLine('I', "reconciler_common.go:162", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"operationExecutor.UnmountVolume started `...)
		b = appendVolumeSpec(g, p, b)
		return append(b, ` "`...)
	})},
	option{4, klogLine('I', "operation_generator.go:781", func(g *gen, p *pod, b []byte) []byte {
		v := g.volume(p)
		b = append(b, `"UnmountVolume.TearDown succeeded for volume \"kubernetes.io/projected/`...)
		b = append(b, p.uid...)
		b = append(b, '-')
		b = append(b, v...)
		b = append(b, `\" (OuterVolumeSpecName: \"`...)
		b = append(b, v...)
		b = append(b, `\") pod \"`...)
		b = append(b, p.uid...)
		b = append(b, `\" (UID: \"`...)
		b = append(b, p.uid...)
		b = append(b, `\"). InnerVolumeSpecName \"`...)
		b = append(b, v...)
		b = append(b, `\". PluginName \"kubernetes.io/projected\", VolumeGIDValue \"\""`...)
		return b
	})},
	option{3, klogLine('I', "reconciler_common.go:299", func(g *gen, p *pod, b []byte) []byte {
		v := g.volume(p)
		b = append(b, `"Volume detached for volume \"`...)
		b = append(b, v...)
		b = append(b, `\" (UniqueName: \"kubernetes.io/projected/`...)
		b = append(b, p.uid...)
		b = append(b, '-')
		b = append(b, v...)
		b = append(b, `\") on node \"`...)
		b = append(b, g.id.hostname...)
		return append(b, `\" DevicePath \"\""`...)
	})},
	option{4, klogLine('I', "kubelet.go:2528", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"SyncLoop ADD" source="api" pods=["`...)
		b = append(b, p.key...)
		return append(b, `"]`...)
	})},
	option{6, klogLine('I', "kubelet.go:2535", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"SyncLoop UPDATE" source="api" pods=["`...)
		b = append(b, p.key...)
		return append(b, `"]`...)
	})},
	option{2, klogLine('I', "kubelet.go:2544", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"SyncLoop DELETE" source="api" pods=["`...)
		b = append(b, p.key...)
		return append(b, `"]`...)
	})},
	option{2, klogLine('I', "kubelet.go:2538", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"SyncLoop REMOVE" source="api" pods=["`...)
		b = append(b, p.key...)
		return append(b, `"]`...)
	})},
	option{8, klogLine('I', "kubelet.go:2573", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"SyncLoop (PLEG): event for pod"`...)
		b = appendPodRef(b, p)
		b = append(b, ` event={"ID":"`...)
		b = append(b, p.uid...)
		b = append(b, `","Type":"`...)
		b = append(b, pick(g.r, podEventTypes)...)
		b = append(b, `","Data":"`...)
		b = appendHex(b, g.r, 64)
		return append(b, `"}`...)
	})},
	option{6, klogLine('I', "kubelet.go:2660", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"SyncLoop (probe)" probe="`...)
		b = append(b, pick(g.r, probeKinds)...)
		b = append(b, `" status="`...)
		b = append(b, pick(g.r, probeStatuses)...)
		b = append(b, '"')
		return appendPodRef(b, p)
	})},
	option{4, klogLine('I', "generic.go:358", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Generic (PLEG): container finished" podID="`...)
		b = append(b, p.uid...)
		b = append(b, `" containerID="`...)
		b = appendHex(b, g.r, 64)
		b = append(b, `" exitCode=`...)
		return append(b, pick(g.r, exitCodes)...)
	})},
	option{3, klogLine('I', "pod_startup_latency_tracker.go:104", func(g *gen, p *pod, b []byte) []byte {
		slo := 800_000 + g.r.Int64N(9_000_000)
		b = append(b, `"Observed pod startup duration"`...)
		b = appendPodRef(b, p)
		b = append(b, ` podStartSLOduration=`...)
		b = appendFraction(b, slo/1_000_000, slo%1_000_000*1000+g.r.Int64N(1000), 9)
		b = append(b, ` podStartE2EDuration="`...)
		b = appendMillis(b, slo+g.r.Int64N(30_000_000))
		b = append(b, `" podCreationTimestamp="`...)
		b = g.now.appendDate(b)
		b = append(b, ' ')
		b = g.now.appendClock(b)
		b = append(b, ` +0000 UTC" firstStartedPulling="0001-01-01 00:00:00 +0000 UTC" lastFinishedPulling="0001-01-01 00:00:00 +0000 UTC" observedRunningTime="`...)
		b = g.now.appendDate(b)
		b = append(b, ' ')
		b = g.now.appendClock(b)
		b = append(b, '.')
		b = appendPadded(b, g.r.Int64N(1_000_000_000), 9, '0')
		b = append(b, ` +0000 UTC m=+`...)
		b = appendFraction(b, 20+g.r.Int64N(800_000), g.r.Int64N(1_000_000_000), 9)
		return append(b, '"')
	})},
	option{2, klogLine('I', "kuberuntime_manager.go:1164", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"No sandbox for pod can be found. Need to start a new one"`...)
		return appendPodRef(b, p)
	})},
	option{5, klogLine('I', "event.go:389", func(g *gen, p *pod, b []byte) []byte {
		c := g.container(p)
		b = append(b, `"Event occurred" object="`...)
		b = append(b, p.key...)
		b = append(b, `" fieldPath="spec.containers{`...)
		b = append(b, c...)
		b = append(b, `}" kind="Pod" apiVersion="v1" type="Normal" reason="Pulled" message="Container image \"`...)
		b = append(b, p.image...)
		return append(b, `\" already present on machine"`...)
	})},
	option{3, klogLine('I', "event.go:389", func(g *gen, p *pod, b []byte) []byte {
		c := g.container(p)
		b = append(b, `"Event occurred" object="`...)
		b = append(b, p.key...)
		b = append(b, `" fieldPath="spec.containers{`...)
		b = append(b, c...)
		b = append(b, `}" kind="Pod" apiVersion="v1" type="Normal" reason="Created" message="Created container: `...)
		b = append(b, c...)
		return append(b, '"')
	})},
	option{3, klogLine('I', "event.go:389", func(g *gen, p *pod, b []byte) []byte {
		c := g.container(p)
		b = append(b, `"Event occurred" object="`...)
		b = append(b, p.key...)
		b = append(b, `" fieldPath="spec.containers{`...)
		b = append(b, c...)
		b = append(b, `}" kind="Pod" apiVersion="v1" type="Normal" reason="Started" message="Started container `...)
		b = append(b, c...)
		return append(b, '"')
	})},
	option{2, klogLine('I', "event.go:389", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Event occurred" object="`...)
		b = append(b, p.key...)
		b = append(b, `" fieldPath="spec.containers{`...)
		b = append(b, g.container(p)...)
		b = append(b, `}" kind="Pod" apiVersion="v1" type="Normal" reason="Pulling" message="Pulling image \"`...)
		b = append(b, p.image...)
		return append(b, `\""`...)
	})},
	option{2, klogLine('I', "event.go:389", func(g *gen, p *pod, b []byte) []byte {
		took := 300_000 + g.r.Int64N(12_000_000)
		b = append(b, `"Event occurred" object="`...)
		b = append(b, p.key...)
		b = append(b, `" fieldPath="spec.containers{`...)
		b = append(b, g.container(p)...)
		b = append(b, `}" kind="Pod" apiVersion="v1" type="Normal" reason="Pulled" message="Successfully pulled image \"`...)
		b = append(b, p.image...)
		b = append(b, `\" in `...)
		b = appendMillis(b, took)
		b = append(b, ` (`...)
		b = appendMillis(b, took+g.r.Int64N(200_000))
		b = append(b, ` including waiting). Image size: `...)
		b = appendInt(b, 4_000_000+g.r.IntN(400_000_000))
		return append(b, ` bytes."`...)
	})},
	option{2, klogLine('I', "kuberuntime_container.go:808", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Killing container with a grace period"`...)
		b = appendPodRef(b, p)
		b = append(b, ` podUID="`...)
		b = append(b, p.uid...)
		b = append(b, `" containerName="`...)
		b = append(b, g.container(p)...)
		b = append(b, `" containerID="containerd://`...)
		b = appendHex(b, g.r, 64)
		b = append(b, `" gracePeriod=`...)
		return append(b, pick(g.r, gracePeriods)...)
	})},
	option{3, klogLine('I', "scope.go:117", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"RemoveContainer" containerID="`...)
		b = appendHex(b, g.r, 64)
		return append(b, '"')
	})},
	option{2, klogLine('I', "kubelet_volumes.go:163", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Cleaned up orphaned pod volumes dir" podUID="`...)
		b = append(b, p.uid...)
		b = append(b, `" path="/var/lib/kubelet/pods/`...)
		b = append(b, p.uid...)
		return append(b, `/volumes"`...)
	})},
	option{2, klogLine('I', "topology_manager.go:215", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Topology Admit Handler" podUID="`...)
		b = append(b, p.uid...)
		b = append(b, `" podNamespace="`...)
		b = append(b, p.namespace...)
		b = append(b, `" podName="`...)
		b = append(b, p.name...)
		return append(b, '"')
	})},
	option{2, klogLine('I', "cpu_manager.go:410", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"RemoveStaleState: removing container" podUID="`...)
		b = append(b, p.uid...)
		b = append(b, `" containerName="`...)
		b = append(b, g.container(p)...)
		return append(b, '"')
	})},
	option{2, klogLine('I', "state_mem.go:107", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Deleted CPUSet assignment" podUID="`...)
		b = append(b, p.uid...)
		b = append(b, `" containerName="`...)
		b = append(b, g.container(p)...)
		return append(b, '"')
	})},
	option{2, klogLine('I', "memory_manager.go:354", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"RemoveStaleState removing state" podUID="`...)
		b = append(b, p.uid...)
		b = append(b, `" containerName="`...)
		b = append(b, g.container(p)...)
		return append(b, '"')
	})},
	option{5, klogLine('I', "status_manager.go:911", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Patch status for pod"`...)
		b = appendPodRef(b, p)
		b = append(b, ` podUID="`...)
		b = append(b, p.uid...)
		b = append(b, `" patch="{\"metadata\":{\"uid\":\"`...)
		b = append(b, p.uid...)
		b = append(b, `\"},\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"PodReadyToStartContainers\"},{\"type\":\"Initialized\"},{\"type\":\"Ready\"},{\"type\":\"ContainersReady\"},{\"type\":\"PodScheduled\"}],\"conditions\":[{\"lastTransitionTime\":\"`...)
		b = g.now.appendDate(b)
		b = append(b, 'T')
		b = g.now.appendClock(b)
		b = append(b, `Z\",\"status\":\"True\",\"type\":\"Ready\"}],\"containerStatuses\":[{\"containerID\":\"containerd://`...)
		b = appendHex(b, g.r, 64)
		b = append(b, `\",\"name\":\"`...)
		b = append(b, g.container(p)...)
		b = append(b, `\",\"ready\":true,\"restartCount\":`...)
		b = appendInt(b, g.r.IntN(3))
		b = append(b, `,\"started\":true}],\"podIP\":\"`...)
		b = append(b, p.ip...)
		return append(b, `\"}}"`...)
	})},
	option{3, klogLine('I', "volume_manager.go:404", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Waiting for volumes to attach and mount for pod"`...)
		return appendPodRef(b, p)
	})},
	option{3, klogLine('I', "volume_manager.go:435", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"All volumes are attached and mounted for pod"`...)
		return appendPodRef(b, p)
	})},
	option{2, klogLine('I', "reflector.go:430", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Caches populated" type="`...)
		b = append(b, pick(g.r, configKinds)...)
		b = append(b, `" reflector="object-\"`...)
		b = append(b, p.namespace...)
		b = append(b, `\"/\"`...)
		b = append(b, g.volume(p)...)
		return append(b, `\""`...)
	})},
	option{2, klogLine('I', "kubelet_pods.go:259", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Creating hosts mount for container"`...)
		b = appendPodRef(b, p)
		b = append(b, ` containerName="`...)
		b = append(b, g.container(p)...)
		b = append(b, `" podIPs=["`...)
		b = append(b, p.ip...)
		return append(b, `"] path=true`...)
	})},
	option{2, klogLine('I', "event.go:389", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Event occurred" object="`...)
		b = append(b, p.key...)
		b = append(b, `" fieldPath="" kind="Pod" apiVersion="v1" type="Normal" reason="SandboxChanged" message="Pod sandbox changed, it will be killed and re-created."`...)
		return b
	})},
	option{2, klogLine('W', "watcher.go:93", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `Error while processing event ("/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod`...)
		b = append(b, p.slicePod()...)
		b = append(b, `.slice/cri-containerd-`...)
		b = appendHex(b, g.r, 64)
		b = append(b, `.scope": 0x40000100 == IN_CREATE|IN_ISDIR): inotify_add_watch /sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod`...)
		b = append(b, p.slicePod()...)
		return append(b, `.slice: no such file or directory`...)
	})},
	option{1, klogLine('E', "cadvisor_stats_provider.go:525", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Partial failure issuing cadvisor.ContainerInfoV2" err="partial failures: [\"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod`...)
		b = append(b, p.slicePod()...)
		b = append(b, `.slice/cri-containerd-`...)
		b = appendHex(b, g.r, 64)
		return append(b, `.scope\": RecentStats: unable to find data in memory cache]"`...)
	})},
	option{2, klogLine('I', "kubelet_getters.go:218", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Pod status updated"`...)
		b = appendPodRef(b, p)
		return append(b, ` status="Running"`...)
	})},
	option{1, klogLine('I', "container_gc.go:88", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Attempting to delete unused containers"`...)
		return b
	})},
	option{1, klogLine('I', "image_gc_manager.go:391", func(g *gen, p *pod, b []byte) []byte {
		return append(b, `"Attempting to delete unused images"`...)
	})},
	option{1, klogLine('I', "kubelet_node_status.go:741", func(g *gen, p *pod, b []byte) []byte {
		b = append(b, `"Recording event message for node" node="`...)
		b = append(b, g.id.hostname...)
		b = append(b, `" event="`...)
		b = append(b, pick(g.r, nodeEvents)...)
		return append(b, '"')
	})},
)

// kubeletPayload appends one kubelet klog message.
func kubeletPayload(g *gen, b []byte) []byte {
	return kubeletMakers.pick(g)(g, b)
}

// kubeletJournalLine appends one line of kubelet/kubelet.log.
func kubeletJournalLine(g *gen, b []byte) []byte {
	b = g.journalPrefix(b, "kubelet", pidKubelet)
	return kubeletPayload(g, b)
}
