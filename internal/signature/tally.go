package signature

import (
	"slices"
	"time"
)

// Tally adds up the hits of a whole bundle and decides, per signature,
// whether its match part is satisfied: min_count hits (within window, when
// set), and for match.all that every item has them. Facts are checked
// separately with Signature.FactsHold. A Tally is not safe for concurrent
// use.
type Tally struct {
	m     *Matcher
	slots [][]slot // per signature: one slot for any, one per item for all
}

type slot struct {
	count int
	times []time.Time // hit times, kept only when the signature has a window
}

// NewTally starts an empty tally for the matcher's signatures.
func (m *Matcher) NewTally() *Tally {
	t := &Tally{m: m, slots: make([][]slot, len(m.sigs))}
	for i, s := range m.sigs {
		n := 1
		if s.Match != nil && s.Match.Mode == All {
			n = len(s.Match.Items)
		}
		t.slots[i] = make([]slot, n)
	}
	return t
}

// Add records one hit; at is the time of its line, zero when unknown.
func (t *Tally) Add(h Hit, at time.Time) {
	s := t.m.sigs[h.Sig]
	if s.Match == nil {
		return
	}
	k := 0
	if s.Match.Mode == All {
		k = h.Item
	}
	sl := &t.slots[h.Sig][k]
	sl.count++
	if s.Match.Window > 0 && !at.IsZero() {
		sl.times = append(sl.times, at)
	}
}

// Count is the number of hits recorded for a signature.
func (t *Tally) Count(sig int) int {
	n := 0
	for _, sl := range t.slots[sig] {
		n += sl.count
	}
	return n
}

// Satisfied reports whether the signature's match requirement is met. A
// signature without match is satisfied (it is a pure fact check). With a
// window, hits whose time is unknown are left out, unless no hit has a
// time at all (a log without timestamps): then only the count is checked.
func (t *Tally) Satisfied(sig int) bool {
	match := t.m.sigs[sig].Match
	if match == nil {
		return true
	}
	for _, sl := range t.slots[sig] {
		if !sl.enough(match.MinCount, match.Window) {
			return false
		}
	}
	return true
}

func (sl *slot) enough(minCount int, window time.Duration) bool {
	if sl.count < minCount {
		return false
	}
	if window <= 0 || len(sl.times) == 0 {
		return true
	}
	return withinWindow(sl.times, minCount, window)
}

// withinWindow reports whether minCount of the times fall within one
// window (a sliding window over the sorted times).
func withinWindow(times []time.Time, minCount int, window time.Duration) bool {
	sorted := slices.Clone(times)
	slices.SortFunc(sorted, func(a, b time.Time) int { return a.Compare(b) })
	for i := 0; i+minCount-1 < len(sorted); i++ {
		if sorted[i+minCount-1].Sub(sorted[i]) <= window {
			return true
		}
	}
	return false
}
