package signature

import (
	"errors"
	"fmt"
	"strings"
)

// Kinds of load errors. Every error returned by Load wraps one of them, so
// callers can tell them apart with errors.Is.
var (
	// ErrNoFiles: the directory holds no *.yaml file.
	ErrNoFiles = errors.New("no catalog files")
	// ErrSyntax: the file is not valid YAML, or a value has the wrong type.
	ErrSyntax = errors.New("invalid YAML")
	// ErrUnknownField: a key the format does not define (a typo would
	// otherwise silently disable part of a signature).
	ErrUnknownField = errors.New("unknown field")
	// ErrInvalid: a field has a value outside what the format allows.
	ErrInvalid = errors.New("invalid value")
	// ErrDuplicate: two signatures (or two sources) share one name.
	ErrDuplicate = errors.New("duplicate name")
	// ErrUnknownReference: explains or sources names something that does
	// not exist, or explains forms a cycle.
	ErrUnknownReference = errors.New("unknown reference")
	// ErrBadRegex: a regex does not compile.
	ErrBadRegex = errors.New("bad regex")
	// ErrNoLiteral: no prefilter literal can be derived from a regex and
	// none is declared, or a declared literal does not occur in the regex.
	ErrNoLiteral = errors.New("no usable prefilter literal")
	// ErrBadTemplate: a summary or fix template is malformed or names a
	// capture the regexes do not define.
	ErrBadTemplate = errors.New("bad template")
)

// LoadError locates one problem in a catalog file.
type LoadError struct {
	File  string // file name inside the catalog directory
	Line  int    // 1-based; 0 when unknown
	ID    string // signature id or source name; empty when unknown
	Field string // e.g. "regex", "match.any[1].literals"; may be empty
	Kind  error  // one of the Err* sentinels
	Err   error  // the detail
}

// Error renders `file:line: signature "id": field: detail`.
func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.ID != "" {
		fmt.Fprintf(&b, "signature %q: ", e.ID)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString(e.Kind.Error())
	}
	return b.String()
}

// Unwrap exposes both the kind and the detail to errors.Is and errors.As.
func (e *LoadError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// fieldErr builds a LoadError whose file and id are filled in later.
func fieldErr(line int, field string, kind error, format string, args ...any) *LoadError {
	return &LoadError{Line: line, Field: field, Kind: kind, Err: fmt.Errorf(format, args...)}
}

// errorList collects load errors of one load; it stops growing at a limit
// so a wildly broken file does not produce thousands of lines.
type errorList struct {
	errs []error
}

const maxLoadErrors = 50

func (l *errorList) add(err error) {
	if err != nil && len(l.errs) < maxLoadErrors {
		l.errs = append(l.errs, err)
	}
}

// addIn adds err after filling in the file and id when it is a LoadError
// that lacks them.
func (l *errorList) addIn(file, id string, err error) {
	var le *LoadError
	if errors.As(err, &le) {
		if le.File == "" {
			le.File = file
		}
		if le.ID == "" {
			le.ID = id
		}
	}
	l.add(err)
}

func (l *errorList) err() error {
	return errors.Join(l.errs...)
}
