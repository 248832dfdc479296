// Package e2e holds the end-to-end tests of the product: a fake node root is
// collected with the real collector (journal written by
// systemd-journal-remote, IMDSv2 served on loopback), and the bundle is
// analyzed with the embedded catalog, as an SRE and a support engineer would
// do it. It has no code of its own.
package e2e
