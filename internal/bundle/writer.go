package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mholt/archives"
)

// Format is the archive format of a bundle.
type Format string

// The formats collect can write.
const (
	FormatTarGz  Format = "tar.gz"
	FormatTarZst Format = "tar.zst"
	FormatZip    Format = "zip"
)

// ErrUnknownFormat is returned for a --format value collect cannot write.
var ErrUnknownFormat = errors.New("unknown bundle format")

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.TrimPrefix(s, ".")); f {
	case FormatTarGz, FormatTarZst, FormatZip:
		return f, nil
	case "tgz":
		return FormatTarGz, nil
	}
	return "", fmt.Errorf("%w %q (want tar.gz, tar.zst or zip)", ErrUnknownFormat, s)
}

func (f Format) archiver() archives.Archiver {
	switch f {
	case FormatTarZst:
		return archives.CompressedArchive{Compression: archives.Zstd{}, Archival: archives.Tar{}}
	case FormatZip:
		return archives.Zip{}
	default:
		// pgzip compresses blocks on every core: the archive is the last,
		// single-threaded step of a collect otherwise.
		return archives.CompressedArchive{Compression: archives.Gz{Multithreaded: true}, Archival: archives.Tar{}}
	}
}

// WriteDir archives every regular file under dir into out, manifest.json
// first (so a reader meets it early) and the rest in name order. Names in the
// archive are relative to dir, slash separated.
func WriteDir(ctx context.Context, out io.Writer, format Format, dir string) error {
	files, err := filesUnder(dir)
	if err != nil {
		return err
	}
	if err := format.archiver().Archive(ctx, out, files); err != nil {
		return fmt.Errorf("writing %s archive: %w", format, err)
	}
	return nil
}

func filesUnder(dir string) ([]archives.FileInfo, error) {
	var files []archives.FileInfo
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("listing %s: %w", p, err)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return fmt.Errorf("naming %s: %w", p, err)
		}
		files = append(files, archives.FileInfo{
			FileInfo:      info,
			NameInArchive: filepath.ToSlash(rel),
			Open:          func() (fs.File, error) { return os.Open(p) },
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(files, func(i, j int) bool {
		mi, mj := files[i].NameInArchive == ManifestName, files[j].NameInArchive == ManifestName
		if mi != mj {
			return mi
		}
		return files[i].NameInArchive < files[j].NameInArchive
	})
	return files, nil
}
