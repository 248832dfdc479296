// Package userdata reads the EC2 user data of an EKS worker node the way the
// node's own tools read it, and explains what went wrong with it.
//
// Three formats meet in user data: a MIME multi-part message (the form
// cloud-init and nodeadm both understand), a nodeadm NodeConfig document
// (YAML or JSON, apiVersion node.eks.aws/v1alpha1), and shell scripts that
// call the AL2 /etc/eks/bootstrap.sh or the AL2023 nodeadm binary. Parse
// splits and decodes the blob like nodeadm does (base64 and gzip sniffing,
// multipart/* parts), ParseNodeConfig and NodeConfig.Validate check a
// NodeConfig with nodeadm's own rules and messages, and ParseShell reads a
// script line by line to find bootstrap.sh calls, nodeadm init calls, the
// files written through heredocs and the kubelet node labels.
//
// Nothing here executes or expands anything: shell variables stay as written
// and are reported as such. Every decoder is bounded (see Limits), so a gzip
// bomb in user data cannot exhaust memory, and parsers never fail on odd
// input: they return what they understood plus Problems.
package userdata
