package imds

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

const (
	identityPath = "/latest/dynamic/instance-identity/document"
	metaDataRoot = "/latest/meta-data/"
	userDataPath = "/latest/user-data"
)

// Metadata is what Collect learned about the instance. Fields it could not
// read stay empty.
type Metadata struct {
	// IMDSVersion is "v2", or "v1" when the token PUT was refused and the
	// client read without a token. Empty when the service was not reached.
	IMDSVersion        string   `json:"imds_version,omitempty"`
	AccountID          string   `json:"account_id,omitempty"`
	Region             string   `json:"region,omitempty"`
	AvailabilityZone   string   `json:"availability_zone,omitempty"`
	AvailabilityZoneID string   `json:"availability_zone_id,omitempty"`
	InstanceID         string   `json:"instance_id,omitempty"`
	InstanceType       string   `json:"instance_type,omitempty"`
	Architecture       string   `json:"architecture,omitempty"`
	AMIID              string   `json:"ami_id,omitempty"`
	PrivateIP          string   `json:"private_ip,omitempty"`
	LocalHostname      string   `json:"local_hostname,omitempty"`
	MAC                string   `json:"mac,omitempty"`
	SubnetID           string   `json:"subnet_id,omitempty"`
	VPCID              string   `json:"vpc_id,omitempty"`
	SubnetIPv4CIDR     string   `json:"subnet_ipv4_cidr_block,omitempty"`
	VPCIPv4CIDRs       []string `json:"vpc_ipv4_cidr_blocks,omitempty"`
	SecurityGroupIDs   []string `json:"security_group_ids,omitempty"`
	InstanceProfileARN string   `json:"instance_profile_arn,omitempty"`
	InstanceProfileID  string   `json:"instance_profile_id,omitempty"`
	RoleName           string   `json:"role_name,omitempty"`
}

// RoleARN builds the ARN of the instance role from the account and the role
// name. IMDS shows the role's name but not its IAM path, so a role created
// under a path (role/team/name) comes out as if it had none; compare by name
// when matching against aws-auth mapRoles or access entries. The partition
// comes from the instance profile ARN, or else from the region. Empty when the
// account or the role name is unknown.
func (m Metadata) RoleARN() string {
	if m.AccountID == "" || m.RoleName == "" {
		return ""
	}
	return "arn:" + m.partition() + ":iam::" + m.AccountID + ":role/" + m.RoleName
}

func (m Metadata) partition() string {
	if p := partitionFromARN(m.InstanceProfileARN); p != "" {
		return p
	}
	switch {
	case strings.HasPrefix(m.Region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(m.Region, "us-gov-"):
		return "aws-us-gov"
	case strings.HasPrefix(m.Region, "us-isob-"):
		return "aws-iso-b"
	case strings.HasPrefix(m.Region, "us-iso-"):
		return "aws-iso"
	}
	return "aws"
}

// field is one metadata path, how its body fills Metadata, and which
// fields depend on that body (read as soon as it arrives).
type field struct {
	path   string
	apply  func(*Metadata, []byte) error
	follow func(body []byte) []field
}

// instanceFields are read first, in parallel. Their order is the order in
// which results are applied: the identity document comes first, so that the
// dedicated paths read after it win and it only fills their gaps.
func instanceFields() []field {
	return []field{
		{path: identityPath, apply: applyIdentity},
		{path: meta("placement/region"), apply: text(func(m *Metadata, v string) { m.Region = v })},
		{path: meta("placement/availability-zone"), apply: text(func(m *Metadata, v string) { m.AvailabilityZone = v })},
		{path: meta("placement/availability-zone-id"), apply: text(func(m *Metadata, v string) { m.AvailabilityZoneID = v })},
		{path: meta("instance-id"), apply: text(func(m *Metadata, v string) { m.InstanceID = v })},
		{path: meta("instance-type"), apply: text(func(m *Metadata, v string) { m.InstanceType = v })},
		{path: meta("ami-id"), apply: text(func(m *Metadata, v string) { m.AMIID = v })},
		{path: meta("local-ipv4"), apply: text(func(m *Metadata, v string) { m.PrivateIP = v })},
		{path: meta("local-hostname"), apply: text(func(m *Metadata, v string) { m.LocalHostname = v })},
		{path: meta("mac"), apply: applyMAC, follow: followMAC},
		{path: meta("iam/info"), apply: applyIAMInfo},
		{path: roleListingPath, apply: applyRoleName},
	}
}

// followMAC returns the reads about the interface whose MAC is in body.
func followMAC(body []byte) []field {
	mac, err := ParseMAC(body)
	if err != nil {
		return nil
	}
	return interfaceFields(mac)
}

// interfaceFields are read once the primary interface's MAC is known.
func interfaceFields(mac string) []field {
	prefix := "network/interfaces/macs/" + mac + "/"
	return []field{
		{path: meta(prefix + "subnet-id"), apply: text(func(m *Metadata, v string) { m.SubnetID = v })},
		{path: meta(prefix + "vpc-id"), apply: text(func(m *Metadata, v string) { m.VPCID = v })},
		{path: meta(prefix + "subnet-ipv4-cidr-block"), apply: text(func(m *Metadata, v string) { m.SubnetIPv4CIDR = v })},
		{path: meta(prefix + "vpc-ipv4-cidr-blocks"), apply: list(func(m *Metadata, v []string) { m.VPCIPv4CIDRs = v })},
		{path: meta(prefix + "security-group-ids"), apply: list(func(m *Metadata, v []string) { m.SecurityGroupIDs = v })},
	}
}

func meta(rel string) string { return metaDataRoot + rel }

func text(set func(*Metadata, string)) func(*Metadata, []byte) error {
	return func(m *Metadata, body []byte) error {
		v := strings.TrimSpace(string(body))
		if v == "" {
			return fmt.Errorf("%w: empty value", ErrMalformed)
		}
		set(m, v)
		return nil
	}
}

func list(set func(*Metadata, []string)) func(*Metadata, []byte) error {
	return func(m *Metadata, body []byte) error {
		items := ParseList(body)
		if len(items) == 0 {
			return fmt.Errorf("%w: empty list", ErrMalformed)
		}
		set(m, items)
		return nil
	}
}

func applyIdentity(m *Metadata, body []byte) error {
	doc, err := ParseIdentityDocument(body)
	if err != nil {
		return err
	}
	m.AccountID = doc.AccountID
	m.Region = doc.Region
	m.AvailabilityZone = doc.AvailabilityZone
	m.InstanceID = doc.InstanceID
	m.InstanceType = doc.InstanceType
	m.Architecture = doc.Architecture
	m.AMIID = doc.ImageID
	m.PrivateIP = doc.PrivateIP
	return nil
}

func applyMAC(m *Metadata, body []byte) error {
	mac, err := ParseMAC(body)
	if err != nil {
		return err
	}
	m.MAC = mac
	return nil
}

func applyIAMInfo(m *Metadata, body []byte) error {
	info, err := ParseIAMInfo(body)
	if err != nil {
		return err
	}
	m.InstanceProfileARN = info.InstanceProfileARN
	m.InstanceProfileID = info.InstanceProfileID
	if m.AccountID == "" {
		m.AccountID = accountFromARN(info.InstanceProfileARN)
	}
	return nil
}

func applyRoleName(m *Metadata, body []byte) error {
	name, err := ParseRoleName(body)
	if err != nil {
		return err
	}
	m.RoleName = name
	return nil
}

// Collect reads the instance metadata that matters for triage within the
// client's budget and returns what it learned with a record of every request:
// token requests first, then the reads in a fixed order. A read retried after
// a 401 has two records; the last one tells how it ended. Collect never fails
// as a whole: requests that did not work carry their error, and Metadata
// keeps what the others gave. If no token could be had, only the token
// request is recorded.
func (c *Client) Collect(ctx context.Context) (Metadata, []Request) {
	ctx, cancel := context.WithTimeout(ctx, c.budget)
	defer cancel()
	defer c.http.CloseIdleConnections()

	s := newSession(c)
	var md Metadata
	if err := s.start(ctx); err != nil {
		return md, s.tokenRequests()
	}
	md.IMDSVersion = s.version()
	r := &reader{session: s}
	r.readAll(ctx, 0, instanceFields())
	r.wg.Wait()
	return md, append(s.tokenRequests(), r.apply(&md)...)
}

// reader fetches fields in parallel; a field's follow-ups start as soon as
// its own body is in, so one slow path delays only what depends on it.
type reader struct {
	session *session
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []readResult
}

// readResult is one fetched field. group and index give the fixed order in
// which results are applied and reported: top-level fields are group 0,
// follow-ups of top-level field i are group i+1.
type readResult struct {
	group, index int
	field        field
	body         []byte
	attempts     []Request
}

func (r *reader) readAll(ctx context.Context, group int, fields []field) {
	for i, f := range fields {
		r.wg.Go(func() { r.read(ctx, group, i, f) })
	}
}

func (r *reader) read(ctx context.Context, group, index int, f field) {
	body, attempts := r.session.get(ctx, f.path, metadataBodyLimit)
	r.mu.Lock()
	r.results = append(r.results, readResult{group, index, f, body, attempts})
	r.mu.Unlock()
	if f.follow != nil && attempts[len(attempts)-1].Err == nil {
		r.readAll(ctx, index+1, f.follow(body))
	}
}

// apply fills md from the results in their fixed order and returns the
// request records in that order. A body that does not parse marks its
// request failed.
func (r *reader) apply(md *Metadata) []Request {
	slices.SortFunc(r.results, func(a, b readResult) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.index, b.index))
	})
	var records []Request
	for _, res := range r.results {
		last := &res.attempts[len(res.attempts)-1]
		if last.Err == nil {
			if err := res.field.apply(md, res.body); err != nil {
				last.fail(fmt.Errorf("GET %s: %w", res.field.path, err))
			}
		}
		records = append(records, res.attempts...)
	}
	return records
}

// UserData reads the instance user data within the client's budget. It
// returns ErrNoUserData when the instance has none (HTTP 404). The Request
// describes the user-data read, or the token request when that failed.
func (c *Client) UserData(ctx context.Context) ([]byte, Request, error) {
	ctx, cancel := context.WithTimeout(ctx, c.budget)
	defer cancel()
	defer c.http.CloseIdleConnections()

	s := newSession(c)
	if err := s.start(ctx); err != nil {
		tokens := s.tokenRequests()
		return nil, tokens[len(tokens)-1], err
	}
	body, attempts := s.get(ctx, userDataPath, userDataBodyLimit)
	rec := attempts[len(attempts)-1]
	if errors.Is(rec.Err, ErrNotFound) {
		rec.fail(fmt.Errorf("GET %s: %w", userDataPath, ErrNoUserData))
	}
	if rec.Err != nil {
		return nil, rec, rec.Err
	}
	return body, rec, nil
}
