// Package bundle is the contract between collect and analyze: where things
// live inside a node bundle, what manifest.json says, how a bundle is written
// (tar.gz, tar.zst or zip) and how any bundle — ours, one made by the AWS
// eks-log-collector.sh, a Bottlerocket logdog archive, an extracted folder or a
// single log file — is read back as a stream of members without extracting
// anything to disk.
package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// FormatVersion is the version of the manifest schema written by collect.
const FormatVersion = 1

// ManifestName is the path of the manifest at the root of our bundles.
const ManifestName = "manifest.json"

// Status says how one source of the collector went.
type Status string

// The statuses a source can end with.
const (
	StatusOK        Status = "ok"
	StatusSkipped   Status = "skipped"
	StatusFailed    Status = "failed"
	StatusTimeout   Status = "timeout"
	StatusTruncated Status = "truncated"
)

// Manifest is manifest.json: what was collected, from where, how each source
// went and what was removed from it.
type Manifest struct {
	FormatVersion int       `json:"format_version"`
	Tool          string    `json:"tool"`
	ToolVersion   string    `json:"tool_version"`
	Commit        string    `json:"commit,omitempty"`
	JournalReader string    `json:"journal_backend,omitempty"`
	CommandLine   []string  `json:"command_line"`
	Root          string    `json:"root"`
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	Host          Host      `json:"host"`
	Window        Window    `json:"window"`
	MaxBytes      int64     `json:"max_bytes"`
	Partial       bool      `json:"partial"`
	PartialReason string    `json:"partial_reason,omitempty"`
	Sources       []Source  `json:"sources"`
	Redaction     Redaction `json:"redaction"`
}

// Host identifies the node the bundle was taken from.
type Host struct {
	Hostname          string `json:"hostname,omitempty"`
	InstanceID        string `json:"instance_id,omitempty"`
	AccountID         string `json:"account_id,omitempty"`
	Region            string `json:"region,omitempty"`
	AvailabilityZone  string `json:"availability_zone,omitempty"`
	InstanceType      string `json:"instance_type,omitempty"`
	AMIID             string `json:"ami_id,omitempty"`
	Distro            string `json:"distro,omitempty"`
	DistroVersion     string `json:"distro_version,omitempty"`
	Kernel            string `json:"kernel,omitempty"`
	EKSRelease        string `json:"eks_release,omitempty"`
	KubeletVersion    string `json:"kubelet_version,omitempty"`
	ContainerdVersion string `json:"containerd_version,omitempty"`
	NodeadmVersion    string `json:"nodeadm_version,omitempty"`
}

// Window is the time range the logs were taken from.
type Window struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
}

// Source is one thing the collector gathered (a set of files, a journal unit,
// a command, the instance metadata...) and how it went.
type Source struct {
	Name          string  `json:"name"`
	Status        Status  `json:"status"`
	Files         []File  `json:"files,omitempty"`
	Bytes         int64   `json:"bytes"`
	OriginalBytes int64   `json:"original_bytes"`
	DurationMS    float64 `json:"duration_ms"`
	Error         string  `json:"error,omitempty"`
}

// File is one member of the bundle as the manifest accounts for it.
type File struct {
	Path          string `json:"path"`
	Bytes         int64  `json:"bytes"`
	OriginalBytes int64  `json:"original_bytes"`
	Truncated     bool   `json:"truncated,omitempty"`
}

// Redaction records what the redactor did: which rules ran and how many values
// each replaced in which file. It never holds the values themselves.
type Redaction struct {
	Enabled       bool             `json:"enabled"`
	Pseudonymized bool             `json:"pseudonymized,omitempty"`
	Rules         []string         `json:"rules,omitempty"`
	Counts        []RedactionCount `json:"counts,omitempty"`
}

// RedactionCount is how many values one rule replaced in one file.
type RedactionCount struct {
	File  string `json:"file"`
	Rule  string `json:"rule"`
	Count int    `json:"count"`
}

// ErrBadManifest is returned when manifest.json cannot be decoded.
var ErrBadManifest = errors.New("bad manifest")

// maxManifestBytes bounds how much of a manifest is read: a real one is a few
// hundred KiB even for a bundle with thousands of files.
const maxManifestBytes = 16 << 20

// DecodeManifest reads a manifest.json.
func DecodeManifest(r io.Reader) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(io.LimitReader(r, maxManifestBytes))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadManifest, err)
	}
	if m.FormatVersion < 1 {
		return nil, fmt.Errorf("%w: format_version %d", ErrBadManifest, m.FormatVersion)
	}
	return &m, nil
}

// Encode writes the manifest as indented JSON.
func (m *Manifest) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("encoding manifest: %w", err)
	}
	return nil
}

// Unaccounted returns the paths that no source of the manifest lists; the
// manifest itself is always accounted for.
func (m *Manifest) Unaccounted(paths []string) []string {
	known := make(map[string]bool)
	for _, s := range m.Sources {
		for _, f := range s.Files {
			known[f.Path] = true
		}
	}
	var missing []string
	for _, p := range paths {
		if p != ManifestName && !known[p] {
			missing = append(missing, p)
		}
	}
	return missing
}
