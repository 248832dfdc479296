package imds

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseIdentityDocument(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    IdentityDocument
		wantErr bool
	}{
		{"full", healthyValues()[identityPath], IdentityDocument{
			AccountID: "111122223333", Architecture: "x86_64", AvailabilityZone: "us-west-2a",
			ImageID: "ami-0abc", InstanceID: "i-0123456789abcdef0", InstanceType: "m5.large",
			PrivateIP: "10.0.1.23", Region: "us-west-2"}, false},
		{"only instance", `{"instanceId":"i-1"}`, IdentityDocument{InstanceID: "i-1"}, false},
		{"empty object", `{}`, IdentityDocument{}, true},
		{"null", `null`, IdentityDocument{}, true},
		{"array", `[1]`, IdentityDocument{}, true},
		{"html error page", `<html>503</html>`, IdentityDocument{}, true},
		{"wrong type", `{"instanceId":7}`, IdentityDocument{}, true},
	}
	for _, tt := range tests {
		got, err := ParseIdentityDocument([]byte(tt.in))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: error = %v, want error %v", tt.name, err, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v is not ErrMalformed", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestParseIAMInfo(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantARN string
		wantErr bool
	}{
		{"success", healthyValues()["/latest/meta-data/iam/info"], "arn:aws:iam::111122223333:instance-profile/eks-nodes", false},
		{"no code", `{"InstanceProfileArn":"arn:aws:iam::1:instance-profile/p"}`, "arn:aws:iam::1:instance-profile/p", false},
		{"failure code", `{"Code":"AssumeRoleUnauthorizedAccess","InstanceProfileArn":"arn:aws:iam::1:instance-profile/p"}`, "", true},
		{"no arn", `{"Code":"Success"}`, "", true},
		{"not json", `Success`, "", true},
	}
	for _, tt := range tests {
		got, err := ParseIAMInfo([]byte(tt.in))
		if (err != nil) != tt.wantErr || got.InstanceProfileARN != tt.wantARN {
			t.Errorf("%s: got %+v, %v; want ARN %q, error %v", tt.name, got, err, tt.wantARN, tt.wantErr)
		}
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"sg-1\nsg-2", []string{"sg-1", "sg-2"}},
		{"sg-1\r\nsg-2\r\n", []string{"sg-1", "sg-2"}},
		{"\n\n 10.0.0.0/16 \n\n", []string{"10.0.0.0/16"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := ParseList([]byte(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("ParseList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseRoleNameAndMAC(t *testing.T) {
	roles := []struct {
		in, want string
	}{
		{"eks-node-role\n", "eks-node-role"},
		{"Role+=,.@_-1", "Role+=,.@_-1"},
		{"first\nsecond", "first"},
		{"", ""},
		{"../secret", ""},
		{"role/with/path", ""},
		{strings.Repeat("a", 65), ""},
	}
	for _, tt := range roles {
		got, err := ParseRoleName([]byte(tt.in))
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("ParseRoleName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	macs := []struct {
		in, want string
	}{
		{testMAC + "\n", testMAC},
		{"0A:1B:2C:3D:4E:5F", "0A:1B:2C:3D:4E:5F"},
		{"0a:1b:2c:3d:4e", ""},
		{"0a:1b:2c:3d:4e:5f/../../iam", ""},
		{"", ""},
	}
	for _, tt := range macs {
		got, err := ParseMAC([]byte(tt.in))
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("ParseMAC(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseIdentityDocument(f *testing.F) {
	f.Add([]byte(healthyValues()[identityPath]))
	f.Add([]byte(`{"instanceId":"i-1","accountId":""}`))
	f.Add([]byte(`{"accountId":"\u0000","region":"x"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"instanceId":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseIdentityDocument(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			if doc != (IdentityDocument{}) {
				t.Fatalf("failed parse returned %+v", doc)
			}
			return
		}
		if doc.InstanceID == "" && doc.AccountID == "" {
			t.Fatalf("accepted a document without instance and account: %q", data)
		}
		// What was accepted survives a round trip unchanged.
		again, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseIdentityDocument(again)
		if err != nil || back != doc {
			t.Fatalf("round trip: %+v, %v; want %+v", back, err, doc)
		}
	})
}

func FuzzParseIAMInfo(f *testing.F) {
	f.Add([]byte(healthyValues()["/latest/meta-data/iam/info"]))
	f.Add([]byte(`{"Code":"Failure"}`))
	f.Add([]byte(`{"InstanceProfileArn":"arn"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := ParseIAMInfo(data)
		if err == nil && info.InstanceProfileARN == "" {
			t.Fatalf("accepted iam/info without an ARN: %q", data)
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v is not ErrMalformed", err)
		}
		m := Metadata{InstanceProfileARN: info.InstanceProfileARN, AccountID: accountFromARN(info.InstanceProfileARN), RoleName: "r"}
		if arn := m.RoleARN(); m.AccountID != "" && !strings.HasPrefix(arn, "arn:") {
			t.Fatalf("RoleARN() = %q", arn)
		}
	})
}

// FuzzParseList covers the newline-list bodies, the role listing and the MAC,
// the three plain-text bodies whose values end up in JSON or in paths.
func FuzzParseList(f *testing.F) {
	f.Add([]byte("sg-01\nsg-02\n"))
	f.Add([]byte("10.0.0.0/16\r\n100.64.0.0/16"))
	f.Add([]byte("eks-node-role\n"))
	f.Add([]byte(testMAC))
	f.Add([]byte("../../iam/security-credentials/x"))
	f.Add([]byte("\n\n\t \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, item := range ParseList(data) {
			if item == "" || item != strings.TrimSpace(item) || strings.Contains(item, "\n") {
				t.Fatalf("bad list item %q from %q", item, data)
			}
		}
		if name, err := ParseRoleName(data); err == nil {
			if !roleNamePattern.MatchString(name) {
				t.Fatalf("accepted role name %q", name)
			}
			if checkPath(roleListingPath+name) == nil {
				t.Fatalf("role name %q makes a path the guard allows", name)
			}
		}
		if mac, err := ParseMAC(data); err == nil {
			for _, f := range interfaceFields(mac) {
				if err := checkPath(f.path); err != nil {
					t.Fatalf("mac %q gives a refused path: %v", mac, err)
				}
			}
		}
	})
}
