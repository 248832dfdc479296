package collect

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/collect/testroot"
	"github.com/nodetriage/nodetriage/internal/probe"
)

func TestCollectFakeNodes(t *testing.T) {
	tests := []struct {
		node   string
		files  map[string][]string // bundle path → texts it must hold
		absent []string
	}{
		{"al2023-nodeadm-failure", map[string][]string{
			"nodeadm/nodeadm-config.log":         {"Failed to start nodeadm-config.service", `Command failed {"error": "no config in chain"}`},
			"var_log/user-data.log":              {"+ /usr/bin/nodeadm init", "could not find NodeConfig within UserData"},
			"userdata/part-1.sh":                 {"/usr/bin/nodeadm init"},
			"userdata/user-data.txt":             {"Content-Type: text/x-shellscript"},
			"cloud-init/result.json":             {"scripts-user"},
			"eks/nodeadm-config.yaml":            {"custom-eni-config=billing-ap-northeast-1a"},
			"system/os-release":                  {"Amazon Linux 2023"},
			"system/instance-id.txt":             {testInstanceID},
			"system/region.txt":                  {"ap-northeast-1"},
			"system/availability-zone.txt":       {"ap-northeast-1a"},
			"imds/metadata.json":                 {`"role_name": "billing-prod-node-role"`, "billing-prod-node-profile", "subnet-0a1b2c3d4e5f60718"},
			"imds/requests.json":                 {"/latest/api/token"},
			"nodeadm/nodeadm-config_service.txt": {"--config-source imds://user-data"},
			"journal/boot-current.log":           {"Accepted publickey"},
		}, []string{"kubelet/kubelet.log", "var_log/user-data.log.gz"}},
		{"al2023-healthy", map[string][]string{
			"kubelet/kubelet.log":              {"Successfully registered node"},
			"kubelet/kubeconfig.yaml":          {"get-token", "billing-prod"},
			"kubelet/config.json":              {"KubeletConfiguration"},
			"kubelet/ca.crt":                   {"BEGIN CERTIFICATE"},
			"nodeadm/config.json":              {"billing-prod"},
			"nodeadm/kubelet-environment":      {"NODEADM_KUBELET_ARGS"},
			"userdata/part-1.nodeadm.yaml":     {"kind: NodeConfig"},
			"cni/10-aws.conflist":              {"aws-cni"},
			"ipamd/ipam.json":                  {"coredns"},
			"var_log/aws-routed-eni/ipamd.log": {"Starting L-IPAMD"},
			"var_log/kube-system_aws-node-7xk4p_3c1a7e2f-5b6d-4e8f-9a0b-1c2d3e4f5a6b/aws-node/0.log": {"Successfully copied CNI plugin"},
			"journal/boot-previous.log":     {"Journal stopped"},
			"containerd/containerd-log.txt": {"containerd successfully booted"},
		}, nil},
		{"al2-bootstrap", map[string][]string{
			"var_log/cloud-init-output.log":       {"[eks-bootstrap] INFO: complete!"},
			"var_log/messages":                    {"Successfully registered node"},
			"kubelet/kubelet_service.txt":         {"# /etc/systemd/system/kubelet.service.d/30-kubelet-extra-args.conf"},
			"kubelet/kubelet-config.json":         {"KubeletConfiguration"},
			"sandbox-image/sandbox-image-log.txt": {"pause:3.5"},
			"userdata/user-data.txt":              {"/etc/eks/bootstrap.sh billing-prod"},
		}, []string{"nodeadm/nodeadm-config.log"}},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			t.Parallel()
			root := materialize(t, tt.node)
			url, ca := apiServer(t)
			_, imdsURL := startIMDS(t, imdsHealthy, userDataFor(t, root, url, ca))
			opts := testOptions(t, root, imdsURL)
			opts.NoProbes = false
			res, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			b := readBundle(t, res.Path)
			if filepath.Base(res.Path) != filepath.Base(bundle.DefaultName(testInstanceID, b.manifest.Start, bundle.FormatTarGz, false)) {
				t.Errorf("bundle name %s", filepath.Base(res.Path))
			}
			for p, texts := range tt.files {
				got, ok := b.members[p]
				if !ok {
					t.Errorf("%s missing from the bundle", p)
					continue
				}
				for _, want := range texts {
					if !strings.Contains(got, want) {
						t.Errorf("%s lacks %q", p, want)
					}
				}
			}
			for _, p := range tt.absent {
				if _, ok := b.members[p]; ok {
					t.Errorf("%s should not be in the bundle", p)
				}
			}
			if h := b.manifest.Host; h.InstanceID != testInstanceID || h.Region != "ap-northeast-1" || h.AccountID != "111122223333" {
				t.Errorf("host = %+v", h)
			}
			if !b.manifest.Redaction.Enabled || b.manifest.Partial {
				t.Errorf("redaction %+v partial %v", b.manifest.Redaction, b.manifest.Partial)
			}
			checkProbes(t, b)
		})
	}
}

// checkProbes reads probes/probes.json: the API server (TLS verified against
// the CA of the user data) answers; the regional endpoints resolve to
// loopback, where nothing listens on 443.
func checkProbes(t *testing.T, b openedBundle) {
	t.Helper()
	var report struct {
		APIServerFrom string         `json:"api_server_from"`
		Region        string         `json:"region"`
		Results       []probe.Result `json:"results"`
	}
	if err := json.Unmarshal([]byte(b.members["probes/probes.json"]), &report); err != nil {
		t.Fatalf("probes/probes.json: %v", err)
	}
	if report.Region != "ap-northeast-1" || report.APIServerFrom == "" || len(report.Results) != 5 {
		t.Fatalf("probes report = %+v", report)
	}
	for _, r := range report.Results {
		want := probe.VerdictTCP
		if r.Name == "apiserver" {
			want = probe.VerdictOK
			if r.ServerVersion != testServerVersion {
				t.Errorf("API server version %q (%s), want %q", r.ServerVersion, r.VersionError, testServerVersion)
			}
		}
		if r.Verdict != want {
			t.Errorf("probe %s: verdict %s (%s %s), want %s", r.Name, r.Verdict, r.TCPError, r.TLSError, want)
		}
	}
}

func TestCollectWhenIMDSMisbehaves(t *testing.T) {
	for _, mode := range []imdsMode{imds404, imds401, imds500, imdsHang, "refused"} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			root := materialize(t, "al2023-nodeadm-failure")
			var url string
			if mode == "refused" {
				url = "http://" + closedPort(t)
			} else {
				_, url = startIMDS(t, mode, "unused")
			}
			res, err := Run(context.Background(), testOptions(t, root, url))
			if err != nil {
				t.Fatal(err)
			}
			b := readBundle(t, res.Path)
			src := b.source(t, "imds")
			if src.Status != bundle.StatusFailed || src.Error == "" {
				t.Errorf("imds source = %s %q, want failed with the reason", src.Status, src.Error)
			}
			if !strings.Contains(b.members["imds/requests.json"], `"error"`) {
				t.Errorf("requests.json does not record the failure: %s", b.members["imds/requests.json"])
			}
			if got := b.members["system/instance-id.txt"]; got != testInstanceID+"\n" {
				t.Errorf("instance id from cloud-init's copy = %q", got)
			}
			if !strings.HasPrefix(b.members["userdata/source.txt"], "file /var/lib/cloud/instance/user-data.txt") {
				t.Errorf("user data did not fall back to the file: %q", b.members["userdata/source.txt"])
			}
			if !strings.Contains(b.members["nodeadm/nodeadm-config.log"], "no config in chain") {
				t.Error("the rest of the bundle is missing")
			}
		})
	}
}

// TestHostNamespaces is collect in a privileged pod that shares the node's
// PID and network namespaces and mounts its / at --root: what describes the
// running machine is collected, as on the node itself.
func TestHostNamespaces(t *testing.T) {
	for _, hostNS := range []bool{false, true} {
		t.Run(strconv.FormatBool(hostNS), func(t *testing.T) {
			t.Parallel()
			root := materialize(t, "al2023-healthy")
			url, ca := apiServer(t)
			_, imdsURL := startIMDS(t, imdsHealthy, userDataFor(t, root, url, ca))
			opts := testOptions(t, root, imdsURL)
			opts.NoProbes = false
			opts.HostNamespaces = hostNS
			res, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			b := readBundle(t, res.Path)
			uname := b.source(t, "kernel/uname")
			if got := uname.Status == bundle.StatusOK; got != hostNS {
				t.Errorf("kernel/uname = %s %q with --host-namespaces=%v", uname.Status, uname.Error, hostNS)
			}
			if _, ok := b.members["kernel/uname.txt"]; ok != hostNS {
				t.Errorf("kernel/uname.txt in the bundle: %v, want %v", ok, hostNS)
			}
			if _, ok := b.members["imds/metadata.json"]; !ok || b.manifest.Host.Region != "ap-northeast-1" {
				t.Errorf("IMDS of the same instance was not kept: %+v", b.source(t, "imds"))
			}
			checkProbes(t, b)
		})
	}
}

// TestRootOfAnotherInstance is a rescue machine that mounted a dead node's
// volume: its IMDS describes itself, so nothing it says may end up in the
// dead node's bundle, and the probes, which would test the rescue machine's
// network, do not run.
func TestRootOfAnotherInstance(t *testing.T) {
	const deadNode = "i-0deadbeefdeadbeef"
	tests := []struct {
		name       string
		volumeID   string // instance id cloud-init recorded on the volume; "" removes the file
		wantID     string
		wantReason string
	}{
		{"other instance", deadNode, deadNode, "IMDS answered for " + testInstanceID},
		{"volume without instance id", "", "", "records no instance id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := materialize(t, "al2023-nodeadm-failure")
			idFile := filepath.Join(root, "var/lib/cloud/data/instance-id")
			if tt.volumeID == "" {
				if err := os.Remove(idFile); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(idFile, []byte(tt.volumeID+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rescue, url := startIMDS(t, imdsHealthy, "#!/bin/bash\necho rescue machine user data\n")
			opts := testOptions(t, root, url)
			opts.NoProbes = false
			res, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			b := readBundle(t, res.Path)
			if src := b.source(t, "imds"); src.Status != bundle.StatusSkipped || !strings.Contains(src.Error, tt.wantReason) {
				t.Errorf("imds source = %s %q, want skipped saying %q", src.Status, src.Error, tt.wantReason)
			}
			if src := b.source(t, "probes"); src.Status != bundle.StatusSkipped {
				t.Errorf("probes source = %s %q, want skipped", src.Status, src.Error)
			}
			for _, p := range []string{"imds/metadata.json", "imds/requests.json", "probes/probes.json", "system/region.txt"} {
				if _, ok := b.members[p]; ok {
					t.Errorf("%s is in the bundle: it would describe the rescue machine", p)
				}
			}
			if h := b.manifest.Host; h.InstanceID != tt.wantID || h.Region != "" || h.AccountID != "" {
				t.Errorf("host = %+v, want instance %q and nothing from the rescue machine", h, tt.wantID)
			}
			if !strings.HasPrefix(b.members["userdata/source.txt"], "file ") {
				t.Errorf("user data came from %q, want the volume's copy", b.members["userdata/source.txt"])
			}
			if rescue.requested("/latest/user-data") {
				t.Error("the rescue machine's user data was requested")
			}
			for p, text := range b.members {
				if strings.Contains(text, "rescue machine user data") {
					t.Errorf("%s holds the rescue machine's user data", p)
				}
			}
		})
	}
}

func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestInterruptGivesPartialBundle(t *testing.T) {
	root := materialize(t, "al2023-healthy")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, url := startIMDS(t, imdsHang, "")
	f.onFirst = cancel // SIGINT arrives while IMDS is being read
	opts := testOptions(t, root, url)
	opts.Workers = 1 // IMDS runs first and alone: later sources never start
	res, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	b := readBundle(t, res.Path)
	if !b.manifest.Partial || !strings.Contains(b.manifest.PartialReason, "interrupted") {
		t.Fatalf("partial = %v %q", b.manifest.Partial, b.manifest.PartialReason)
	}
	last := b.manifest.Sources[len(b.manifest.Sources)-1]
	if last.Status != bundle.StatusSkipped || !strings.Contains(last.Error, "interrupted") {
		t.Errorf("last source = %+v, want not started", last)
	}
}

func TestSymlinksOutsideRootAreResolvedInside(t *testing.T) {
	root := materialize(t, "al2023-healthy")
	hostDir := t.TempDir()
	secret := filepath.Join(hostDir, "host-secret.log")
	if err := os.WriteFile(secret, []byte("HOST-ONLY-SECRET-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"var/log/messages":                       secret,
		"var/log/kube-proxy.log":                 "../../../../../../../../../.." + secret,
		"var/log/pods/kube-system_aws-node-evil": hostDir,
		"var/log/syslog":                         "/etc/hostname", // inside the root: the node's own file
		"etc/containerd/config.toml.d":           "/",
	}
	for p, target := range links {
		full := filepath.Join(root, p)
		os.Remove(full)
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(context.Background(), testOptions(t, root, ""))
	if err != nil {
		t.Fatal(err)
	}
	b := readBundle(t, res.Path)
	for p, data := range b.members {
		if strings.Contains(data, "HOST-ONLY-SECRET-CONTENT") {
			t.Errorf("%s holds a file outside the root", p)
		}
	}
	if got := b.members["var_log/syslog"]; got != "ip-10-23-233-47.ap-northeast-1.compute.internal\n" {
		t.Errorf("var_log/syslog = %q, want the root's /etc/hostname", got)
	}
}

func TestConcurrentCollectsWriteTwoBundles(t *testing.T) {
	root := materialize(t, "al2023-nodeadm-failure")
	out := t.TempDir()
	var wg sync.WaitGroup
	results := make([]Result, 2)
	errs := make([]error, 2)
	for i := range results {
		wg.Go(func() {
			opts := testOptions(t, root, "")
			opts.Output = out
			results[i], errs[i] = Run(context.Background(), opts)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if results[0].Path == results[1].Path {
		t.Fatalf("both runs wrote %s", results[0].Path)
	}
	for _, r := range results {
		b := readBundle(t, r.Path)
		if b.manifest.Host.InstanceID != testInstanceID {
			t.Errorf("%s: host %+v", r.Path, b.manifest.Host)
		}
	}
	if extra := leftovers(t, out, filepath.Base(results[0].Path), filepath.Base(results[1].Path)); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}
}

func TestOutputThatCannotBeWritten(t *testing.T) {
	root := materialize(t, "al2-bootstrap")
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, output := range map[string]string{
		"missing folder":        filepath.Join(t.TempDir(), "no", "such", "dir", "b.tar.gz"),
		"parent is a file":      filepath.Join(file, "b.tar.gz"),
		"read-only file system": "/proc/nodetriage.tar.gz",
	} {
		t.Run(name, func(t *testing.T) {
			opts := testOptions(t, root, "")
			opts.Output = output
			if _, err := Run(context.Background(), opts); !errors.Is(err, ErrOutput) {
				t.Fatalf("Run = %v, want ErrOutput", err)
			}
		})
	}
}

// smallDisk mounts a tmpfs of size MiB, or skips the test when this
// machine does not allow it.
func smallDisk(t *testing.T, sizeMiB int) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(sizeMiB)+"m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

func TestFullDisk(t *testing.T) {
	root := materialize(t, "al2023-healthy")
	t.Run("not enough space before starting", func(t *testing.T) {
		opts := testOptions(t, root, "")
		opts.Output = smallDisk(t, 8)
		if _, err := Run(context.Background(), opts); !errors.Is(err, ErrNoSpace) {
			t.Fatalf("Run = %v, want ErrNoSpace", err)
		}
	})
	t.Run("disk fills while collecting", func(t *testing.T) {
		disk := smallDisk(t, 40)
		f, url := startIMDS(t, imdsHealthy, "")
		// Another program fills the disk right after collect checked it.
		f.onFirst = func() { fillDisk(t, filepath.Join(disk, "filler")) }
		opts := testOptions(t, root, url)
		opts.Output = disk
		opts.MaxSize = 64 << 10
		opts.Workers = 1
		_, err := Run(context.Background(), opts)
		if !errors.Is(err, ErrNoSpace) {
			t.Fatalf("Run = %v, want ErrNoSpace", err)
		}
		if extra := leftovers(t, disk, "filler"); len(extra) > 0 {
			t.Fatalf("a full disk left files behind: %v", extra)
		}
	})
}

// fillDisk writes to p until the file system is full.
func fillDisk(t *testing.T, p string) {
	f, err := os.Create(p)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Error(err)
			}
			break
		}
	}
	small := make([]byte, 4096)
	for {
		if _, err := f.Write(small); err != nil {
			return
		}
	}
}

func TestCorruptJournalStillGivesABundle(t *testing.T) {
	root := materialize(t, "al2023-nodeadm-failure")
	jdir := filepath.Join(root, "var", "log", "journal", testroot.MachineID)
	if err := os.WriteFile(filepath.Join(jdir, "system@00061f-corrupt.journal~"), []byte("LPKSHHRH\x00\x00garbage that is not a journal"), 0o640); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), testOptions(t, root, ""))
	if err != nil {
		t.Fatal(err)
	}
	b := readBundle(t, res.Path)
	src := b.source(t, "nodeadm/nodeadm-config")
	if src.Status != bundle.StatusFailed || !strings.Contains(src.Error, "corrupt.journal~") {
		t.Errorf("nodeadm-config source = %s %q, want failed naming the damaged file", src.Status, src.Error)
	}
	if !strings.Contains(b.members["nodeadm/nodeadm-config.log"], "no config in chain") {
		t.Error("entries of the good journal file were lost")
	}
}

func TestPseudonymizeKeepsTheMapOutside(t *testing.T) {
	root := materialize(t, "al2023-nodeadm-failure")
	opts := testOptions(t, root, "")
	opts.Pseudonymize = true
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	b := readBundle(t, res.Path)
	for p, data := range b.members {
		if strings.Contains(data, testInstanceID) || strings.Contains(data, "10.23.233.47") {
			t.Errorf("%s still holds the instance id or the node address", p)
		}
	}
	if strings.Contains(res.Path, testInstanceID) {
		t.Errorf("bundle name holds the real instance id: %s", res.Path)
	}
	info, err := os.Stat(res.PseudonymMap)
	if err != nil || info.Mode().Perm() != 0o600 || filepath.Dir(res.PseudonymMap) != filepath.Dir(res.Path) {
		t.Fatalf("pseudonym map %s: %v %v", res.PseudonymMap, info, err)
	}
	data, _ := os.ReadFile(res.PseudonymMap)
	if !strings.Contains(string(data), testInstanceID) {
		t.Errorf("map lacks the instance id: %s", data)
	}
	if !b.manifest.Redaction.Pseudonymized {
		t.Error("manifest does not say the bundle is pseudonymized")
	}
}

func TestNoRedactIsStamped(t *testing.T) {
	root := materialize(t, "al2023-nodeadm-failure")
	opts := testOptions(t, root, "")
	opts.NoRedact = true
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	b := readBundle(t, res.Path)
	if b.manifest.Redaction.Enabled || !strings.Contains(filepath.Base(res.Path), "UNREDACTED") {
		t.Fatalf("name %s, redaction %+v", res.Path, b.manifest.Redaction)
	}
}
