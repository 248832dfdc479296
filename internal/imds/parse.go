package imds

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// IdentityDocument holds the fields of the instance identity document
// (/latest/dynamic/instance-identity/document) that triage uses.
type IdentityDocument struct {
	AccountID        string `json:"accountId"`
	Architecture     string `json:"architecture"`
	AvailabilityZone string `json:"availabilityZone"`
	ImageID          string `json:"imageId"`
	InstanceID       string `json:"instanceId"`
	InstanceType     string `json:"instanceType"`
	PrivateIP        string `json:"privateIp"`
	Region           string `json:"region"`
}

// ParseIdentityDocument decodes an identity document. A document that is not
// a JSON object, or names neither an instance nor an account, is malformed.
func ParseIdentityDocument(data []byte) (IdentityDocument, error) {
	var doc IdentityDocument
	if err := json.Unmarshal(data, &doc); err != nil {
		return IdentityDocument{}, fmt.Errorf("identity document: %w: %w", ErrMalformed, err)
	}
	if doc.InstanceID == "" && doc.AccountID == "" {
		return IdentityDocument{}, fmt.Errorf("identity document: %w: no instanceId and no accountId", ErrMalformed)
	}
	return doc, nil
}

// IAMInfo holds the fields of meta-data/iam/info that triage uses.
type IAMInfo struct {
	InstanceProfileARN string `json:"InstanceProfileArn"`
	InstanceProfileID  string `json:"InstanceProfileId"`
}

// ParseIAMInfo decodes meta-data/iam/info. A Code other than "Success" (when
// present) or a missing profile ARN makes it malformed.
func ParseIAMInfo(data []byte) (IAMInfo, error) {
	var raw struct {
		Code string `json:"Code"`
		IAMInfo
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return IAMInfo{}, fmt.Errorf("iam/info: %w: %w", ErrMalformed, err)
	}
	if raw.Code != "" && raw.Code != "Success" {
		return IAMInfo{}, fmt.Errorf("iam/info: %w: Code %q", ErrMalformed, raw.Code)
	}
	if raw.InstanceProfileARN == "" {
		return IAMInfo{}, fmt.Errorf("iam/info: %w: no InstanceProfileArn", ErrMalformed)
	}
	return raw.IAMInfo, nil
}

// ParseList splits a newline-separated metadata value (security-group-ids,
// vpc-ipv4-cidr-blocks) into its trimmed, non-empty lines.
func ParseList(data []byte) []string {
	var items []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if item := strings.TrimSpace(line); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// roleNamePattern is what IAM accepts as a role name.
var roleNamePattern = regexp.MustCompile(`^[A-Za-z0-9+=,.@_-]{1,64}$`)

// ParseRoleName reads the body of the listing iam/security-credentials/,
// which names the instance role. An instance profile holds at most one role,
// so the first entry is the answer.
func ParseRoleName(data []byte) (string, error) {
	entries := ParseList(data)
	if len(entries) == 0 {
		return "", fmt.Errorf("iam/security-credentials/: %w: empty listing", ErrMalformed)
	}
	name := strings.TrimSuffix(entries[0], "/")
	if !roleNamePattern.MatchString(name) {
		return "", fmt.Errorf("iam/security-credentials/: %w: %q is not a role name", ErrMalformed, name)
	}
	return name, nil
}

var macPattern = regexp.MustCompile(`^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$`)

// ParseMAC reads meta-data/mac. Only a well-formed address is accepted,
// because it becomes part of later request paths.
func ParseMAC(data []byte) (string, error) {
	mac := strings.TrimSpace(string(data))
	if !macPattern.MatchString(mac) {
		return "", fmt.Errorf("mac: %w: %q", ErrMalformed, mac)
	}
	return mac, nil
}

// accountFromARN returns the account field of an ARN
// (arn:partition:service:region:account:resource), or "".
func accountFromARN(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 || parts[0] != "arn" {
		return ""
	}
	return parts[4]
}

// partitionFromARN returns the partition field of an ARN, or "".
func partitionFromARN(arn string) string {
	parts := strings.SplitN(arn, ":", 3)
	if len(parts) < 3 || parts[0] != "arn" {
		return ""
	}
	return parts[1]
}
