package collect

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/collect/testroot"
	"github.com/nodetriage/nodetriage/internal/journal/journaltest"
)

// The secrets corpus (testdata/secrets) is a fake node whose files and
// journal hold planted secrets of every kind the default rules cover, in
// every kind of file collect gathers, next to look-alikes that diagnosis
// needs. planted.txt lists the secrets (kind, value), lookalikes.txt the
// values that must survive.

// secretsDir is testdata/secrets of the repository.
func secretsDir() string { return filepath.Join(testroot.NodesDir(), "..", "secrets") }

// plantedSecret is one line of planted.txt. Its kind is the name of the
// rule meant to remove it.
type plantedSecret struct {
	kind, value string
	line        int
	// piece is 16 bytes of the value found in no other planted value and
	// no look-alike, looked for too, so that half a secret is caught.
	piece string
}

// loadCorpus reads both manifests of the corpus.
func loadCorpus(t *testing.T) ([]plantedSecret, []string) {
	t.Helper()
	secrets, lookalikes := readPlanted(t), readLookalikes(t)
	for i := range secrets {
		secrets[i].piece = uniquePiece(secrets, i, lookalikes)
	}
	return secrets, lookalikes
}

// uniquePiece picks, from the middle outwards, 16 bytes of a secret of 40
// bytes or more that no other value holds (JWTs, certificates and keys
// share structure).
func uniquePiece(secrets []plantedSecret, i int, lookalikes []string) string {
	v := secrets[i].value
	if len(v) < 40 {
		return ""
	}
	mid := len(v)/2 - 8
	for d := 0; d <= mid; d++ {
		for _, off := range []int{mid - d, mid + d} {
			if off < 0 || off+16 > len(v) {
				continue
			}
			piece := v[off : off+16]
			if !holdsPiece(secrets, i, lookalikes, piece) {
				return piece
			}
		}
	}
	return ""
}

func holdsPiece(secrets []plantedSecret, i int, lookalikes []string, piece string) bool {
	for j, s := range secrets {
		if j != i && strings.Contains(s.value, piece) {
			return true
		}
	}
	for _, l := range lookalikes {
		if strings.Contains(l, piece) {
			return true
		}
	}
	return false
}

func readPlanted(t *testing.T) []plantedSecret {
	t.Helper()
	var out []plantedSecret
	for _, line := range readCorpusLines(t, "planted.txt") {
		kind, value, ok := strings.Cut(line.text, "\t")
		if !ok || kind == "" || value == "" {
			t.Fatalf("planted.txt:%d: want kind<TAB>value", line.no)
		}
		out = append(out, plantedSecret{kind: kind, value: value, line: line.no})
	}
	if len(out) < 50 {
		t.Fatalf("planted.txt lists %d secrets, want at least 50", len(out))
	}
	return out
}

func readLookalikes(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, line := range readCorpusLines(t, "lookalikes.txt") {
		out = append(out, line.text)
	}
	if len(out) < 50 {
		t.Fatalf("lookalikes.txt lists %d values, want at least 50", len(out))
	}
	return out
}

type corpusLine struct {
	no   int
	text string
}

// readCorpusLines returns the lines of a manifest file of the corpus that
// are neither blank nor comments.
func readCorpusLines(t *testing.T, name string) []corpusLine {
	t.Helper()
	f, err := os.Open(filepath.Join(secretsDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for no := 1; sc.Scan(); no++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		out = append(out, corpusLine{no: no, text: text})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// materializeSecrets copies the corpus root and builds its journal.
func materializeSecrets(t *testing.T) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "node")
	if err := testroot.CopyTree(filepath.Join(secretsDir(), "root"), dest); err != nil {
		t.Fatal(err)
	}
	journaltest.Write(t, filepath.Join(dest, "var", "log", "journal", testroot.MachineID), readExport(t))
	return dest
}

func readExport(t *testing.T) []byte {
	t.Helper()
	export, err := os.ReadFile(filepath.Join(secretsDir(), "root.journal.export"))
	if err != nil {
		t.Fatal(err)
	}
	return export
}

// archiveMember is one entry of an archive, read with the standard library
// so that nothing the bundle reader might skip escapes the search.
type archiveMember struct {
	name string
	link string // link target, or a zip entry's comment
	data []byte
}

func readArchive(t *testing.T, p string) []archiveMember {
	t.Helper()
	if strings.HasSuffix(p, ".zip") {
		return readZip(t, p)
	}
	return readTarGz(t, p)
}

func readTarGz(t *testing.T, p string) []archiveMember {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []archiveMember
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archiveMember{name: h.Name, link: h.Linkname, data: data})
	}
}

func readZip(t *testing.T, p string) []archiveMember {
	t.Helper()
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out []archiveMember
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archiveMember{name: f.Name, link: f.Comment, data: data})
	}
	if zr.Comment != "" {
		out = append(out, archiveMember{name: "(zip comment)", data: []byte(zr.Comment)})
	}
	return out
}

// view is a member's content, or something decoded from it.
type view struct {
	where string // member name, then the decodings: ">base64@120>gzip"
	data  []byte
}

const (
	viewDepth      = 3  // decodings applied one after the other
	minBase64Run   = 12 // shortest run of base64 characters decoded
	maxGunzipBytes = 64 << 20
)

// expandViews returns data and everything that decodes from it: gzip
// streams, and base64 runs (standard and URL alphabets, with or without
// padding, at every alignment, single or wrapped over lines), recursively.
func expandViews(where string, data []byte) []view {
	var out []view
	var walk func(where string, data []byte, depth int)
	walk = func(where string, data []byte, depth int) {
		out = append(out, view{where, data})
		if depth == viewDepth {
			return
		}
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			if plain, err := gunzipAll(data); len(plain) > 0 {
				_ = err // a truncated stream still yields what it holds
				walk(where+">gzip", plain, depth+1)
			}
		}
		for _, run := range base64Runs(data) {
			for _, dec := range decodeBase64Run(run.text) {
				walk(fmt.Sprintf("%s>base64@%d", where, run.offset), dec, depth+1)
			}
		}
	}
	walk(where, data, 0)
	return out
}

func gunzipAll(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(io.LimitReader(zr, maxGunzipBytes))
}

type base64Run struct {
	offset int
	text   []byte
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// base64Runs finds maximal runs of base64 characters ('=' ends a run), and
// blocks of lines that hold nothing but base64 (a PEM body, a wrapped MIME
// part, a YAML block), joined.
func base64Runs(data []byte) []base64Run {
	var runs []base64Run
	for i := 0; i < len(data); {
		if !isBase64Char(data[i]) {
			i++
			continue
		}
		j := i
		for j < len(data) && isBase64Char(data[j]) {
			j++
		}
		if j-i >= minBase64Run {
			runs = append(runs, base64Run{i, data[i:j]})
		}
		i = j
	}
	return append(runs, wrappedBase64Blocks(data)...)
}

func wrappedBase64Blocks(data []byte) []base64Run {
	var runs []base64Run
	var block []byte
	start, lines := 0, 0
	flush := func() {
		if lines >= 2 && len(block) >= minBase64Run {
			runs = append(runs, base64Run{start, block})
		}
		block, lines = nil, 0
	}
	off := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		text := bytes.TrimSpace(line)
		body := bytes.TrimRight(text, "=")
		if len(body) >= 4 && allBase64(body) {
			if lines == 0 {
				start = off
			}
			block = append(block, body...)
			lines++
			if len(body) < len(text) { // padding ends the encoded data
				flush()
			}
		} else {
			flush()
		}
		off += len(line)
	}
	flush()
	return runs
}

func allBase64(b []byte) bool {
	for _, c := range b {
		if !isBase64Char(c) {
			return false
		}
	}
	return true
}

// decodeBase64Run decodes a run at each of the four alignments with the
// alphabets it can be written in.
func decodeBase64Run(run []byte) [][]byte {
	var out [][]byte
	std := !bytes.ContainsAny(run, "-_")
	url := !bytes.ContainsAny(run, "+/")
	for shift := 0; shift < 4 && len(run)-shift >= minBase64Run; shift++ {
		s := bytes.TrimRight(run[shift:], "=")
		if len(s)%4 == 1 {
			s = s[:len(s)-1]
		}
		for _, enc := range []struct {
			ok  bool
			enc *base64.Encoding
		}{{std, base64.RawStdEncoding}, {url, base64.RawURLEncoding}} {
			if !enc.ok {
				continue
			}
			dec := make([]byte, enc.enc.DecodedLen(len(s)))
			if n, err := enc.enc.Decode(dec, s); err == nil && n > 0 {
				out = append(out, dec[:n])
			}
		}
	}
	return out
}

// leak is a planted secret found in a bundle.
type leak struct {
	secret plantedSecret
	where  string
	offset int
}

// findLeaks searches every member, and everything decoded from it, for the
// planted values, and for the unique piece of the long ones.
func findLeaks(members []archiveMember, secrets []plantedSecret) []leak {
	var leaks []leak
	for _, m := range members {
		if i := firstSecret([]byte(m.name+"\x00"+m.link), secrets); i >= 0 {
			leaks = append(leaks, leak{secrets[i], "name or link of member " + m.name, 0})
		}
		for _, v := range expandViews(m.name, m.data) {
			for _, s := range secrets {
				if off := indexSecret(v.data, s); off >= 0 {
					leaks = append(leaks, leak{s, v.where, off})
				}
			}
		}
	}
	return leaks
}

func indexSecret(data []byte, s plantedSecret) int {
	if i := bytes.Index(data, []byte(s.value)); i >= 0 || s.piece == "" {
		return i
	}
	return bytes.Index(data, []byte(s.piece))
}

func firstSecret(data []byte, secrets []plantedSecret) int {
	for i, s := range secrets {
		if indexSecret(data, s) >= 0 {
			return i
		}
	}
	return -1
}

// checkNoLeaks fails the test for every planted secret found in members.
func checkNoLeaks(t *testing.T, members []archiveMember, secrets []plantedSecret) {
	t.Helper()
	var leaks []leak
	seen := map[string]bool{}
	for _, l := range findLeaks(members, secrets) {
		key := fmt.Sprint(l.secret.line, l.where, l.offset)
		if seen[key] {
			continue // decoded twice (both alphabets)
		}
		seen[key] = true
		leaks = append(leaks, l)
	}
	for _, l := range leaks {
		t.Errorf("planted.txt:%d %s secret %.12s... found in %s at offset %d", l.secret.line, l.secret.kind, l.secret.value, l.where, l.offset)
	}
	t.Logf("planted secrets: %d, found in the bundle: %d", len(secrets), len(leaks))
}

// checkLookalikes fails the test for every look-alike missing from the
// members' raw content.
func checkLookalikes(t *testing.T, members []archiveMember, lookalikes []string) {
	t.Helper()
	var all bytes.Buffer
	for _, m := range members {
		all.Write(m.data)
		all.WriteByte(0)
	}
	kept := 0
	for _, l := range lookalikes {
		if bytes.Contains(all.Bytes(), []byte(l)) {
			kept++
			continue
		}
		t.Errorf("look-alike destroyed or missing: %q", l)
	}
	t.Logf("look-alikes survived: %d/%d", kept, len(lookalikes))
}

// checkRedactionCounts checks the manifest: redaction on, a non-zero count
// for every rule that had a planted secret to remove, and no secret value in
// it (the manifest counts, it never quotes).
func checkRedactionCounts(t *testing.T, members []archiveMember, secrets []plantedSecret) *bundle.Manifest {
	t.Helper()
	var raw []byte
	for _, m := range members {
		if m.name == bundle.ManifestName {
			raw = m.data
		}
	}
	if raw == nil {
		t.Fatal("no manifest in the bundle")
	}
	if i := firstSecret(raw, secrets); i >= 0 {
		t.Errorf("the manifest quotes planted secret planted.txt:%d", secrets[i].line)
	}
	m, err := bundle.DecodeManifest(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Redaction.Enabled {
		t.Error("the manifest says redaction was off")
	}
	byRule := map[string]int{}
	for _, c := range m.Redaction.Counts {
		byRule[c.Rule] += c.Count
	}
	for _, kind := range secretKinds(secrets) {
		if byRule[kind] == 0 {
			t.Errorf("rule %s removed planted secrets but the manifest counts none for it: %v", kind, byRule)
		}
	}
	return m
}

func secretKinds(secrets []plantedSecret) []string {
	var kinds []string
	for _, s := range secrets {
		if !slices.Contains(kinds, s.kind) {
			kinds = append(kinds, s.kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// checkCorpusHonest makes sure the test is not vacuous: every planted
// secret and every look-alike is really in the corpus, the secrets
// possibly only after decoding (user data parts).
func checkCorpusHonest(t *testing.T, secrets []plantedSecret, lookalikes []string) {
	t.Helper()
	input := corpusMembers(t)
	found := map[int]bool{}
	perFile := map[string]map[int]bool{}
	for _, l := range findLeaks(input, secrets) {
		found[l.secret.line] = true
		file, _, _ := strings.Cut(l.where, ">")
		if perFile[file] == nil {
			perFile[file] = map[int]bool{}
		}
		perFile[file][l.secret.line] = true
	}
	var summary []string
	for file, lines := range perFile {
		summary = append(summary, fmt.Sprintf("%3d  %s", len(lines), file))
	}
	sort.Strings(summary)
	t.Logf("planted secrets per corpus file (some in several):\n%s", strings.Join(summary, "\n"))
	for _, s := range secrets {
		if !found[s.line] {
			t.Errorf("planted.txt:%d is not in the corpus", s.line)
		}
	}
	var all bytes.Buffer
	for _, m := range input {
		all.Write(m.data)
	}
	for _, l := range lookalikes {
		if !bytes.Contains(all.Bytes(), []byte(l)) {
			t.Errorf("look-alike %q is not in the corpus", l)
		}
	}
}

// corpusMembers are the corpus files as they are on disk, with the journal
// export text as one of them.
func corpusMembers(t *testing.T) []archiveMember {
	t.Helper()
	root := filepath.Join(secretsDir(), "root")
	var out []archiveMember
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, archiveMember{name: filepath.ToSlash(rel), data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, archiveMember{name: "root.journal.export", data: readExport(t)})
}

// secretBearingFiles are bundle files of a collect run that must exist and
// must have had something redacted: one of each kind of file.
var secretBearingFiles = []string{
	"userdata/user-data.txt",                                   // MIME user data, raw
	"userdata/part-1.nodeadm.yaml",                             // NodeConfig part
	"userdata/part-2.sh",                                       // shell part
	"userdata/part-3.sh",                                       // base64 part, decoded
	"userdata/part-4.cloud-config.yaml",                        // gzip+base64 part, decoded
	"nodeadm/nodeadm.d/20-registry.yaml",                       // NodeConfig file
	"nodeadm/config.json",                                      // NodeConfig JSON
	"nodeadm/kubelet-environment",                              // /etc/eks/kubelet/environment
	"containerd/config.toml",                                   // containerd TOML
	"containerd/config.d/50-mirror.toml",                       // containerd drop-in
	"kubelet/kubelet_service.txt",                              // unit drop-in
	"containerd/containerd_service.txt",                        // unit drop-in
	"storage/fstab.txt",                                        // mount options
	"var_log/cloud-init.log",                                   // cloud-init log
	"var_log/cloud-init-output.log",                            // script output
	"var_log/messages",                                         // syslog
	"containerd/containerd-log.txt",                            // journal unit
	"nodeadm/nodeadm-config.log",                               // journal unit (JSON)
	"docker/docker.log",                                        // journal unit
	"journal/amazon-ssm-agent.log",                             // journal unit
	"cloud-init/cloud-init-journal.log",                        // journal unit
	"journal/boot-current.log",                                 // whole journal
	"var_log/aws-routed-eni/ipamd-2026-11-27T21-00-00.000.log", // rotated .gz log
}

func TestSecretsCorpusCollect(t *testing.T) {
	secrets, lookalikes := loadCorpus(t)
	checkCorpusHonest(t, secrets, lookalikes)
	root := materializeSecrets(t)
	for _, format := range []bundle.Format{bundle.FormatTarGz, bundle.FormatZip} {
		t.Run(string(format), func(t *testing.T) {
			opts := testOptions(t, root, "")
			opts.NoIMDS, opts.NoProbes, opts.MaxSize, opts.Format = true, true, 0, format
			opts.Timeout = 60 * time.Second
			res, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			members := readArchive(t, res.Path)
			checkNoLeaks(t, members, secrets)
			checkLookalikes(t, members, lookalikes)
			m := checkRedactionCounts(t, members, secrets)
			if m.Partial {
				t.Errorf("bundle marked partial: %s", m.PartialReason)
			}
			checkSecretBearingFiles(t, members, m)
		})
	}
}

// checkSecretBearingFiles checks that every kind of file was collected
// whole and had something redacted, and logs the redactions per file.
func checkSecretBearingFiles(t *testing.T, members []archiveMember, m *bundle.Manifest) {
	t.Helper()
	names := map[string]bool{}
	for _, mb := range members {
		names[mb.name] = true
	}
	counted := map[string]int{}
	for _, c := range m.Redaction.Counts {
		counted[c.File] += c.Count
	}
	for _, s := range m.Sources {
		for _, f := range s.Files {
			if f.Truncated {
				t.Errorf("%s was cut: a cut could hide a leak", f.Path)
			}
		}
	}
	for _, f := range secretBearingFiles {
		if !names[f] {
			t.Errorf("%s missing from the bundle", f)
			continue
		}
		if counted[f] == 0 {
			t.Errorf("%s: nothing redacted", f)
		}
	}
	var lines []string
	for f, n := range counted {
		lines = append(lines, fmt.Sprintf("%5d  %s", n, f))
	}
	sort.Strings(lines)
	t.Logf("redactions per file:\n%s", strings.Join(lines, "\n"))
}

func TestSecretsCorpusRedactBundle(t *testing.T) {
	secrets, lookalikes := loadCorpus(t)
	dir := t.TempDir()
	in := awsBundle(t, dir, awsStyleMembers(t))
	for _, format := range []bundle.Format{bundle.FormatTarGz, bundle.FormatZip} {
		t.Run(string(format), func(t *testing.T) {
			res, err := RedactBundle(context.Background(), RedactOptions{Input: in, Output: t.TempDir(), Format: format, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			members := readArchive(t, res.Path)
			checkNoLeaks(t, members, secrets)
			checkLookalikes(t, members, lookalikes)
			checkRedactionCounts(t, members, secrets)
			for _, mb := range members {
				if strings.HasSuffix(mb.name, ".gz") {
					t.Errorf("%s kept compressed", mb.name)
				}
			}
		})
	}
}

// awsStyleMembers lays the corpus out the way eks-log-collector.sh names
// things (var_log/..., kubelet/..., journal units as text files), with the
// user data where a collect bundle keeps it and the rotated log still
// compressed.
func awsStyleMembers(t *testing.T) map[string]string {
	t.Helper()
	members := map[string]string{}
	for _, m := range corpusMembers(t) {
		if m.name == "root.journal.export" {
			continue
		}
		members[awsStyleName(m.name)] = string(m.data)
	}
	for name, text := range journalAsText(t, readExport(t)) {
		members[name] = text
	}
	return members
}

var awsStyleNames = map[string]string{
	"var/lib/cloud/instance/user-data.txt":      "userdata/user-data.txt",
	"var/lib/kubelet/kubeconfig":                "kubelet/kubeconfig.yaml",
	"etc/kubernetes/kubelet/config.json":        "kubelet/config.json",
	"etc/kubernetes/pki/ca.crt":                 "kubelet/ca.crt",
	"etc/eks/kubelet/environment":               "nodeadm/kubelet-environment",
	"run/eks/nodeadm/config.json":               "nodeadm/config.json",
	"etc/containerd/config.toml":                "containerd/config.toml",
	"etc/fstab":                                 "storage/fstab.txt",
	"etc/systemd/system/kubelet.service":        "kubelet/kubelet_service.txt",
	"var/run/aws-node/ipam.json":                "ipamd/ipam.json",
	"usr/lib/systemd/system/containerd.service": "containerd/containerd_service.txt",
}

func awsStyleName(rel string) string {
	if name, ok := awsStyleNames[rel]; ok {
		return name
	}
	switch {
	case strings.HasPrefix(rel, "var/log/pods/"):
		return "var_log/" + strings.TrimPrefix(rel, "var/log/pods/")
	case strings.HasPrefix(rel, "var/log/"):
		return "var_log/" + strings.TrimPrefix(rel, "var/log/")
	case strings.HasPrefix(rel, "etc/eks/nodeadm.d/"):
		return "nodeadm/nodeadm.d/" + path.Base(rel)
	}
	return rel
}

// journalUnitFiles are the text files the AWS collector writes for units.
var journalUnitFiles = map[string]string{
	"kubelet.service":          "kubelet/kubelet.log",
	"containerd.service":       "containerd/containerd-log.txt",
	"nodeadm-config.service":   "nodeadm/nodeadm-config.log",
	"nodeadm-run.service":      "nodeadm/nodeadm-run.log",
	"docker.service":           "docker/docker.log",
	"amazon-ssm-agent.service": "system/amazon-ssm-agent.log",
}

// journalAsText renders the export text the way `journalctl -u` prints it:
// one line per entry, grouped into files by unit.
func journalAsText(t *testing.T, export []byte) map[string]string {
	t.Helper()
	files := map[string]*strings.Builder{}
	entry := map[string]string{}
	emit := func() {
		if entry["MESSAGE"] == "" {
			return
		}
		name, ok := journalUnitFiles[entry["_SYSTEMD_UNIT"]]
		if !ok {
			name = "var_log/journal/other.log"
		}
		if files[name] == nil {
			files[name] = &strings.Builder{}
		}
		fmt.Fprintf(files[name], "Nov 28 03:10:00 ip-10-42-17-203 %s[%s]: %s\n", entry["SYSLOG_IDENTIFIER"], entry["_PID"], entry["MESSAGE"])
		clear(entry)
	}
	for _, line := range strings.Split(string(export), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case line == "":
			emit()
		default:
			k, v, _ := strings.Cut(line, "=")
			entry[k] = v
		}
	}
	emit()
	out := map[string]string{}
	for name, b := range files {
		out[name] = b.String()
	}
	return out
}

// TestBase64Views checks the decoder the leak search relies on.
func TestBase64Views(t *testing.T) {
	secret := "s3cr3t-Value_for:views"
	gzipped := gzipped(t, "inner "+secret+" text")
	tests := []struct {
		name string
		data string
	}{
		{"plain", "x " + secret + " y"},
		{"std padded", "auth=" + base64.StdEncoding.EncodeToString([]byte("user:"+secret)) + ","},
		{"url raw", "tok " + base64.RawURLEncoding.EncodeToString([]byte("{\"p\":\""+secret+"\"}"))},
		{"glued after an escape", `"\n` + base64.StdEncoding.EncodeToString([]byte("a:"+secret)) + `\n"`},
		{"wrapped", "body:\n" + wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("filler ", 20)+secret)), 20) + "\n--end"},
		{"gzip in base64", "part " + base64.StdEncoding.EncodeToString([]byte(gzipped)) + " end"},
		{"base64 in base64", base64.StdEncoding.EncodeToString([]byte("x " + base64.StdEncoding.EncodeToString([]byte(secret)) + " y"))},
		{"gzip member", gzipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leaks := findLeaks([]archiveMember{{name: "m", data: []byte(tt.data)}}, []plantedSecret{{kind: "k", value: secret}})
			if len(leaks) == 0 {
				t.Errorf("secret not found in %q", tt.data)
			}
		})
	}
	if leaks := findLeaks([]archiveMember{{name: "m", data: []byte("nothing to see " + base64.StdEncoding.EncodeToString([]byte("here either")))}},
		[]plantedSecret{{kind: "k", value: secret}}); len(leaks) != 0 {
		t.Errorf("false leak: %+v", leaks)
	}
}

func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}
