package imds

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testMAC = "0a:1b:2c:3d:4e:5f"

// healthyValues is what a healthy instance's metadata service answers.
func healthyValues() map[string]string {
	macs := "/latest/meta-data/network/interfaces/macs/" + testMAC + "/"
	return map[string]string{
		identityPath: `{"accountId":"111122223333","architecture":"x86_64","availabilityZone":"us-west-2a",
			"imageId":"ami-0abc","instanceId":"i-0123456789abcdef0","instanceType":"m5.large",
			"privateIp":"10.0.1.23","region":"us-west-2","version":"2017-09-30"}`,
		"/latest/meta-data/placement/region":               "us-west-2",
		"/latest/meta-data/placement/availability-zone":    "us-west-2a",
		"/latest/meta-data/placement/availability-zone-id": "usw2-az1",
		"/latest/meta-data/instance-id":                    "i-0123456789abcdef0",
		"/latest/meta-data/instance-type":                  "m5.large",
		"/latest/meta-data/ami-id":                         "ami-0abc",
		"/latest/meta-data/local-ipv4":                     "10.0.1.23",
		"/latest/meta-data/local-hostname":                 "ip-10-0-1-23.us-west-2.compute.internal",
		"/latest/meta-data/mac":                            testMAC,
		"/latest/meta-data/iam/info": `{"Code":"Success","LastUpdated":"2024-01-01T00:00:00Z",
			"InstanceProfileArn":"arn:aws:iam::111122223333:instance-profile/eks-nodes",
			"InstanceProfileId":"AIPAEXAMPLE"}`,
		roleListingPath: "eks-node-role\n",
		// Present so that a request for it would be answered; the tripwire
		// fails the test first.
		roleListingPath + "eks-node-role": `{"SecretAccessKey":"do-not-read"}`,
		macs + "subnet-id":                "subnet-0aaa",
		macs + "vpc-id":                   "vpc-0bbb",
		macs + "subnet-ipv4-cidr-block":   "10.0.1.0/24",
		macs + "vpc-ipv4-cidr-blocks":     "10.0.0.0/16\n100.64.0.0/16",
		macs + "security-group-ids":       "sg-01\nsg-02\n",
		userDataPath:                      "#!/bin/bash\n/etc/eks/bootstrap.sh demo\n",
		"/latest/meta-data/identity-credentials/ec2/security-credentials/x": "secret",
	}
}

// fakeIMDS is a metadata service that insists on IMDSv2 and fails the test
// if anything that may hold credentials is requested.
type fakeIMDS struct {
	t       *testing.T
	values  map[string]string
	release chan struct{}

	tokenStatus  int             // answer to the token PUT when not 0
	allowV1      bool            // GETs without a token are served
	getStatus    int             // answer to every GET when not 0
	expireFirst  bool            // the first token issued is never accepted
	hang         map[string]bool // paths that never answer
	redirectPath map[string]string

	mu     sync.Mutex
	tokens map[string]bool
	seen   []string
	puts   atomic.Int32
}

func newFakeIMDS(t *testing.T) *fakeIMDS {
	return &fakeIMDS{t: t, values: healthyValues(), tokens: map[string]bool{}}
}

// start serves f on 127.0.0.1 and returns its URL.
func (f *fakeIMDS) start() string {
	srv := httptest.NewServer(f)
	f.t.Cleanup(srv.Close)
	f.release = make(chan struct{})
	f.t.Cleanup(func() { close(f.release) }) // runs before srv.Close
	return srv.URL
}

func (f *fakeIMDS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	f.mu.Lock()
	f.seen = append(f.seen, r.Method+" "+path)
	f.mu.Unlock()
	if strings.HasPrefix(path, roleListingPath) && path != roleListingPath ||
		strings.Contains(path, "identity-credentials") {
		f.t.Errorf("credentials were requested: %s", path)
		http.Error(w, "tripwire", http.StatusTeapot)
		return
	}
	if f.hang[path] {
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
		return
	}
	if path == tokenPath {
		f.serveToken(w, r)
		return
	}
	f.serveGet(w, r)
}

func (f *fakeIMDS) serveToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut {
		http.Error(w, "", http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get(tokenTTLHeader) == "" {
		http.Error(w, "", http.StatusBadRequest)
		return
	}
	if f.tokenStatus != 0 {
		http.Error(w, "", f.tokenStatus)
		return
	}
	n := f.puts.Add(1)
	token := fmt.Sprintf("token-%d", n)
	f.mu.Lock()
	f.tokens[token] = !(f.expireFirst && n == 1)
	f.mu.Unlock()
	fmt.Fprint(w, token)
}

func (f *fakeIMDS) serveGet(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "", http.StatusMethodNotAllowed)
		return
	}
	f.mu.Lock()
	valid := f.tokens[r.Header.Get(tokenHeader)]
	f.mu.Unlock()
	if !valid && !f.allowV1 {
		http.Error(w, "", http.StatusUnauthorized)
		return
	}
	if f.getStatus != 0 {
		http.Error(w, "", f.getStatus)
		return
	}
	if target, ok := f.redirectPath[r.URL.Path]; ok {
		http.Redirect(w, r, target, http.StatusMovedPermanently)
		return
	}
	body, ok := f.values[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, body)
}

func (f *fakeIMDS) requested(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.ContainsFunc(f.seen, func(s string) bool { return strings.HasSuffix(s, " "+path) })
}

// fastClient keeps the tests quick when the server never answers.
func fastClient(url string, opts ...Option) *Client {
	base := []Option{WithRequestTimeout(300 * time.Millisecond), WithBudget(2 * time.Second)}
	return New(url, append(base, opts...)...)
}

func wantHealthy() Metadata {
	return Metadata{
		IMDSVersion:        VersionV2,
		AccountID:          "111122223333",
		Region:             "us-west-2",
		AvailabilityZone:   "us-west-2a",
		AvailabilityZoneID: "usw2-az1",
		InstanceID:         "i-0123456789abcdef0",
		InstanceType:       "m5.large",
		Architecture:       "x86_64",
		AMIID:              "ami-0abc",
		PrivateIP:          "10.0.1.23",
		LocalHostname:      "ip-10-0-1-23.us-west-2.compute.internal",
		MAC:                testMAC,
		SubnetID:           "subnet-0aaa",
		VPCID:              "vpc-0bbb",
		SubnetIPv4CIDR:     "10.0.1.0/24",
		VPCIPv4CIDRs:       []string{"10.0.0.0/16", "100.64.0.0/16"},
		SecurityGroupIDs:   []string{"sg-01", "sg-02"},
		InstanceProfileARN: "arn:aws:iam::111122223333:instance-profile/eks-nodes",
		InstanceProfileID:  "AIPAEXAMPLE",
		RoleName:           "eks-node-role",
	}
}

func assertMetadata(t *testing.T, got, want Metadata) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("metadata\n got %s\nwant %s", g, w)
	}
}

// failedRequests returns the records of paths whose last attempt failed.
func failedRequests(reqs []Request) []Request {
	last := map[string]Request{}
	var order []string
	for _, r := range reqs {
		if _, ok := last[r.Path]; !ok {
			order = append(order, r.Path)
		}
		last[r.Path] = r
	}
	var failed []Request
	for _, path := range order {
		if last[path].Err != nil {
			failed = append(failed, last[path])
		}
	}
	return failed
}

func findRequest(t *testing.T, reqs []Request, path string) Request {
	t.Helper()
	for _, r := range slices.Backward(reqs) {
		if r.Path == path {
			return r
		}
	}
	t.Fatalf("no request recorded for %s in %+v", path, reqs)
	return Request{}
}

func TestCollectHealthy(t *testing.T) {
	f := newFakeIMDS(t)
	md, reqs := fastClient(f.start()).Collect(t.Context())

	assertMetadata(t, md, wantHealthy())
	if failed := failedRequests(reqs); len(failed) != 0 {
		t.Errorf("failed requests: %+v", failed)
	}
	if reqs[0].Method != http.MethodPut || reqs[0].Path != tokenPath || reqs[0].Status != http.StatusOK {
		t.Errorf("first record = %+v, want the token PUT", reqs[0])
	}
	wantCount := 1 + len(instanceFields()) + len(interfaceFields(testMAC))
	if len(reqs) != wantCount {
		t.Errorf("recorded %d requests, want %d", len(reqs), wantCount)
	}
	if !f.requested(roleListingPath) {
		t.Errorf("role listing was not read")
	}
	if got := md.RoleARN(); got != "arn:aws:iam::111122223333:role/eks-node-role" {
		t.Errorf("RoleARN() = %q", got)
	}
}

func TestCollectRecordsAreReproducible(t *testing.T) {
	f := newFakeIMDS(t)
	c := fastClient(f.start())
	_, first := c.Collect(t.Context())
	_, second := c.Collect(t.Context())
	paths := func(reqs []Request) []string {
		var p []string
		for _, r := range reqs {
			p = append(p, r.Method+" "+r.Path)
		}
		return p
	}
	if !slices.Equal(paths(first), paths(second)) {
		t.Errorf("request order differs between runs:\n%v\n%v", paths(first), paths(second))
	}
}

func TestCollectDegraded(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(f *fakeIMDS)
		opts      []Option
		want      func() Metadata
		wantPuts  int32
		checkPath string // a request whose error is checked
		wantErr   error
	}{
		{
			name:     "first token expires, one refresh serves every request",
			setup:    func(f *fakeIMDS) { f.expireFirst = true },
			want:     wantHealthy,
			wantPuts: 2,
		},
		{
			name:      "every GET answered 401",
			setup:     func(f *fakeIMDS) { f.getStatus = http.StatusUnauthorized },
			want:      func() Metadata { return Metadata{IMDSVersion: VersionV2} },
			wantPuts:  2,
			checkPath: "/latest/meta-data/instance-id",
			wantErr:   ErrTokenRejected,
		},
		{
			name:      "every GET answered 500",
			setup:     func(f *fakeIMDS) { f.getStatus = http.StatusInternalServerError },
			want:      func() Metadata { return Metadata{IMDSVersion: VersionV2} },
			wantPuts:  1,
			checkPath: identityPath,
			wantErr:   ErrStatus,
		},
		{
			name:      "token PUT answered 500",
			setup:     func(f *fakeIMDS) { f.tokenStatus = http.StatusInternalServerError },
			want:      func() Metadata { return Metadata{} },
			checkPath: tokenPath,
			wantErr:   ErrTokenRejected,
		},
		{
			name:      "token PUT answered 401",
			setup:     func(f *fakeIMDS) { f.tokenStatus = http.StatusUnauthorized },
			want:      func() Metadata { return Metadata{} },
			checkPath: tokenPath,
			wantErr:   ErrTokenRejected,
		},
		{
			name: "token PUT refused, IMDSv1 fallback",
			setup: func(f *fakeIMDS) {
				f.tokenStatus = http.StatusMethodNotAllowed
				f.allowV1 = true
			},
			want: func() Metadata {
				md := wantHealthy()
				md.IMDSVersion = VersionV1
				return md
			},
		},
		{
			name:      "token PUT refused, fallback disabled",
			setup:     func(f *fakeIMDS) { f.tokenStatus = http.StatusForbidden; f.allowV1 = true },
			opts:      []Option{WithIMDSv1Fallback(false)},
			want:      func() Metadata { return Metadata{} },
			checkPath: tokenPath,
			wantErr:   ErrTokenRejected,
		},
		{
			name:      "token PUT refused, v1 GETs need a token",
			setup:     func(f *fakeIMDS) { f.tokenStatus = http.StatusNotFound },
			want:      func() Metadata { return Metadata{IMDSVersion: VersionV1} },
			checkPath: "/latest/meta-data/mac",
			wantErr:   ErrTokenRejected,
		},
		{
			name: "no instance profile",
			setup: func(f *fakeIMDS) {
				delete(f.values, "/latest/meta-data/iam/info")
				delete(f.values, roleListingPath)
			},
			want: func() Metadata {
				md := wantHealthy()
				md.InstanceProfileARN, md.InstanceProfileID, md.RoleName = "", "", ""
				return md
			},
			wantPuts:  1,
			checkPath: "/latest/meta-data/iam/info",
			wantErr:   ErrNotFound,
		},
		{
			name: "identity document missing, dedicated paths still fill",
			setup: func(f *fakeIMDS) {
				delete(f.values, identityPath)
			},
			want: func() Metadata {
				md := wantHealthy()
				md.Architecture = ""
				return md // the account comes from the instance profile ARN
			},
			wantPuts:  1,
			checkPath: identityPath,
			wantErr:   ErrNotFound,
		},
		{
			name:  "mac path hangs, the rest is collected",
			setup: func(f *fakeIMDS) { f.hang = map[string]bool{"/latest/meta-data/mac": true} },
			want: func() Metadata {
				md := wantHealthy()
				md.MAC, md.SubnetID, md.VPCID, md.SubnetIPv4CIDR = "", "", "", ""
				md.VPCIPv4CIDRs, md.SecurityGroupIDs = nil, nil
				return md
			},
			wantPuts:  1,
			checkPath: "/latest/meta-data/mac",
			wantErr:   ErrTimeout,
		},
		{
			name:  "hung request with a budget shorter than the request timeout",
			setup: func(f *fakeIMDS) { f.hang = map[string]bool{"/latest/meta-data/ami-id": true} },
			opts:  []Option{WithRequestTimeout(time.Minute), WithBudget(500 * time.Millisecond)},
			want: func() Metadata {
				md := wantHealthy()
				md.AMIID = "ami-0abc" // from the identity document
				return md
			},
			wantPuts:  1,
			checkPath: "/latest/meta-data/ami-id",
			wantErr:   ErrTimeout,
		},
		{
			name: "hostile mac value is not used in a path",
			setup: func(f *fakeIMDS) {
				f.values["/latest/meta-data/mac"] = "../../iam/security-credentials/eks-node-role"
			},
			want: func() Metadata {
				md := wantHealthy()
				md.MAC, md.SubnetID, md.VPCID, md.SubnetIPv4CIDR = "", "", "", ""
				md.VPCIPv4CIDRs, md.SecurityGroupIDs = nil, nil
				return md
			},
			wantPuts:  1,
			checkPath: "/latest/meta-data/mac",
			wantErr:   ErrMalformed,
		},
		{
			name: "redirect to a credentials document is not followed",
			setup: func(f *fakeIMDS) {
				f.redirectPath = map[string]string{roleListingPath: roleListingPath + "eks-node-role"}
			},
			want: func() Metadata {
				md := wantHealthy()
				md.RoleName = ""
				return md
			},
			wantPuts:  1,
			checkPath: roleListingPath,
			wantErr:   ErrStatus,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeIMDS(t)
			tt.setup(f)
			md, reqs := fastClient(f.start(), tt.opts...).Collect(t.Context())

			assertMetadata(t, md, tt.want())
			if tt.wantPuts != 0 && f.puts.Load() != tt.wantPuts {
				t.Errorf("token PUTs = %d, want %d", f.puts.Load(), tt.wantPuts)
			}
			if tt.checkPath == "" {
				if failed := failedRequests(reqs); len(failed) != 0 {
					t.Errorf("failed requests: %+v", failed)
				}
				return
			}
			rec := findRequest(t, reqs, tt.checkPath)
			if !errors.Is(rec.Err, tt.wantErr) {
				t.Errorf("%s: error %v, want %v", tt.checkPath, rec.Err, tt.wantErr)
			}
			if rec.Error == "" || !strings.Contains(rec.Error, tt.checkPath) {
				t.Errorf("%s: recorded error %q does not name the path", tt.checkPath, rec.Error)
			}
		})
	}
}

// silentListener accepts connections and never reads or writes.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// closedPort returns the URL of a 127.0.0.1 port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestCollectServiceDown(t *testing.T) {
	tests := []struct {
		name    string
		url     func(t *testing.T) string
		wantErr error
	}{
		{"accepts and never answers", silentListener, ErrTimeout},
		{"connection refused", closedPort, ErrUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, reqs := fastClient(tt.url(t)).Collect(t.Context())
			assertMetadata(t, md, Metadata{})
			if len(reqs) != 1 || reqs[0].Path != tokenPath {
				t.Fatalf("records = %+v, want only the token request", reqs)
			}
			if !errors.Is(reqs[0].Err, tt.wantErr) {
				t.Errorf("token request error = %v, want %v", reqs[0].Err, tt.wantErr)
			}
			if reqs[0].Status != 0 {
				t.Errorf("status = %d, want 0 (no HTTP answer)", reqs[0].Status)
			}
		})
	}
}

func TestUserData(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(f *fakeIMDS)
		url      func(t *testing.T, f *fakeIMDS) string
		wantBody string
		wantErr  error
		wantPath string
	}{
		{
			name:     "present",
			wantBody: "#!/bin/bash\n/etc/eks/bootstrap.sh demo\n",
			wantPath: userDataPath,
		},
		{
			name:     "absent",
			setup:    func(f *fakeIMDS) { delete(f.values, userDataPath) },
			wantErr:  ErrNoUserData,
			wantPath: userDataPath,
		},
		{
			name:     "401 always",
			setup:    func(f *fakeIMDS) { f.getStatus = http.StatusUnauthorized },
			wantErr:  ErrTokenRejected,
			wantPath: userDataPath,
		},
		{
			name:     "500",
			setup:    func(f *fakeIMDS) { f.getStatus = http.StatusInternalServerError },
			wantErr:  ErrStatus,
			wantPath: userDataPath,
		},
		{
			name:     "hangs",
			setup:    func(f *fakeIMDS) { f.hang = map[string]bool{userDataPath: true} },
			wantErr:  ErrTimeout,
			wantPath: userDataPath,
		},
		{
			name:     "service refuses connections",
			url:      func(t *testing.T, _ *fakeIMDS) string { return closedPort(t) },
			wantErr:  ErrUnreachable,
			wantPath: tokenPath,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeIMDS(t)
			if tt.setup != nil {
				tt.setup(f)
			}
			url := f.start()
			if tt.url != nil {
				url = tt.url(t, f)
			}
			body, rec, err := fastClient(url).UserData(t.Context())
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if string(body) != tt.wantBody {
				t.Errorf("body = %q, want %q", body, tt.wantBody)
			}
			if rec.Path != tt.wantPath {
				t.Errorf("record path = %q, want %q", rec.Path, tt.wantPath)
			}
			if err != nil && !errors.Is(rec.Err, tt.wantErr) {
				t.Errorf("record error = %v, want %v", rec.Err, tt.wantErr)
			}
			if err == nil && rec.Bytes != len(tt.wantBody) {
				t.Errorf("record bytes = %d, want %d", rec.Bytes, len(tt.wantBody))
			}
		})
	}
}

func TestCheckPath(t *testing.T) {
	tests := []struct {
		path    string
		allowed bool
	}{
		{"/latest/meta-data/instance-id", true},
		{roleListingPath, true},
		{identityPath, true},
		{userDataPath, true},
		{"/latest/meta-data/network/interfaces/macs/" + testMAC + "/subnet-id", true},
		{roleListingPath + "eks-node-role", false},
		{"/latest/meta-data/iam/security-credentials", false},
		{"/latest/meta-data/IAM/Security-Credentials/role", false},
		{"/latest/meta-data/identity-credentials/ec2/security-credentials/ec2-instance", false},
		{"/latest/meta-data/identity-credentials/", false},
		{"/latest/meta-data/mac/../iam/security-credentials/role", false},
		{"/latest/meta-data//iam/info", false},
		{"/latest/meta-data/iam/security%2Dcredentials/role", false},
		{"/latest/meta-data/a b", false},
		{"/2021-01-03/meta-data/instance-id", false},
		{"latest/meta-data/instance-id", false},
	}
	for _, tt := range tests {
		err := checkPath(tt.path)
		if tt.allowed && err != nil {
			t.Errorf("checkPath(%q) = %v, want allowed", tt.path, err)
		}
		if !tt.allowed && !errors.Is(err, ErrForbiddenPath) {
			t.Errorf("checkPath(%q) = %v, want ErrForbiddenPath", tt.path, err)
		}
	}
}

func TestForbiddenPathNeverLeavesTheClient(t *testing.T) {
	f := newFakeIMDS(t)
	c := fastClient(f.start())
	_, rec := c.send(t.Context(), http.MethodGet, roleListingPath+"eks-node-role", "", metadataBodyLimit)
	if !errors.Is(rec.Err, ErrForbiddenPath) {
		t.Errorf("error = %v, want ErrForbiddenPath", rec.Err)
	}
	if f.requested(roleListingPath + "eks-node-role") {
		t.Errorf("the server saw the credentials request")
	}
}

func TestRoleARN(t *testing.T) {
	tests := []struct {
		name string
		md   Metadata
		want string
	}{
		{"commercial", Metadata{AccountID: "111122223333", RoleName: "r", Region: "us-east-1"}, "arn:aws:iam::111122223333:role/r"},
		{"china by region", Metadata{AccountID: "1", RoleName: "r", Region: "cn-north-1"}, "arn:aws-cn:iam::1:role/r"},
		{"govcloud by region", Metadata{AccountID: "1", RoleName: "r", Region: "us-gov-west-1"}, "arn:aws-us-gov:iam::1:role/r"},
		{"partition from profile ARN", Metadata{AccountID: "1", RoleName: "r", Region: "us-east-1",
			InstanceProfileARN: "arn:aws-cn:iam::1:instance-profile/p"}, "arn:aws-cn:iam::1:role/r"},
		{"no role", Metadata{AccountID: "1"}, ""},
		{"no account", Metadata{RoleName: "r"}, ""},
	}
	for _, tt := range tests {
		if got := tt.md.RoleARN(); got != tt.want {
			t.Errorf("%s: RoleARN() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRequestJSON(t *testing.T) {
	rec := Request{Method: "GET", Path: "/latest/meta-data/mac", Status: 200, Bytes: 17,
		Duration: 1500 * time.Microsecond, Error: "boom"}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"method":"GET","path":"/latest/meta-data/mac","status":200,"bytes":17,"duration_ms":1.5,"error":"boom"}`
	if string(data) != want {
		t.Errorf("json = %s, want %s", data, want)
	}
	var back Request
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back != rec {
		t.Errorf("round trip = %+v, want %+v", back, rec)
	}
}
