package probe

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ErrBadURL reports an API server URL that cannot be probed.
var ErrBadURL = errors.New("invalid API server URL")

// regionalService is an AWS endpoint every worker node needs: sts for
// authenticating to the cluster, ec2 for nodeadm and the VPC CNI, ecr-api
// for image pull credentials, s3 for image layers.
type regionalService struct {
	name, hostPrefix string
}

var regionalServices = []regionalService{
	{"sts", "sts."},
	{"ec2", "ec2."},
	{"ecr-api", "api.ecr."},
	{"s3", "s3."},
}

// Regional returns the targets a worker node of region needs: the API server
// (when apiServerURL is a valid https URL; TLS verified with ca) and the sts,
// ec2, ecr-api and s3 endpoints of the region on port 443, TCP only (when the
// region looks like a region name). China regions use amazonaws.com.cn.
func Regional(region, apiServerURL string, ca []byte) []Target {
	var targets []Target
	if t, err := APIServer(apiServerURL, ca); err == nil {
		targets = append(targets, t)
	}
	if !validRegion(region) {
		return targets
	}
	suffix := ".amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = ".amazonaws.com.cn"
	}
	for _, svc := range regionalServices {
		targets = append(targets, Target{Name: svc.name, Host: svc.hostPrefix + region + suffix, Port: 443})
	}
	return targets
}

// APIServer returns the target for the cluster endpoint apiServerURL (an
// https URL, port 443 unless given), verified against ca.
func APIServer(apiServerURL string, ca []byte) (Target, error) {
	raw := strings.TrimSpace(apiServerURL)
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	if u.Scheme != "https" {
		return Target{}, fmt.Errorf("%w: %q: scheme is not https", ErrBadURL, raw)
	}
	host := u.Hostname()
	if host == "" {
		return Target{}, fmt.Errorf("%w: %q: no host", ErrBadURL, raw)
	}
	port := 443
	if p := u.Port(); p != "" {
		port, err = strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return Target{}, fmt.Errorf("%w: %q: port %q", ErrBadURL, raw, p)
		}
	}
	return Target{Name: "apiserver", Host: host, Port: port, TLS: true, CAPEM: ca, ServerName: host, VersionPath: "/version"}, nil
}

// validRegion accepts names shaped like AWS regions (us-west-2,
// cn-northwest-1, us-gov-east-1): lower-case words and a number joined by
// hyphens.
func validRegion(region string) bool {
	parts := strings.Split(region, "-")
	if len(region) > 32 || len(parts) < 3 {
		return false
	}
	for i, part := range parts {
		last := i == len(parts)-1
		if part == "" || !allOf(part, last) {
			return false
		}
	}
	return true
}

// allOf reports whether s is all digits (digits true) or all lower-case
// letters.
func allOf(s string, digits bool) bool {
	for _, r := range s {
		if digits && (r < '0' || r > '9') || !digits && (r < 'a' || r > 'z') {
			return false
		}
	}
	return true
}

// EndpointRegion reads the region out of an EKS API server URL or host
// ("https://ABC.gr7.ap-northeast-1.eks.amazonaws.com" → "ap-northeast-1",
// also for ".eks.amazonaws.com.cn"), or returns "" for any other endpoint.
func EndpointRegion(endpoint string) string {
	host := endpoint
	if strings.Contains(endpoint, "://") {
		u, err := url.Parse(strings.TrimSpace(endpoint))
		if err != nil {
			return ""
		}
		host = u.Hostname()
	}
	labels := strings.Split(strings.ToLower(host), ".")
	for i := 1; i+2 < len(labels); i++ {
		if labels[i+1] == "eks" && labels[i+2] == "amazonaws" && validRegion(labels[i]) {
			return labels[i]
		}
	}
	return ""
}
