package userdata

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is what a part (or a non-MIME blob) contains, judged by its content
// first and by its Content-Type when the content says nothing clear.
type Kind string

const (
	KindNodeConfig  Kind = "nodeconfig"   // nodeadm NodeConfig, YAML or JSON
	KindShell       Kind = "shell"        // a script starting with #!
	KindCloudConfig Kind = "cloud-config" // #cloud-config YAML for cloud-init
	KindMIME        Kind = "mime"         // a nested or unparsable MIME message
	KindEmpty       Kind = "empty"        // nothing but white space
	KindUnknown     Kind = "unknown"      // anything else (boothooks, includes, text)
)

// NodeConfigMediaType is the Content-Type nodeadm looks for in MIME user data.
const NodeConfigMediaType = "application/node.eks.aws"

// Part is one piece of user data: a MIME part, or the whole blob when the
// user data is not multipart.
type Part struct {
	// Index is 1-based, in the order the parts appear.
	Index int
	// ContentType is the header value as written; for a non-MIME blob it is
	// the type cloud-init would give to such content (empty if none).
	ContentType string
	// MediaType is ContentType's media type, lower-cased, without parameters.
	MediaType string
	Kind      Kind
	// Encoding records the decoding applied to this part: "", "base64",
	// "gzip", "base64+gzip" or "quoted-printable". The blob-level decoding
	// is in UserData.Encoding.
	Encoding string
	// Line is the 1-based line of UserData.Decoded where Body starts.
	Line int
	// Body is the decoded content, at most Limits.PartBytes long.
	Body []byte
	// SeenByNodeadm is true when nodeadm, reading imds://user-data, would
	// decode this part as a NodeConfig.
	SeenByNodeadm bool
	// NodeConfig is set for KindNodeConfig parts that could be decoded.
	NodeConfig *NodeConfig
	// Shell is set for KindShell parts.
	Shell    *Shell
	Problems []Problem
}

// FileName is a name for storing the part on its own, with an extension
// that matches its content: "part-1.sh", "part-2.nodeadm.yaml",
// "part-3.cloud-config.yaml", "part-4.txt".
func (p Part) FileName() string {
	return fmt.Sprintf("part-%d%s", p.Index, p.extension())
}

func (p Part) extension() string {
	switch p.Kind {
	case KindShell:
		return ".sh"
	case KindNodeConfig:
		if bytes.HasPrefix(bytes.TrimSpace(p.Body), []byte("{")) {
			return ".nodeadm.json"
		}
		return ".nodeadm.yaml"
	case KindCloudConfig:
		return ".cloud-config.yaml"
	}
	if !utf8.Valid(p.Body) {
		return ".bin"
	}
	return ".txt"
}

// UserData is the parsed user data of one instance.
type UserData struct {
	// Raw is the input as given to Parse.
	Raw []byte
	// Decoded is Raw after blob-level base64 and gzip decoding.
	Decoded []byte
	// Encoding is the blob-level decoding: "", "base64", "gzip",
	// "base64+gzip", or "base64+base64" when the blob was encoded twice.
	Encoding string
	// MIME is true when the blob is a multipart/* message (possibly one
	// that nodeadm cannot read; see Problems).
	MIME bool
	// Boundary is the multipart boundary used to split the parts: the
	// declared one, or the one inferred when the declaration is broken.
	Boundary string
	Parts    []Part
	Problems []Problem
}

// Parse reads user data with DefaultLimits. It fails only on empty input
// (ErrNoUserData); anything else yields a UserData, with Problems for what
// is wrong.
func Parse(raw []byte) (*UserData, error) {
	return ParseLimited(raw, DefaultLimits)
}

// ParseLimited is Parse with explicit memory limits.
func ParseLimited(raw []byte, limits Limits) (*UserData, error) {
	if len(raw) == 0 {
		return nil, ErrNoUserData
	}
	b := &budget{limits: limits.normalized()}
	u := &UserData{Raw: raw}
	u.decodeBlob(b)
	if !u.parseMultipart(b) {
		u.addWholeBlobPart(b)
	}
	for i := range u.Parts {
		u.Parts[i].analyze()
	}
	return u, nil
}

// decodeBlob fills Decoded and Encoding the way nodeadm treats the blob:
// base64 if the whole blob is base64, then gunzip if it starts with the gzip
// magic. A second base64 layer is decoded too, with a Problem, because
// nodeadm stops after one.
func (u *UserData) decodeBlob(b *budget) {
	data := u.Raw
	if len(data) > b.limits.TotalBytes {
		data = data[:b.limits.TotalBytes]
		u.Problems = append(u.Problems, problem(CodeDecodeLimit, SeverityWarning, 0,
			"user data is %d bytes; only the first %d are read", len(u.Raw), b.limits.TotalBytes))
	}
	if dec, ok := strictBase64(data); ok {
		data, u.Encoding = dec, "base64"
		if again, ok := strictBase64(data); ok && looksDecodedWorthy(again) {
			data, u.Encoding = again, "base64+base64"
			u.Problems = append(u.Problems, problem(CodeDoubleBase64, SeverityError, 0,
				"user data is base64-encoded twice; nodeadm decodes one layer only and then fails to find a NodeConfig (could not find NodeConfig within UserData); encode it once"))
		}
	}
	if isGzip(data) {
		out, err := gunzip(data, b.allowance())
		switch {
		case err == errOverLimit:
			u.Problems = append(u.Problems, problem(CodeDecodeLimit, SeverityWarning, 0,
				"gzip-compressed user data expands beyond %d bytes; the rest is ignored", len(out)))
			data, u.Encoding = out, joinEncoding(u.Encoding, "gzip")
		case err != nil:
			u.Problems = append(u.Problems, problem(CodeDecodeGzip, SeverityError, 0,
				"user data starts like gzip but does not decompress (%v); nodeadm fails with \"failed to decompress user data\"", err))
		default:
			data, u.Encoding = out, joinEncoding(u.Encoding, "gzip")
		}
	}
	b.spend(len(data))
	u.Decoded = data
}

// looksDecodedWorthy reports whether base64-decoded bytes look like user
// data rather than noise, so a second decoding layer is only taken when it
// clearly helps.
func looksDecodedWorthy(b []byte) bool {
	if isGzip(b) {
		return true
	}
	k, _ := sniffKind(b)
	return k != KindUnknown && k != KindEmpty
}

// addWholeBlobPart makes the single part of a non-multipart blob.
func (u *UserData) addWholeBlobPart(b *budget) {
	body := u.Decoded
	var probs []Problem
	if len(body) > b.limits.PartBytes {
		body = body[:b.limits.PartBytes]
		probs = append(probs, problem(CodeDecodeLimit, SeverityWarning, 0,
			"user data is %d bytes; only the first %d are analysed", len(u.Decoded), b.limits.PartBytes))
	}
	kind, implied := sniffKind(body)
	p := Part{Index: 1, ContentType: implied, MediaType: implied, Kind: kind, Line: 1, Body: body, Problems: probs}
	// Without multipart, nodeadm decodes the whole blob as one NodeConfig.
	p.SeenByNodeadm = kind == KindNodeConfig
	u.Parts = append(u.Parts, p)
}

// analyze decodes the part's content according to its kind.
func (p *Part) analyze() {
	switch p.Kind {
	case KindNodeConfig:
		nc, probs, _ := ParseNodeConfig(p.Body)
		p.NodeConfig = nc
		p.Problems = append(p.Problems, probs...)
	case KindShell:
		sh := ParseShell(p.Body)
		p.Shell = &sh
		p.Problems = append(p.Problems, sh.AllProblems()...)
	}
	p.Problems = inPart(p.Problems, p.Index)
}

var (
	nodeConfigAPIVersionRE = regexp.MustCompile(`"?apiVersion"?\s*:\s*["']?node\.eks\.aws`)
	nodeConfigKindRE       = regexp.MustCompile(`(?m)(^|[{,\s])"?kind"?\s*:\s*["']?NodeConfig\b`)
)

// sniffWindow is how much of a body content sniffing looks at; apiVersion
// and kind sit at the top of any real NodeConfig.
const sniffWindow = 64 << 10

// looksLikeNodeConfig reports whether b is probably a NodeConfig document.
func looksLikeNodeConfig(b []byte) bool {
	b = b[:min(len(b), sniffWindow)]
	if !bytes.Contains(b, []byte("node.eks.aws")) && !bytes.Contains(b, []byte("NodeConfig")) {
		return false
	}
	return nodeConfigAPIVersionRE.Match(b) || nodeConfigKindRE.Match(b)
}

// contentPrefixes maps cloud-init's "starts with" rules to content types.
// Longer prefixes come first where one is a prefix of another.
var contentPrefixes = []struct {
	prefix      string
	kind        Kind
	contentType string
}{
	{"#!", KindShell, "text/x-shellscript"},
	{"#cloud-config-archive", KindUnknown, "text/cloud-config-archive"},
	{"#cloud-config", KindCloudConfig, "text/cloud-config"},
	{"#cloud-boothook", KindUnknown, "text/cloud-boothook"},
	{"#include-once", KindUnknown, "text/x-include-once-url"},
	{"#include", KindUnknown, "text/x-include-url"},
	{"#part-handler", KindUnknown, "text/part-handler"},
	{"#upstart-job", KindUnknown, "text/upstart-job"},
	{"## template: jinja", KindUnknown, "text/jinja2"},
}

// sniffKind classifies content and returns the content type cloud-init
// (or nodeadm, for NodeConfig) would associate with it.
func sniffKind(body []byte) (Kind, string) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 {
		return KindEmpty, ""
	}
	for _, cp := range contentPrefixes {
		if bytes.HasPrefix(trimmed, []byte(cp.prefix)) {
			return cp.kind, cp.contentType
		}
	}
	if hasMIMEHeaderStart(trimmed) {
		return KindMIME, ""
	}
	if looksLikeNodeConfig(trimmed) {
		return KindNodeConfig, NodeConfigMediaType
	}
	return KindUnknown, ""
}

func hasMIMEHeaderStart(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 32)]))
	return strings.HasPrefix(head, "mime-version:") || strings.HasPrefix(head, "content-type:")
}

// NodeadmParts returns the parts nodeadm would decode as NodeConfig when it
// reads imds://user-data, in merge order.
func (u *UserData) NodeadmParts() []Part {
	var out []Part
	for _, p := range u.Parts {
		if p.SeenByNodeadm {
			out = append(out, p)
		}
	}
	return out
}

// NodeConfig returns the configuration nodeadm would build from the user
// data alone (all parts it reads, merged in order), and false when it would
// find none ("could not find NodeConfig within UserData").
func (u *UserData) NodeConfig() (*NodeConfig, bool) {
	var configs []*NodeConfig
	for _, p := range u.NodeadmParts() {
		if p.NodeConfig != nil {
			configs = append(configs, p.NodeConfig)
		}
	}
	if len(configs) == 0 {
		return nil, false
	}
	return MergeNodeConfigs(configs...), true
}

// Check returns every problem found in the user data, including the
// validation of the NodeConfig nodeadm would use (its parts merged), of
// NodeConfig parts nodeadm skips, of NodeConfig files written by shell
// parts and of bootstrap.sh calls, all as of now.
func (u *UserData) Check(now time.Time) []Problem {
	out := append([]Problem(nil), u.Problems...)
	for _, p := range u.Parts {
		out = append(out, p.Problems...)
	}
	if nc, ok := u.NodeConfig(); ok {
		out = append(out, inPart(nc.Validate(now), u.NodeadmParts()[0].Index)...)
	}
	for _, p := range u.Parts {
		switch {
		case p.Shell != nil:
			out = append(out, inPart(p.Shell.Validate(now), p.Index)...)
		case p.NodeConfig != nil && !p.SeenByNodeadm:
			// nodeadm skips this part, but it is what the author meant.
			out = append(out, inPart(p.NodeConfig.Validate(now), p.Index)...)
		}
	}
	return out
}
