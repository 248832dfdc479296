package benchgen

import (
	"math/rand/v2"
)

// gen is the state of one file being written: its random stream, the node
// it describes, the time of the current line and, for files that replay a
// fixed sequence of messages, where in that sequence it is.
type gen struct {
	r   *rand.Rand
	id  *identity
	iso bool // journal dumps use short-iso-precise (our layout), not short
	now stamp
	// boot is when the kernel started, for dmesg's seconds since boot.
	boot int64
	seq  int
}

// payloadMaker appends the message part of one line, without any prefix.
type payloadMaker func(g *gen, b []byte) []byte

// weighted is a list of makers where each one appears as many times as its
// weight, so that picking one is a single random index.
type weighted []payloadMaker

// option is a maker with its weight, for building a weighted list.
type option struct {
	weight int
	make   payloadMaker
}

func newWeighted(opts ...option) weighted {
	var w weighted
	for _, o := range opts {
		for range o.weight {
			w = append(w, o.make)
		}
	}
	return w
}

func (w weighted) pick(g *gen) payloadMaker {
	return w[g.r.IntN(len(w))]
}

// journalPrefix appends the prefix journalctl prints before a message: the
// stamp (short-iso-precise or short, by layout), the host and "ident[pid]: ".
func (g *gen) journalPrefix(b []byte, ident string, pid int) []byte {
	if g.iso {
		b = g.now.appendISOMicro(b)
	} else {
		b = g.now.appendShort(b, false)
	}
	b = append(b, ' ')
	b = append(b, g.id.hostname...)
	return appendIdent(b, ident, pid)
}

// syslogPrefix appends rsyslog's traditional prefix as /var/log/messages
// has it: "Nov  2 14:26:31 ip-10-0-1-2 ident[pid]: ".
func (g *gen) syslogPrefix(b []byte, ident string, pid int) []byte {
	b = g.now.appendShort(b, true)
	b = append(b, ' ')
	b = append(b, g.id.shortHost...)
	return appendIdent(b, ident, pid)
}

// appendIdent appends " ident[pid]: ", or " ident: " when pid is 0.
func appendIdent(b []byte, ident string, pid int) []byte {
	b = append(b, ' ')
	b = append(b, ident...)
	if pid > 0 {
		b = append(b, '[')
		b = appendInt(b, pid)
		b = append(b, ']')
	}
	return append(b, ':', ' ')
}

// klogHeader appends "I1129 14:26:31.123456    2817 src] ".
func (g *gen) klogHeader(b []byte, level byte, pid int, src string) []byte {
	b = append(b, level)
	b = g.now.appendKlog(b)
	b = append(b, ' ')
	b = appendPadded(b, int64(pid), 7, ' ')
	b = append(b, ' ')
	b = append(b, src...)
	return append(b, ']', ' ')
}

// pod picks a pod of the node.
func (g *gen) pod() *pod {
	return &g.id.pods[g.r.IntN(len(g.id.pods))]
}

// container picks a container of p.
func (g *gen) container(p *pod) string {
	return p.containers[g.r.IntN(len(p.containers))]
}

// volume picks a volume of p.
func (g *gen) volume(p *pod) string {
	return p.volumes[g.r.IntN(len(p.volumes))]
}

// next returns the next index of a sequence of n messages, cycling.
func (g *gen) next(n int) int {
	i := g.seq % n
	g.seq++
	return i
}
