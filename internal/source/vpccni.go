package source

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// vpcCNIImage marks the image of the VPC CNI's main container (aws-node) in
// `ctr containers list`; the init container's image (amazon-k8s-cni-init)
// does not hold it.
const vpcCNIImage = "amazon-k8s-cni:v"

// Bounds of what ctr may print for the VPC CNI reader.
const (
	maxContainerList = 8 << 20
	maxContainerInfo = 4 << 20
	maxCNIContainers = 8
)

// VPCCNIContainerInfo writes `ctr --namespace k8s.io containers info` of
// the VPC CNI container, found by its image in `ctr containers list`. Its
// spec holds the aws-node environment (AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG,
// ENABLE_PREFIX_DELEGATION...), which tells how ipamd was configured even
// when ipamd itself does not answer. When the pod restarted and several
// such containers exist, the newest is written.
func VPCCNIContainerInfo(ctx context.Context, w io.Writer) error {
	bin, err := lookTool("ctr")
	if err != nil {
		return err
	}
	list, err := capture(ctx, maxContainerList, bin, "--namespace", "k8s.io", "containers", "list")
	if err != nil {
		return fmt.Errorf("listing the containers of namespace k8s.io: %w", err)
	}
	ids := vpcCNIContainers(list)
	if len(ids) == 0 {
		return fmt.Errorf("%w: no container of image %s... in namespace k8s.io", ErrSkipped, vpcCNIImage)
	}
	info, err := newestContainerInfo(ctx, bin, ids)
	if err != nil {
		return err
	}
	_, err = w.Write(info)
	return err
}

// vpcCNIContainers reads the ids of the VPC CNI containers in the output of
// `ctr containers list` (columns CONTAINER, IMAGE, RUNTIME), at most
// maxCNIContainers.
func vpcCNIContainers(list []byte) []string {
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(list))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(ids) < maxCNIContainers {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] == "CONTAINER" || !safeArgument(f[0]) {
			continue
		}
		if strings.Contains(f[1], vpcCNIImage) {
			ids = append(ids, f[0])
		}
	}
	return ids
}

// newestContainerInfo runs `ctr containers info` on each id and returns the
// document of the container created last.
func newestContainerInfo(ctx context.Context, bin string, ids []string) ([]byte, error) {
	var newest []byte
	var newestAt time.Time
	var errs []error
	for _, id := range ids {
		info, err := capture(ctx, maxContainerInfo, bin, "--namespace", "k8s.io", "containers", "info", id)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("reading container %s: %w", id, ctxErr)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if at := containerCreatedAt(info); newest == nil || at.After(newestAt) {
			newest, newestAt = info, at
		}
	}
	if newest == nil {
		return nil, fmt.Errorf("reading the VPC CNI container: %w", errors.Join(errs...))
	}
	return newest, nil
}

// containerCreatedAt reads CreatedAt of a `ctr containers info` document;
// the zero time when it has none.
func containerCreatedAt(info []byte) time.Time {
	var c struct {
		CreatedAt time.Time `json:"CreatedAt"`
	}
	if err := json.Unmarshal(info, &c); err != nil {
		return time.Time{}
	}
	return c.CreatedAt
}
