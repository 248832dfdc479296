package source

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ctrList is `ctr --namespace k8s.io containers list` on a node whose
// aws-node pod restarted once: two containers of the VPC CNI image, its
// init container, the network policy agent and CoreDNS.
const ctrList = `CONTAINER                                                           IMAGE                                                                                        RUNTIME
0b7c1e5a9d3f4e2a8c6b1d0f9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a    602401143452.dkr.ecr.ap-northeast-1.amazonaws.com/amazon-k8s-cni:v1.18.3-eksbuild.1          io.containerd.runc.v2
3a1f9c8e7d6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f    602401143452.dkr.ecr.ap-northeast-1.amazonaws.com/amazon-k8s-cni-init:v1.18.3-eksbuild.1     io.containerd.runc.v2
5c2e8a1f7b3d9c4e0a6f2b8d1c7e3a9f5b0d6c2e8a4f1b7d3c9e5a0f6b2d8c4e    602401143452.dkr.ecr.ap-northeast-1.amazonaws.com/amazon/aws-network-policy-agent:v1.1.2     io.containerd.runc.v2
7e4a0c6f2b8d4e0a6c2f8b4d0e6a2c8f4b0d6e2a8c4f0b6d2e8a4c0f6b2d8e4a    602401143452.dkr.ecr.ap-northeast-1.amazonaws.com/eks/coredns:v1.11.3-eksbuild.1             io.containerd.runc.v2
9f6b2d8c4e0a6f2b8d4c0e6a2f8b4d0c6e2a8f4b0d6c2e8a4f0b6d2c8e4a0f6b    602401143452.dkr.ecr.ap-northeast-1.amazonaws.com/amazon-k8s-cni:v1.18.3-eksbuild.1          io.containerd.runc.v2
`

const (
	oldCNI = "0b7c1e5a9d3f4e2a8c6b1d0f9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a"
	newCNI = "9f6b2d8c4e0a6f2b8d4c0e6a2f8b4d0c6e2a8f4b0d6c2e8a4f0b6d2c8e4a0f6b"
)

// fakeCtr serves `ctr --namespace k8s.io containers list|info <id>` from
// files in dir: list.txt and info-<id>.json (a missing one fails like ctr).
// cat is called by its full path: the fake tools are alone on PATH.
func fakeCtr(t *testing.T, dir string) string {
	t.Helper()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatal(err)
	}
	return `[ "$1 $2 $3" = "--namespace k8s.io containers" ] || exit 2
case "$4" in
list) ` + cat + ` ` + dir + `/list.txt ;;
info) ` + cat + ` ` + dir + `/info-"$5".json 2>/dev/null || { echo "ctr: container \"$5\" in namespace \"k8s.io\": not found" >&2; exit 1; } ;;
*) exit 2 ;;
esac
`
}

func info(id, created, marker string) string {
	return `{
    "ID": "` + id + `",
    "Image": "602401143452.dkr.ecr.ap-northeast-1.amazonaws.com/amazon-k8s-cni:v1.18.3-eksbuild.1",
    "CreatedAt": "` + created + `",
    "Spec": {"process": {"env": ["MARKER=` + marker + `"]}}
}
`
}

func TestVPCCNIContainerInfo(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		noCtr   bool
		want    string // MARKER of the document written
		wantErr error
		wantMsg string
	}{
		{"the newest of the restarted containers", map[string]string{
			"list.txt":                 ctrList,
			"info-" + oldCNI + ".json": info(oldCNI, "2026-11-28T03:15:02.123456789Z", "old"),
			"info-" + newCNI + ".json": info(newCNI, "2026-11-28T03:19:47.5Z", "new"),
		}, false, "new", nil, ""},
		{"a container that vanished between list and info", map[string]string{
			"list.txt":                 ctrList,
			"info-" + oldCNI + ".json": info(oldCNI, "2026-11-28T03:15:02Z", "old"),
		}, false, "old", nil, ""},
		{"no VPC CNI container", map[string]string{
			"list.txt": strings.Join(strings.Split(ctrList, "\n")[2:5], "\n"),
		}, false, "", ErrSkipped, "no container of image amazon-k8s-cni:v"},
		{"no container can be read", map[string]string{"list.txt": ctrList}, false, "", ErrCommandFailed, `in namespace "k8s.io": not found`},
		{"ctr not installed", nil, true, "", ErrSkipped, "ctr is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := makeTree(t, tt.files)
			tools := map[string]string{"ctr": fakeCtr(t, dir)}
			if tt.noCtr {
				tools = nil
			}
			onlyTools(t, tools)
			var b bytes.Buffer
			err := VPCCNIContainerInfo(context.Background(), &b)
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("error = %v, want it to say %q", err, tt.wantMsg)
			}
			if tt.want == "" {
				if b.Len() != 0 {
					t.Fatalf("wrote %q", b.String())
				}
				return
			}
			if !strings.Contains(b.String(), "MARKER="+tt.want) {
				t.Fatalf("wrote the wrong container:\n%s", b.String())
			}
		})
	}
}

func TestVPCCNIContainers(t *testing.T) {
	if got := vpcCNIContainers([]byte(ctrList)); strings.Join(got, ",") != oldCNI+","+newCNI {
		t.Errorf("vpcCNIContainers = %v", got)
	}
	var many strings.Builder
	for range maxCNIContainers + 3 {
		many.WriteString("abc 602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.19.0 io.containerd.runc.v2\n")
	}
	many.WriteString("-rf amazon-k8s-cni:v1 x\n")
	if got := vpcCNIContainers([]byte(many.String())); len(got) != maxCNIContainers {
		t.Errorf("%d containers kept, want at most %d", len(got), maxCNIContainers)
	}
	if got := vpcCNIContainers([]byte("-rf amazon-k8s-cni:v1 x\n\n \n")); len(got) != 0 {
		t.Errorf("vpcCNIContainers kept %v", got)
	}
}

// TestVPCCNIContainerInfoIsStagedAsJSON stages the reader like the catalog
// does, on this machine: the file lands at the path analyze reads.
func TestVPCCNIContainerInfoIsStagedAsJSON(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"list.txt":                 ctrList,
		"info-" + newCNI + ".json": info(newCNI, "2026-11-28T03:19:47Z", "new"),
	})
	onlyTools(t, map[string]string{"ctr": fakeCtr(t, dir)})
	s := newTestStage(t, StageOptions{})
	const to = "cni/cni-configuration-variables-containerd.json"
	src := NewLive("cni/aws-node-container", openTree(t, "/"), to, VPCCNIContainerInfo)
	if err := src.Collect(context.Background(), s.Sink(src.Name())); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "info-"+newCNI+".json"))
	if got := readStaged(t, s, to); got != string(want) {
		t.Errorf("staged:\n%s\nwant:\n%s", got, want)
	}
}
