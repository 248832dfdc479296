package source

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	v2Pod       = "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3c1a7e2f.slice"
	v2Container = v2Pod + "/cri-containerd-4f9e2b.scope"
	v1Pod       = "cpu,cpuacct/kubepods/besteffort/pod7d2c"
)

func TestCPUThrottling(t *testing.T) {
	manyPids := ""
	for pid := 5000; pid < 5070; pid++ {
		manyPids += strconv.Itoa(pid) + "\n"
	}
	deep := strings.Repeat("nested/", maxCgroupDepth+1)
	tests := []struct {
		name    string
		cgroups map[string]string
		want    []string // in this order
		absent  []string
	}{
		{"cgroup v2 container throttled", map[string]string{
			"cpu.stat":                              "usage_usec 9000\nuser_usec 6000\nsystem_usec 3000\n",
			"kubepods.slice/cpu.stat":               "usage_usec 10\nnr_periods 50\nnr_throttled 0\nthrottled_usec 0\n",
			v2Container + "/cpu.stat":               "usage_usec 5\nnr_periods 1200\nnr_throttled 345\nthrottled_usec 987654\nnr_bursts 0\nburst_usec 0\n",
			v2Container + "/cgroup.procs":           "4321\n4322\n",
			"system.slice/kubelet.service/cpu.stat": "nr_periods 0\nnr_throttled 0\n",
		}, []string{
			v2Container + "/cpu.stat\n  nr_periods 1200\n  nr_throttled 345\n  throttled_usec 987654\n",
			"      PID COMMAND\n      4321 nginx\n      4322 ?\n",
		}, []string{"kubepods.slice/cpu.stat", "kubelet.service", "usage_usec", "nr_bursts", noCPUThrottling}},
		{"cgroup v1 cpu controller", map[string]string{
			v1Pod + "/cpu.stat":        "nr_periods 10\nnr_throttled 2\nthrottled_time 5000000\n",
			v1Pod + "/cgroup.procs":    "",
			"memory/kubepods/cpu.stat": "garbage line\nnr_throttled many\n",
		}, []string{v1Pod + "/cpu.stat\n  nr_periods 10\n  nr_throttled 2\n  throttled_time 5000000\n\n"},
			[]string{"PID COMMAND", "memory", noCPUThrottling}},
		{"processes beyond the cap are counted", map[string]string{
			v2Pod + "/cpu.stat":     "nr_periods 9\nnr_throttled 9\nthrottled_usec 9\n",
			v2Pod + "/cgroup.procs": manyPids,
		}, []string{"      5063 ?\n  ... and 6 more processes\n"}, []string{"5064"}},
		{"nothing throttled", map[string]string{
			"cpu.stat":                "usage_usec 1\n",
			v2Container + "/cpu.stat": "nr_periods 1200\nnr_throttled 0\nthrottled_usec 0\n",
		}, []string{noCPUThrottling}, []string{"cpu.stat"}},
		{"at the depth bound is read", map[string]string{
			strings.Repeat("nested/", maxCgroupDepth) + "cpu.stat": "nr_periods 1\nnr_throttled 1\n",
		}, []string{"nested/cpu.stat\n  nr_periods 1\n"}, []string{noCPUThrottling}},
		{"below the depth bound is not read", map[string]string{
			deep + "cpu.stat": "nr_periods 1\nnr_throttled 1\n",
		}, []string{noCPUThrottling}, []string{"nested"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cg := makeTree(t, tt.cgroups)
			proc := makeTree(t, map[string]string{"4321/comm": "nginx\n"})
			var b bytes.Buffer
			if err := CPUThrottling(cg, proc)(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(b.String(), cg+string(filepath.Separator), "")
			rest := got
			for _, want := range tt.want {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("output lacks (or misorders) %q:\n%s", want, got)
				}
				rest = rest[i+len(want):]
			}
			for _, no := range tt.absent {
				if strings.Contains(got, no) {
					t.Errorf("output holds %q:\n%s", no, got)
				}
			}
		})
	}
}

func TestCPUThrottlingStopsAndSkips(t *testing.T) {
	cg := makeTree(t, map[string]string{v2Container + "/cpu.stat": "nr_throttled 1\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CPUThrottling(cg, t.TempDir())(ctx, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk = %v, want context.Canceled", err)
	}
	var b bytes.Buffer
	err := CPUThrottling(filepath.Join(t.TempDir(), "no-cgroup"), t.TempDir())(context.Background(), &b)
	if !errors.Is(err, ErrSkipped) || b.Len() != 0 {
		t.Errorf("missing cgroup tree = %v, wrote %q; want skipped and nothing", err, b.String())
	}
}
