package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxDirDepth is how many directory levels below Query.Dir are searched for
// journal files. /var/log/journal/<machine-id>/system.journal is one level
// down; a whole root file system is not meant to be searched.
const MaxDirDepth = 3

// journalHeaderMagic opens every journal file.
const journalHeaderMagic = "LPKSHHRH"

// Byte offsets of the header fields checked before a file is opened.
const (
	headerSizeOffset  = 88
	arenaSizeOffset   = 96
	headerPrefixBytes = 104
)

// journalFiles are the files found under a directory, split into the ones to
// read and the problems with the others.
type journalFiles struct {
	paths    []string
	problems []error
}

// err returns the problems joined, or nil.
func (f journalFiles) err() error {
	return errors.Join(f.problems...)
}

// skip moves path from the files to read to the problems.
func (f *journalFiles) skip(path string, cause error) {
	f.paths = slices.DeleteFunc(f.paths, func(p string) bool { return p == path })
	f.problems = append(f.problems, unreadableFile(path, cause))
}

// unreadableFile builds the error for one skipped journal file.
func unreadableFile(path string, cause error) error {
	return fmt.Errorf("%s: %w: %w", path, ErrUnreadableFile, cause)
}

// findJournalFiles lists the *.journal and *.journal~ files under dir, sorted
// by path, and drops those whose header shows they cannot be read. It fails
// with ErrNoJournal when nothing usable is left.
func findJournalFiles(dir string) (journalFiles, error) {
	var found journalFiles
	if dir == "" {
		return found, fmt.Errorf("journal: Query.Dir is empty: %w", ErrInvalidQuery)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return found, fmt.Errorf("journal directory %s: %w: %w", dir, ErrNoJournal, err)
	}
	if !info.IsDir() {
		return found, fmt.Errorf("journal directory %s: %w: not a directory", dir, ErrNoJournal)
	}
	candidates, walkProblems := walkJournalFiles(dir)
	found.problems = walkProblems
	for _, path := range candidates {
		if err := checkJournalHeader(path); err != nil {
			found.problems = append(found.problems, unreadableFile(path, err))
			continue
		}
		found.paths = append(found.paths, path)
	}
	if len(found.paths) == 0 {
		return found, noJournal(dir, len(candidates), found.err())
	}
	return found, nil
}

// noJournal builds the ErrNoJournal error for dir.
func noJournal(dir string, candidates int, problems error) error {
	if candidates == 0 {
		return errors.Join(fmt.Errorf("journal directory %s: %w: no *.journal files", dir, ErrNoJournal), problems)
	}
	return errors.Join(fmt.Errorf("journal directory %s: %w: none of %d files could be read", dir, ErrNoJournal, candidates), problems)
}

// walkJournalFiles returns the journal file paths under dir and the errors
// met on the way (unreadable subdirectories), without failing.
func walkJournalFiles(dir string) ([]string, []error) {
	var paths []string
	var problems []error
	root := filepath.Clean(dir)
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != root {
				problems = append(problems, unreadableFile(path, err))
			}
			return nil
		}
		if d.IsDir() {
			if depthBelow(root, path) > MaxDirDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if isJournalFileName(d.Name()) && isRegularFile(path, d) {
			paths = append(paths, path)
		}
		return nil
	})
	slices.Sort(paths)
	return paths, problems
}

// depthBelow counts the directory levels between root and path.
func depthBelow(root, path string) int {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

// isJournalFileName tells whether name is an active, archived or
// dirty-archived journal file.
func isJournalFileName(name string) bool {
	return strings.HasSuffix(name, ".journal") || strings.HasSuffix(name, ".journal~")
}

// isRegularFile tells whether the entry is a regular file, following a
// symbolic link.
func isRegularFile(path string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// checkJournalHeader rejects files that libsystemd would refuse to open:
// too short, a wrong signature, or a header and data area larger than the
// file (a truncated copy).
func checkJournalHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	header := make([]byte, headerPrefixBytes)
	if _, err := io.ReadFull(f, header); err != nil {
		return fmt.Errorf("header: file too short (%d bytes)", info.Size())
	}
	return validateHeader(header, info.Size())
}

// validateHeader checks the first headerPrefixBytes of a journal file against
// the file's size.
func validateHeader(header []byte, fileSize int64) error {
	if string(header[:len(journalHeaderMagic)]) != journalHeaderMagic {
		return errors.New("header: not a journal file (bad signature)")
	}
	headerSize := binary.LittleEndian.Uint64(header[headerSizeOffset:])
	arenaSize := binary.LittleEndian.Uint64(header[arenaSizeOffset:])
	if headerSize < headerPrefixBytes || headerSize > uint64(fileSize) {
		return fmt.Errorf("header: header size %d does not fit a %d-byte file", headerSize, fileSize)
	}
	if arenaSize > uint64(fileSize)-headerSize {
		return fmt.Errorf("header: truncated: header and data need %d bytes, file has %d", headerSize+arenaSize, fileSize)
	}
	return nil
}
