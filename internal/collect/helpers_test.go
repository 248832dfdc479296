package collect

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/collect/testroot"
	"github.com/nodetriage/nodetriage/internal/imds"
	"github.com/nodetriage/nodetriage/internal/journal"
	"github.com/nodetriage/nodetriage/internal/journal/journaltest"
	"github.com/nodetriage/nodetriage/internal/probe"
)

// Values of the fake nodes (see testdata/nodes).
const (
	testInstanceID = "i-0a1b2c3d4e5f60718"
	testEndpoint   = "https://8D2E4F6A0B1C3D5E7F9A1B3C5D7E9F10.gr7.ap-northeast-1.eks.amazonaws.com"
	testMAC        = "0a:1b:2c:3d:4e:5f"
	// testServerVersion is what the loopback API server says at /version.
	testServerVersion = "v1.31.4-eks-2d5f260"
)

// materialize builds a fake node root of testdata/nodes with its journal.
func materialize(t *testing.T, name string) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), name)
	err := testroot.Materialize(name, dest, func(dir string, export []byte) error {
		journaltest.Write(t, dir, export)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dest
}

// imdsMode is how the fake metadata service behaves.
type imdsMode string

const (
	imdsHealthy    imdsMode = "healthy"
	imds404        imdsMode = "404"
	imds401        imdsMode = "401"
	imds500        imdsMode = "500"
	imdsHang       imdsMode = "hang"
	tokenHeader             = "X-Aws-Ec2-Metadata-Token"
	tokenTTLHeader          = "X-Aws-Ec2-Metadata-Token-Ttl-Seconds"
	credentialsPfx          = "/latest/meta-data/iam/security-credentials/"
)

// fakeIMDS is an instance metadata service on 127.0.0.1 that insists on
// IMDSv2 tokens, as EC2 does when IMDSv1 is disabled.
type fakeIMDS struct {
	t        *testing.T
	mode     imdsMode
	userData string
	onFirst  func() // called on the first request
	first    sync.Once
	release  chan struct{}

	mu   sync.Mutex
	seen map[string]bool // paths requested
}

// requested tells whether a path was asked for.
func (f *fakeIMDS) requested(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[path]
}

func startIMDS(t *testing.T, mode imdsMode, userData string) (*fakeIMDS, string) {
	t.Helper()
	f := &fakeIMDS{t: t, mode: mode, userData: userData, release: make(chan struct{})}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(f.release) })
	return f, srv.URL
}

func (f *fakeIMDS) values() map[string]string {
	macs := "/latest/meta-data/network/interfaces/macs/" + testMAC + "/"
	return map[string]string{
		"/latest/dynamic/instance-identity/document": `{"accountId":"111122223333","architecture":"x86_64","availabilityZone":"ap-northeast-1a",
			"imageId":"ami-0c1d2e3f4a5b6c7d8","instanceId":"i-0a1b2c3d4e5f60718","instanceType":"m6i.large","privateIp":"10.23.233.47","region":"ap-northeast-1"}`,
		"/latest/meta-data/placement/region":            "ap-northeast-1",
		"/latest/meta-data/placement/availability-zone": "ap-northeast-1a",
		"/latest/meta-data/instance-id":                 testInstanceID,
		"/latest/meta-data/instance-type":               "m6i.large",
		"/latest/meta-data/ami-id":                      "ami-0c1d2e3f4a5b6c7d8",
		"/latest/meta-data/local-ipv4":                  "10.23.233.47",
		"/latest/meta-data/local-hostname":              "ip-10-23-233-47.ap-northeast-1.compute.internal",
		"/latest/meta-data/mac":                         testMAC,
		"/latest/meta-data/iam/info": `{"Code":"Success","InstanceProfileArn":"arn:aws:iam::111122223333:instance-profile/billing-prod-node-profile",
			"InstanceProfileId":"AIPAQ3EGRVWXYZEXAMPLE"}`,
		credentialsPfx:                  "billing-prod-node-role\n",
		macs + "subnet-id":              "subnet-0a1b2c3d4e5f60718",
		macs + "vpc-id":                 "vpc-0a1b2c3d4e5f60718",
		macs + "subnet-ipv4-cidr-block": "10.23.224.0/20",
		macs + "vpc-ipv4-cidr-blocks":   "10.23.0.0/16\n100.64.0.0/16",
		macs + "security-group-ids":     "sg-0a1b2c3d4e5f60718\n",
		"/latest/user-data":             f.userData,
	}
}

func (f *fakeIMDS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.onFirst != nil {
		f.first.Do(f.onFirst)
	}
	f.mu.Lock()
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[r.URL.Path] = true
	f.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, credentialsPfx) && r.URL.Path != credentialsPfx {
		f.t.Errorf("credentials requested: %s", r.URL.Path)
		http.Error(w, "", http.StatusTeapot)
		return
	}
	switch f.mode {
	case imdsHang:
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
		return
	case imds500:
		http.Error(w, "", http.StatusInternalServerError)
		return
	}
	if r.URL.Path == "/latest/api/token" {
		if r.Method != http.MethodPut || r.Header.Get(tokenTTLHeader) == "" {
			http.Error(w, "", http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, "fake-imds-session-token")
		return
	}
	if r.Header.Get(tokenHeader) != "fake-imds-session-token" || f.mode == imds401 {
		http.Error(w, "", http.StatusUnauthorized)
		return
	}
	body, ok := f.values()[r.URL.Path]
	if f.mode == imds404 || !ok || body == "" {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, body)
}

// loopbackResolver answers every name with 127.0.0.1, so that probes of the
// regional AWS endpoints reach this machine and nothing else.
type loopbackResolver struct{}

func (loopbackResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	if ip := net.ParseIP(host); ip != nil {
		return []string{host}, nil
	}
	return []string{"127.0.0.1"}, nil
}

// apiServer is a TLS listener on loopback standing for the cluster endpoint.
func apiServer(t *testing.T) (url string, caPEM []byte) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			fmt.Fprint(w, `{"major":"1","minor":"31","gitVersion":"`+testServerVersion+`"}`)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv.URL, caPEM
}

// userDataFor returns the node's user data with the cluster endpoint and CA
// pointing at the loopback API server.
func userDataFor(t *testing.T, root, url string, caPEM []byte) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "var/lib/cloud/instance/user-data.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(testroot.NodesDir(), "al2023-healthy", "etc/kubernetes/pki/ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), testEndpoint, url)
	return strings.ReplaceAll(text, base64.StdEncoding.EncodeToString(ca), base64.StdEncoding.EncodeToString(caPEM))
}

// testOptions are options for a fast run on a fake root.
func testOptions(t *testing.T, root, imdsURL string) Options {
	t.Helper()
	return Options{
		Root:          root,
		Output:        t.TempDir(),
		IMDSEndpoint:  imdsURL,
		NoIMDS:        imdsURL == "",
		NoProbes:      true,
		Timeout:       30 * time.Second,
		Journal:       journal.NewJournalctl(""),
		Version:       "test",
		skipRootCheck: true,
		probeOptions:  probe.Options{Resolver: loopbackResolver{}, StepTimeout: time.Second},
		imdsOptions: []imds.Option{imds.WithConnectTimeout(300 * time.Millisecond),
			imds.WithRequestTimeout(400 * time.Millisecond), imds.WithBudget(1500 * time.Millisecond)},
	}
}

// openedBundle is a bundle read back: its manifest and members.
type openedBundle struct {
	manifest *bundle.Manifest
	members  map[string]string
}

// readBundle reads a bundle with the bundle reader and checks the contract:
// mode 0600, manifest.json first, every member accounted for by the
// manifest and every file of the manifest present with its recorded size.
func readBundle(t *testing.T, p string) openedBundle {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("bundle mode %v, want 0600", info.Mode().Perm())
	}
	b, err := bundle.Open(context.Background(), p, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	out := openedBundle{members: map[string]string{}}
	var names []string
	err = b.Walk(context.Background(), func(m *bundle.Member) error {
		data, err := io.ReadAll(m)
		if err != nil {
			return err
		}
		if len(names) == 0 && m.Name != bundle.ManifestName {
			t.Errorf("first member is %s, want %s", m.Name, bundle.ManifestName)
		}
		names = append(names, m.Name)
		out.members[m.Name] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out.manifest, err = bundle.DecodeManifest(strings.NewReader(out.members[bundle.ManifestName]))
	if err != nil {
		t.Fatal(err)
	}
	if missing := out.manifest.Unaccounted(names); len(missing) > 0 {
		t.Errorf("archive members missing from the manifest: %v", missing)
	}
	for _, s := range out.manifest.Sources {
		for _, f := range s.Files {
			data, ok := out.members[f.Path]
			if f.Bytes == 0 {
				continue
			}
			if !ok || int64(len(data)) != f.Bytes {
				t.Errorf("manifest says %s has %d bytes; archive has %d (present %v)", f.Path, f.Bytes, len(data), ok)
			}
		}
	}
	return out
}

func (b openedBundle) source(t *testing.T, name string) bundle.Source {
	t.Helper()
	for _, s := range b.manifest.Sources {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no source %s in the manifest", name)
	return bundle.Source{}
}

// leftovers lists the files in dir other than the ones named.
func leftovers(t *testing.T, dir string, except ...string) []string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		for _, e := range except {
			if filepath.Base(p) == e {
				return nil
			}
		}
		found = append(found, p)
		return nil
	})
	return found
}
