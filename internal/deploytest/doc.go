// Package deploytest checks the files under deploy/ that no Go code imports:
// the AWS Systems Manager document, the script it runs and the Kubernetes
// manifests. There is no real SSM, S3 or cluster in CI, so the tests check
// what can be checked without them: the document's schema fields and
// parameter patterns, that the document carries exactly the script in
// deploy/ssm/collect.sh, that the script passes bash -n and shellcheck, that
// it behaves as intended when run against loopback HTTPS servers and small
// stand-ins for collect and the AWS CLI, and that the manifests keep the
// host's file system read-only and point collect at it.
//
// The package holds only tests. Regenerate the document after editing the
// script with
//
//	go test ./internal/deploytest -run TestSSMDocumentRunsTheScript -update
package deploytest
