package collect

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/collect/testroot"
)

func TestPlanCutsOrder(t *testing.T) {
	files := []budgetFile{
		{path: "nodeadm/nodeadm-config.log", size: 100_000, estimate: 10_000, tier: tierKeep},
		{path: "kubelet/kubelet.log", size: 1_000_000, estimate: 100_000, protected: 200_000, tier: tierNormal},
		{path: "containerd/containerd-log.txt", size: 500_000, estimate: 50_000, tier: tierNormal},
		{path: "journal/boot-current.log", size: 2_000_000, estimate: 200_000, tier: tierBulk},
		{path: "var_log/messages", size: 1_000_000, estimate: 100_000, tier: tierBulk},
	}
	tests := []struct {
		name   string
		target int64
		check  func(t *testing.T, cuts map[string]int64)
	}{
		{"fits", 1_000_000, func(t *testing.T, cuts map[string]int64) {
			if len(cuts) != 0 {
				t.Fatalf("cuts %v for a bundle that fits", cuts)
			}
		}},
		{"bulk absorbs it, biggest first", 360_000, func(t *testing.T, cuts map[string]int64) {
			if len(cuts) != 1 || cuts["journal/boot-current.log"] != 1_000_000 {
				t.Fatalf("cuts = %v, want only the current boot halved", cuts)
			}
		}},
		{"bulk keeps a tail, normal tier keeps kubelet's current boot", 100_000, func(t *testing.T, cuts map[string]int64) {
			// 5% of the target each, in raw bytes at their compression ratio.
			if cuts["journal/boot-current.log"] != 50_000 || cuts["var_log/messages"] != 50_000 {
				t.Fatalf("bulk logs not cut to their small tail first: %v", cuts)
			}
			if _, cut := cuts["nodeadm/nodeadm-config.log"]; cut {
				t.Fatalf("nodeadm cut before the normal tier was exhausted: %v", cuts)
			}
			if keep := cuts["kubelet/kubelet.log"]; keep < 200_000 {
				t.Fatalf("kubelet kept %d bytes, below its protected current boot", keep)
			}
		}},
		{"last resort cuts everything", 5_000, func(t *testing.T, cuts map[string]int64) {
			if _, cut := cuts["nodeadm/nodeadm-config.log"]; !cut {
				t.Fatalf("nodeadm not cut though nothing else is left: %v", cuts)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cuts := planCuts(files, tt.target)
			var total int64
			for _, f := range files {
				keep, cut := cuts[f.path]
				if !cut {
					total += f.estimate
					continue
				}
				if keep > f.size || keep < 0 {
					t.Fatalf("%s: keep %d of %d", f.path, keep, f.size)
				}
				total += f.estimate * keep / f.size
			}
			if total > max(tt.target, 0)+int64(len(files)) {
				t.Fatalf("planned %d, target %d", total, tt.target)
			}
			tt.check(t, cuts)
		})
	}
}

// TestHugeProtectedPartDoesNotStarveNodeadm: with one long boot, kubelet's
// whole log is its protected current boot; it may take half the budget, not
// all of it, so nodeadm and cloud-init stay whole.
func TestHugeProtectedPartDoesNotStarveNodeadm(t *testing.T) {
	files := []budgetFile{
		{path: "nodeadm/nodeadm-config.log", size: 100_000, estimate: 10_000, tier: tierKeep},
		{path: "var_log/cloud-init-output.log", size: 50_000, estimate: 5_000, tier: tierKeep},
		{path: "kubelet/kubelet.log", size: 2_000_000, estimate: 200_000, protected: 2_000_000, tier: tierNormal},
	}
	cuts := planCuts(files, 40_000)
	for _, p := range []string{"nodeadm/nodeadm-config.log", "var_log/cloud-init-output.log"} {
		if _, cut := cuts[p]; cut {
			t.Errorf("%s cut while kubelet kept more than its share: %v", p, cuts)
		}
	}
	// 40,000 budget - 15,000 for nodeadm and cloud-init leaves 25,000
	// compressed bytes: 250,000 raw bytes of kubelet at its 10:1 ratio.
	if keep := cuts["kubelet/kubelet.log"]; keep <= 0 || keep > 250_000 {
		t.Errorf("kubelet kept %d bytes; want the newest part of its boot that fits beside nodeadm", keep)
	}
}

func TestTierOf(t *testing.T) {
	tests := map[string]int{
		"nodeadm/nodeadm-config.log":                      tierKeep,
		"var_log/cloud-init-output.log":                   tierKeep,
		"userdata/part-1.sh":                              tierKeep,
		"kubelet/kubelet.log":                             tierNormal,
		"journal/boot-previous.log":                       tierBulk,
		"var_log/messages":                                tierBulk,
		"var_log/kube-system_aws-node-x_u/aws-node/0.log": tierBulk,
		"networking/iptables-save.txt":                    tierBulk,
		"networking/ip6tables-nat.txt":                    tierBulk,
		"system/ps-threads.txt":                           tierBulk,
		"ipamd/metrics.json":                              tierBulk,
		"system/ps.txt":                                   tierNormal,
		"networking/iproute.txt":                          tierNormal,
		"ipamd/ipamd-env-settings.json":                   tierNormal,
		"containerd/containerd-log.txt":                   tierNormal,
	}
	for p, want := range tests {
		if got := tierOf(p, 1<<20); got != want {
			t.Errorf("tierOf(%s) = %d, want %d", p, got, want)
		}
	}
	if tierOf("var_log/messages", 100) != tierKeep {
		t.Error("a small file should be kept whole")
	}
}

// TestMaxSizeHoldsOn200MiB collects a node with 200 MiB of logs under a
// small budget and checks the archive fits, every member is accounted for,
// and the cut logs kept their newest part.
func TestMaxSizeHoldsOn200MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 200 MiB of logs")
	}
	root := materialize(t, "al2023-healthy")
	if err := testroot.AddBulkLogs(root, 200<<20); err != nil {
		t.Fatal(err)
	}
	for _, format := range []bundle.Format{bundle.FormatTarGz, bundle.FormatZip} {
		t.Run(string(format), func(t *testing.T) {
			opts := testOptions(t, root, "")
			opts.MaxSize = 1 << 20
			opts.Format = format
			res, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Size() > opts.MaxSize || res.Bytes != info.Size() {
				t.Fatalf("bundle is %d bytes, budget %d (result says %d)", info.Size(), opts.MaxSize, res.Bytes)
			}
			b := readBundle(t, res.Path)
			messages := b.members["var_log/messages"]
			if strings.Contains(messages, testroot.HeadMarker) || !strings.Contains(messages, testroot.TailMarker) {
				t.Errorf("var_log/messages did not keep its newest part (%d bytes)", len(messages))
			}
			var cut int
			for _, s := range b.manifest.Sources {
				for _, f := range s.Files {
					if f.Truncated {
						cut++
						if f.OriginalBytes <= f.Bytes || s.Status != bundle.StatusTruncated {
							t.Errorf("%s: truncated but kept %d of %d, source status %s", f.Path, f.Bytes, f.OriginalBytes, s.Status)
						}
					}
				}
			}
			if cut == 0 {
				t.Error("no cut recorded")
			}
			for _, name := range []string{"nodeadm/nodeadm-config.log", "var_log/cloud-init.log", "userdata/user-data.txt"} {
				for _, s := range b.manifest.Sources {
					for _, f := range s.Files {
						if f.Path == name && f.Truncated {
							t.Errorf("%s was cut while bulk logs could give way", name)
						}
					}
				}
			}
		})
	}
}
