package collect

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/source"
)

// TestSampledEstimateIsCloseToWhole checks that the sampled estimate of a
// big log stays near the size of the whole file compressed.
func TestSampledEstimateIsCloseToWhole(t *testing.T) {
	cases := []struct {
		name string
		line func(r *rand.Rand, i int) string
	}{
		{"klog lines", func(r *rand.Rand, i int) string {
			return fmt.Sprintf("I1129 10:%02d:%02d.%06d 4242 kubelet.go:%d] \"Pod status updated\" pod=\"ns/pod-%d\" status=%d\n",
				i/60%60, i%60, r.IntN(1e6), r.IntN(3000), r.IntN(500), r.IntN(5))
		}},
		{"random hex", func(r *rand.Rand, _ int) string {
			return fmt.Sprintf("%016x%016x%016x\n", r.Uint64(), r.Uint64(), r.Uint64())
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var b bytes.Buffer
			for i := 0; b.Len() < 3*sampledAbove/2; i++ {
				b.WriteString(tc.line(r, i))
			}
			data := b.Bytes()
			whole, err := compressedBytes(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			sampled, err := sampledCompressedSize(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if sampled < whole*8/10 || sampled > whole*12/10 {
				t.Errorf("sampled estimate %d, whole file compresses to %d", sampled, whole)
			}
		})
	}
}

// TestSourceEntryNotesEstimatedOriginalSizes checks that a file whose
// original size is an estimate is named in the source's error field, next
// to any error the source already had, and that the source shows as cut.
func TestSourceEntryNotesEstimatedOriginalSizes(t *testing.T) {
	cut := source.Record{Path: "journal/boot-current.log", Bytes: 10, OriginalBytes: 90, Truncated: true, OriginalEstimated: true}
	whole := source.Record{Path: "journal/boot-previous.log", Bytes: 5, OriginalBytes: 5}
	cases := []struct {
		name       string
		out        outcome
		records    []source.Record
		wantStatus bundle.Status
		wantError  []string
		noNote     bool
	}{
		{"estimated", outcome{name: "journal/boots", status: bundle.StatusOK}, []source.Record{cut, whole},
			bundle.StatusTruncated, []string{"journal/boot-current.log", "estimate"}, false},
		{"estimated after an error", outcome{name: "journal/boots", status: bundle.StatusTimeout, err: "deadline"}, []source.Record{cut},
			bundle.StatusTimeout, []string{"deadline; original_bytes of journal/boot-current.log"}, false},
		{"nothing estimated", outcome{name: "journal/boots", status: bundle.StatusOK}, []source.Record{whole},
			bundle.StatusOK, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := sourceEntry(tc.out, tc.records)
			if got.Status != tc.wantStatus {
				t.Errorf("status %q, want %q", got.Status, tc.wantStatus)
			}
			for _, w := range tc.wantError {
				if !strings.Contains(got.Error, w) {
					t.Errorf("error %q lacks %q", got.Error, w)
				}
			}
			if tc.noNote && got.Error != "" {
				t.Errorf("error %q, want none", got.Error)
			}
			if got.OriginalBytes != sumOriginal(tc.records) {
				t.Errorf("original bytes %d, want %d", got.OriginalBytes, sumOriginal(tc.records))
			}
		})
	}
}

func sumOriginal(records []source.Record) int64 {
	var n int64
	for _, r := range records {
		n += r.OriginalBytes
	}
	return n
}
