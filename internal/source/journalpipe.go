package source

import (
	"bytes"
	"sync"
)

// pipedFile writes to a staged File from its own goroutine, so that the
// filtering (redaction) of a big journal runs next to the journal read on
// another core instead of taking turns with it.
type pipedFile struct {
	f    *File
	ops  chan pipedOp
	done chan struct{}

	mu  sync.Mutex
	err error
}

// pipedOp is one chunk to write, or a call of Protect in its place in the
// stream.
type pipedOp struct {
	data    []byte
	protect bool
}

// pipeDepth is how many chunks may wait for the writer.
const pipeDepth = 8

func newPipedFile(f *File) *pipedFile {
	p := &pipedFile{f: f, ops: make(chan pipedOp, pipeDepth), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *pipedFile) run() {
	defer close(p.done)
	for op := range p.ops {
		if p.failed() != nil {
			continue
		}
		if op.protect {
			p.f.Protect()
			continue
		}
		if _, err := p.f.Write(op.data); err != nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
		}
	}
}

func (p *pipedFile) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Write queues a copy of b; it fails once an earlier write failed.
func (p *pipedFile) Write(b []byte) (int, error) {
	if err := p.failed(); err != nil {
		return 0, err
	}
	p.ops <- pipedOp{data: bytes.Clone(b)}
	return len(b), nil
}

// Protect calls File.Protect after the bytes queued so far are written.
func (p *pipedFile) Protect() { p.ops <- pipedOp{protect: true} }

// wait writes what is queued and returns the first write error; the
// pipedFile cannot be used afterwards.
func (p *pipedFile) wait() error {
	close(p.ops)
	<-p.done
	return p.failed()
}
