package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nodetriage/nodetriage/internal/imds"
)

// cloudInstanceIDPath is where cloud-init keeps the instance id; the AWS
// collector prefers it to IMDS when it starts with "i-".
const cloudInstanceIDPath = "/var/lib/cloud/data/instance-id"

// once is a result published by one source and awaited by others.
type once[T any] struct {
	done  chan struct{}
	close sync.Once
	value T
}

func newOnce[T any]() *once[T] { return &once[T]{done: make(chan struct{})} }

func (o *once[T]) set(v T) {
	o.close.Do(func() {
		o.value = v
		close(o.done)
	})
}

// get returns the value if it was published, without waiting.
func (o *once[T]) get() (T, bool) {
	select {
	case <-o.done:
		return o.value, true
	default:
		var zero T
		return zero, false
	}
}

// wait returns the value once published, or false when ctx ends first.
func (o *once[T]) wait(ctx context.Context) (T, bool) {
	select {
	case <-o.done:
		return o.value, true
	case <-ctx.Done():
		var zero T
		return zero, false
	}
}

// IMDS reads the instance metadata into imds/ and writes the identity files
// of the AWS collector (system/instance-id.txt, region.txt,
// availability-zone.txt).
type IMDS struct {
	client *imds.Client
	tree   *Tree
	result *once[imds.Metadata]
}

// NewIMDS returns the metadata source; a nil client (--no-imds) only
// writes the instance id cloud-init recorded.
func NewIMDS(client *imds.Client, tree *Tree) *IMDS {
	return &IMDS{client: client, tree: tree, result: newOnce[imds.Metadata]()}
}

// Name is the source name.
func (s *IMDS) Name() string { return "imds" }

// Deadline leaves the client its own budget and a moment to write.
func (s *IMDS) Deadline() time.Duration { return 13 * time.Second }

// Metadata waits for the metadata the source read (empty fields when it
// could not read them) or for ctx to end.
func (s *IMDS) Metadata(ctx context.Context) (imds.Metadata, bool) {
	return s.result.wait(ctx)
}

// Finished returns the metadata if the source has finished, without
// waiting.
func (s *IMDS) Finished() (imds.Metadata, bool) { return s.result.get() }

// Collect reads the metadata and writes what it learned.
func (s *IMDS) Collect(ctx context.Context, out Sink) error {
	var md imds.Metadata
	defer func() { s.result.set(md) }()
	if s.client == nil {
		md.InstanceID = s.localInstanceID()
		err := writeIdentity(out, md)
		return errors.Join(fmt.Errorf("%w: --no-imds", ErrSkipped), err)
	}
	md, requests := s.client.Collect(ctx)
	if md.InstanceID == "" {
		md.InstanceID = s.localInstanceID()
	}
	var errs []error
	if err := writeJSON(out, "imds/metadata.json", metadataDocument(md)); err != nil {
		errs = append(errs, err)
	}
	if err := writeJSON(out, "imds/requests.json", requests); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, writeIdentity(out, md), requestsError(requests))
	return errors.Join(errs...)
}

// metadataDocument is imds/metadata.json: the metadata plus the role ARN
// derived from it.
func metadataDocument(md imds.Metadata) any {
	return struct {
		imds.Metadata
		RoleARN string `json:"role_arn,omitempty"`
	}{md, md.RoleARN()}
}

// localInstanceID reads the instance id cloud-init recorded on the node.
func (s *IMDS) localInstanceID() string {
	data, err := s.tree.ReadFile(cloudInstanceIDPath, 256)
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(data))
	if !strings.HasPrefix(id, "i-") {
		return ""
	}
	return id
}

func writeIdentity(out Sink, md imds.Metadata) error {
	var errs []error
	for _, f := range []struct{ name, value string }{
		{"system/instance-id.txt", md.InstanceID},
		{"system/region.txt", md.Region},
		{"system/availability-zone.txt", md.AvailabilityZone},
	} {
		if f.value != "" {
			errs = append(errs, writeFile(out, f.name, []byte(f.value+"\n")))
		}
	}
	return errors.Join(errs...)
}

// requestsError summarizes the requests that failed, or nil.
func requestsError(requests []imds.Request) error {
	var failed []string
	for _, r := range requests {
		if r.Error != "" {
			failed = append(failed, r.Error)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	if len(failed) > 3 {
		failed = append(failed[:3], fmt.Sprintf("and %d more", len(failed)-3))
	}
	return fmt.Errorf("%d of %d IMDS requests failed: %s", countFailed(requests), len(requests), strings.Join(failed, "; "))
}

func countFailed(requests []imds.Request) int {
	n := 0
	for _, r := range requests {
		if r.Error != "" {
			n++
		}
	}
	return n
}

// writeJSON stages v as indented JSON.
func writeJSON(out Sink, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", name, err)
	}
	return writeFile(out, name, append(data, '\n'))
}
