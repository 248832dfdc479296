package userdata

import (
	"errors"
	"fmt"
	"sort"
)

// ErrNoUserData is returned by Parse when the blob is empty: the instance
// has no user data, or it was not collected.
var ErrNoUserData = errors.New("user data is empty")

// ErrInvalidNodeConfig is returned (wrapped) by ParseNodeConfig when the
// document cannot be decoded at all; nodeadm logs such a case as
// "failed to decode node config".
var ErrInvalidNodeConfig = errors.New("invalid NodeConfig document")

// Severity says how much a Problem matters for a node joining its cluster.
type Severity string

const (
	// SeverityError: the node will not join, or nodeadm / bootstrap.sh stops.
	SeverityError Severity = "error"
	// SeverityWarning: likely a mistake, but the node may still come up.
	SeverityWarning Severity = "warning"
	// SeverityInfo: worth knowing when reading the user data.
	SeverityInfo Severity = "info"
)

// Problem is one finding about the user data. Code is a stable identifier
// that analyze and the pattern catalog can match on; Message is a sentence
// for people and, where nodeadm or bootstrap.sh has its own wording for the
// failure, it quotes that wording.
type Problem struct {
	Code     string
	Severity Severity
	Message  string
	// Line is 1-based. For user-data level problems it counts lines of
	// UserData.Decoded; for part problems lines of Part.Body; for shell
	// problems lines of the script. 0 means no particular line.
	Line int
	// Part is the 1-based index of the part concerned; 0 for the whole blob.
	Part int
}

func (p Problem) String() string {
	where := ""
	switch {
	case p.Part > 0 && p.Line > 0:
		where = fmt.Sprintf(" (part %d, line %d)", p.Part, p.Line)
	case p.Part > 0:
		where = fmt.Sprintf(" (part %d)", p.Part)
	case p.Line > 0:
		where = fmt.Sprintf(" (line %d)", p.Line)
	}
	return fmt.Sprintf("%s [%s] %s%s", p.Severity, p.Code, p.Message, where)
}

// Stable problem codes. Codes never change meaning once published.
const (
	// Decoding of the blob or of a part.
	CodeDecodeLimit       = "decode-size-limit"
	CodeDecodeGzip        = "decode-gzip-corrupt"
	CodeDoubleBase64      = "userdata-double-base64"
	CodeBadTransferEncode = "mime-bad-transfer-encoding"

	// MIME structure.
	CodeMIMEMissingBlankLine = "mime-missing-blank-line"
	CodeMIMEWrongContentType = "mime-wrong-content-type"
	CodeMIMENoBoundary       = "mime-no-boundary"
	CodeMIMEBoundaryNotFound = "mime-boundary-not-found"
	CodeMIMEMissingClose     = "mime-missing-close-boundary"
	CodeMIMEGluedHeaders     = "mime-glued-headers"
	CodeMIMELeadingBlank     = "mime-leading-blank-line"
	CodeMIMEIndentedHeaders  = "mime-indented-headers"
	CodeMIMEBadContentType   = "mime-bad-content-type"
	CodeMIMENested           = "mime-nested-multipart"

	// NodeConfig decoding.
	CodeNodeConfigYAML           = "nodeconfig-yaml"
	CodeNodeConfigDecode         = "nodeconfig-decode"
	CodeNodeConfigUnknownField   = "nodeconfig-unknown-field"
	CodeNodeConfigExtraDocuments = "nodeconfig-extra-documents"

	// NodeConfig validation.
	CodeNodeConfigBadAPIVersion   = "nodeconfig-bad-api-version"
	CodeNodeConfigWrongKind       = "nodeconfig-wrong-kind"
	CodeNodeConfigMissingName     = "nodeconfig-missing-name"
	CodeNodeConfigBadName         = "nodeconfig-bad-name"
	CodeNodeConfigMissingEndpoint = "nodeconfig-missing-endpoint"
	CodeNodeConfigEndpointHTTPS   = "nodeconfig-endpoint-not-https"
	CodeNodeConfigMissingCA       = "nodeconfig-missing-ca"
	CodeNodeConfigCANotBase64     = "nodeconfig-ca-not-base64"
	CodeNodeConfigCADoubleBase64  = "nodeconfig-ca-double-base64"
	CodeNodeConfigCANotPEM        = "nodeconfig-ca-not-pem"
	CodeNodeConfigCAExpired       = "nodeconfig-ca-expired"
	CodeNodeConfigCANotYetValid   = "nodeconfig-ca-not-yet-valid"
	CodeNodeConfigMissingCIDR     = "nodeconfig-missing-cidr"
	CodeNodeConfigBadCIDR         = "nodeconfig-bad-cidr"
	CodeNodeConfigOutpostID       = "nodeconfig-outpost-id"
	CodeNodeConfigUnexpanded      = "nodeconfig-unexpanded-variable"
	CodeNodeConfigBadEnum         = "nodeconfig-bad-value"
	CodeNodeConfigUnknownGate     = "nodeconfig-unknown-feature-gate"

	// Shell scripts.
	CodeConfigSourceTwoSlashes  = "config-source-two-slashes"
	CodeConfigSourceScheme      = "config-source-unsupported-scheme"
	CodeConfigSourceMissing     = "config-source-missing"
	CodeConfigSourceMismatch    = "config-source-path-mismatch"
	CodeNodeadmInitInUserData   = "nodeadm-init-in-userdata"
	CodeShellLabelUnexpanded    = "shell-label-unexpanded"
	CodeShellQuotedHeredocVars  = "shell-heredoc-quoted-variables"
	CodeShellUnterminated       = "shell-unterminated"
	CodeShellUndefinedVariable  = "shell-undefined-variable"
	CodeBootstrapMissingCluster = "bootstrap-missing-cluster-name"
	CodeBootstrapBadClusterName = "bootstrap-bad-cluster-name"
	CodeBootstrapMangledDash    = "bootstrap-mangled-dash"
	CodeBootstrapUnknownFlag    = "bootstrap-unknown-flag"
	CodeBootstrapMissingValue   = "bootstrap-missing-flag-value"
	CodeBootstrapEndpointHTTPS  = "bootstrap-endpoint-not-https"
	CodeBootstrapBadDNSIP       = "bootstrap-bad-dns-cluster-ip"
	CodeBootstrapRuntime        = "bootstrap-container-runtime"
	CodeBootstrapCANotBase64    = "bootstrap-ca-not-base64"
	CodeBootstrapCADoubleBase64 = "bootstrap-ca-double-base64"
	CodeBootstrapCANotPEM       = "bootstrap-ca-not-pem"
	CodeBootstrapCAExpired      = "bootstrap-ca-expired"
	CodeBootstrapCANotYetValid  = "bootstrap-ca-not-yet-valid"
	CodeBootstrapUnexpanded     = "bootstrap-unexpanded-variable"
)

func problem(code string, sev Severity, line int, format string, args ...any) Problem {
	return Problem{Code: code, Severity: sev, Line: line, Message: fmt.Sprintf(format, args...)}
}

// inPart returns a copy of ps with Part set to index, leaving problems that
// already name a part unchanged.
func inPart(ps []Problem, index int) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		if p.Part == 0 {
			p.Part = index
		}
		out[i] = p
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
