package collect

import (
	"compress/flate"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nodetriage/nodetriage/internal/source"
)

// Tiers say in which order files give up bytes when the bundle is over its
// budget: bulk logs first, then ordinary logs, and what explains most
// failures (nodeadm, cloud-init, user data, metadata) last.
const (
	tierKeep = iota
	tierNormal
	tierBulk
)

// smallFile is the size under which a file is never cut before the last
// pass: cutting it would save little and lose a whole file.
const smallFile = 32 << 10

// tierOf places a bundle path in its tier.
func tierOf(p string, size int64) int {
	top, _, _ := strings.Cut(p, "/")
	base := path.Base(p)
	switch {
	case top == "nodeadm" || top == "cloud-init" || top == "userdata" || top == "imds" ||
		top == "probes" || top == "eks" || top == "system" && size < smallFile:
		return tierKeep
	case p == "var_log/cloud-init.log" || p == "var_log/cloud-init-output.log" || p == "var_log/user-data.log":
		return tierKeep
	case size < smallFile:
		return tierKeep
	case top == "journal" && strings.HasPrefix(base, "boot-"),
		p == "var_log/messages", p == "var_log/syslog",
		strings.HasPrefix(p, "var_log/kube-system_"), strings.HasPrefix(p, "var_log/mount-s3_"),
		isStateDump(p):
		return tierBulk
	}
	return tierNormal
}

// stateDumps are listings of the node's state that grow with the cluster
// and the workload (kube-proxy's iptables rules, every thread, every
// socket) and explain fewer join failures than the logs, so they give up
// bytes with the bulk logs. stateDumpPrefixes name families of them
// (iptables-nat.txt, ip6tables-save.txt...).
var (
	stateDumps = []string{
		"system/allprocstat.txt", "system/ps-threads.txt", "system/top.txt", "system/systemd-analyze.svg",
		"system/pkglist.txt", "system/pkglist-dpkg.txt", "system/netstat.txt",
		"networking/ipset.txt", "networking/ipvsadm.txt", "networking/ss.txt", "networking/conntrack.txt",
		"containerd/containerd-images.txt", "containerd/containerd-plugins.txt", "containerd/containerd-containers.txt",
		"ipamd/metrics.json",
	}
	stateDumpPrefixes = []string{"networking/iptables", "networking/ip6tables"}
)

// isStateDump tells whether p is one of stateDumps or of their families.
func isStateDump(p string) bool {
	return slices.Contains(stateDumps, p) ||
		slices.ContainsFunc(stateDumpPrefixes, func(prefix string) bool { return strings.HasPrefix(p, prefix) })
}

// budgetFile is one staged file as the budget sees it.
type budgetFile struct {
	path      string
	size      int64 // bytes staged
	estimate  int64 // compressed bytes, estimated
	protected int64 // newest bytes the source asked to keep
	tier      int
}

// estimator estimates compressed sizes, remembering each file's estimate
// for its current size.
type estimator struct {
	dir   string
	cache map[string][2]int64 // path → {size, estimate}
}

// Files bigger than sampledAbove are estimated from sampleCount evenly
// spaced samples of sampleBytes each instead of being compressed whole:
// logs compress about evenly, and the pack loop cuts again if the archive
// still comes out too big.
const (
	sampledAbove = 8 << 20
	sampleCount  = 8
	sampleBytes  = 256 << 10
)

// estimate compresses the staged file (or samples of a big one) at the fast
// level and returns the compressed size (an upper bound of what the
// archive's compressor needs).
func (e *estimator) estimate(p string, size int64) (int64, error) {
	if c, ok := e.cache[p]; ok && c[0] == size {
		return c[1], nil
	}
	f, err := os.Open(filepath.Join(e.dir, filepath.FromSlash(p)))
	if err != nil {
		return 0, fmt.Errorf("estimating %s: %w", p, err)
	}
	defer f.Close()
	var compressed int64
	if size > sampledAbove {
		compressed, err = sampledCompressedSize(f, size)
	} else {
		compressed, err = compressedBytes(f)
	}
	if err != nil {
		return 0, fmt.Errorf("estimating %s: %w", p, err)
	}
	est := compressed + 64 // tar header and gzip framing, compressed
	e.cache[p] = [2]int64{size, est}
	return est, nil
}

// compressedBytes is the size of r compressed at the fast level.
func compressedBytes(r io.Reader) (int64, error) {
	var n countWriter
	zw, _ := flate.NewWriter(&n, flate.BestSpeed)
	if _, err := io.Copy(zw, r); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int64(n), nil
}

// sampledCompressedSize estimates the compressed size of a big file from
// evenly spaced samples, scaled to the whole size.
func sampledCompressedSize(f io.ReaderAt, size int64) (int64, error) {
	var sampled, compressed int64
	stride := size / sampleCount
	for i := range int64(sampleCount) {
		n, err := compressedBytes(io.NewSectionReader(f, i*stride, min(sampleBytes, size-i*stride)))
		if err != nil {
			return 0, err
		}
		compressed += n
		sampled += min(sampleBytes, size-i*stride)
	}
	return compressed * size / max(sampled, 1), nil
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// budgetFiles lists the staged files with their estimates.
func (e *estimator) budgetFiles(records []source.Record) ([]budgetFile, error) {
	files := make([]budgetFile, 0, len(records))
	for _, r := range records {
		if r.Bytes == 0 {
			continue
		}
		est, err := e.estimate(r.Path, r.Bytes)
		if err != nil {
			return nil, err
		}
		files = append(files, budgetFile{path: r.Path, size: r.Bytes, estimate: est,
			protected: min(r.ProtectedTail, r.Bytes), tier: tierOf(r.Path, r.Bytes)})
	}
	return files, nil
}

// cutPasses are the order in which files give up bytes: first the bulk
// logs down to a small tail each, then ordinary logs down to that tail (and
// the protected part, such as kubelet's current boot), then the bulk tails,
// then everything but the protected parts, then the files that explain most
// failures, and at last the protected parts.
var cutPasses = []struct {
	tier                     int
	keepShare, keepProtected bool
}{
	{tierBulk, true, false},
	{tierNormal, true, true},
	{tierBulk, false, false},
	{tierNormal, false, true},
	{tierKeep, false, false},
	{tierNormal, false, false},
}

// planCuts decides how many bytes of each file to keep so that the
// estimated total fits target. Tiers give up bytes from bulk to keep; within
// a tier, the biggest files are cut first and down to the same compressed
// size (water filling), so small files stay whole. In the normal tier a
// file's protected tail is kept; only the last pass may cut into it. It
// returns the raw bytes to keep per path, for files that must be cut.
func planCuts(files []budgetFile, target int64) map[string]int64 {
	kept := make([]int64, len(files)) // compressed bytes kept
	var total int64
	for i, f := range files {
		kept[i] = f.estimate
		total += f.estimate
	}
	share := max(target/20, 0) // a tail every big log keeps while others can give
	for _, pass := range cutPasses {
		if total <= target {
			break
		}
		var idx []int
		var floors []int64
		for i, f := range files {
			if f.tier != pass.tier {
				continue
			}
			floor := int64(0)
			if pass.keepShare {
				floor = share
			}
			if pass.keepProtected && f.size > 0 {
				// A protected part (kubelet's current boot) may claim at
				// most half the budget, so that a huge one cannot starve
				// nodeadm and cloud-init, which explain more failures.
				floor = max(floor, min(f.estimate*f.protected/f.size, target/2))
			}
			idx = append(idx, i)
			floors = append(floors, min(floor, kept[i]))
		}
		total = fillTier(kept, idx, floors, total, target)
	}
	cuts := map[string]int64{}
	for i, f := range files {
		if kept[i] >= f.estimate {
			continue
		}
		cuts[f.path] = f.size * kept[i] / f.estimate
	}
	return cuts
}

// fillTier lowers the kept sizes of the files at idx (not below floors) so
// that total drops to target if it can, cutting the biggest files first. It
// returns the new total.
func fillTier(kept []int64, idx []int, floors []int64, total, target int64) int64 {
	var tierSum, floorSum, highest int64
	for j, i := range idx {
		tierSum += kept[i]
		floorSum += floors[j]
		highest = max(highest, kept[i])
	}
	want := tierSum - (total - target)
	if want <= floorSum {
		for j, i := range idx {
			kept[i] = floors[j]
		}
		return total - tierSum + floorSum
	}
	level := func(l int64) int64 {
		var sum int64
		for j, i := range idx {
			sum += max(floors[j], min(kept[i], l))
		}
		return sum
	}
	lo, hi := int64(0), highest
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if level(mid) <= want {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	var newSum int64
	for j, i := range idx {
		kept[i] = max(floors[j], min(kept[i], lo))
		newSum += kept[i]
	}
	return total - tierSum + newSum
}
