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
//
// Under --root the answers describe the machine collect runs on. They are
// kept only when that machine is the node of the volume (the instance id
// cloud-init recorded there matches IMDS's, as in a Kubernetes Job that
// mounts the node's / at /host); on a rescue machine that mounted a dead
// node's disk they are dropped, and the source says why.
type IMDS struct {
	client *imds.Client
	tree   *Tree
	result *once[imdsResult]
}

// imdsResult is what the IMDS source publishes to the sources that wait
// for it.
type imdsResult struct {
	md imds.Metadata
	// describesNode is true when the answers came from the node itself.
	describesNode bool
}

// NewIMDS returns the metadata source; a nil client (--no-imds) only
// writes the instance id cloud-init recorded.
func NewIMDS(client *imds.Client, tree *Tree) *IMDS {
	return &IMDS{client: client, tree: tree, result: newOnce[imdsResult]()}
}

// Name is the source name.
func (s *IMDS) Name() string { return "imds" }

// Deadline leaves the client its own budget and a moment to write.
func (s *IMDS) Deadline() time.Duration { return 13 * time.Second }

// Metadata waits for the metadata the source read (empty fields when it
// could not read them) or for ctx to end.
func (s *IMDS) Metadata(ctx context.Context) (imds.Metadata, bool) {
	r, ok := s.result.wait(ctx)
	return r.md, ok
}

// DescribesNode waits for the source and tells whether IMDS answered for
// the node being collected: always on the node itself, and under --root
// only when the instance ids match.
func (s *IMDS) DescribesNode(ctx context.Context) bool {
	r, _ := s.result.wait(ctx)
	return r.describesNode
}

// Finished returns the metadata if the source has finished, without
// waiting.
func (s *IMDS) Finished() (imds.Metadata, bool) {
	r, ok := s.result.get()
	return r.md, ok
}

// Collect reads the metadata and writes what it learned.
func (s *IMDS) Collect(ctx context.Context, out Sink) error {
	var r imdsResult
	defer func() { s.result.set(r) }()
	local := s.localInstanceID()
	if s.client == nil {
		r.describesNode = s.tree.Live()
		r.md.InstanceID = local
		err := writeIdentity(out, r.md)
		return errors.Join(fmt.Errorf("%w: --no-imds", ErrSkipped), err)
	}
	md, requests := s.client.Collect(ctx)
	if md.InstanceID != "" {
		if err := s.sameInstance(md.InstanceID, local); err != nil {
			r.md.InstanceID = local
			return errors.Join(err, writeIdentity(out, r.md))
		}
	}
	// Under --root, an IMDS that gave no instance id proves nothing unless
	// the user said the running machine is the node; its failure is still
	// recorded below.
	r.describesNode = s.tree.Live() || md.InstanceID != ""
	if md.InstanceID == "" {
		md.InstanceID = local
	}
	r.md = md
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

// sameInstance returns nil when IMDS's answers may be kept for the node
// being collected, and otherwise an ErrSkipped error saying why not.
func (s *IMDS) sameInstance(fromIMDS, onVolume string) error {
	switch {
	case !s.tree.Mounted():
		return nil
	case onVolume == "":
		return fmt.Errorf("%w: IMDS describes the machine collect runs on, and the volume at --root %s records no instance id (%s) to prove it is the same instance; its answers were not kept",
			ErrSkipped, s.tree.Dir(), cloudInstanceIDPath)
	case fromIMDS != onVolume:
		return fmt.Errorf("%w: IMDS answered for %s, the machine collect runs on, not for %s whose volume is at --root %s; its answers were not kept",
			ErrSkipped, fromIMDS, onVolume, s.tree.Dir())
	}
	return nil
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
